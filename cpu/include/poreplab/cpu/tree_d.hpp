#pragma once
// tree_d (the comm_d Merkle tree) through a SHA-256 engine, with the padding block of
// each 64-byte parent message either compressed like data (its schedule computed) or
// finished from its precomputed W+K (the engine's sha256_pad64): the A/B of the padding
// precompute. The library builder (sdr::build_tree_d) always precomputes.
#include <cstdint>

#include "poreplab/cpu/engines.hpp"
#include "poreplab/sdr/tree_d.hpp"

namespace poreplab::cpu {

// Same layout and result as sdr::build_tree_d. Throws std::invalid_argument for a node
// count that is not a power of two, a non-SHA-256 engine, or pad_precompute with an
// engine that has no sha256_pad64.
sdr::bytes32 build_tree_d(const engine& e, const std::uint8_t* data, std::uint64_t nodes, std::uint8_t* tree,
                          bool pad_precompute);

}  // namespace poreplab::cpu
