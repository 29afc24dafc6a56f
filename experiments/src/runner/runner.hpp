#pragma once
// The experiment runner: runs a config's points (or one shard of them) into an output
// directory, resumable, and merges shard directories into one result set.
#include <cstddef>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/reference.hpp"
#include "runner/config.hpp"

namespace poreplab::runner {

struct run_options {
  std::filesystem::path out_dir;
  bool resume = false;
  std::size_t shard_index = 0;
  std::size_t shard_count = 1;
  bool plots = true;
  std::vector<std::string> argv;  // stored in the run's header record
  // Backends that must run: a point of one of them that cannot run here fails instead
  // of being skipped (`--require cuda`; POREPLAB_REQUIRE_CUDA=1 adds cuda).
  std::vector<std::string> require;
  // `--repeat N`: N passes over the points, each record marked with its pass ("repeat");
  // results.json and report.md then carry each metric's run-to-run spread.
  std::size_t repeat = 1;
  // `--time-limit S`: after S seconds the run stops as after SIGTERM (the point in flight
  // is not recorded, the rest resume later) and exits kExitTimeLimit. 0: no limit.
  double time_limit_s = 0;
  // The reference datasets the verdict shows where the run measured no GPU (`--reference`).
  verdict::reference_inputs references;
};

inline constexpr std::size_t kMaxRepeat = 100;

// opt.require with what the environment adds, sorted and without repeats; throws
// std::invalid_argument for a name that is not a backend.
std::vector<std::string> required_backends(const std::vector<std::string>& requested);

// Exit status of `poreplab run`: 0 all points ok or skipped, 1 some failed (or the plots
// failed), 128 + signal when interrupted, kExitTimeLimit when --time-limit stopped it
// (both after writing what was done).
inline constexpr int kExitInterrupted = 130;
// Exit status when --time-limit stopped the run (sysexits' EX_TEMPFAIL: resume later).
inline constexpr int kExitTimeLimit = 75;
inline constexpr double kMaxTimeLimitS = 7 * 24 * 3600.0;

// Throws (before running anything) when the output directory cannot be used.
int run_experiments(const config& c, const run_options& opt);

// Combines shard directories (same config digest) into out_dir. Returns 0, or 1 when
// points are missing from every shard.
int merge_shards(const std::filesystem::path& out_dir, const std::vector<std::filesystem::path>& shard_dirs,
                 bool plots, const std::vector<std::string>& argv,
                 const verdict::reference_inputs& references = {});

// Points of shard `index` of `count`: those whose position in the full list is index mod count.
std::vector<point> shard_points(const std::vector<point>& all, std::size_t index, std::size_t count);

// "I/N" -> {I, N}; throws std::invalid_argument unless 0 <= I < N.
std::pair<std::size_t, std::size_t> parse_shard(const std::string& text);

// The subdirectory of a results directory (and of compare's --out) that plot.py draws
// its figures into: made by poreplab (make_own_directory), never through a link.
inline constexpr const char* kPlotsDir = "plots";

// Runs `<python> <share>/plots/plot.py args...` (util/share_dir.hpp finds both). Without
// the script or a Python with matplotlib it notes on stderr that the plots of out_dir are
// skipped and returns true; false (after a warning) when the script fails.
bool run_plot_script(const std::vector<std::string>& args, const std::filesystem::path& out_dir);
// plot.py on dir: its figures and plots/index.json.
bool make_plots(const std::filesystem::path& dir);

// One point: availability check, timed run with its budget, statistics and rates.
// A point whose backend is in `require` and cannot run here fails (status "failed").
nlohmann::json run_point(const config& c, const point& p, std::size_t run_index,
                         const std::vector<std::string>& require = {});

// How a point that threw is recorded. By the exception's type, never its wording: an
// unavailable_error (poreplab/unavailable.hpp: a backend, engine or device that cannot run
// here) or an allocation that failed is a skip, anything else a failure.
struct point_exception {
  bool skipped = false;
  std::string reason;
};
point_exception classify_point_exception(const std::exception_ptr& e);

}  // namespace poreplab::runner
