// `poreplab report amax`: the Amax table (custom hardware against the best off-the-shelf
// device, one hash chain) from result directories and the custom-hardware data file.
// `poreplab report verdict`: CPU vs GPU for SDR PC1 per sector size (verdict.hpp).
// `poreplab report run`: report.md of a result directory again (run_report.hpp).
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "report/amax.hpp"
#include "report/report2019.hpp"
#include "poreplab/file_io.hpp"
#include "report/run_report.hpp"
#include "report/verdict.hpp"
#include "cli/cli.hpp"
#include "records/records.hpp"
#include "runner/kinds.hpp"

namespace poreplab::cli {

namespace {

struct report_cli_options {
  std::string custom;
  bool report_2019 = false;
  std::vector<std::string> costs;
  bool json = false;
  std::string out;
  bool force = false;
  std::vector<std::string> dirs;

  std::map<std::string, double> cost_map() const {
    std::map<std::string, double> m;
    for (const auto& c : costs) {
      const auto [device, usd] = amax::parse_cost(c);
      m[device] = usd;
    }
    return m;
  }
  std::vector<std::filesystem::path> paths() const { return {dirs.begin(), dirs.end()}; }
  // Before the work: a report already written is not replaced without --force.
  void check_out() const {
    if (!out.empty()) refuse_existing_output(out, force);
  }
  void emit(const std::string& text) const {
    if (out.empty())
      std::cout << text;
    else
      write_file_atomic(out, text);
  }
};

// The options every report takes: --cost, --json, -o, the result directories.
CLI::Option* add_common_options(CLI::App* cmd, report_cli_options& o, const char* cost_help) {
  // One value per --cost, so that a directory after it stays positional.
  cmd->add_option("--cost", o.costs, cost_help)->allow_extra_args(false);
  cmd->add_flag("--json", o.json, "JSON instead of Markdown");
  cmd->add_option("-o,--out", o.out, "write to FILE instead of standard output");
  cmd->add_flag("--force", o.force, "replace the -o FILE that exists");
  return cmd->add_option("results", o.dirs, "result directories (of poreplab run or merge)")->required();
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto* report = app.add_subcommand("report", "Reports computed from result directories: amax, verdict, run");
  report->require_subcommand(1);

  auto o = std::make_shared<report_cli_options>();
  auto* cmd = report->add_subcommand(
      "amax", "Amax per hash: custom hardware (data file) single-stream GB/s over the best off-the-shelf device "
              "measured in the result directories (hash records in mode chain, limits records)");
  cmd->add_option("--custom", o->custom,
                  "custom-hardware data file (default: data/custom-hardware.json in $POREPLAB_SHARE_DIR, else in the "
                  "checkout's experiments/ or the install's share/poreplab above the executable)");
  cmd->add_flag("--report-2019", o->report_2019,
                "the 2019 Supranational report's compute and Amax tables (data/report-2019.json, looked up as --custom's "
                "default), with the single streams measured in the result directories beside them (Markdown only)");
  add_common_options(cmd, *o, "cost of an off-the-shelf device: DEVICE=USD, DEVICE its name or a part of it (repeatable)");
  cmd->callback([o] {
    o->check_out();
    if (o->report_2019) {
      if (o->json || !o->custom.empty() || !o->costs.empty())
        throw std::invalid_argument("--report-2019 takes no --json, --custom or --cost");
      o->emit(report2019::amax_markdown(report2019::load_data(report2019::default_data_file()),
                                        records::load_result_set(o->paths())));
      return;
    }
    const std::filesystem::path custom = o->custom.empty() ? amax::default_custom_hardware_file()
                                                           : std::filesystem::path(o->custom);
    const amax::custom_data data = amax::load_custom_hardware(custom);
    const amax::report r = amax::compute(records::load_result_set(o->paths()), data, o->cost_map());
    o->emit(o->json ? amax::to_json(r).dump(2) + "\n" : amax::to_markdown(r));
  });

  auto v = std::make_shared<report_cli_options>();
  auto* vcmd = report->add_subcommand(
      "verdict", "CPU vs GPU for SDR PC1 per registered sector size: one-sector time, sectors at once, sectors/hour, "
                 "crossover; each figure measured, extrapolated or modeled");
  add_common_options(vcmd, *v, "cost of a device: DEVICE=USD, DEVICE a part of its name (repeatable)")
      ->required(false)
      ->description(std::string("result directories (of poreplab run or merge; default ") + kDefaultResults + ")");
  auto machine_files = std::make_shared<std::vector<std::string>>();
  auto kwh = std::make_shared<double>(0);
  // One file per flag, so that a result directory after it stays positional.
  vcmd->add_option("--machine", *machine_files,
                   "a target machine to size from these results (a JSON file, e.g. experiments/machines/*.json; "
                   "repeatable: one file per --machine)")
      ->allow_extra_args(false);
  vcmd->add_option("--kwh-price", *kwh, "USD per kWh: prices the energy per sector of machines with power_watts");
  auto refs = std::make_shared<std::vector<std::string>>();
  add_reference_option(vcmd, *refs);
  vcmd->callback([v, machine_files, kwh, refs] {
    if (!(*kwh >= 0 && *kwh < 1e6)) throw usage_error("--kwh-price: expected USD per kWh from 0 to 1e6");
    v->check_out();
    for (const auto& f : *machine_files)
      if (std::filesystem::is_directory(f))
        throw usage_error(f + " is a directory: result directories go before --machine (or after its file: one "
                              "file per --machine)");
    if (v->dirs.empty()) {
      if (!std::filesystem::is_directory(kDefaultResults))
        throw usage_error(std::string("give a result directory (") + kDefaultResults +
                          " does not exist: scripts/main or poreplab run writes it)");
      v->dirs.push_back(kDefaultResults);
    }
    std::vector<verdict::machine> machines;
    for (const auto& f : *machine_files) machines.push_back(verdict::load_machine(f));
    const verdict::report r = verdict::compute(v->paths(), v->cost_map(), machines, *kwh, reference_paths(*refs));
    v->emit(v->json ? verdict::to_json(r).dump(2) + "\n" : verdict::to_markdown(r));
  });

  auto dirs = std::make_shared<std::vector<std::string>>();
  auto* rcmd = report->add_subcommand(
      "run", "Write DIR/report.md again from DIR/results.json, the figures in DIR/plots and DIR's amax.md and "
             "verdict.md (poreplab run and merge write it at their end)");
  rcmd->add_option("results", *dirs, "result directories")->required();
  rcmd->callback([dirs] {
    for (const auto& d : *dirs) {
      report::write_run_report(d, runner::is_size_axis);
      std::cerr << "report: " << (std::filesystem::path(d) / "report.md").string() << "\n";
    }
  });
}

}  // namespace poreplab::cli
