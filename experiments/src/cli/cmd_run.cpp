// `poreplab run` and `poreplab merge`: the experiment runner's command line.
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <system_error>

#include "cli/cli.hpp"
#include "runner/config.hpp"
#include "runner/runner.hpp"
#include "util/share_dir.hpp"
#include "util/text.hpp"

namespace poreplab::cli {

namespace {

struct run_cli_options {
  std::string config_path;
  std::string out_dir;
  bool resume = false;
  std::vector<std::string> sets;
  std::string shard;
  bool no_plots = false;
  bool list = false;
  std::vector<std::string> require;
  std::size_t repeat = 1;
  double time_limit_s = 0;
  std::vector<std::string> references;
};

struct merge_cli_options {
  std::string out_dir;
  std::vector<std::string> shards;
  bool no_plots = false;
  std::vector<std::string> references;
};

// The command line as the process got it, for the records (run_cli keeps argv to itself).
std::vector<std::string> process_argv() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> out;
  std::string arg;
  while (std::getline(in, arg, '\0')) out.push_back(arg);
  return out;
}

// results/<config file stem>[-shard-I-of-N]: stable, so that --resume finds it again.
std::string default_out_dir(const std::string& config_path, std::size_t shard, std::size_t count) {
  std::string stem = "default";
  if (!config_path.empty()) stem = std::filesystem::path(config_path).stem().string();
  std::string dir = "results/" + stem;
  if (count > 1) dir += "-shard-" + std::to_string(shard) + "-of-" + std::to_string(count);
  return dir;
}

// A config named without a path or .json (`poreplab run scaling`) that is no file here:
// configs/NAME.json of the share directory (a checkout's experiments/ or an install's).
std::string resolve_config(const std::string& name) {
  std::error_code ec;
  if (name.empty() || name.find('/') != std::string::npos || name.ends_with(".json") ||
      std::filesystem::exists(name, ec))
    return name;
  const auto share = share_dir();
  if (!share)
    throw std::runtime_error("cannot open config file " + name +
                             ": no such file, and no share directory with configs/ was found (set POREPLAB_SHARE_DIR)");
  const std::filesystem::path file = *share / "configs" / (name + ".json");
  if (!std::filesystem::exists(file, ec))
    throw std::runtime_error("cannot open config file " + name + " or " + file.string() + ": no such file");
  return file.string();
}

}  // namespace

void add_run_commands(CLI::App& app) {
  auto opt = std::make_shared<run_cli_options>();
  auto* run = app.add_subcommand("run", "Run an experiment config (default: the embedded default.json)");
  run->add_option("config", opt->config_path,
                  "experiment config (JSON, schema poreplab-experiments/1), or the name of a shipped one "
                  "(configs/NAME.json of the share directory, e.g. scaling)");
  run->add_option("-o,--out", opt->out_dir, "output directory (default: results/<config name>)");
  run->add_flag("--resume", opt->resume, "continue the run in the output directory, skipping recorded points");
  // One value per --set, so that a config path after it stays the positional argument.
  run->add_option("--set", opt->sets, "override an axis: AXIS=V1,V2 or EXPERIMENT.AXIS=V1,V2 (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--shard", opt->shard, "run only points whose index % N == I (I/N, e.g. 0/8)");
  run->add_flag("--no-plots", opt->no_plots, "do not run the plot and report scripts");
  run->add_flag("--list", opt->list, "print the points and exit without running them");
  run->add_option("--require", opt->require,
                  "a backend that must run: its points fail instead of being skipped where it cannot (repeatable; "
                  "POREPLAB_REQUIRE_CUDA=1 requires cuda)")
      ->allow_extra_args(false);
  run->add_option("--repeat", opt->repeat,
                  "run every point N times, one pass over all points after another, and report each metric's "
                  "run-to-run spread (1 to 100)");
  run->add_option("--time-limit", opt->time_limit_s,
                  "stop after this many seconds as after SIGTERM (finished points kept, exit 75; resume later)");
  add_reference_option(run, opt->references);
  run->callback([opt] {
    if (opt->repeat < 1 || opt->repeat > runner::kMaxRepeat)
      throw usage_error("--repeat " + std::to_string(opt->repeat) + ": expected an integer from 1 to " +
                        std::to_string(runner::kMaxRepeat));
    if (!(opt->time_limit_s >= 0 && opt->time_limit_s <= runner::kMaxTimeLimitS))
      throw usage_error("--time-limit " + format_number(opt->time_limit_s) +
                        ": expected seconds from 0 (no limit) to " + format_number(runner::kMaxTimeLimitS, 6));
    runner::config c = opt->config_path.empty() ? runner::embedded_default_config()
                                                : runner::load_config_file(resolve_config(opt->config_path));
    if (!opt->sets.empty()) c = runner::apply_overrides(c, opt->sets);
    for (const auto& r : c.renames) std::cerr << "poreplab: note: " << r << "\n";
    std::size_t shard = 0, count = 1;
    if (!opt->shard.empty()) std::tie(shard, count) = runner::parse_shard(opt->shard);
    if (opt->list) {
      for (const auto& p : runner::repeat_points(runner::shard_points(runner::expand_points(c), shard, count), opt->repeat))
        std::cout << "[" << p.index << "] " << p.describe() << "\n";
      return;
    }
    runner::run_options o;
    o.out_dir = opt->out_dir.empty() ? default_out_dir(opt->config_path, shard, count) : opt->out_dir;
    o.resume = opt->resume;
    o.shard_index = shard;
    o.shard_count = count;
    o.plots = !opt->no_plots;
    o.argv = process_argv();
    o.require = runner::required_backends(opt->require);
    o.repeat = opt->repeat;
    o.time_limit_s = opt->time_limit_s;
    o.references = reference_paths(opt->references);
    set_exit_status(runner::run_experiments(c, o));
  });

  auto mopt = std::make_shared<merge_cli_options>();
  auto* merge = app.add_subcommand("merge", "Combine shard directories of one config into one result set");  // not a record key
  merge->add_option("-o,--out", mopt->out_dir, "output directory for the merged results")->required();
  merge->add_option("shards", mopt->shards, "shard output directories")->required();
  merge->add_flag("--no-plots", mopt->no_plots, "do not run the plot and report scripts");
  add_reference_option(merge, mopt->references);
  merge->callback([mopt] {
    std::vector<std::filesystem::path> dirs(mopt->shards.begin(), mopt->shards.end());
    set_exit_status(runner::merge_shards(mopt->out_dir, dirs, !mopt->no_plots, process_argv(), reference_paths(mopt->references)));
  });
}

}  // namespace poreplab::cli
