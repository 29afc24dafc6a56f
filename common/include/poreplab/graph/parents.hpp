#pragma once
// The 14 parents of one node, in parent-table order: 6 base, then 8 expander.
#include <cstdint>

#include "poreplab/graph/bucket.hpp"
#include "poreplab/graph/expander.hpp"
#include "poreplab/graph/graph_params.hpp"
#include "poreplab/hd.hpp"

namespace poreplab::graph {

POREPLAB_HD void node_parents(const graph_params& g, std::uint64_t node, std::uint32_t out[kParentsPerNode]) {
  base_parents(g, node, out);
  expander_parents(g, node, out + kBaseDegree);
}

}  // namespace poreplab::graph
