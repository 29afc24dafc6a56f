#pragma once
// Base (DRG) parents by bucket sampling (docs/spec/sdr.md section 3; storage-proofs-core drgraph.rs
// BucketGraph::parents). They index the current layer.
#include <cmath>
#include <cstdint>

#include "poreplab/graph/chacha8.hpp"
#include "poreplab/graph/graph_params.hpp"
#include "poreplab/hd.hpp"

namespace poreplab::graph {

// ceil(log2(meta)) in f64 as the reference computes it; equals bit_length(meta - 1)
// for meta < 2^49.
POREPLAB_HD std::uint64_t bucket_count(std::uint64_t meta) {
  return static_cast<std::uint64_t>(std::ceil(std::log2(static_cast<double>(meta))));
}

POREPLAB_HD void base_parents(const std::uint8_t drg_seed[28], api_version api, std::uint64_t node,
                              std::uint32_t out[kBaseDegree]) {
  if (node < 2) {
    for (std::uint32_t k = 0; k < kBaseDegree; ++k) out[k] = 0;
    return;
  }
  std::uint8_t seed[32];
  for (int i = 0; i < 28; ++i) seed[i] = drg_seed[i];
  store_le32(seed + 28, static_cast<std::uint32_t>(node));
  chacha8_rng rng;
  chacha8_seed(rng, seed);

  constexpr std::uint64_t kMetaDegree = kBaseDegree - 1;  // m' = 5 random parents
  const std::uint64_t meta = node * kMetaDegree;
  const std::uint64_t n_buckets = bucket_count(meta);
  const auto self = static_cast<std::uint32_t>(node);
  // api 1.0.0 puts the predecessor last, later versions first.
  const bool legacy = api == api_version::v1_0_0;
  const std::uint32_t first_random = legacy ? 0 : 1;
  for (std::uint32_t k = 0; k < kMetaDegree; ++k) {
    const std::uint64_t bucket = chacha8_next_u64(rng) % n_buckets + 1;
    const std::uint64_t largest = meta < (std::uint64_t{1} << bucket) ? meta : std::uint64_t{1} << bucket;
    const std::uint64_t half = largest >> 1;
    const std::uint64_t smallest = half > 2 ? half : 2;
    const std::uint64_t dist = smallest + chacha8_next_u64(rng) % (largest - smallest + 1);
    const auto p = static_cast<std::uint32_t>((meta - dist) / kMetaDegree);
    out[first_random + k] = p == self ? self - 1 : p;
  }
  out[legacy ? kMetaDegree : 0] = self - 1;
}

POREPLAB_HD void base_parents(const graph_params& g, std::uint64_t node, std::uint32_t out[kBaseDegree]) {
  base_parents(g.drg_seed, g.api, node, out);
}

}  // namespace poreplab::graph
