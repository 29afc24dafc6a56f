#pragma once
// Inputs of small SDR labelings shared by the labeler tests: a graph's parent table and
// replica ids.
#include <cstdint>
#include <vector>

#include "poreplab/graph/graph_params.hpp"
#include "poreplab/graph/parents.hpp"
#include "poreplab/hash/sha256.hpp"

namespace poreplab::test {

// The parent table of a `nodes`-node SDR graph (porep_id 08 00 ..), 14 words a node.
inline std::vector<std::uint32_t> sdr_parent_table(std::uint64_t nodes) {
  std::uint8_t porep_id[32] = {8};
  const auto g = graph::make_graph_params(porep_id, graph::api_version::v1_1_0, nodes);
  std::vector<std::uint32_t> t(nodes * 14);
  for (std::uint64_t v = 0; v < nodes; ++v) graph::node_parents(g, v, t.data() + 14 * v);
  return t;
}

// Replica ids of `sectors` sectors: SHA-256 of a seed per sector, below 2^254.
inline std::vector<std::uint8_t> sdr_replica_ids(std::uint32_t sectors) {
  std::vector<std::uint8_t> ids(32ull * sectors);
  for (std::uint32_t s = 0; s < sectors; ++s) {
    const std::uint8_t seed[4] = {static_cast<std::uint8_t>(s), 1, 2, 3};
    sha256::digest(ids.data() + 32 * s, seed, sizeof seed);
    ids[32 * s + 31] &= 0x3f;
  }
  return ids;
}

}  // namespace poreplab::test
