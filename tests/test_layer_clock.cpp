// Per-layer timing: the store that notes each layer's end on every backend, the grouping
// of layers by direction, and the figures bench_label and the reports carry.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/label.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/graph/zigzag_graph.hpp"
#include "poreplab/huge_buffer.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/sdr/backend.hpp"
#include "poreplab/sdr/emulated_backend.hpp"
#include "poreplab/sdr/encoding.hpp"
#include "poreplab/sdr/layer_clock.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "support.hpp"

using namespace poreplab;

TEST_CASE("layer clock: layers grouped by direction", "[layers]") {
  using sdr::porep_variant;
  CHECK(sdr::layer_group(porep_variant::sdr, 1) == "layer 1");
  CHECK(sdr::layer_group(porep_variant::sdr, 2) == "layers 2+");
  CHECK(sdr::layer_group(porep_variant::sdr, 11) == "layers 2+");
  CHECK(sdr::layer_group(porep_variant::zigzag, 1) == "forward");
  CHECK(sdr::layer_group(porep_variant::zigzag, 2) == "reverse");
  CHECK(sdr::layer_group(porep_variant::zigzag, 9) == "forward");

  const auto s = sdr::group_layers(porep_variant::sdr, 1, {10, 20, 40});
  REQUIRE(s.size() == 2);
  CHECK(s[0] == std::pair<std::string, double>{"layer 1", 10});
  CHECK(s[1] == std::pair<std::string, double>{"layers 2+", 30});
  const auto z = sdr::group_layers(porep_variant::zigzag, 1, {1, 2, 3, 6});
  REQUIRE(z.size() == 2);
  CHECK(z[0] == std::pair<std::string, double>{"forward", 2});
  CHECK(z[1] == std::pair<std::string, double>{"reverse", 4});
  // A run that starts at layer 2 (a window, a resume) has no layer 1.
  const auto w = sdr::group_layers(porep_variant::sdr, 2, {5});
  REQUIRE(w.size() == 1);
  CHECK(w[0].first == "layers 2+");
  CHECK(sdr::group_layers(porep_variant::zigzag, 1, {}).empty());
}

TEST_CASE("layer clock: every backend reports each layer once, in order, and the labels are unchanged", "[layers]") {
  const std::uint64_t nodes = 64;
  const std::uint32_t layers = 4, sectors = 3;
  const auto id = sdr::porep_id_of(sdr::find_registered_proof("StackedDrg2KiBV1_1"));
  const auto g = graph::make_graph_params(id.data(), graph::api_version::v1_1_0, nodes);
  std::vector<std::uint32_t> table(nodes * 14);
  graph::fill_parent_rows(g, 0, nodes, table.data());
  const huge_buffer zz = graph::zigzag_table(g);  // forward and reversed rows
  std::vector<std::uint8_t> ids(32 * sectors);
  for (std::uint32_t s = 0; s < sectors; ++s) {
    const std::uint8_t seed[2] = {static_cast<std::uint8_t>(s), 3};
    sha256::digest(ids.data() + 32 * s, seed, sizeof seed);
    ids[32 * s + 31] &= 0x3f;
  }
  for (const auto scheme : {sdr::label_scheme{}, sdr::label_scheme{sdr::porep_variant::zigzag, hash_family::sha256}}) {
    const bool zigzag = scheme.variant == sdr::porep_variant::zigzag;
    sdr::label_job job{nodes, zigzag ? reinterpret_cast<const std::uint32_t*>(zz.data()) : table.data(), layers, sectors,
                       ids.data(), scheme};
    const auto data = sdr::generated_field_data(32 * nodes * sectors, 0x5eed);
    job.data = data.data();  // zigzag encodes it
    sdr::memory_layer_store want(32 * nodes * sectors, layers);
    sdr::make_reference_backend()->label(job, want);
    std::vector<std::unique_ptr<sdr::backend>> backends;
    backends.push_back(sdr::make_reference_backend());
    backends.push_back(cpu::make_cpu_backend({}));
    backends.push_back(sdr::make_emulated_backend());
    for (const auto& be : backends) {
      INFO(be->name() << " " << sdr::variant_name(scheme.variant));
      sdr::memory_layer_store got(32 * nodes * sectors, layers);
      sdr::layer_clock_store clocked(got);
      clocked.start();
      be->label(job, clocked);
      const auto& t = clocked.layer_seconds();
      REQUIRE(t.size() == layers);
      for (std::uint32_t l = 1; l <= layers; ++l) {
        CHECK(t[l - 1].first == l);
        CHECK(t[l - 1].second >= 0);
        CHECK(to_hex(got.layer(l), 32 * nodes * sectors) == to_hex(want.layer(l), 32 * nodes * sectors));
      }
    }
  }
}

TEST_CASE("layer clock: bench_label records per-layer and per-direction figures", "[layers]") {
  label_bench_options o;
  o.backend = &find_backend("cpu");
  o.scheme.variant = sdr::porep_variant::zigzag;
  o.sector_size = 4096;
  o.layers = 4;
  o.warmup = 0;
  o.samples = 2;
  const label_bench_result r = bench_label(o);
  REQUIRE(r.verified);
  REQUIRE(r.layer_ns_per_node.size() == 4);
  for (double ns : r.layer_ns_per_node) CHECK(ns > 0);
  REQUIRE(r.layer_groups.size() == 2);
  CHECK(r.layer_groups[0].first == "forward");
  CHECK(r.layer_groups[0].second == Approx((r.layer_ns_per_node[0] + r.layer_ns_per_node[2]) / 2));
  CHECK(r.layer_groups[1].first == "reverse");
  CHECK(r.layer_groups[1].second == Approx((r.layer_ns_per_node[1] + r.layer_ns_per_node[3]) / 2));
  const nlohmann::json j = to_json(r);
  CHECK(j["first_timed_layer"] == 1);
  CHECK(j["layer_ns_per_node"].size() == 4);
  CHECK(j["layer_groups_ns_per_node"].contains("forward"));
  CHECK(j["layer_groups_ns_per_node"].contains("reverse"));
}
