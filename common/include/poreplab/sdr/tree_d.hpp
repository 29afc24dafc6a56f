#pragma once
// tree_d: the binary SHA-256 Merkle tree over the raw data nodes whose root is comm_d
// (docs/spec/sdr.md section 7). Rows are stored leaves first, as rust-fil-proofs'
// sc-02-data-tree-d.dat: (2n-1) * 32 bytes, the last 32 bytes being comm_d.
#include <cstddef>
#include <cstdint>
#include <functional>

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

// build_tree_d for a sector larger than memory, byte for byte the same file: the leaves
// come from read(first, count, out) and the tree leaves through write(offset, bytes, n)
// (offsets into the tree_d layout, not in order), chunk_nodes leaves at a time (a power
// of two). Memory: 2 * chunk_nodes * 32 bytes plus 32 bytes per chunk. Returns comm_d.
using tree_d_reader = std::function<void(std::uint64_t first, std::uint64_t count, std::uint8_t* out)>;
using tree_d_writer = std::function<void(std::uint64_t offset, const std::uint8_t* bytes, std::uint64_t n)>;
bytes32 build_tree_d_streamed(std::uint64_t nodes, std::uint64_t chunk_nodes, const tree_d_reader& read,
                              const tree_d_writer& write);

// comm_d alone, in O(log n) extra memory (one stack of subtree roots).
bytes32 comm_d(const std::uint8_t* data, std::uint64_t nodes);

// comm_d of leaves given piece by piece, in order.
class comm_d_builder {
 public:
  void add(const std::uint8_t* leaves, std::uint64_t count);
  // The root once a power of two of leaves were added.
  bytes32 root() const;

 private:
  bytes32 stack_[64] = {};
  std::uint64_t filled_ = 0;  // bit h: stack_[h] holds a pending left subtree of height h
};

}  // namespace poreplab::sdr
