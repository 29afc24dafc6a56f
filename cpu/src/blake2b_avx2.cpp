// BLAKE2b `avx2`: row-vectorised compression, one 256-bit register per row of 64-bit
// words, for CPUs without AVX-512. Rotation by 32 is a vpshufd, by 24 and 16 a vpshufb,
// by 63 (x >> 63) ^ (x + x). Row b stays in place when diagonalising
// (see blake2s_avx512.cpp), so the lane-crossing vpermq stay off the critical path.
#include "blake2_kernels.hpp"

#if defined(POREPLAB_HAVE_AVX2)
#include <immintrin.h>

#include <utility>

namespace poreplab::cpu::kernels {

namespace {

#define PL_INLINE inline __attribute__((always_inline))

// GCC reassociates (a + m) + b into (a + b) + m, which puts two adds after b, the
// late operand; an empty asm makes a + m a value of its own.
PL_INLINE __m256i pinned(__m256i v) {
  asm("" : "+x"(v));
  return v;
}

PL_INLINE __m256i iv_lo() {
  return _mm256_setr_epi64x(0x6a09e667f3bcc908ll, static_cast<long long>(0xbb67ae8584caa73bull), 0x3c6ef372fe94f82bll,
                            static_cast<long long>(0xa54ff53a5f1d36f1ull));
}
PL_INLINE __m256i iv_hi() {
  return _mm256_setr_epi64x(0x510e527fade682d1ll, static_cast<long long>(0x9b05688c2b3e6c1full), 0x1f83d9abfb41bd6bll,
                            0x5be0cd19137e2179ll);
}

PL_INLINE __m256i ror32(__m256i v) { return _mm256_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)); }
PL_INLINE __m256i ror24(__m256i v) {
  return _mm256_shuffle_epi8(v, _mm256_setr_epi8(3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10, 3, 4, 5, 6, 7,
                                                 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10));
}
PL_INLINE __m256i ror16(__m256i v) {
  return _mm256_shuffle_epi8(v, _mm256_setr_epi8(2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9, 2, 3, 4, 5, 6,
                                                 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9));
}
PL_INLINE __m256i ror63(__m256i v) { return _mm256_xor_si256(_mm256_srli_epi64(v, 63), _mm256_add_epi64(v, v)); }

PL_INLINE void half_g1(__m256i& a, __m256i& b, __m256i& c, __m256i& d, __m256i m) {
  a = _mm256_add_epi64(pinned(_mm256_add_epi64(a, m)), b);
  d = ror32(_mm256_xor_si256(d, a));
  c = _mm256_add_epi64(c, d);
  b = ror24(_mm256_xor_si256(b, c));
}
PL_INLINE void half_g2(__m256i& a, __m256i& b, __m256i& c, __m256i& d, __m256i m) {
  a = _mm256_add_epi64(pinned(_mm256_add_epi64(a, m)), b);
  d = ror16(_mm256_xor_si256(d, a));
  c = _mm256_add_epi64(c, d);
  b = ror63(_mm256_xor_si256(b, c));
}

PL_INLINE __m256i broadcast(const std::uint8_t* block, int word) {
  return _mm256_castpd_si256(_mm256_broadcast_sd(reinterpret_cast<const double*>(block + 8 * word)));
}

// Message words i0..i3: broadcast loads merged by vpblendd, which run on the load ports
// and any vector ALU rather than on the shuffle pipes the rotations need.
PL_INLINE __m256i words(const std::uint8_t* m, int i0, int i1, int i2, int i3) {
  __m256i v = _mm256_blend_epi32(broadcast(m, i0), broadcast(m, i1), 0x0C);
  v = _mm256_blend_epi32(v, broadcast(m, i2), 0x30);
  return _mm256_blend_epi32(v, broadcast(m, i3), 0xC0);
}

template <int R>
PL_INLINE void round(__m256i& a, __m256i& b, __m256i& c, __m256i& d, const std::uint8_t* m) {
  constexpr const std::uint8_t* s = kBlake2Sigma.v[R % 10];
  half_g1(a, b, c, d, words(m, s[0], s[2], s[4], s[6]));
  half_g2(a, b, c, d, words(m, s[1], s[3], s[5], s[7]));
  a = _mm256_permute4x64_epi64(a, _MM_SHUFFLE(2, 1, 0, 3));
  c = _mm256_permute4x64_epi64(c, _MM_SHUFFLE(0, 3, 2, 1));
  d = _mm256_permute4x64_epi64(d, _MM_SHUFFLE(1, 0, 3, 2));
  half_g1(a, b, c, d, words(m, s[8 + 2 * kDiagG[0]], s[8 + 2 * kDiagG[1]], s[8 + 2 * kDiagG[2]], s[8 + 2 * kDiagG[3]]));
  half_g2(a, b, c, d, words(m, s[9 + 2 * kDiagG[0]], s[9 + 2 * kDiagG[1]], s[9 + 2 * kDiagG[2]], s[9 + 2 * kDiagG[3]]));
  a = _mm256_permute4x64_epi64(a, _MM_SHUFFLE(0, 3, 2, 1));
  c = _mm256_permute4x64_epi64(c, _MM_SHUFFLE(2, 1, 0, 3));
  d = _mm256_permute4x64_epi64(d, _MM_SHUFFLE(1, 0, 3, 2));
}

template <std::size_t... R>
PL_INLINE void rounds(__m256i& a, __m256i& b, __m256i& c, __m256i& d, const std::uint8_t* m,
                      std::index_sequence<R...>) {
  (round<static_cast<int>(R)>(a, b, c, d, m), ...);
}

}  // namespace

void blake2b_blocks_avx2(std::uint64_t* h, const std::uint8_t* blocks, std::size_t nblocks, std::uint64_t t_first,
                         bool last_is_final) {
  __m256i h0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h));
  __m256i h1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h + 4));
  for (std::size_t k = 0; k < nblocks; ++k) {
    const std::uint8_t* m = blocks + 128 * k;  // little-endian words: x86 byte order
    const std::uint64_t t = t_first + 128 * k;
    const bool final = last_is_final && k + 1 == nblocks;
    __m256i a = h0, b = h1, c = iv_lo();
    // The high counter word t1 stays 0: messages here are far below 2^64 bytes.
    __m256i d = _mm256_xor_si256(iv_hi(), _mm256_setr_epi64x(static_cast<long long>(t), 0, final ? -1 : 0, 0));
    rounds(a, b, c, d, m, std::make_index_sequence<12>{});
    h0 = _mm256_xor_si256(h0, _mm256_xor_si256(a, c));
    h1 = _mm256_xor_si256(h1, _mm256_xor_si256(b, d));
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(h), h0);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(h + 4), h1);
}

}  // namespace poreplab::cpu::kernels

#endif  // POREPLAB_HAVE_AVX2
