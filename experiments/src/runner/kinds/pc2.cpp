// The `pc2` kind: PC2 (tree_c, tree_r_last, comm_r) on one backend's Poseidon over
// generated labels, the whole sector or a window standing for its per-node work.
#include "bench/pc2.hpp"
#include "poreplab/sdr/pc2_build.hpp"
#include "records/schema.hpp"
#include "runner/kinds.hpp"

namespace poreplab::runner {

namespace axis = records::axis;

using nlohmann::json;

namespace {

std::uint64_t window_of(const json& axes) {
  return axes.contains(axis::window_nodes) && axes[axis::window_nodes].is_number_unsigned() ? axes[axis::window_nodes].get<std::uint64_t>()
                                                                                   : 0;
}

std::string unavailable(const json& axes) {
  const std::uint64_t sector = axes[axis::sector_size];
  const std::uint64_t layers = axes[axis::layers];
  if (layers != 2 && layers != 11) return "PC2 hashes columns of 2 or 11 layers, not " + std::to_string(layers);
  sdr::tree_shape shape;
  try {
    shape = sdr::tree_shape_for_sector_size(sector);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  const std::uint64_t nodes = window_of(axes) != 0 ? window_of(axes) : sector / 32;
  // Labels, replica and tree_c in memory.
  if (auto m = memory_shortfall(double(nodes) * 32 * double(layers + 1) + double(nodes) * 32 * 8 / 7); !m.empty())
    return m;
  try {
    make_backend(axes[axis::backend].get<std::string>(), knobs_of_point(axes))->make_pc2_hasher();
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

measurement run(const json& axes, std::uint32_t warmup, std::uint32_t samples) {
  pc2_bench_options o;
  o.backend = axes[axis::backend].get<std::string>();
  o.knobs = knobs_of_point(axes);
  o.sector_size = axes[axis::sector_size];
  o.layers = static_cast<std::uint32_t>(axes[axis::layers].get<std::uint64_t>());
  o.window_nodes = window_of(axes);
  o.warmup = warmup;
  o.samples = samples;
  const pc2_bench_result r = run_pc2_bench(o);
  measurement m;
  m.metric = "ns_per_node";
  m.samples = r.samples_ns_per_node;
  m.digest = r.digest;
  m.verified = r.verified;
  m.verified_against = r.verified_against;
  m.context = pc2_bench_json(r);
  m.context.erase("samples_ns_per_node");
  return m;
}

json rates(const json& axes, const json& context, double median) {
  const double nodes = axes[axis::sector_size].get<double>() / 32;
  json r = {{"ns_per_node", median}};
  if (median > 0) {
    r["sector_seconds"] = median * nodes * 1e-9;
    r["nodes_per_s"] = 1e9 / median;
    if (context.contains("multiplies_per_node"))
      r["fr_mul_per_s"] = context["multiplies_per_node"].get<double>() * 1e9 / median;
  }
  return r;
}

}  // namespace

kind_spec pc2_kind() {
  kind_spec k;
  k.name = records::kind_name(records::record_kind::pc2);
  k.help = "PC2 (tree_c over the columns, tree_r_last, comm_r: Poseidon) over generated labels, sample-verified";
  k.axes = labeling_axes(false);
  // The label kind's name for a node window: one name across kinds, records and readers.
  param_spec window = count_param(axis::window_nodes, 0, 0, std::uint64_t{1} << 36,
                                "nodes hashed (a power of 8): their columns and one tree, standing for the sector's "
                                "per-node work; 0 = the whole sector");
  window.power_of = 8;
  window.least_nonzero = 64;
  window.optional = true;
  k.axes.push_back(std::move(window));
  k.unavailable = unavailable;
  k.run = run;
  k.rates = rates;
  return k;
}

}  // namespace poreplab::runner
