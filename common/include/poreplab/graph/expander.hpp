#pragma once
// Expander parents (docs/spec/sdr.md section 4; porep graph.rs `correspondent`). They index the
// previous layer and may be any node, v itself included.
#include <cstdint>

#include "poreplab/graph/feistel.hpp"
#include "poreplab/graph/graph_params.hpp"
#include "poreplab/hd.hpp"

namespace poreplab::graph {

POREPLAB_HD std::uint32_t expander_parent(const graph_params& g, std::uint64_t node, std::uint32_t i) {
  const std::uint64_t permuted =
      feistel_permute(g.nodes * kExpDegree, node * kExpDegree + i, g.feistel_keys, g.feistel_pre);
  // api 1.0.0 truncates to u32 before dividing; it matters once nodes * 8 > 2^32.
  if (g.api == api_version::v1_0_0) return static_cast<std::uint32_t>(permuted) / kExpDegree;
  return static_cast<std::uint32_t>(permuted / kExpDegree);
}

POREPLAB_HD void expander_parents(const graph_params& g, std::uint64_t node, std::uint32_t out[kExpDegree]) {
  for (std::uint32_t i = 0; i < kExpDegree; ++i) out[i] = expander_parent(g, node, i);
}

}  // namespace poreplab::graph
