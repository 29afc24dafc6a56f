// `poreplab compare A B [C...]`: result directories side by side (report/compare.hpp).
#include <iostream>
#include <memory>
#include <optional>

#include "cli/cli.hpp"
#include "records/records.hpp"
#include "poreplab/file_io.hpp"
#include "report/compare.hpp"
#include "runner/runner.hpp"
#include "util/text.hpp"

namespace poreplab::cli {

namespace {

struct compare_cli_options {
  std::vector<std::string> dirs;
  std::string out;
  bool json = false;
  bool force = false;
  double fail_pct = -1;
};

}  // namespace

void add_compare_command(CLI::App& app) {
  auto o = std::make_shared<compare_cli_options>();
  auto* cmd = app.add_subcommand(
      "compare",
      "Result directories side by side: points matched by their axes, each metric's ratio to the first directory "
      "with a bootstrap interval and a verdict (faster, slower, within noise), and what differs in their setup");
  cmd->add_option("results", o->dirs, "result directories (of poreplab run or merge); the first is the baseline")
      ->required()
      ->expected(2, -1);
  cmd->add_option("-o,--out", o->out,
                  "write DIR/compare.md, DIR/compare.json and the plot DIR/plots/compare.png (and .svg) instead of "
                  "printing Markdown");
  cmd->add_flag("--json", o->json, "print JSON (schema poreplab-compare/1) instead of Markdown");
  cmd->add_flag("--force", o->force, "replace the compare.md and compare.json already in --out");
  cmd->add_option("--fail-on-regression", o->fail_pct,
                  "exit with status 3 when a point is slower than the baseline by more than PCT percent over its "
                  "whole interval");
  cmd->callback([o] {
    std::optional<double> pct;
    if (o->fail_pct != -1) pct = o->fail_pct;
    std::vector<std::filesystem::path> dirs(o->dirs.begin(), o->dirs.end());
    const std::filesystem::path out = o->out;
    if (!out.empty()) {
      for (const char* name : {"compare.md", "compare.json"}) refuse_existing_output(out / name, o->force);
      check_own_directory(out / runner::kPlotsDir);
    }
    const compare::result r = compare::compare(dirs, pct);
    for (const auto& s : r.sides)
      for (const auto& d : s.duplicates) std::cerr << "poreplab: warning: " << d << "\n";
    const std::string md = compare::to_markdown(r);
    const std::string js = compare::to_json(r).dump(2) + "\n";
    if (out.empty()) {
      std::cout << (o->json ? js : md);
    } else {
      make_directories(out);
      write_file_atomic(out / "compare.json", js);
      write_file_atomic(out / "compare.md", md);
      runner::run_plot_script({"--compare", out.string()}, out);
      std::cout << (o->json ? js : md);
      std::cerr << "compare: " << (out / "compare.md").string() << "\n";
    }
    if (pct && r.regressions > 0) {
      std::cerr << "poreplab: " << r.regressions << " point" << (r.regressions == 1 ? "" : "s")
                << " slower than the baseline by more than " << format_number(*pct) << "%\n";
      set_exit_status(3);
    }
  });
}

}  // namespace poreplab::cli
