// SHA-256 `avx2-1`: one chain at a time for CPUs without SHA-NI, the structure of the
// "optimized AVX" single-stream code: the message schedule (which does not depend on
// the state) is computed four words per xmm instruction, W+K stored to a 64-word
// table, then the 64 rounds run in scalar registers (rorx from BMI2 for the Sigmas).
// Latency-bound on the rounds' dependency chain; the schedule of a block overlaps the
// previous block's rounds in the out-of-order window.
#include "sha256_kernels.hpp"

#if defined(POREPLAB_HAVE_AVX2)
#include <immintrin.h>

#include <bit>

#include "poreplab/hash/sha256.hpp"

namespace poreplab::cpu::kernels {

namespace {

#define PL_INLINE inline __attribute__((always_inline))

PL_INLINE __m128i rotr4(__m128i v, int n) {
  return _mm_or_si128(_mm_srli_epi32(v, n), _mm_slli_epi32(v, 32 - n));
}
PL_INLINE __m128i sigma0(__m128i v) {  // rotr 7 ^ rotr 18 ^ shr 3
  return _mm_xor_si128(_mm_xor_si128(rotr4(v, 7), rotr4(v, 18)), _mm_srli_epi32(v, 3));
}
PL_INLINE __m128i sigma1(__m128i v) {  // rotr 17 ^ rotr 19 ^ shr 10
  return _mm_xor_si128(_mm_xor_si128(rotr4(v, 17), rotr4(v, 19)), _mm_srli_epi32(v, 10));
}

// W[t] + K[t] for t = 0..63 of one block (two 32-byte chunks).
PL_INLINE void schedule(const std::uint8_t* lo, const std::uint8_t* hi, std::uint32_t* wk) {
  const __m128i bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
  __m128i w[4];
  w[0] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(lo)), bswap);
  w[1] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(lo + 16)), bswap);
  w[2] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(hi)), bswap);
  w[3] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(hi + 16)), bswap);
  const __m128i lo_mask = _mm_set_epi32(0, 0, -1, -1);
#pragma GCC unroll 16
  for (int g = 0; g < 16; ++g) {
    if (g >= 4) {
      // W[t..t+3] from a = W[t-16..], b = W[t-12..], c = W[t-8..], d = W[t-4..t-1].
      const __m128i a = w[g & 3], b = w[(g + 1) & 3], c = w[(g + 2) & 3], d = w[(g + 3) & 3];
      const __m128i w15 = _mm_alignr_epi8(b, a, 4);
      const __m128i w7 = _mm_alignr_epi8(d, c, 4);
      __m128i x = _mm_add_epi32(_mm_add_epi32(a, sigma0(w15)), w7);
      // sigma1 needs W[t-2], W[t-1] for the low pair and the new W[t], W[t+1] for the high.
      x = _mm_add_epi32(x, _mm_and_si128(sigma1(_mm_shuffle_epi32(d, 0xEE)), lo_mask));
      x = _mm_add_epi32(x, _mm_andnot_si128(lo_mask, sigma1(_mm_shuffle_epi32(x, 0x44))));
      w[g & 3] = x;
    }
    const __m128i k = _mm_load_si128(reinterpret_cast<const __m128i*>(kSha256K + 4 * g));
    _mm_store_si128(reinterpret_cast<__m128i*>(wk + 4 * g), _mm_add_epi32(w[g & 3], k));
  }
}

PL_INLINE void rounds(std::uint32_t* h, const std::uint32_t* wk) {
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
#pragma GCC unroll 64
  for (int t = 0; t < 64; ++t) {
    const std::uint32_t s1 = std::rotr(e, 6) ^ std::rotr(e, 11) ^ std::rotr(e, 25);
    const std::uint32_t ch = ((f ^ g) & e) ^ g;
    const std::uint32_t t1 = hh + s1 + ch + wk[t];
    const std::uint32_t s0 = std::rotr(a, 2) ^ std::rotr(a, 13) ^ std::rotr(a, 22);
    const std::uint32_t maj = (a & b) | (c & (a | b));
    hh = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + s0 + maj;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += hh;
}

}  // namespace

void sha256_chains_avx2_1(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                          std::size_t lanes) {
  alignas(16) std::uint32_t wk[64];
  for (std::size_t j = 0; j < lanes; ++j) {
    std::uint32_t* h = state + j * 8;
    for (std::size_t k = 0; k < nblocks; ++k) {
      schedule(chunks[2 * k * lanes + j], chunks[(2 * k + 1) * lanes + j], wk);
      rounds(h, wk);
    }
  }
}

void sha256_pad64_avx2_1(std::uint32_t* state, std::size_t lanes) {
  static constexpr sha256::padding64_schedule kPad = sha256::make_padding64_schedule();
  for (std::size_t j = 0; j < lanes; ++j) rounds(state + j * 8, kPad.wk);
}

}  // namespace poreplab::cpu::kernels

#endif  // POREPLAB_HAVE_AVX2
