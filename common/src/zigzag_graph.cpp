#include "poreplab/graph/zigzag_graph.hpp"

#include <algorithm>
#include <cstdint>

#include "poreplab/graph/bucket.hpp"
#include "poreplab/graph/feistel.hpp"

namespace poreplab::graph {

namespace {
constexpr std::uint32_t kRow = 14, kBase = 5, kExp = 8;
}

void zigzag_base_parents(const graph_params& g, std::uint64_t node, std::uint32_t out[5]) {
  // SDR (api >= 1.1.0) puts its predecessor edge in slot 0 and the 5 sampled parents after it.
  std::uint32_t sdr[kBaseDegree];
  base_parents(g.drg_seed, api_version::v1_1_0, node, sdr);
  std::copy(sdr + 1, sdr + 1 + kBase, out);
  std::sort(out, out + kBase);
}

huge_buffer zigzag_table(const graph_params& g) {
  const std::uint64_t n = g.nodes;
  huge_buffer buf(2 * n * kRow * sizeof(std::uint32_t));
  auto* t = reinterpret_cast<std::uint32_t*>(buf.data());
  const auto last = static_cast<std::uint32_t>(n - 1);
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    std::uint32_t* rev = t + (n + static_cast<std::uint64_t>(i)) * kRow;
    rev[0] = last - static_cast<std::uint32_t>(i);
    for (std::uint32_t j = 0; j < kExp; ++j) rev[1 + kBase + j] = last;
  }
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t i = 0; i < count; ++i) {
    const auto v = static_cast<std::uint64_t>(i);
    std::uint32_t* fwd = t + v * kRow;
    fwd[0] = static_cast<std::uint32_t>(v);
    zigzag_base_parents(g, v, fwd + 1);
    // Reversed row of node n-1-v takes the mirrored base parents of v.
    std::uint32_t* rev_of_mirror = t + (n + v) * kRow;
    for (std::uint32_t k = 0; k < kBase; ++k) rev_of_mirror[1 + k] = last - fwd[1 + k];
    for (std::uint32_t i8 = 0; i8 < kExp; ++i8) {
      const std::uint64_t x = feistel_permute(n * kExpDegree, v * kExpDegree + i8, g.feistel_keys, g.feistel_pre);
      const std::uint64_t u = x / kExpDegree;
      if (u < v) {
        fwd[1 + kBase + i8] = static_cast<std::uint32_t>(u);
        // Node u is visited by reversed row n-1-u; its slot x % 8 is written by this edge only.
        t[(n + (n - 1 - u)) * kRow + 1 + kBase + x % kExpDegree] = static_cast<std::uint32_t>(v);
      } else {
        fwd[1 + kBase + i8] = 0;
      }
    }
  }
  return buf;
}

}  // namespace poreplab::graph
