#pragma once
// Where poreplab's data lives without being told: the configs/, data/, machines/ and
// plots/ folders of a checkout's experiments/ or of an install's share/poreplab, the
// Python that draws the plots, and the disk directory that measured layers are written in.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace poreplab {

// The directory holding configs/, data/, machines/ and plots/, first of:
//  - $POREPLAB_SHARE_DIR when set (std::runtime_error when it holds no data/custom-hardware.json);
//  - above the executable: <p>/experiments of a checkout (build dirs live inside it) or
//    <p>/share/poreplab of an install (bin/../share/poreplab);
//  - experiments/ of the tree this binary was configured from, while it exists.
// nullopt when none is found.
std::optional<std::filesystem::path> share_dir();
// share_dir(), or std::runtime_error saying it was not found and how to name it.
std::filesystem::path require_share_dir();

// The Python to run plots/plot.py with: $POREPLAB_PYTHON when set; else the checkout's
// .venv/bin/python when share_dir() is a checkout's experiments/ with a venv; else python3
// from PATH when it can import matplotlib; else nullopt (the plots are skipped).
std::optional<std::filesystem::path> plot_python();

// The directory on a disk where measurements write layers (labeling with the layers on
// disk, PC2 of a window from files) when no flag names one: $POREPLAB_LAYER_DIR, else /var/tmp.
inline constexpr const char* kLayerDirEnv = "POREPLAB_LAYER_DIR";
std::filesystem::path default_layer_dir();

// Runs argv[0] (looked up in PATH when it has no '/') with argv and waits for it. Its exit
// status, 128 + the signal that killed it, or -1 when it could not be started. quiet: its
// stdout and stderr go to /dev/null.
int run_program(const std::vector<std::string>& argv, bool quiet = false);

}  // namespace poreplab
