// BLAKE2s `avx2-x8` and BLAKE2b `avx2-x4`: one message per lane of a ymm register (8
// dwords, 4 qwords). AVX2 has no vector rotate: byte-multiple rotations (BLAKE2s 16 and
// 8, BLAKE2b 32, 24 and 16) are one byte shuffle, the others two shifts and an OR, and
// BLAKE2b's rotation by 63 is x + x | x >> 63.
#include "blake2_kernels.hpp"

#if defined(POREPLAB_HAVE_AVX2)
#include <immintrin.h>

#include <array>

#include "blake2_lanes.hpp"
#include "simd_transpose.hpp"

namespace poreplab::cpu::kernels {

namespace {

#define PL_INLINE [[gnu::always_inline]] static inline

// Per 128-bit lane, the source byte of each destination byte for a right rotation of
// every `word`-byte word by `bytes` bytes.
template <int Word, int Bytes>
struct rotate_bytes {
  static constexpr std::array<std::int8_t, 32> kTable = [] {
    std::array<std::int8_t, 32> m{};
    for (int i = 0; i < 32; ++i) m[i] = static_cast<std::int8_t>(i / Word * Word + (i % Word + Bytes) % Word);
    return m;
  }();
};
template <int Word, int Bytes>
PL_INLINE __m256i rotate_bytes_mask() {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rotate_bytes<Word, Bytes>::kTable.data()));
}

struct ymm32 {
  using V = __m256i;
  using W = std::uint32_t;
  static constexpr std::size_t kLanes = 8;
  PL_INLINE V add(V a, V b) { return _mm256_add_epi32(a, b); }
  PL_INLINE V xor_(V a, V b) { return _mm256_xor_si256(a, b); }
  template <int N> PL_INLINE V ror(V a) {
    if constexpr (N % 8 == 0) return _mm256_shuffle_epi8(a, rotate_bytes_mask<4, N / 8>());
    return _mm256_or_si256(_mm256_srli_epi32(a, N), _mm256_slli_epi32(a, 32 - N));
  }
  PL_INLINE V splat(W w) { return _mm256_set1_epi32(static_cast<int>(w)); }
  PL_INLINE V load(const W* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
  PL_INLINE void store(W* p, V v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
  PL_INLINE void transpose(const std::uint8_t* const* p, V* w) { simd::transpose32<false>(p, w); }
};

struct ymm64 {
  using V = __m256i;
  using W = std::uint64_t;
  static constexpr std::size_t kLanes = 4;
  PL_INLINE V add(V a, V b) { return _mm256_add_epi64(a, b); }
  PL_INLINE V xor_(V a, V b) { return _mm256_xor_si256(a, b); }
  template <int N> PL_INLINE V ror(V a) {
    if constexpr (N == 32) return _mm256_shuffle_epi32(a, 0xb1);
    if constexpr (N % 8 == 0) return _mm256_shuffle_epi8(a, rotate_bytes_mask<8, N / 8>());
    if constexpr (N == 63) return _mm256_or_si256(_mm256_srli_epi64(a, 63), _mm256_add_epi64(a, a));
    return _mm256_or_si256(_mm256_srli_epi64(a, N), _mm256_slli_epi64(a, 64 - N));
  }
  PL_INLINE V splat(W w) { return _mm256_set1_epi64x(static_cast<long long>(w)); }
  PL_INLINE V load(const W* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
  PL_INLINE void store(W* p, V v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
  PL_INLINE void transpose(const std::uint8_t* const* p, V* w) { simd::transpose64(p, w); }
};

#undef PL_INLINE

}  // namespace

void blake2s_chains_avx2_x8(std::uint32_t* h, const std::uint8_t* const* chunks, std::size_t nblocks,
                            std::uint64_t t_first, bool last_is_final, std::size_t lanes) {
  blake2_lanes<ymm32>::chains(h, chunks, nblocks, t_first, last_is_final, lanes);
}

void blake2b_chains_avx2_x4(std::uint64_t* h, const std::uint8_t* const* chunks, std::size_t nblocks,
                            std::uint64_t t_first, bool last_is_final, std::size_t lanes) {
  blake2_lanes<ymm64>::chains(h, chunks, nblocks, t_first, last_is_final, lanes);
}

}  // namespace poreplab::cpu::kernels

#endif  // POREPLAB_HAVE_AVX2
