#pragma once
// The graph of the ZigZag variant (docs/spec/r2-zigzag.md) as a table of 2n rows of
// 14 u32, in the order the nodes are encoded. Host only.
//   rows 0..n-1:  forward layers, row v = [v, base(v), exp(v)]
//   rows n..2n-1: reversed layers, row n + i encodes node u = n-1-i:
//                 [u, n-1-base(n-1-u)[k], reversed expander parents of u]
// base(v): the 5 bucket-sampled parents of the SDR graph of the same porep_id (without
// SDR's predecessor edge), sorted ascending; all 0 for nodes 0 and 1.
// exp(v) slot i: u = feistel_permute(8n, 8v + i) / 8 when u < v, else 0.
// Reversed expander slot j of node u: the v whose forward slot lands on 8u + j, when
// that edge was kept (u < v), else n-1 (the reversed direction's first node). Every
// kept forward edge appears reversed exactly once: the Feistel map is a permutation.
// Reversed layers visit nodes from n-1 down to 0, so both directions are sequential.
#include <cstdint>
#include <vector>

#include "poreplab/graph/graph_params.hpp"
#include "poreplab/huge_buffer.hpp"

namespace poreplab::graph {

// Base parents of node v (5, ascending).
void zigzag_base_parents(const graph_params& g, std::uint64_t node, std::uint32_t out[5]);

// The 2n x 14 table, generated with OpenMP threads.
huge_buffer zigzag_table(const graph_params& g);

}  // namespace poreplab::graph
