#pragma once
// The label of one SDR node (docs/spec/sdr.md section 5), host and device:
//   label = mask(H(header(64) || 37 parent labels)), node 0: mask(H(header)),
// H = SHA-256 for Filecoin.
// Parent labels are fed to the compression function where they lie; nothing is copied.
#include <cstdint>

#include "poreplab/graph/graph_params.hpp"
#include "poreplab/hash/bytes.hpp"
#include "poreplab/hd.hpp"
#include "poreplab/sdr/chunk_hash.hpp"
#include "poreplab/sdr/scheme.hpp"

namespace poreplab::sdr {

using graph::kBaseDegree;
using graph::kExpDegree;
inline constexpr std::uint32_t kParents = graph::kParentsPerNode;
inline constexpr std::uint32_t kParentBlocks = 37;         // 32-byte parent chunks hashed per node
inline constexpr std::uint32_t kLabelCompressions = 20;    // header + 18 parent pairs + last
static_assert(kSdrMessageBytes == 64 + kParentBlocks * 32);

// header = replica_id(32) || u32_BE(layer) || u64_BE(node) || 20 zero bytes; layers from 1.
POREPLAB_HD void make_header(std::uint8_t hdr[64], const std::uint8_t* replica_id, std::uint32_t layer,
                             std::uint64_t node) {
  for (int i = 0; i < 32; ++i) hdr[i] = replica_id[i];
  store_be32(hdr + 32, layer);
  store_be64(hdr + 36, node);
  for (int i = 44; i < 64; ++i) hdr[i] = 0;
}

// Parent slot hashed at position k (0..36) of the parent section.
POREPLAB_HD std::uint32_t parent_slot(std::uint32_t layer, std::uint32_t k) {
  return layer == 1 ? k % kBaseDegree : k % kParents;
}

// Which SHA-256 blocks of a regular node's padded message (header, 18 parent pairs, the
// last parent with the padding) always equal an earlier one: the 37 parent chunks cycle
// through 6 parents (layer 1) or 14, so blocks 4.. repeat blocks 1..3 (layer 1) and
// blocks 8.. repeat 1..7. first_of[b] is the first block with block b's bytes (b itself
// for a first occurrence); engines reuse such a block's message schedule.
struct label_block_repeats {
  std::uint8_t first_of[kLabelCompressions];
};
constexpr label_block_repeats make_label_block_repeats(std::uint32_t layer) {
  const std::uint32_t cycle = layer == 1 ? kBaseDegree : kParents;
  label_block_repeats r{};
  for (std::uint32_t b = 0; b < kLabelCompressions; ++b) {
    r.first_of[b] = static_cast<std::uint8_t>(b);
    if (b == 0 || 2 * b > kParentBlocks) continue;  // the header; the block holding the padding
    for (std::uint32_t a = 1; a < b; ++a)
      if ((2 * a - 2) % cycle == (2 * b - 2) % cycle && (2 * a - 1) % cycle == (2 * b - 1) % cycle) {
        r.first_of[b] = static_cast<std::uint8_t>(a);
        break;
      }
  }
  return r;
}
inline constexpr label_block_repeats kLayer1BlockRepeats = make_label_block_repeats(1);
inline constexpr label_block_repeats kLaterLayerBlockRepeats = make_label_block_repeats(2);
static_assert(kLayer1BlockRepeats.first_of[4] == 1 && kLayer1BlockRepeats.first_of[18] == 3 &&
              kLayer1BlockRepeats.first_of[19] == 19);
static_assert(kLaterLayerBlockRepeats.first_of[8] == 1 && kLaterLayerBlockRepeats.first_of[18] == 4 &&
              kLaterLayerBlockRepeats.first_of[7] == 7 && kLaterLayerBlockRepeats.first_of[19] == 19);

// The header block (replica_id, layer, node) depends on no parent: its compression can run
// ahead of the node, leaving a chain of the 19 blocks after it. after_header(r) is r for that
// chain (its block b is the message's block b + 1); the header repeats no block, so every
// index moves down by one.
inline constexpr std::uint32_t kChainedCompressions = kLabelCompressions - 1;
struct chained_block_repeats {
  std::uint8_t first_of[kChainedCompressions];
};
constexpr chained_block_repeats after_header(const label_block_repeats& r) {
  chained_block_repeats c{};
  for (std::uint32_t b = 0; b < kChainedCompressions; ++b) c.first_of[b] = static_cast<std::uint8_t>(r.first_of[b + 1] - 1);
  return c;
}
inline constexpr chained_block_repeats kLayer1ChainedRepeats = after_header(kLayer1BlockRepeats);
inline constexpr chained_block_repeats kLaterLayerChainedRepeats = after_header(kLaterLayerBlockRepeats);
static_assert(kLayer1ChainedRepeats.first_of[3] == 0 && kLaterLayerChainedRepeats.first_of[7] == 0 &&
              kLaterLayerChainedRepeats.first_of[18] == 18);

// A layer of one sector as seen by the labeler: node i's label is at base + i * stride.
// stride is 32 for a sector stored alone and 32 * S for S sectors stored node-major.
struct layer_ref {
  std::uint8_t* base;
  std::uint64_t stride;
  POREPLAB_HD std::uint8_t* at(std::uint64_t node) const { return base + node * stride; }
};

// Labels node `node` of layer `layer` into cur.at(node). `parents` are the node's 14
// parents (6 base in the current layer, 8 expander in the previous one). prev is
// ignored for layer 1. H other than sha256 is a what-if variant (scheme.hpp).
// K (GPU study variants): vec16 needs layer bases and strides that keep every label
// 16-byte aligned, as device allocations do.
template <hash_family H = hash_family::sha256, kernel_variant K = kernel_variant::standard>
POREPLAB_HD void label_node(const std::uint8_t* replica_id, std::uint32_t layer, std::uint64_t node,
                            const std::uint32_t* parents, layer_ref cur, layer_ref prev) {
  alignas(16) std::uint8_t hdr[64];
  make_header(hdr, replica_id, layer, node);
  std::uint8_t* out = cur.at(node);
  if (node == 0) {
    hash_chunks<H, 2, K>([&](std::uint32_t k) -> const std::uint8_t* { return hdr + 32 * k; }, out);
  } else {
    // Chunks 0 and 1 are the header; chunk 2 + k is parent slot parent_slot(layer, k).
    hash_chunks<H, 2 + kParentBlocks, K>(
        [&](std::uint32_t k) -> const std::uint8_t* {
          if (k < 2) return hdr + 32 * k;
          const std::uint32_t slot = parent_slot(layer, k - 2);
          return slot < kBaseDegree ? cur.at(parents[slot]) : prev.at(parents[slot]);
        },
        out);
  }
  out[31] &= 0x3f;
}

// label_node from the 14 parent labels already gathered (labels + 32 * slot, slot order
// of the row), in family h's label hash: sampled verification recomputes a node from what it
// captured. Host only; defined once, in common/src/label_from_parents.cpp, for every family
// through with_family: each family's code inlines a node's 20 compressions, which cost
// every includer that compiled its own copy tens of seconds.
void label_from_parent_labels(hash_family h, const std::uint8_t* replica_id, std::uint32_t layer, std::uint64_t node,
                              const std::uint8_t* labels, std::uint8_t* out);

}  // namespace poreplab::sdr
