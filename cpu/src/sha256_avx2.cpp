// SHA-256 `avx2-x8`: 8 independent chains, one per 32-bit lane of a ymm register, for
// CPUs without SHA-NI. AVX2 has no vector rotate, so each Sigma is six shifts and five
// XORs; throughput-bound (~35 operations per round for 8 blocks). Same layout as the
// AVX-512 engine: chunks are loaded in place and transposed once per block, and the
// state stays transposed across the blocks of a call.
#include "sha256_kernels.hpp"

#if defined(POREPLAB_HAVE_AVX2)
#include <immintrin.h>

#include <utility>

#include "simd_transpose.hpp"

namespace poreplab::cpu::kernels {

namespace {

#define PL_INLINE inline __attribute__((always_inline))

constexpr std::size_t kLanes = 8;

PL_INLINE __m256i x(__m256i a, __m256i b) { return _mm256_xor_si256(a, b); }
PL_INLINE __m256i add(__m256i a, __m256i b) { return _mm256_add_epi32(a, b); }

// rotr(v,a) ^ rotr(v,b) ^ rotr(v,c) with the right shifts and left shifts XORed apart.
template <int A, int B, int C>
PL_INLINE __m256i rot3(__m256i v) {
  const __m256i r = x(x(_mm256_srli_epi32(v, A), _mm256_srli_epi32(v, B)), _mm256_srli_epi32(v, C));
  const __m256i l = x(x(_mm256_slli_epi32(v, 32 - A), _mm256_slli_epi32(v, 32 - B)), _mm256_slli_epi32(v, 32 - C));
  return x(r, l);
}
// rotr(v,a) ^ rotr(v,b) ^ (v >> c)
template <int A, int B, int C>
PL_INLINE __m256i rot2shr(__m256i v) {
  const __m256i r = x(x(_mm256_srli_epi32(v, A), _mm256_srli_epi32(v, B)), _mm256_srli_epi32(v, C));
  const __m256i l = x(_mm256_slli_epi32(v, 32 - A), _mm256_slli_epi32(v, 32 - B));
  return x(r, l);
}

// Round T, working variables addressed by rotation. Maj(a,b,c) = b ^ ((a^b) & (b^c)),
// and this round's b^c is the previous round's a^b, carried in `bc`.
template <int T>
PL_INLINE void round(__m256i (&s)[8], __m256i (&w)[16], __m256i& bc) {
  __m256i& a = s[(0 - T) & 7];
  __m256i& b = s[(1 - T) & 7];
  __m256i& d = s[(3 - T) & 7];
  __m256i& e = s[(4 - T) & 7];
  __m256i& f = s[(5 - T) & 7];
  __m256i& g = s[(6 - T) & 7];
  __m256i& h = s[(7 - T) & 7];
  __m256i& wt = w[T & 15];
  if constexpr (T >= 16) {
    wt = add(add(wt, rot2shr<7, 18, 3>(w[(T - 15) & 15])), add(w[(T - 7) & 15], rot2shr<17, 19, 10>(w[(T - 2) & 15])));
  }
  const __m256i kw = add(wt, _mm256_set1_epi32(static_cast<int>(kSha256K[T])));
  const __m256i ch = x(_mm256_and_si256(x(f, g), e), g);
  const __m256i t1 = add(add(h, kw), add(rot3<6, 11, 25>(e), ch));
  const __m256i ab = x(a, b);
  const __m256i maj = x(b, _mm256_and_si256(ab, bc));
  bc = ab;
  const __m256i t2 = add(rot3<2, 13, 22>(a), maj);
  d = add(d, t1);
  h = add(t1, t2);
}

template <std::size_t... T>
PL_INLINE void rounds(__m256i (&s)[8], __m256i (&w)[16], std::index_sequence<T...>) {
  __m256i bc = x(s[1], s[2]);
  (round<static_cast<int>(T)>(s, w, bc), ...);
}

void run_group(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks, std::size_t stride,
               std::size_t first, std::size_t n) {
  const std::uint8_t* p[kLanes];
  for (std::size_t j = 0; j < kLanes; ++j)
    p[j] = j < n ? reinterpret_cast<const std::uint8_t*>(state + (first + j) * 8) : kZeroChunk;
  __m256i s[8];
  simd::transpose32<false>(p, s);
  for (std::size_t k = 0; k < nblocks; ++k) {
    const std::uint8_t* const* row = chunks + 2 * k * stride + first;
    __m256i w[16];
    for (std::size_t j = 0; j < kLanes; ++j) p[j] = j < n ? row[j] : kZeroChunk;
    simd::transpose32<true>(p, w);
    for (std::size_t j = 0; j < kLanes; ++j) p[j] = j < n ? row[stride + j] : kZeroChunk;
    simd::transpose32<true>(p, w + 8);
    __m256i v[8];
    for (int i = 0; i < 8; ++i) v[i] = s[i];
    rounds(v, w, std::make_index_sequence<64>{});
    for (int i = 0; i < 8; ++i) s[i] = add(s[i], v[i]);
  }
  alignas(32) std::uint32_t out[8][kLanes];
  for (int i = 0; i < 8; ++i) _mm256_store_si256(reinterpret_cast<__m256i*>(out[i]), s[i]);
  for (std::size_t j = 0; j < n; ++j)
    for (int i = 0; i < 8; ++i) state[(first + j) * 8 + i] = out[i][j];
}

}  // namespace

void sha256_chains_avx2_x8(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                           std::size_t lanes) {
  for (std::size_t first = 0; first < lanes; first += kLanes)
    run_group(state, chunks, nblocks, lanes, first, lanes - first < kLanes ? lanes - first : kLanes);
}

}  // namespace poreplab::cpu::kernels

#endif  // POREPLAB_HAVE_AVX2
