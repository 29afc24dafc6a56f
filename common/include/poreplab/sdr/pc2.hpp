#pragma once
// PC2 (rust-fil-proofs' seal_pre_commit_phase2) as a plain reference: tree_c over the
// column hashes of the labels, tree_r_last over the replica, and
// comm_r = Poseidon_2(comm_c, comm_r_last). docs/spec/pc2.md describes the algorithm and
// the files; every node is a canonical 32-byte little-endian Fr element.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "poreplab/sdr/replica_id.hpp"

namespace poreplab::sdr {

// How a sector's nodes are split into base trees of arity 8, each over a contiguous block
// of nodes / base_count(), and how their roots are combined: one Poseidon over the
// sub_arity roots, or (top_arity 2) one per group of sub_arity roots and a Poseidon_2
// over those. filecoin-proofs src/constants.rs names these SectorShapeBase / Sub2 /
// Sub8 / Top2.
struct tree_shape {
  std::uint32_t base_arity = 8;
  std::uint32_t sub_arity = 0;  // 0, 2 or 8
  std::uint32_t top_arity = 0;  // 0 or 2 (with sub_arity 8)

  std::uint32_t base_count() const { return (sub_arity == 0 ? 1 : sub_arity) * (top_arity == 0 ? 1 : top_arity); }
  bool operator==(const tree_shape&) const = default;
};

// The shape rust-fil-proofs uses for a supported sector size (2KiB, 4KiB, 16KiB, 32KiB,
// 8MiB, 16MiB, 512MiB, 1GiB, 32GiB, 64GiB); std::invalid_argument for any other.
tree_shape tree_shape_for_sector_size(std::uint64_t sector_size);

// Whether x is 8^k for some k >= 0: the leaf counts an arity-8 tree is complete over.
constexpr bool is_power_of_8(std::uint64_t x) {
  if (x == 0) return false;
  while (x % 8 == 0) x /= 8;
  return x == 1;
}

// Rows of a complete tree over `leaves` (a power of `arity`), the leaves counted.
std::uint32_t tree_rows(std::uint64_t leaves, std::uint32_t arity);
// Nodes of that tree, leaves and root included.
std::uint64_t tree_nodes(std::uint64_t leaves, std::uint32_t arity);
// storage-proofs-core default_rows_to_discard for arity 8 (rust-fil-proofs' default
// setting of 2): the rows just above the leaves that tree_r_last does not store.
std::uint32_t tree_r_last_rows_to_discard(std::uint64_t leaves, std::uint32_t arity);
// Nodes tree_r_last stores per base tree: the rows above the leaves and the discarded
// rows, root included.
std::uint64_t tree_r_last_stored_nodes(std::uint64_t leaves, std::uint32_t arity);

struct pc2_file {
  std::string name;
  std::uint64_t bytes = 0;
  bool operator==(const pc2_file&) const = default;
};

// The tree files PC2 writes into the cache directory, as rust-fil-proofs names them:
// sc-02-data-tree-c.dat and sc-02-data-tree-r-last.dat for one base tree, else
// sc-02-data-tree-c-<i>.dat for each base tree i, then sc-02-data-tree-r-last-<i>.dat.
// (The label layers, p_aux and t_aux are not included; the layer count does not change
// any tree file.)
std::vector<pc2_file> pc2_tree_files(std::uint64_t sector_size);

// Poseidon over node `node` of each layer, layer 1 first (2 or 11 layers; any other
// count is std::invalid_argument). std::runtime_error when a label is not canonical.
bytes32 column_hash(std::span<const std::uint8_t* const> layers, std::uint64_t node);

struct pc2_output {
  bytes32 comm_c{};
  bytes32 comm_r_last{};
  bytes32 comm_r{};
  // With want_files: each base tree's file contents, in pc2_tree_files order.
  std::vector<std::vector<std::uint8_t>> tree_c_files;
  std::vector<std::vector<std::uint8_t>> tree_r_last_files;
};

// `labels`: one pointer per layer (layer 1 first) to nodes * 32 bytes; `replica`:
// nodes * 32 bytes. nodes must be base_count() times a power of 8 (at least 8).
// Throws std::invalid_argument for a bad shape or layer count, and std::runtime_error
// naming the layer (or the replica) and node of a value that is not canonical (>= r).
// Single-threaded and whole-sector in memory: a reference, not a sealer.
pc2_output pc2_reference(std::span<const std::uint8_t* const> labels, const std::uint8_t* replica,
                         std::uint64_t nodes, const tree_shape& shape, bool want_files = false);
// The same with the shape and node count (sector_size / 32) of a supported sector size.
pc2_output pc2_reference_for_sector(std::span<const std::uint8_t* const> labels, const std::uint8_t* replica,
                                    std::uint64_t sector_size, bool want_files = false);

}  // namespace poreplab::sdr
