// The `reads` kind: random 4 KiB page reads per node of S sectors with their layers on
// disk and a node cache of C nodes, counted on sampled runs of the real graph (bench/reads).
// Counted, not timed: each sample is one run's mean over the layers.
#include "bench/reads.hpp"
#include "poreplab/hex.hpp"
#include "records/schema.hpp"
#include "runner/kinds.hpp"

namespace poreplab::runner {

namespace axis = records::axis;


using nlohmann::json;

namespace {

reads_options options_of(const json& axes) {
  reads_options o;
  o.sector_size = axes[axis::sector_size];
  o.sectors = {static_cast<std::uint32_t>(axes[axis::sectors].get<std::uint64_t>())};
  o.cache_nodes = {axes["cache_nodes"].get<std::uint64_t>()};
  o.layers = static_cast<std::uint32_t>(axes[axis::layers].get<std::uint64_t>());
  o.plan.runs = static_cast<std::uint32_t>(axes["runs"].get<std::uint64_t>());
  o.plan.run_nodes = axes["run_nodes"];
  return o;
}

std::string unavailable(const json& axes) {
  const double rows = axes["runs"].get<double>() * axes["run_nodes"].get<double>();
  return memory_shortfall(rows * 56 * 1.5);
}

measurement run(const json& axes, std::uint32_t, std::uint32_t) {
  const reads_result r = count_reads(options_of(axes));
  const reads_row& row = r.rows.front();
  measurement m;
  m.metric = "pages_per_node";
  // Deterministic for a seed: the runs are the samples whatever the config asks.
  m.samples = row.estimate.run_means;
  m.context = reads_json(r);
  m.context.erase("rows");
  const json fields = reads_row_json(row);  // named: items() must not outlive it
  for (const auto& [k, v] : fields.items()) m.context[k] = v;
  m.context["method"] = "counted on the graph, sampled: " + r.sample;
  const std::string text = m.context.dump();
  m.digest = sha256_hex(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  m.verified = r.check.empty();
  m.verified_against = "the first " + std::to_string(r.checked_nodes) +
                       " nodes of run 0 recounted page by page from parent rows the reference made node by node" +
                       (r.check.empty() ? "" : ": " + r.check);
  return m;
}

json rates(const json& axes, const json& ctx, double median) {
  json r = {{"pages_per_node_median_run", median}};
  for (const char* k : {"mean_pages_per_node", "layer1_pages_per_node", "later_pages_per_node", "reads_per_label",
                        "base_cached_share"})
    if (ctx.contains(k)) r[k] = ctx[k];
  r[axis::sectors] = axes[axis::sectors];
  return r;
}

}  // namespace

kind_spec reads_kind() {
  kind_spec k;
  k.name = records::kind_name(records::record_kind::reads);
  k.help = "random 4 KiB page reads per node with the layers on disk (S sectors, a node cache of C nodes), counted "
           "on sampled runs of the real graph";
  param_spec size = size_param(axis::sector_size, 32ull << 30, 64, true, "sector size (its V1_1 graph)");
  size.max = 128ull << 30;  // node indices are u32
  k.axes = {size,
            count_param(axis::sectors, 1, 1, 1u << 20, "sectors labeled together: a node's row is 32 x S bytes"),
            count_param("cache_nodes", 1u << 20, 0, std::uint64_t{1} << 32,
                       "the layer's most recent nodes kept in RAM (supraseal's node buffer)"),
            count_param(axis::layers, 11, 1, 64, "layers of the mean (layer 1 has no expander parents)"),
            count_param("runs", 64, 1, 4096, "sampled runs of consecutive nodes"),
            count_param("run_nodes", 4096, 1, std::uint64_t{1} << 22, "nodes per run")};
  k.unavailable = unavailable;
  k.run = run;
  k.rates = rates;
  return k;
}

}  // namespace poreplab::runner
