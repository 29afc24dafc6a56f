// BLAKE2s `avx512-x16` and BLAKE2b `avx512-x8`: one message per lane of a zmm register
// (16 dwords, 8 qwords), vprord / vprorq rotations. Throughput engines: many sectors (or
// messages) at once; the row-vectorised `avx512` engines are the one-message latency path.
#include "blake2_kernels.hpp"

#if defined(POREPLAB_HAVE_AVX512)
#include "avx512_intrinsics.hpp"

#include "blake2_lanes.hpp"
#include "simd_transpose.hpp"

namespace poreplab::cpu::kernels {

namespace {

#define PL_INLINE [[gnu::always_inline]] static inline

struct zmm32 {
  using V = __m512i;
  using W = std::uint32_t;
  static constexpr std::size_t kLanes = 16;
  PL_INLINE V add(V a, V b) { return _mm512_add_epi32(a, b); }
  PL_INLINE V xor_(V a, V b) { return _mm512_xor_si512(a, b); }
  template <int N> PL_INLINE V ror(V a) { return _mm512_ror_epi32(a, N); }
  PL_INLINE V splat(W w) { return _mm512_set1_epi32(static_cast<int>(w)); }
  PL_INLINE V load(const W* p) { return _mm512_load_si512(p); }
  PL_INLINE void store(W* p, V v) { _mm512_store_si512(p, v); }
  PL_INLINE void transpose(const std::uint8_t* const* p, V* w) { simd::transpose32<false>(p, w); }
};

struct zmm64 {
  using V = __m512i;
  using W = std::uint64_t;
  static constexpr std::size_t kLanes = 8;
  PL_INLINE V add(V a, V b) { return _mm512_add_epi64(a, b); }
  PL_INLINE V xor_(V a, V b) { return _mm512_xor_si512(a, b); }
  template <int N> PL_INLINE V ror(V a) { return _mm512_ror_epi64(a, N); }
  PL_INLINE V splat(W w) { return _mm512_set1_epi64(static_cast<long long>(w)); }
  PL_INLINE V load(const W* p) { return _mm512_load_si512(p); }
  PL_INLINE void store(W* p, V v) { _mm512_store_si512(p, v); }
  PL_INLINE void transpose(const std::uint8_t* const* p, V* w) { simd::transpose64(p, w); }
};

#undef PL_INLINE

}  // namespace

void blake2s_chains_avx512_x16(std::uint32_t* h, const std::uint8_t* const* chunks, std::size_t nblocks,
                               std::uint64_t t_first, bool last_is_final, std::size_t lanes) {
  blake2_lanes<zmm32>::chains(h, chunks, nblocks, t_first, last_is_final, lanes);
}

void blake2b_chains_avx512_x8(std::uint64_t* h, const std::uint8_t* const* chunks, std::size_t nblocks,
                              std::uint64_t t_first, bool last_is_final, std::size_t lanes) {
  blake2_lanes<zmm64>::chains(h, chunks, nblocks, t_first, last_is_final, lanes);
}

}  // namespace poreplab::cpu::kernels

#endif  // POREPLAB_HAVE_AVX512
