// `poreplab report amax`: the Amax table (custom hardware against the best off-the-shelf
// device, one hash chain) from result directories and the custom-hardware data file.
#include <filesystem>
#include <iostream>
#include <memory>

#include "amax.hpp"
#include "verdict.hpp"
#include "cli.hpp"
#include "records.hpp"

namespace poreplab::cli {

namespace {

struct amax_cli_options {
  std::string custom;
  std::vector<std::string> costs;
  bool json = false;
  std::string out;
  std::vector<std::string> dirs;
};

}  // namespace

void add_report_command(CLI::App& app) {
  auto* report = app.add_subcommand("report", "Reports computed from result directories: amax, verdict");
  report->require_subcommand(1);

  auto o = std::make_shared<amax_cli_options>();
  auto* cmd = report->add_subcommand(
      "amax", "Amax per hash: custom hardware (data file) single-stream GB/s over the best off-the-shelf device "
              "measured in the result directories (hash records in mode chain, limits records)");
  cmd->add_option("--custom", o->custom,
                  "custom-hardware data file (default: experiments/data/custom-hardware.json of this checkout)");
  // One value per --cost, so that a directory after it stays positional.
  cmd->add_option("--cost", o->costs, "cost of an off-the-shelf device: DEVICE=USD, DEVICE its name or a part of it "
                                      "(repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--json", o->json, "JSON instead of Markdown");
  cmd->add_option("-o,--out", o->out, "write to FILE instead of standard output");
  cmd->add_option("results", o->dirs, "result directories (of poreplab run or merge)")->required();
  cmd->callback([o] {
    amax::cost_map costs;
    for (const auto& c : o->costs) {
      const auto [device, usd] = amax::parse_cost(c);
      costs[device] = usd;
    }
    const std::filesystem::path custom = o->custom.empty() ? amax::default_custom_hardware_file()
                                                           : std::filesystem::path(o->custom);
    const amax::custom_data data = amax::load_custom_hardware(custom);
    const std::vector<std::filesystem::path> dirs(o->dirs.begin(), o->dirs.end());
    const amax::report r = amax::compute(amax::load_result_dirs(dirs), data, costs);
    const std::string text = o->json ? amax::to_json(r).dump(2) + "\n" : amax::to_markdown(r);
    if (o->out.empty())
      std::cout << text;
    else
      runner::write_file_atomic(o->out, text);
  });

  auto v = std::make_shared<amax_cli_options>();
  auto* vcmd = report->add_subcommand(
      "verdict", "CPU vs GPU for SDR PC1 per registered sector size: one-sector time, sectors at once, sectors/hour, "
                 "crossover; each figure measured, extrapolated or modeled");
  vcmd->add_option("--cost", v->costs, "cost of a device: DEVICE=USD, DEVICE a part of its name (repeatable)")
      ->allow_extra_args(false);
  vcmd->add_flag("--json", v->json, "JSON instead of Markdown");
  vcmd->add_option("-o,--out", v->out, "write to FILE instead of standard output");
  vcmd->add_option("results", v->dirs, "result directories (of poreplab run or merge)")->required();
  vcmd->callback([v] {
    verdict::cost_map costs;
    for (const auto& c : v->costs) {
      const auto [device, usd] = amax::parse_cost(c);
      costs[device] = usd;
    }
    const std::vector<std::filesystem::path> dirs(v->dirs.begin(), v->dirs.end());
    const verdict::report r = verdict::compute(dirs, costs);
    const std::string text = v->json ? verdict::to_json(r).dump(2) + "\n" : verdict::to_markdown(r);
    if (v->out.empty())
      std::cout << text;
    else
      runner::write_file_atomic(v->out, text);
  });
}

}  // namespace poreplab::cli
