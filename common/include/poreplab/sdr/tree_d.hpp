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

// Hashes one row of tree_d: next[i] = mask(SHA256(row[64 i, 64 i + 64))) for i < parents.
// Empty: the portable code (one message at a time, OpenMP over the row); a backend may
// give a faster one (backend::tree_d_rows: the cpu backend's multi-lane SHA-256 engine).
using tree_d_row_hasher = std::function<void(const std::uint8_t* row, std::uint64_t parents, std::uint8_t* next)>;

// The root of a subtree of 2^h all-zero leaves (h < 64). An all-zero (committed-capacity)
// sector's tree_d rows are these, repeated: the builders below hash nothing for one.
const bytes32& zero_subtree_root(unsigned h);

// Fills `tree` (tree_d_bytes(nodes) bytes) from `data` (nodes * 32 bytes); nodes is a
// power of two. Rows above the leaves are hashed in parallel. Returns comm_d.
bytes32 build_tree_d(const std::uint8_t* data, std::uint64_t nodes, std::uint8_t* tree,
                     const tree_d_row_hasher& rows = {});

// build_tree_d for a sector larger than memory, byte for byte the same file: the leaves
// come from read(first, count, out) and the tree leaves through write(offset, bytes, n)
// (offsets into the tree_d layout, not in order), chunk_nodes leaves at a time (a power
// of two). Memory: 2 * chunk_nodes * 32 bytes plus 32 bytes per chunk. Returns comm_d.
using tree_d_reader = std::function<void(std::uint64_t first, std::uint64_t count, std::uint8_t* out)>;
using tree_d_writer = std::function<void(std::uint64_t offset, const std::uint8_t* bytes, std::uint64_t n)>;
// A chunk of all-zero leaves is filled from zero_subtree_root, not hashed.
bytes32 build_tree_d_streamed(std::uint64_t nodes, std::uint64_t chunk_nodes, const tree_d_reader& read,
                              const tree_d_writer& write, const tree_d_row_hasher& rows = {});

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
