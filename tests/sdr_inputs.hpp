#pragma once
// Inputs of small SDR labelings shared by the labeler tests: a graph's parent table and
// replica ids.
#include <cstdint>
#include <vector>

#include "poreplab/graph/graph_params.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/graph/parents.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/sdr/porep_id.hpp"

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

// A parent table and the replica ids that label on it.
struct graph_job {
  std::vector<std::uint32_t> table;
  std::vector<std::uint8_t> ids;
};

// The parent table (fill_parent_rows) of a `nodes`-node graph of StackedDrg2KiBV1_1's porep
// id, and replica ids of `sectors` sectors: SHA-256 of {sector, seed_a, seed_b}, below 2^254.
inline graph_job registered_graph_job(std::uint64_t nodes, std::uint32_t sectors, std::uint8_t seed_a,
                                      std::uint8_t seed_b) {
  const auto id = sdr::porep_id_of(sdr::find_registered_proof("StackedDrg2KiBV1_1"));
  const auto g = graph::make_graph_params(id.data(), graph::api_version::v1_1_0, nodes);
  graph_job d;
  d.table.resize(nodes * 14);
  graph::fill_parent_rows(g, 0, nodes, d.table.data());
  d.ids.resize(32ull * sectors);
  for (std::uint32_t s = 0; s < sectors; ++s) {
    const std::uint8_t seed[3] = {static_cast<std::uint8_t>(s), seed_a, seed_b};
    sha256::digest(d.ids.data() + 32 * s, seed, sizeof seed);
    d.ids[32 * s + 31] &= 0x3f;
  }
  return d;
}

}  // namespace poreplab::test
