#pragma once
// tree_d (the comm_d Merkle tree) through a SHA-256 engine, with the padding block of
// each 64-byte parent message either compressed like data (its schedule computed) or
// finished from its precomputed W+K (the engine's sha256_pad64): the A/B of the padding
// precompute. The cpu backend's tree_d rows (what `seal` builds tree_d with) run on the
// engine measured fastest for many messages, with the precomputed padding where it has it.
#include <cstdint>

#include "poreplab/cpu/engines.hpp"
#include "poreplab/sdr/tree_d.hpp"

namespace poreplab::cpu {

// Same layout and result as sdr::build_tree_d. Throws std::invalid_argument for a node
// count that is not a power of two, a non-SHA-256 engine, or pad_precompute with an
// engine that has no sha256_pad64.
sdr::bytes32 build_tree_d(const engine& e, const std::uint8_t* data, std::uint64_t nodes, std::uint8_t* tree,
                          bool pad_precompute);

// One row: next[i] = mask(SHA256(row[64 i, 64 i + 64))) for i < parents, `e.lanes` messages
// per call, on `threads` OpenMP threads (0: the OpenMP default) from 4096 parents up.
void hash_tree_d_row(const engine& e, const std::uint8_t* row, std::uint64_t parents, std::uint8_t* next,
                     bool pad_precompute, int threads);

// The engine tree_d rows run on (tune's fastest SHA-256 for many messages), and the row
// hasher the cpu backend gives sdr::build_tree_d: that engine, padding precomputed where
// it can be.
const engine& tree_d_engine();
sdr::tree_d_row_hasher make_tree_d_row_hasher(int threads);

}  // namespace poreplab::cpu
