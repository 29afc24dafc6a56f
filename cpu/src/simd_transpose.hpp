#pragma once
// Private to poreplab_cpu's ISA files: one 32-byte chunk per lane, loaded in place and
// transposed so that vector i holds word i of every lane. Multi-buffer engines (SHA-256,
// BLAKE2s, BLAKE2b) read their blocks this way; the AVX2 forms are included only by
// files compiled with AVX2, the AVX-512 forms by files compiled with AVX-512.
#include <cstdint>

#include <immintrin.h>

namespace poreplab::cpu::kernels::simd {

#define PL_TRANSPOSE_INLINE inline __attribute__((always_inline))

PL_TRANSPOSE_INLINE __m128i bswap32_mask() {
  return _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
}

#if defined(__AVX2__)
// 8 lanes x 8 dwords (p[j] -> 32 bytes) into w[i] = dword i of every lane; kByteSwap
// reads big-endian words (SHA-256).
template <bool kByteSwap>
PL_TRANSPOSE_INLINE void transpose32(const std::uint8_t* const* p, __m256i* w) {
  __m256i r[8];
  for (int j = 0; j < 8; ++j) {
    r[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p[j]));
    if constexpr (kByteSwap) r[j] = _mm256_shuffle_epi8(r[j], _mm256_broadcastsi128_si256(bswap32_mask()));
  }
  __m256i u[2][4];
  for (int h = 0; h < 2; ++h) {
    const __m256i* q = r + 4 * h;
    const __m256i t0 = _mm256_unpacklo_epi32(q[0], q[1]);
    const __m256i t1 = _mm256_unpackhi_epi32(q[0], q[1]);
    const __m256i t2 = _mm256_unpacklo_epi32(q[2], q[3]);
    const __m256i t3 = _mm256_unpackhi_epi32(q[2], q[3]);
    u[h][0] = _mm256_unpacklo_epi64(t0, t2);  // word 0 | word 4 of lanes 4h..4h+3
    u[h][1] = _mm256_unpackhi_epi64(t0, t2);
    u[h][2] = _mm256_unpacklo_epi64(t1, t3);
    u[h][3] = _mm256_unpackhi_epi64(t1, t3);
  }
  for (int i = 0; i < 4; ++i) {
    w[i] = _mm256_permute2x128_si256(u[0][i], u[1][i], 0x20);
    w[4 + i] = _mm256_permute2x128_si256(u[0][i], u[1][i], 0x31);
  }
}

// 4 lanes x 4 qwords (little-endian) into w[i] = qword i of every lane.
PL_TRANSPOSE_INLINE void transpose64(const std::uint8_t* const* p, __m256i* w) {
  __m256i r[4];
  for (int j = 0; j < 4; ++j) r[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p[j]));
  const __m256i t0 = _mm256_unpacklo_epi64(r[0], r[1]);  // lanes 0,1: qword 0 | qword 2
  const __m256i t1 = _mm256_unpackhi_epi64(r[0], r[1]);  // lanes 0,1: qword 1 | qword 3
  const __m256i t2 = _mm256_unpacklo_epi64(r[2], r[3]);
  const __m256i t3 = _mm256_unpackhi_epi64(r[2], r[3]);
  w[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
  w[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
  w[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
  w[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
}
#endif

#if defined(__AVX512F__)
// 16 lanes x 8 dwords into w[i] = dword i of every lane: lanes j and j+8 share a register;
// two 4x4 transposes inside 128-bit blocks and one two-source qword permute finish it.
template <bool kByteSwap>
PL_TRANSPOSE_INLINE void transpose32(const std::uint8_t* const* p, __m512i* w) {
  __m512i r[8];
  for (int j = 0; j < 8; ++j) {
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p[j]));
    const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p[j + 8]));
    r[j] = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
    if constexpr (kByteSwap) r[j] = _mm512_shuffle_epi8(r[j], _mm512_broadcast_i32x4(bswap32_mask()));
  }
  // Block b of r[j]: lane j words 0-3, lane j words 4-7, lane j+8 words 0-3, 4-7.
  __m512i s[2][4];
  for (int h = 0; h < 2; ++h) {
    const __m512i* q = r + 4 * h;
    const __m512i t0 = _mm512_unpacklo_epi32(q[0], q[1]);
    const __m512i t1 = _mm512_unpackhi_epi32(q[0], q[1]);
    const __m512i t2 = _mm512_unpacklo_epi32(q[2], q[3]);
    const __m512i t3 = _mm512_unpackhi_epi32(q[2], q[3]);
    s[h][0] = _mm512_unpacklo_epi64(t0, t2);
    s[h][1] = _mm512_unpackhi_epi64(t0, t2);
    s[h][2] = _mm512_unpacklo_epi64(t1, t3);
    s[h][3] = _mm512_unpackhi_epi64(t1, t3);
  }
  // s[h][i] blocks: word i of lanes 4h..4h+3, word 4+i of them, word i of lanes
  // 8+4h.., word 4+i of them. Interleave the h = 0 and h = 1 halves by block.
  const __m512i idx_lo = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
  const __m512i idx_hi = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  for (int i = 0; i < 4; ++i) {
    w[i] = _mm512_permutex2var_epi64(s[0][i], idx_lo, s[1][i]);
    w[4 + i] = _mm512_permutex2var_epi64(s[0][i], idx_hi, s[1][i]);
  }
}

// 8 lanes x 4 qwords into w[i] = qword i of every lane: lanes j and j+4 share a register.
PL_TRANSPOSE_INLINE void transpose64(const std::uint8_t* const* p, __m512i* w) {
  __m512i r[4];
  for (int j = 0; j < 4; ++j) {
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p[j]));
    const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p[j + 4]));
    r[j] = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
  }
  // 128-bit block b of t0: (lane 0, lane 1) of qword 0, 2 (lanes 0-1), then of lanes 4-5.
  const __m512i t0 = _mm512_unpacklo_epi64(r[0], r[1]);
  const __m512i t1 = _mm512_unpackhi_epi64(r[0], r[1]);
  const __m512i t2 = _mm512_unpacklo_epi64(r[2], r[3]);
  const __m512i t3 = _mm512_unpackhi_epi64(r[2], r[3]);
  const __m512i idx_lo = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
  const __m512i idx_hi = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  w[0] = _mm512_permutex2var_epi64(t0, idx_lo, t2);
  w[2] = _mm512_permutex2var_epi64(t0, idx_hi, t2);
  w[1] = _mm512_permutex2var_epi64(t1, idx_lo, t3);
  w[3] = _mm512_permutex2var_epi64(t1, idx_hi, t3);
}
#endif

#undef PL_TRANSPOSE_INLINE

}  // namespace poreplab::cpu::kernels::simd
