// `poreplab plan`: the sealing planner (report/plan.hpp) for a sector size and a machine:
// the one the results were measured on, or machine files.
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/cli.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "records/records.hpp"
#include "report/plan.hpp"
#include "util/text.hpp"

namespace poreplab::cli {

namespace {

struct plan_cli_options {
  std::string size;
  std::string proof;
  std::vector<std::string> machines;
  std::vector<std::string> results;
  std::string rates = "measured";  // verdict::kRateSources
  bool json = false;
  bool force = false;
  std::string out;
};

// The V1_1 proof of --sector-size, or --proof, or the 32GiB one.
std::string proof_of(const plan_cli_options& o) {
  if (!o.proof.empty() && !o.size.empty()) throw usage_error("give --sector-size or --proof, not both");
  if (!o.proof.empty()) return o.proof;
  if (o.size.empty()) return "StackedDrg32GiBV1_1";
  const auto bytes = parse_size(o.size);
  if (!bytes) throw usage_error("--sector-size '" + o.size + "': not a size (e.g. 32GiB)");
  for (const auto& p : sdr::registered_proofs())
    if (p.sector_size == *bytes && p.api == graph::api_version::v1_1_0) return std::string(p.name);
  throw usage_error("--sector-size " + o.size + ": no registered V1_1 proof of that size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)");
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto o = std::make_shared<plan_cli_options>();
  auto* cmd = app.add_subcommand(
      "plan", "the sealing planner: for a sector size and a machine (the one the results were measured on, or "
              "--machine FILE), the PC1 batch, hashing and other cores, RAM, huge pages, layer disk, IOPS, PC1 and PC2 "
              "per batch, sectors per day and the binding constraint; every figure measured, extrapolated, quoted or "
              "MODELED");
  cmd->add_option("--sector-size", o->size, "32GiB (default), 64GiB, ... (the size's V1_1 proof)");
  cmd->add_option("--proof", o->proof, "a registered proof instead");
  cmd->add_option("--machine", o->machines,
                  "machine files to size (e.g. experiments/machines/*.json); without one, the machine of the results");
  cmd->add_option("--results", o->results,
                  "result directories the rates come from (default results/default when it exists)");
  cmd->add_option("--rates", o->rates,
                  "the hashing rate that sizes a --machine file: measured (the results', carried to its clock) or "
                  "quoted (its pc1_hashing); each falls back to the other where it is missing")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "JSON instead of Markdown");
  cmd->add_option("-o,--out", o->out, "write to FILE instead of standard output");
  cmd->add_flag("--force", o->force, "replace the -o FILE that exists");
  cmd->callback([o] {
    // Before the work: a plan already written is not replaced without --force.
    if (!o->out.empty()) refuse_existing_output(o->out, o->force);
    const std::string proof = proof_of(*o);
    std::vector<std::filesystem::path> dirs(o->results.begin(), o->results.end());
    if (dirs.empty() && std::filesystem::is_directory(kDefaultResults)) dirs.push_back(kDefaultResults);
    if (dirs.empty() && o->machines.empty())
      throw usage_error(std::string("give --results DIR or --machine FILE (") + kDefaultResults +
                        " does not exist: scripts/main or poreplab run writes it)");
    std::vector<verdict::machine> machines;
    for (const auto& f : o->machines) machines.push_back(verdict::load_machine(f));
    const verdict::plan_report r = verdict::make_plan(proof, dirs, machines, verdict::kRateSources.parse(o->rates));
    const std::string text = o->json ? verdict::plan_json(r).dump(2) + "\n" : verdict::plan_markdown(r);
    if (o->out.empty()) std::cout << text;
    else write_file_atomic(o->out, text);
  });
}

}  // namespace poreplab::cli
