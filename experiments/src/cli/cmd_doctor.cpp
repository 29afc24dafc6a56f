// `poreplab doctor`: whether this machine is ready to seal, check by check (doctor/).
#include <iostream>
#include <optional>

#include "cli/cli.hpp"
#include "doctor/checks.hpp"
#include "doctor/facts.hpp"
#include "doctor/plan.hpp"
#include "doctor/report.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "util/text.hpp"

namespace poreplab::cli {

namespace {

struct doctor_options {
  std::string size = "32GiB";
  std::uint32_t sectors = 1;
  std::string layer_dir, parent_cache;
  double disk_seconds = doctor::request{}.disk_seconds;
  bool json = false;
};

}  // namespace

void add_doctor_command(CLI::App& app) {
  auto o = std::make_shared<doctor_options>();
  auto* cmd = app.add_subcommand(
      "doctor", "Check this machine before sealing: CPU, memory, storage and GPUs, each ok / warn / fail with what it "
                "costs here and the fix (exit 0 / 1 / 2)");
  cmd->add_option("--for", o->size, "sector size to plan for, e.g. 2KiB, 512MiB, 32GiB, 64GiB, or bytes")
      ->capture_default_str();
  cmd->add_option("--sectors", o->sectors, "sectors sealed at once")->capture_default_str()->check(CLI::Range(1u, 65536u));
  cmd->add_option("--layer-dir", o->layer_dir,
                  "where the layers would be written: free space, filesystem, O_DIRECT and a short disk test in a "
                  "file that never has a name there");
  cmd->add_option("--parent-cache", o->parent_cache,
                  std::string("parent cache directory (default $FIL_PROOFS_PARENT_CACHE, else ") +
                      graph::kDefaultParentCacheDir + ")");
  cmd->add_option("--disk-seconds", o->disk_seconds, "bound of the disk test (0: none)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 30.0));
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o] {
    const auto bytes = parse_size(o->size);
    if (!bytes) throw usage_error("--for: '" + o->size + "' is not a size (e.g. 2KiB, 32GiB or bytes)");
    doctor::seal_plan plan;
    try {
      plan = doctor::make_plan(*bytes, o->sectors);
    } catch (const std::invalid_argument& e) {
      throw usage_error("--for " + o->size + ": " + e.what());
    }
    doctor::request req;
    if (!o->layer_dir.empty()) req.layer_dir = o->layer_dir;
    req.parent_cache_dir = o->parent_cache;
    req.disk_seconds = o->disk_seconds;
    const doctor::system_facts facts = doctor::gather_facts(req, plan);
    const std::vector<doctor::finding> findings = doctor::run_checks(facts, plan);
    if (o->json)
      std::cout << doctor::report_json(plan, req, facts, findings).dump(2) << "\n";
    else
      doctor::print_report(std::cout, plan, req, findings);
    set_exit_status(doctor::exit_status(findings));
  });
}

}  // namespace poreplab::cli
