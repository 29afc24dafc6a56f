#pragma once
// Private to poreplab_cpu's ISA files: BLAKE2s / BLAKE2b over kLanes independent messages
// of one length, one message per vector lane (the multi-buffer technique: RFC 7693's G on
// word vectors, so the four column and four diagonal G of a round need no shuffles and
// every lane's chain is independent). Blocks arrive as 32-byte chunks read in place and
// transposed (simd_transpose.hpp). The ISA file supplies the vector operations:
//   struct Ops { using V, W; kLanes;
//                add, xor_, ror<N>, splat, load/store (aligned word rows),
//                transpose(p, w): one chunk of each lane p[j] -> w[i] = word i of every lane; }
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "blake2_kernels.hpp"
#include "poreplab/hash/blake2_core.hpp"

namespace poreplab::cpu::kernels {

template <class O>
struct blake2_lanes {
  using V = typename O::V;
  using W = typename O::W;
  using T = std::conditional_t<sizeof(W) == 4, blake2::traits_s, blake2::traits_b>;
  static constexpr std::size_t L = O::kLanes;
  static constexpr std::size_t kBlockBytes = 16 * sizeof(W);
  static constexpr std::size_t kChunks = kBlockBytes / 32;   // per block: 2 (BLAKE2s), 4 (BLAKE2b)
  static constexpr std::size_t kChunkWords = 32 / sizeof(W);  // 8, 4

  // a + m first: b is the operand that arrives last.
  [[gnu::always_inline]] static void g(V& a, V& b, V& c, V& d, V x, V y) {
    a = O::add(O::add(a, x), b);
    d = O::template ror<T::kR1>(O::xor_(d, a));
    c = O::add(c, d);
    b = O::template ror<T::kR2>(O::xor_(b, c));
    a = O::add(O::add(a, y), b);
    d = O::template ror<T::kR3>(O::xor_(d, a));
    c = O::add(c, d);
    b = O::template ror<T::kR4>(O::xor_(b, c));
  }

  template <int R>
  [[gnu::always_inline]] static void round(V (&v)[16], const V (&m)[16]) {
    constexpr auto s = [](int i) { return blake2::sigma(R, i); };
    g(v[0], v[4], v[8], v[12], m[s(0)], m[s(1)]);
    g(v[1], v[5], v[9], v[13], m[s(2)], m[s(3)]);
    g(v[2], v[6], v[10], v[14], m[s(4)], m[s(5)]);
    g(v[3], v[7], v[11], v[15], m[s(6)], m[s(7)]);
    g(v[0], v[5], v[10], v[15], m[s(8)], m[s(9)]);
    g(v[1], v[6], v[11], v[12], m[s(10)], m[s(11)]);
    g(v[2], v[7], v[8], v[13], m[s(12)], m[s(13)]);
    g(v[3], v[4], v[9], v[14], m[s(14)], m[s(15)]);
  }

  template <int... R>
  [[gnu::always_inline]] static void rounds(V (&v)[16], const V (&m)[16], std::integer_sequence<int, R...>) {
    (round<R>(v, m), ...);
  }

  [[gnu::always_inline]] static void compress(V (&h)[8], const V (&m)[16], std::uint64_t t, bool final) {
    V v[16];
    for (int i = 0; i < 8; ++i) {
      v[i] = h[i];
      v[8 + i] = O::splat(T::iv(i));
    }
    v[12] = O::xor_(v[12], O::splat(static_cast<W>(t)));
    if constexpr (sizeof(W) == 4) v[13] = O::xor_(v[13], O::splat(static_cast<W>(t >> 32)));
    if (final) v[14] = O::xor_(v[14], O::splat(~W{0}));
    rounds(v, m, std::make_integer_sequence<int, T::kRounds>{});
    for (int i = 0; i < 8; ++i) h[i] = O::xor_(h[i], O::xor_(v[i], v[8 + i]));
  }

  // Lanes first..first+n-1 (n <= L) of a call whose chunk rows hold `stride` pointers;
  // missing lanes read kZeroChunk and are never stored.
  static void group(W* state, const std::uint8_t* const* chunks, std::size_t nblocks, std::uint64_t t_first,
                    bool last_is_final, std::size_t stride, std::size_t first, std::size_t n) {
    alignas(64) W rows[8][L];
    for (int i = 0; i < 8; ++i)
      for (std::size_t j = 0; j < L; ++j) rows[i][j] = j < n ? state[(first + j) * 8 + i] : 0;
    V h[8];
    for (int i = 0; i < 8; ++i) h[i] = O::load(rows[i]);
    const std::uint8_t* p[L];
    for (std::size_t k = 0; k < nblocks; ++k) {
      V m[16];
      const std::uint8_t* const* row = chunks + kChunks * k * stride + first;
      for (std::size_t c = 0; c < kChunks; ++c) {
        for (std::size_t j = 0; j < L; ++j) p[j] = j < n ? row[c * stride + j] : kZeroChunk;
        O::transpose(p, m + c * kChunkWords);
      }
      compress(h, m, t_first + k * kBlockBytes, last_is_final && k + 1 == nblocks);
    }
    for (int i = 0; i < 8; ++i) O::store(rows[i], h[i]);
    for (std::size_t j = 0; j < n; ++j)
      for (int i = 0; i < 8; ++i) state[(first + j) * 8 + i] = rows[i][j];
  }

  static void chains(W* state, const std::uint8_t* const* chunks, std::size_t nblocks, std::uint64_t t_first,
                     bool last_is_final, std::size_t lanes) {
    for (std::size_t first = 0; first < lanes; first += L)
      group(state, chunks, nblocks, t_first, last_is_final, lanes, first, lanes - first < L ? lanes - first : L);
  }
};

}  // namespace poreplab::cpu::kernels
