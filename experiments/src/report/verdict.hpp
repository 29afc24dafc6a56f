#pragma once
// The verdict: how sequential SDR labeling (PC1) fares on GPUs versus CPUs, per
// registered sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB) and device:
//   - wall time of PC1 (every layer of the proof) for one sector,
//   - how many sectors the device labels at once (memory: the GPU memory planner, RAM
//     for the CPU: two layers per sector plus the shared parent table),
//   - sectors per hour at the best measured (or modeled) throughput,
//   - optionally USD per sector/hour of throughput (--cost DEVICE=USD),
// and per size the crossover: the sector count from which the GPU labels more per second
// than the whole CPU.
// Every figure says where it comes from: measured (the record it was read from, at this
// sector size), extrapolated (a measured per-node rate from another size), modeled (the
// SASS latency model, never measured), or none. Only Filecoin's scheme (sdr/sha256) is
// judged. Inputs are result directories of `poreplab run` (label records; cuda-emu
// records stand in for the GPU only when no GPU record exists, and say so).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/amax.hpp"

namespace poreplab::verdict {

inline constexpr std::string_view kVerdictSchema = "poreplab-verdict/1";

// status: measured | extrapolated | modeled | none; text() = "measured (…)".
using source = amax::provenance;

struct figure {
  std::optional<double> value;
  source from;
};

struct device_row {
  std::string device;  // "CPU 1 core: <model>", "CPU 16 cores: <model>", "GPU: <name>"
  std::string kind;    // cpu-core | cpu | cpu-no-sha-ni-core | cpu-no-sha-ni | gpu | gpu-emulated | gpu-model
  figure pc1_seconds;        // one sector, all layers
  figure sectors_at_once;    // memory bound
  figure sectors_per_hour;   // best throughput
  std::optional<double> usd_per_sector_hour;
};

struct size_row {
  std::string proof;
  std::uint64_t sector_size = 0;
  std::uint32_t layers = 0;
  std::uint64_t nodes = 0;
  std::vector<device_row> devices;
  figure crossover_sectors;  // smallest GPU sector count passing the whole CPU
  std::string crossover_text;
};

struct report {
  std::vector<std::string> dirs;
  std::vector<size_row> sizes;
  std::vector<std::string> notes;
};

using cost_map = std::map<std::string, double>;

// Reads the result directories; throws std::runtime_error when a directory cannot be
// read or holds no usable record (no ok sdr/sha256 label record on any backend), and for
// a --cost that names no device.
report compute(const std::vector<std::filesystem::path>& dirs, const cost_map& costs = {});

std::string to_markdown(const report& r);
nlohmann::json to_json(const report& r);

// The runner's "verdict" report: DIR/verdict.md and DIR/verdict.json. Returns false
// (after a warning on stderr) on failure.
bool write_report_files(const std::filesystem::path& dir);

}  // namespace poreplab::verdict
