// BLAKE2s `avx2`: row-vectorised compression (one 128-bit register per state row, VEX
// encoded) for CPUs without AVX-512. Rotations by 16 and 8 are byte shuffles, by 12
// and 7 a shift pair and an OR; after the XOR either costs 2 more cycles on Zen 4, so a
// half-round's critical path is 8 cycles against the avx512 engine's 6. Row b stays in place when diagonalising
// (see blake2s_avx512.cpp); message vectors are built from the block with constant
// indices by broadcast loads and blends, off the critical path.
#include "blake2_kernels.hpp"

#if defined(POREPLAB_HAVE_AVX2)
#include <immintrin.h>

#include <utility>

namespace poreplab::cpu::kernels {

namespace {

#define PL_INLINE inline __attribute__((always_inline))

// GCC reassociates (a + m) + b into (a + b) + m, which puts two adds after b, the
// late operand; an empty asm makes a + m a value of its own.
PL_INLINE __m128i pinned(__m128i v) {
  asm("" : "+x"(v));
  return v;
}

PL_INLINE __m128i iv_lo() { return _mm_setr_epi32(0x6a09e667, static_cast<int>(0xbb67ae85u), 0x3c6ef372, static_cast<int>(0xa54ff53au)); }
PL_INLINE __m128i iv_hi() { return _mm_setr_epi32(0x510e527f, static_cast<int>(0x9b05688cu), 0x1f83d9ab, 0x5be0cd19); }

PL_INLINE __m128i ror16(__m128i v) {
  return _mm_shuffle_epi8(v, _mm_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13));
}
PL_INLINE __m128i ror8(__m128i v) {
  return _mm_shuffle_epi8(v, _mm_setr_epi8(1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12));
}
template <int N>
PL_INLINE __m128i ror(__m128i v) {
  return _mm_or_si128(_mm_srli_epi32(v, N), _mm_slli_epi32(v, 32 - N));
}

PL_INLINE void half_g1(__m128i& a, __m128i& b, __m128i& c, __m128i& d, __m128i m) {
  a = _mm_add_epi32(pinned(_mm_add_epi32(a, m)), b);
  d = ror16(_mm_xor_si128(d, a));
  c = _mm_add_epi32(c, d);
  b = ror<12>(_mm_xor_si128(b, c));
}
PL_INLINE void half_g2(__m128i& a, __m128i& b, __m128i& c, __m128i& d, __m128i m) {
  a = _mm_add_epi32(pinned(_mm_add_epi32(a, m)), b);
  d = ror8(_mm_xor_si128(d, a));
  c = _mm_add_epi32(c, d);
  b = ror<7>(_mm_xor_si128(b, c));
}

PL_INLINE __m128i broadcast(const std::uint8_t* block, int word) {
  return _mm_castps_si128(_mm_broadcast_ss(reinterpret_cast<const float*>(block + 4 * word)));
}

// Message words i0..i3: broadcast loads merged by vpblendd, which run on the load ports
// and any vector ALU rather than on the shuffle pipes the rotations need.
PL_INLINE __m128i words(const std::uint8_t* m, int i0, int i1, int i2, int i3) {
  __m128i v = _mm_blend_epi32(broadcast(m, i0), broadcast(m, i1), 0x2);
  v = _mm_blend_epi32(v, broadcast(m, i2), 0x4);
  return _mm_blend_epi32(v, broadcast(m, i3), 0x8);
}

template <int R>
PL_INLINE void round(__m128i& a, __m128i& b, __m128i& c, __m128i& d, const std::uint8_t* m) {
  constexpr const std::uint8_t* s = kBlake2Sigma.v[R % 10];
  half_g1(a, b, c, d, words(m, s[0], s[2], s[4], s[6]));
  half_g2(a, b, c, d, words(m, s[1], s[3], s[5], s[7]));
  a = _mm_shuffle_epi32(a, _MM_SHUFFLE(2, 1, 0, 3));
  c = _mm_shuffle_epi32(c, _MM_SHUFFLE(0, 3, 2, 1));
  d = _mm_shuffle_epi32(d, _MM_SHUFFLE(1, 0, 3, 2));
  half_g1(a, b, c, d, words(m, s[8 + 2 * kDiagG[0]], s[8 + 2 * kDiagG[1]], s[8 + 2 * kDiagG[2]], s[8 + 2 * kDiagG[3]]));
  half_g2(a, b, c, d, words(m, s[9 + 2 * kDiagG[0]], s[9 + 2 * kDiagG[1]], s[9 + 2 * kDiagG[2]], s[9 + 2 * kDiagG[3]]));
  a = _mm_shuffle_epi32(a, _MM_SHUFFLE(0, 3, 2, 1));
  c = _mm_shuffle_epi32(c, _MM_SHUFFLE(2, 1, 0, 3));
  d = _mm_shuffle_epi32(d, _MM_SHUFFLE(1, 0, 3, 2));
}

template <std::size_t... R>
PL_INLINE void rounds(__m128i& a, __m128i& b, __m128i& c, __m128i& d, const std::uint8_t* m,
                      std::index_sequence<R...>) {
  (round<static_cast<int>(R)>(a, b, c, d, m), ...);
}

}  // namespace

void blake2s_blocks_avx2(std::uint32_t* h, const std::uint8_t* blocks, std::size_t nblocks, std::uint64_t t_first,
                         bool last_is_final) {
  __m128i h0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h));
  __m128i h1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h + 4));
  for (std::size_t k = 0; k < nblocks; ++k) {
    const std::uint8_t* m = blocks + 64 * k;  // little-endian words: x86 byte order
    const std::uint64_t t = t_first + 64 * k;
    const bool final = last_is_final && k + 1 == nblocks;
    __m128i a = h0, b = h1, c = iv_lo();
    __m128i d = _mm_xor_si128(iv_hi(), _mm_setr_epi32(static_cast<int>(static_cast<std::uint32_t>(t)),
                                                      static_cast<int>(static_cast<std::uint32_t>(t >> 32)),
                                                      final ? -1 : 0, 0));
    rounds(a, b, c, d, m, std::make_index_sequence<10>{});
    h0 = _mm_xor_si128(h0, _mm_xor_si128(a, c));
    h1 = _mm_xor_si128(h1, _mm_xor_si128(b, d));
  }
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h), h0);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h + 4), h1);
}

}  // namespace poreplab::cpu::kernels

#endif  // POREPLAB_HAVE_AVX2
