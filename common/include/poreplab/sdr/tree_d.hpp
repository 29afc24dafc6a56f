#pragma once
// tree_d: the binary SHA-256 Merkle tree over the raw data nodes whose root is comm_d
// (docs/spec/sdr.md section 7). Rows are stored leaves first, as rust-fil-proofs'
// sc-02-data-tree-d.dat: (2n-1) * 32 bytes, the last 32 bytes being comm_d.
#include <cstddef>
#include <cstdint>

#include "poreplab/checked.hpp"
#include "poreplab/sdr/replica_id.hpp"

namespace poreplab::sdr {

// Throws size_overflow when that does not fit in 64 bits.
inline std::uint64_t tree_d_bytes(std::uint64_t nodes) {
  return checked_mul(checked_mul(nodes, 2, "tree_d nodes") - 1, 32, "tree_d bytes");
}

// Fills `tree` (tree_d_bytes(nodes) bytes) from `data` (nodes * 32 bytes); nodes is a
// power of two. Rows above the leaves are hashed in parallel (OpenMP). Returns comm_d.
bytes32 build_tree_d(const std::uint8_t* data, std::uint64_t nodes, std::uint8_t* tree);

// comm_d alone, in O(log n) extra memory (one stack of subtree roots).
bytes32 comm_d(const std::uint8_t* data, std::uint64_t nodes);

}  // namespace poreplab::sdr
