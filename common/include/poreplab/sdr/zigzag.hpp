#pragma once
// One node of the r2 "ZigZag" replication (docs/spec/r2-zigzag.md), host and device.
// The replica is encoded in place: a node's key is the hash of replica_id and its 13
// parents' current values, and the node becomes node + key mod r. Which parents a node
// has and in which order nodes are visited comes from the zigzag table
// (graph/zigzag_graph.hpp): one row per visited node, [node, 5 base, 8 expander].
#include <cstdint>

#include "poreplab/field/fr.hpp"
#include "poreplab/hd.hpp"
#include "poreplab/sdr/chunk_hash.hpp"
#include "poreplab/sdr/label.hpp"

namespace poreplab::sdr {

inline constexpr std::uint32_t kZigzagBaseDegree = 5;
inline constexpr std::uint32_t kZigzagExpDegree = 8;
// A zigzag row is as wide as an SDR row (kParents words): slot 0 names the node.
inline constexpr std::uint32_t kZigzagRowWords = 1 + kZigzagBaseDegree + kZigzagExpDegree;
static_assert(kZigzagRowWords == kParents, "zigzag and SDR rows share the table stride");

// The key of the node a row names: mask(H(replica_id || 13 parents)), or
// mask(H(replica_id)) for the first node of a direction (its first base parent is itself).
template <hash_family H>
POREPLAB_HD void zigzag_key(const std::uint8_t* replica_id, const std::uint32_t* row, layer_ref buf,
                            std::uint8_t key[32]) {
  if (row[1] == row[0]) {
    hash_chunks<H, 1>([&](std::uint32_t) { return replica_id; }, key);
  } else {
    hash_chunks<H, kZigzagRowWords>(
        [&](std::uint32_t k) -> const std::uint8_t* { return k == 0 ? replica_id : buf.at(row[k]); }, key);
  }
  key[31] &= 0x3f;
}

// Encodes the node row[0] of buf in place.
template <hash_family H>
POREPLAB_HD void zigzag_encode_node(const std::uint8_t* replica_id, const std::uint32_t* row, layer_ref buf) {
  std::uint8_t key[32];
  zigzag_key<H>(replica_id, row, buf, key);
  std::uint8_t* node = buf.at(row[0]);
  fr::add(node, key, node);
}

// Undoes zigzag_encode_node, given the parents' values at the time it ran (decode a
// layer's rows in reverse order).
template <hash_family H>
POREPLAB_HD void zigzag_decode_node(const std::uint8_t* replica_id, const std::uint32_t* row, layer_ref buf) {
  std::uint8_t key[32];
  zigzag_key<H>(replica_id, row, buf, key);
  std::uint8_t* node = buf.at(row[0]);
  fr::sub(node, key, node);
}

// Layer l (1-based) visits the forward rows when l is odd, the reversed rows when even.
POREPLAB_HD constexpr std::uint64_t zigzag_first_row(std::uint32_t layer, std::uint64_t nodes) {
  return layer % 2 == 1 ? 0 : nodes;
}

}  // namespace poreplab::sdr
