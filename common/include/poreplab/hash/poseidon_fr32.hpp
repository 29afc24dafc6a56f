#pragma once
// Poseidon's constants in the GPU's 32-bit words: packed once on the host into one flat
// array (what the CUDA backend uploads), and a view of that array wherever it lives
// (device memory, or host memory under cuda-emu) that optimized_rounds reads like
// `constants`. The width is a template argument so the state stays in registers.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "poreplab/field/fr32.hpp"
#include "poreplab/hash/poseidon.hpp"
#include "poreplab/hd.hpp"

namespace poreplab::poseidon {

template <class E>
struct const_array {
  const E* p = nullptr;
  POREPLAB_HD const E& operator[](std::size_t i) const { return p[i]; }
  POREPLAB_HD const E* data() const { return p; }
};

// One arity's constants as optimized_rounds reads them, T = arity + 1.
template <int T>
struct device_constants {
  static constexpr int kWidth = T;
  int width = T;
  int full_rounds = 0;
  int partial_rounds = 0;
  fr32::elem domain_tag{};
  const_array<fr32::elem> compressed_round_constants, mds, pre_sparse, sparse_w_hat, sparse_v_rest;
};

// The optimized form's constants of one arity, converted to 32-bit words, one array.
struct packed_constants {
  int arity = 0, width = 0, full_rounds = 0, partial_rounds = 0;
  fr32::elem domain_tag{};
  std::vector<fr32::elem> words;
  // Where each table starts in `words`.
  std::size_t round_constants_at = 0, mds_at = 0, pre_sparse_at = 0, w_hat_at = 0, v_rest_at = 0;
};

packed_constants pack_constants(const constants& c);

// A view of `p`'s tables at `base`, a copy of p.words (device memory or host).
// std::invalid_argument when T is not p's width.
template <int T>
device_constants<T> view_constants(const packed_constants& p, const fr32::elem* base) {
  if (p.width != T)
    throw std::invalid_argument("Poseidon constants of width " + std::to_string(p.width) + " viewed as width " +
                                std::to_string(T));
  device_constants<T> v;
  v.full_rounds = p.full_rounds;
  v.partial_rounds = p.partial_rounds;
  v.domain_tag = p.domain_tag;
  v.compressed_round_constants.p = base + p.round_constants_at;
  v.mds.p = base + p.mds_at;
  v.pre_sparse.p = base + p.pre_sparse_at;
  v.sparse_w_hat.p = base + p.w_hat_at;
  v.sparse_v_rest.p = base + p.v_rest_at;
  return v;
}

}  // namespace poreplab::poseidon
