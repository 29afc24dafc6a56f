// BLAKE2b `avx512`: row-vectorised compression, one 256-bit register per row of 64-bit
// words. The critical path is the G chain: as in blake2s_avx512.cpp, rotations by 24,
// 16 and 63 use ror(x ^ y) = ror(x) ^ (y >> n) ^ (y << 64-n) with ror(x) formed early
// (2 steps after y instead of xor + 2-cycle vprorq), and by 32 it is xor + vpshufd:
// 6 cycles per half-round, 288 per 128-byte block in theory (measurements in
// docs/cpu-backend.md). Row b stays in place and rows a, c, d rotate around it, which
// hides even the 4-cycle lane-crossing vpermq. Message words arrive by broadcast loads and
// blends (see words()).
#include "blake2_kernels.hpp"

#if defined(POREPLAB_HAVE_AVX512)
#include "avx512_intrinsics.hpp"

namespace poreplab::cpu::kernels {

namespace {

#define PL_INLINE inline __attribute__((always_inline))

// GCC reassociates (a + m) + b into (a + b) + m, which puts two adds after b, the
// late operand; an empty asm makes a + m a value of its own.
PL_INLINE __m256i pinned(__m256i v) {
  asm("" : "+v"(v));
  return v;
}

PL_INLINE __m256i broadcast(const std::uint8_t* block, int word) {
  return _mm256_castpd_si256(_mm256_broadcast_sd(reinterpret_cast<const double*>(block + 8 * word)));
}

// Message words i0..i3 as one vector: four broadcast loads (load ports) merged by three
// blends (any vector ALU), rather than a two-source vpermt2q of the block: 512-bit
// shuffles issue at half rate on Zen 4 and compete with the rotations.
PL_INLINE __m256i words(const std::uint8_t* block, int i0, int i1, int i2, int i3) {
  __m256i v = broadcast(block, i0);
  v = _mm256_mask_blend_epi64(0x2, v, broadcast(block, i1));
  v = _mm256_mask_blend_epi64(0x4, v, broadcast(block, i2));
  return _mm256_mask_blend_epi64(0x8, v, broadcast(block, i3));
}

// RFC 7693 2.6
PL_INLINE __m256i iv_lo() {
  return _mm256_setr_epi64x(0x6a09e667f3bcc908ll, static_cast<long long>(0xbb67ae8584caa73bull), 0x3c6ef372fe94f82bll,
                            static_cast<long long>(0xa54ff53a5f1d36f1ull));
}
PL_INLINE __m256i iv_hi() {
  return _mm256_setr_epi64x(0x510e527fade682d1ll, static_cast<long long>(0x9b05688c2b3e6c1full), 0x1f83d9abfb41bd6bll,
                            0x5be0cd19137e2179ll);
}

// ror(x ^ y, N) given xr = ror(x, N): the shifts of y and one vpternlogq XOR.
template <int N>
PL_INLINE __m256i ror_xor(__m256i xr, __m256i y) {
  return _mm256_ternarylogic_epi64(xr, _mm256_srli_epi64(y, N), _mm256_slli_epi64(y, 64 - N), 0x96);
}

// G's first half: rotations by 32 (a dword swap) and 24.
PL_INLINE void half_g1(__m256i& a, __m256i& b, __m256i& c, __m256i& d, __m256i m) {
  a = _mm256_add_epi64(pinned(_mm256_add_epi64(a, m)), b);
  d = _mm256_shuffle_epi32(_mm256_xor_si256(d, a), _MM_SHUFFLE(2, 3, 0, 1));
  c = _mm256_add_epi64(c, d);
  b = ror_xor<24>(_mm256_ror_epi64(b, 24), c);
}

// Second half: rotations by 16 and 63.
PL_INLINE void half_g2(__m256i& a, __m256i& b, __m256i& c, __m256i& d, __m256i m) {
  a = _mm256_add_epi64(pinned(_mm256_add_epi64(a, m)), b);
  d = ror_xor<16>(_mm256_ror_epi64(d, 16), a);
  c = _mm256_add_epi64(c, d);
  b = ror_xor<63>(_mm256_ror_epi64(b, 63), c);
}

// d = IV[4..7] ^ (t0, t1, f0, 0), with the counter and flag kept in tf as vector words.
// The high counter word t1 stays 0: messages here are far below 2^64 bytes.
PL_INLINE void compress(__m256i& h0, __m256i& h1, const std::uint8_t* block, __m256i tf) {
  __m256i a = h0, b = h1, c = iv_lo();
  __m256i d = _mm256_xor_si256(iv_hi(), tf);
#pragma GCC unroll 12
  for (int r = 0; r < 12; ++r) {
    const std::uint8_t* s = kBlake2Sigma.v[r % 10];
    half_g1(a, b, c, d, words(block, s[0], s[2], s[4], s[6]));
    half_g2(a, b, c, d, words(block, s[1], s[3], s[5], s[7]));
    a = _mm256_permute4x64_epi64(a, _MM_SHUFFLE(2, 1, 0, 3));
    c = _mm256_permute4x64_epi64(c, _MM_SHUFFLE(0, 3, 2, 1));
    d = _mm256_permute4x64_epi64(d, _MM_SHUFFLE(1, 0, 3, 2));
    half_g1(a, b, c, d, words(block, s[8 + 2 * kDiagG[0]], s[8 + 2 * kDiagG[1]], s[8 + 2 * kDiagG[2]], s[8 + 2 * kDiagG[3]]));
    half_g2(a, b, c, d, words(block, s[9 + 2 * kDiagG[0]], s[9 + 2 * kDiagG[1]], s[9 + 2 * kDiagG[2]], s[9 + 2 * kDiagG[3]]));
    a = _mm256_permute4x64_epi64(a, _MM_SHUFFLE(0, 3, 2, 1));
    c = _mm256_permute4x64_epi64(c, _MM_SHUFFLE(2, 1, 0, 3));
    d = _mm256_permute4x64_epi64(d, _MM_SHUFFLE(1, 0, 3, 2));
  }
  h0 = _mm256_ternarylogic_epi64(h0, a, c, 0x96);
  h1 = _mm256_ternarylogic_epi64(h1, b, d, 0x96);
}

}  // namespace

void blake2b_blocks_avx512(std::uint64_t* h, const std::uint8_t* blocks, std::size_t nblocks, std::uint64_t t_first,
                           bool last_is_final) {
  __m256i h0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h));
  __m256i h1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h + 4));
  __m256i tf = _mm256_setr_epi64x(static_cast<long long>(t_first), 0, 0, 0);
  const __m256i step = _mm256_setr_epi64x(128, 0, 0, 0);
  for (std::size_t k = 0; k + 1 < nblocks; ++k, tf = _mm256_add_epi64(tf, step)) compress(h0, h1, blocks + 128 * k, tf);
  if (nblocks != 0) {
    const __m256i flag = _mm256_setr_epi64x(0, 0, last_is_final ? -1 : 0, 0);
    compress(h0, h1, blocks + 128 * (nblocks - 1), _mm256_or_si256(tf, flag));
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(h), h0);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(h + 4), h1);
}

}  // namespace poreplab::cpu::kernels

#endif  // POREPLAB_HAVE_AVX512
