#include <catch2/catch.hpp>

#include "poreplab/cpu/labeler.hpp"
#include "poreplab/graph/graph_params.hpp"
#include "poreplab/graph/parents.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/sdr/backend.hpp"

using namespace poreplab;

namespace {

std::vector<std::uint32_t> table_for(std::uint64_t nodes) {
  std::uint8_t porep_id[32] = {8};
  const auto g = graph::make_graph_params(porep_id, graph::api_version::v1_1_0, nodes);
  std::vector<std::uint32_t> t(nodes * 14);
  for (std::uint64_t v = 0; v < nodes; ++v) graph::node_parents(g, v, t.data() + 14 * v);
  return t;
}

std::vector<std::uint8_t> ids_for(std::uint32_t sectors) {
  std::vector<std::uint8_t> ids(32ull * sectors);
  for (std::uint32_t s = 0; s < sectors; ++s) {
    const std::uint8_t seed[4] = {static_cast<std::uint8_t>(s), 1, 2, 3};
    sha256::digest(ids.data() + 32 * s, seed, sizeof seed);
    ids[32 * s + 31] &= 0x3f;
  }
  return ids;
}

}  // namespace

TEST_CASE("every CPU engine labels like the reference at boundary sector counts", "[labeler]") {
  const std::uint64_t nodes = 256;
  const std::uint32_t layers = 3;
  const auto parents = table_for(nodes);
  for (const cpu::engine* e : cpu::available_engines(cpu::engine_algo::sha256)) {
    const std::uint32_t L = static_cast<std::uint32_t>(e->lanes);
    std::vector<std::uint32_t> counts = {1, L, L + 1, 2 * L + 1};
    if (L > 1) counts.push_back(L - 1);
    for (std::uint32_t sectors : counts) {
      INFO("engine " << e->name << ", sectors " << sectors);
      const auto ids = ids_for(sectors);
      sdr::label_job job{nodes, parents.data(), layers, sectors, ids.data()};
      sdr::memory_layer_store want(nodes * 32 * sectors, layers), got(nodes * 32 * sectors, layers);
      sdr::make_reference_backend()->label(job, want);
      cpu::labeler_options opt;
      opt.engine = std::string(e->name);
      opt.threads = 2;
      cpu::make_cpu_backend(opt)->label(job, got);
      for (std::uint32_t l = 1; l <= layers; ++l)
        REQUIRE(std::equal(want.layer(l), want.layer(l) + nodes * 32 * sectors, got.layer(l)));
    }
  }
}

TEST_CASE("cpu backend rejects unknown engines", "[labeler]") {
  cpu::labeler_options opt;
  opt.engine = "no-such-engine";
  CHECK_THROWS_AS(cpu::make_cpu_backend(opt), std::invalid_argument);
}
