#pragma once
// Everything the SDR graph of one porep_id and size depends on, precomputed on the
// host (docs/spec/sdr.md section 2) and passed by value or pointer to host and device code.
#include <cstdint>

#include "poreplab/graph/feistel.hpp"

namespace poreplab::graph {

inline constexpr std::uint32_t kBaseDegree = 6;
inline constexpr std::uint32_t kExpDegree = 8;
inline constexpr std::uint32_t kParentsPerNode = kBaseDegree + kExpDegree;

// filecoin-proofs-api ApiVersion; it changes the graph (spec sections 3 and 4).
enum class api_version : std::uint32_t { v1_0_0 = 0, v1_1_0 = 1, v1_2_0 = 2 };

struct graph_params {
  std::uint64_t nodes;              // power of two, 2..2^32
  api_version api;
  std::uint8_t drg_seed[28];        // SHA256("Filecoin_DRSample" || porep_id)[0..28]
  std::uint64_t feistel_keys[4];    // u64_LE words of SHA256("Filecoin_Feistel" || porep_id)
  feistel_precomputed feistel_pre;  // for the domain nodes * kExpDegree
};

// Host only. porep_id is 32 bytes. Throws std::invalid_argument unless nodes is a power
// of two in [2, 2^32] (parents are u32 and the DRG seed carries u32(node)).
graph_params make_graph_params(const std::uint8_t* porep_id, api_version api, std::uint64_t nodes);

}  // namespace poreplab::graph
