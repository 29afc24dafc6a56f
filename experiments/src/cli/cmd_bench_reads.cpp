// `poreplab bench reads`: random 4 KiB page reads per node against the node cache and the
// sectors labeled together, counted on sampled runs of the real graph.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "bench/reads.hpp"
#include "cli/bench_cli.hpp"
#include "cli/cli.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "util/text.hpp"

namespace poreplab::cli {

namespace {

struct reads_cli_options {
  std::string size = "32GiB";
  std::string proof;
  std::string cache = "0,64Ki,1Mi,16Mi";
  std::string sectors = "1,64";
  std::uint32_t runs = 64;
  std::string run_nodes = "4096";
  std::uint64_t seed = sdr::read_sample_plan{}.seed;
  std::uint32_t layers = 0;
  bool json = false;
};

// "0,64Ki,1Mi": counts separated by commas; the flag is named in the error.
std::vector<std::uint64_t> count_list(const std::string& text, const std::string& flag, std::uint64_t max) {
  std::vector<std::uint64_t> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    const auto n = parse_count(item);
    if (!n || *n > max)
      throw usage_error(flag + " '" + item + "': expected a count up to " + format_count(max) +
                        " (an integer, or with Ki, Mi, Gi: 64Ki, 1Mi)");
    out.push_back(*n);
    at = comma + 1;
  }
  if (out.size() > 64) throw usage_error(flag + ": at most 64 values");
  return out;
}

reads_options to_options(const reads_cli_options& c) {
  reads_options o;
  if (!c.proof.empty()) {
    const auto& p = sdr::find_registered_proof(c.proof);
    o.sector_size = p.sector_size;
    o.layers = p.layers;
  } else {
    const auto bytes = parse_size(c.size);
    if (!bytes) throw usage_error("--sector-size '" + c.size + "': not a size (e.g. 32GiB or a byte count)");
    o.sector_size = *bytes;
  }
  if (c.layers != 0) o.layers = c.layers;
  o.sectors.clear();
  for (const auto s : count_list(c.sectors, "--sectors", 1u << 20)) o.sectors.push_back(static_cast<std::uint32_t>(s));
  o.cache_nodes = count_list(c.cache, "--cache", std::uint64_t{1} << 32);
  o.plan.runs = c.runs;
  o.plan.run_nodes = count_list(c.run_nodes, "--run-nodes", std::uint64_t{1} << 22).front();
  o.plan.seed = c.seed;
  return o;
}

}  // namespace

void add_bench_reads_command(CLI::App& app) {
  auto c = std::make_shared<reads_cli_options>();
  auto* cmd = bench_group(app)->add_subcommand(
      "reads", "random 4 KiB page reads per node with the layers on disk, against the node cache and the sectors "
               "labeled together: counted on sampled runs of the real graph (no data is read)");
  cmd->add_option("--sector-size", c->size, "sector size (its V1_1 graph; 32GiB, 64GiB...)")->capture_default_str();
  cmd->add_option("--proof", c->proof, "a registered proof instead (its graph and layer count)");
  cmd->add_option("--cache", c->cache, "node cache sizes C in nodes, comma-separated (0, 64Ki, 1Mi...)")
      ->capture_default_str();
  cmd->add_option("--sectors", c->sectors, "sectors S labeled together, comma-separated (a node's row is 32 x S bytes)")
      ->capture_default_str();
  cmd->add_option("--runs", c->runs, "sampled runs of consecutive nodes")->capture_default_str();
  cmd->add_option("--run-nodes", c->run_nodes, "nodes per run (a run as long as the layer counts every node)")
      ->capture_default_str();
  cmd->add_option("--seed", c->seed, "where the runs start")->capture_default_str();
  cmd->add_option("--layers", c->layers, "layers of the mean (default: the proof's, else 11)");
  cmd->add_flag("--json", c->json, "one JSON object");
  cmd->callback([c] {
    if (c->runs == 0 || c->runs > 4096) throw usage_error("--runs " + std::to_string(c->runs) + ": expected 1 to 4096");
    if (c->layers > 64) throw usage_error("--layers " + std::to_string(c->layers) + ": expected 1 to 64");
    reads_result r;
    try {
      r = count_reads(to_options(*c));
    } catch (const std::invalid_argument& e) {
      throw usage_error(e.what());
    }
    if (!r.check.empty()) set_exit_status(1);
    if (c->json) std::cout << reads_json(r).dump() << "\n";
    else std::cout << reads_markdown(r) << "\n(" << format_number(r.seconds, 3) << " s)\n";
  });
}

}  // namespace poreplab::cli
