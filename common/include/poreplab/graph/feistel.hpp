#pragma once
// Feistel permutation of the expander graph (docs/spec/sdr.md section 4; storage-proofs-core
// crypto/feistel.rs): 3 rounds, BLAKE2b-512 round function, cycle walking.
#include <cstdint>

#include "poreplab/hash/blake2b.hpp"
#include "poreplab/hd.hpp"

namespace poreplab::graph {

inline constexpr int kFeistelRounds = 3;

struct feistel_precomputed {
  std::uint64_t left_mask;
  std::uint64_t right_mask;
  std::uint32_t half_bits;
};

// Smallest log4 >= 1 with 4^log4 >= num_elements; the block has 2*log4 bits.
POREPLAB_HD feistel_precomputed feistel_precompute(std::uint64_t num_elements) {
  std::uint64_t next_pow4 = 4;
  std::uint32_t log4 = 1;
  while (next_pow4 < num_elements) {
    next_pow4 *= 4;
    ++log4;
  }
  const std::uint64_t right = (std::uint64_t{1} << log4) - 1;
  return feistel_precomputed{right << log4, right, log4};
}

POREPLAB_HD std::uint64_t feistel_bswap64(std::uint64_t x) {
  x = (x & 0x00ff00ff00ff00ffull) << 8 | (x >> 8 & 0x00ff00ff00ff00ffull);
  x = (x & 0x0000ffff0000ffffull) << 16 | (x >> 16 & 0x0000ffff0000ffffull);
  return x << 32 | x >> 32;
}

// F(r, key) = u64_BE(BLAKE2b-512(u64_BE(r) || u64_BE(key))[0..8]) & right_mask.
// The 16-byte message is one final block with 14 zero words; this copy of the
// compression is specialised for that (the zero words fold away once unrolled) and
// keeps only output word 0. It is where parent generation spends its time.
POREPLAB_HD std::uint64_t feistel_round(std::uint64_t right, std::uint64_t key, std::uint64_t right_mask) {
  using T = blake2::traits_b;
  const std::uint64_t m0 = feistel_bswap64(right);  // BLAKE2b reads words little-endian
  const std::uint64_t m1 = feistel_bswap64(key);
  std::uint64_t v[16];
  POREPLAB_UNROLL
  for (int i = 0; i < 8; ++i) {
    v[i] = T::iv(i);
    v[i + 8] = T::iv(i);
  }
  v[0] ^= 0x01010040u;  // parameter block: 64-byte digest, no key, fanout 1, depth 1
  const std::uint64_t h0 = v[0];
  v[12] ^= 16;          // bytes hashed
  v[14] = ~v[14];       // final block
  constexpr int kG[8][4] = {{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15},
                            {0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 14}};
  POREPLAB_UNROLL
  for (int r = 0; r < T::kRounds; ++r) {
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) {
      const int sx = blake2::sigma(r, 2 * i), sy = blake2::sigma(r, 2 * i + 1);
      const std::uint64_t x = sx == 0 ? m0 : sx == 1 ? m1 : 0;
      const std::uint64_t y = sy == 0 ? m0 : sy == 1 ? m1 : 0;
      blake2b::g(v, kG[i][0], kG[i][1], kG[i][2], kG[i][3], x, y);
    }
  }
  return feistel_bswap64(h0 ^ v[0] ^ v[8]) & right_mask;
}

POREPLAB_HD std::uint64_t feistel_encode(std::uint64_t x, const std::uint64_t keys[4], const feistel_precomputed& p) {
  std::uint64_t left = (x & p.left_mask) >> p.half_bits;
  std::uint64_t right = x & p.right_mask;
  for (int j = 0; j < kFeistelRounds; ++j) {
    const std::uint64_t next_right = left ^ feistel_round(right, keys[j], p.right_mask);
    left = right;
    right = next_right;
  }
  return left << p.half_bits | right;
}

// A permutation of [0, num_elements): encode, re-encoding while outside the domain.
POREPLAB_HD std::uint64_t feistel_permute(std::uint64_t num_elements, std::uint64_t x, const std::uint64_t keys[4],
                                          const feistel_precomputed& p) {
  std::uint64_t u = feistel_encode(x, keys, p);
  while (u >= num_elements) u = feistel_encode(u, keys, p);
  return u;
}

}  // namespace poreplab::graph
