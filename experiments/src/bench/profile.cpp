#include "bench/profile.hpp"

#include <stdexcept>
#include <vector>

#include "poreplab/cpu/features.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/graph/graph_params.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/graph/zigzag_graph.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/checked.hpp"
#include "poreplab/huge_buffer.hpp"
#include "poreplab/memory_check.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "records/schema.hpp"

namespace poreplab {

namespace key = records::key;
namespace axis = records::axis;
namespace ctx = records::ctx;

std::uint32_t default_profile_layers(sdr::porep_variant variant) {
  return variant == sdr::porep_variant::zigzag ? sdr::kZigzagLayers : 2;
}

double profile_memory_estimate(sdr::porep_variant variant, std::uint64_t sector_size) {
  const double s = static_cast<double>(sector_size);
  const double rows = variant == sdr::porep_variant::zigzag ? 2 : 1;
  // Two layers measured, two for the reference, data, replica (or its check), table.
  return 7 * s + rows * s / 32 * 14 * 4;
}

profile_bench_result bench_profile(const profile_bench_options& opt) {
  if (opt.sector_size < 64 || (opt.sector_size & (opt.sector_size - 1)) != 0)
    throw std::invalid_argument("sector size " + std::to_string(opt.sector_size) +
                                " is not a power of two of at least 64 bytes");
  if (opt.samples == 0) throw std::invalid_argument("samples must be at least 1");
  profile_bench_result r;
  r.options = opt;
  if (r.options.layers == 0) r.options.layers = default_profile_layers(opt.scheme.variant);
  if (r.options.layers > sdr::kMaxLayers)
    throw std::invalid_argument("layers: " + std::to_string(r.options.layers) + " is not from 1 to " +
                                std::to_string(sdr::kMaxLayers));
  const sdr::label_scheme scheme = opt.scheme;
  {  // As profile_memory_estimate, exactly: refused before anything is allocated.
    const std::uint64_t rows = scheme.variant == sdr::porep_variant::zigzag ? 2 : 1;
    require_memory(checked_add(checked_mul(opt.sector_size, 7, "bench profile memory"),
                               checked_mul(opt.sector_size / 32, 56 * rows, "bench profile memory"), "bench profile memory"),
                   "bench profile");
  }
  r.device = cpu::detect().model;
  // One stream: "auto" is the best engine of one lane (SHA-256: shani where present).
  const cpu::engine& e = cpu::pick_label_engine(scheme, 1, opt.engine);

  const std::uint64_t nodes = opt.sector_size / 32;
  const auto id = sdr::benchmark_porep_id(opt.sector_size);
  const auto g = graph::make_graph_params(id.data(), graph::api_version::v1_1_0, nodes);
  graph::parent_table sdr_table;
  huge_buffer zigzag_table;
  const std::uint32_t* parents = nullptr;
  if (scheme.variant == sdr::porep_variant::zigzag) {
    zigzag_table = graph::zigzag_table(g);
    parents = reinterpret_cast<const std::uint32_t*>(zigzag_table.data());
  } else {
    sdr_table = graph::parent_table::generate(g);
    parents = sdr_table.data();
  }
  std::uint8_t replica_id[32];
  const std::string seed = "poreplab bench sector 0";
  sha256::digest(replica_id, seed.data(), seed.size());
  replica_id[31] &= 0x3f;
  const auto data = sdr::generated_field_data(nodes * 32, 0x9e3779b97f4a7c15ull);
  const sdr::label_job job{nodes, parents, r.options.layers, 1, replica_id, scheme, data.data()};

  sdr::rolling_layer_store store(nodes * 32);
  cpu::profile_options po;
  po.warmup = opt.warmup;
  po.samples = opt.samples;
  po.fenced = opt.fenced;
  r.profile = cpu::profile_labeling(job, store, e, po);
  return r;
}

nlohmann::json to_json(const profile_bench_result& r) {
  const auto& p = r.profile;
  const double work = static_cast<double>(p.nodes) * p.layers * p.sectors;
  std::vector<double> samples;
  for (double s : p.timed_s) samples.push_back(s * 1e9 / work);
  nlohmann::json directions = nlohmann::json::array();
  for (const auto& d : p.directions) {
    nlohmann::json g = {{"group", d.group},
                        {axis::layers, d.layers},
                        {"fetch_share", d.fetch_share},
                        {"hash_share", d.hash_share},
                        {"ns_per_node", d.ns_per_node}};
    g["llc_misses_per_node"] = d.llc_misses_per_node >= 0 ? nlohmann::json(d.llc_misses_per_node) : nlohmann::json(nullptr);
    directions.push_back(g);
  }
  return {{"kind", "profile"},
          {ctx::scheme, sdr::scheme_name(r.options.scheme)},
          {ctx::scheme_status, sdr::scheme_status(r.options.scheme)},
          {axis::variant, sdr::variant_name(r.options.scheme.variant)},
          {"hash", sdr::label_hash_name(r.options.scheme.hash)},
          {ctx::engine, p.engine},
          {ctx::device, r.device},
          {axis::sector_size, r.options.sector_size},
          {"nodes", p.nodes},
          {axis::layers, p.layers},
          {"samples", p.samples},
          {"timer", p.timer},
          {"tsc_hz", p.tsc_hz},
          {"share", {{"fetch", p.share.fetch}, {"hash", p.share.hash}, {"encode", p.share.encode},
                     {"io", p.share.io}, {"other", p.share.other}}},
          {"seconds", {{"fetch", p.seconds.fetch}, {"hash", p.seconds.hash}, {"encode", p.seconds.encode},
                       {"io", p.seconds.io}, {"other", p.seconds.other}}},
          {"overhead", p.overhead},
          {"directions", directions},
          {"llc_counter", p.llc_counter},
          {ctx::ns_per_node_layer, p.timed_ns_per_node_layer},
          {"untimed_ns_per_node_layer", p.untimed_ns_per_node_layer},
          {"backend_ns_per_node_layer", p.backend_ns_per_node_layer},
          {"samples_ns_per_node_layer", samples},
          {"hashed_bytes", p.hashed_bytes},
          {"message_bytes", sdr::message_bytes(r.profile.scheme.variant)},
          {"cycles_per_byte", p.cycles_per_byte},
          {"backend_cycles_per_byte", p.backend_cycles_per_byte},
          {key::verified, p.verified},
          {key::verified_against, p.verified_against},
          {key::digest, p.digest},
          {"reference_digest", p.reference_digest},
          {"replica_digest", p.replica_digest}};
}

}  // namespace poreplab
