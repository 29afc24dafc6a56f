// BLAKE2s `avx512`: row-vectorised compression, one 128-bit register per row of the
// 4x4 state, so the four G functions of a half-round run as one. The critical path is
// the G chain itself. On Zen 4 vprord takes 2 cycles, so x ^= y; x = ror(x) costs 3;
// instead ror(x) is formed early (x is known long before y) and ror(x ^ y) = ror(x) ^
// (y >> n) ^ (y << 32-n) is two 1-cycle steps after y: 6 cycles per half-round, 240 per
// block in theory; off-path work still delays the chain (measurements in
// docs/cpu-backend.md). Row b (the last one G writes) stays in place when diagonalising and
// rows a, c, d rotate around it, keeping those shuffles off the path; message words arrive
// by broadcast loads and blends (see words()).
#include "blake2_kernels.hpp"

#if defined(POREPLAB_HAVE_AVX512)
#include "avx512_intrinsics.hpp"

namespace poreplab::cpu::kernels {

namespace {

#define PL_INLINE inline __attribute__((always_inline))

// GCC reassociates (a + m) + b into (a + b) + m, which puts two adds after b, the
// late operand; an empty asm makes a + m a value of its own.
PL_INLINE __m128i pinned(__m128i v) {
  asm("" : "+v"(v));
  return v;
}

// Per round, the 16 message word indices in the order the round consumes them: column
// x, column y, diagonal x, diagonal y (diagonal lanes ordered by kDiagG).
struct index_table {
  std::uint8_t v[10][16];
};

constexpr index_table make_index_table() {
  index_table t{};
  for (int r = 0; r < 10; ++r)
    for (int i = 0; i < 4; ++i) {
      t.v[r][i] = kBlake2Sigma.v[r][2 * i];
      t.v[r][4 + i] = kBlake2Sigma.v[r][2 * i + 1];
      t.v[r][8 + i] = kBlake2Sigma.v[r][8 + 2 * kDiagG[i]];
      t.v[r][12 + i] = kBlake2Sigma.v[r][9 + 2 * kDiagG[i]];
    }
  return t;
}

constexpr index_table kIndex = make_index_table();

PL_INLINE __m128i broadcast(const std::uint8_t* block, int word) {
  return _mm_castps_si128(_mm_broadcast_ss(reinterpret_cast<const float*>(block + 4 * word)));
}

// Message words (i0..i3) of the block as one vector: four broadcast loads (load ports)
// merged by three blends (any vector ALU). A vpermd of the block held in a zmm register
// does it in fewer instructions, but 512-bit shuffles issue at half rate on Zen 4 and
// compete with the rotations for the same pipes, which made it slower per block
// (docs/cpu-backend.md).
PL_INLINE __m128i words(const std::uint8_t* block, const std::uint8_t* i) {
  __m128i v = broadcast(block, i[0]);
  v = _mm_mask_blend_epi32(0x2, v, broadcast(block, i[1]));
  v = _mm_mask_blend_epi32(0x4, v, broadcast(block, i[2]));
  return _mm_mask_blend_epi32(0x8, v, broadcast(block, i[3]));
}

// RFC 7693 2.6 (the SHA-256 initial values).
PL_INLINE __m128i iv_lo() { return _mm_setr_epi32(0x6a09e667, static_cast<int>(0xbb67ae85u), 0x3c6ef372, static_cast<int>(0xa54ff53au)); }
PL_INLINE __m128i iv_hi() { return _mm_setr_epi32(0x510e527f, static_cast<int>(0x9b05688cu), 0x1f83d9ab, 0x5be0cd19); }

// ror(x ^ y, N) given xr = ror(x, N): the shifts of y and one vpternlogd XOR.
template <int N>
PL_INLINE __m128i ror_xor(__m128i xr, __m128i y) {
  return _mm_ternarylogic_epi32(xr, _mm_srli_epi32(y, N), _mm_slli_epi32(y, 32 - N), 0x96);
}

// Half of G on all four columns (or diagonals). a + m is formed first: a is ready well
// before b, so only one add waits on b.
template <int R1, int R2>
PL_INLINE void half_g(__m128i& a, __m128i& b, __m128i& c, __m128i& d, __m128i m) {
  a = _mm_add_epi32(pinned(_mm_add_epi32(a, m)), b);
  d = ror_xor<R1>(_mm_ror_epi32(d, R1), a);
  c = _mm_add_epi32(c, d);
  b = ror_xor<R2>(_mm_ror_epi32(b, R2), c);
}

// d = IV[4..7] ^ (t_lo, t_hi, f, 0), with the counter t and flag f kept in tf as vector
// words: no general-register transfers per block.
PL_INLINE void compress(__m128i& h0, __m128i& h1, const std::uint8_t* block, __m128i tf) {
  __m128i a = h0, b = h1, c = iv_lo();
  __m128i d = _mm_xor_si128(iv_hi(), tf);
#pragma GCC unroll 10
  for (int r = 0; r < 10; ++r) {
    const std::uint8_t* ix = kIndex.v[r];
    half_g<16, 12>(a, b, c, d, words(block, ix));
    half_g<8, 7>(a, b, c, d, words(block, ix + 4));
    // Diagonals: lane i runs G kDiagG[i] = (v[(i+3)%4], v[4+i], v[8+(i+1)%4], v[12+(i+2)%4]).
    a = _mm_shuffle_epi32(a, _MM_SHUFFLE(2, 1, 0, 3));
    c = _mm_shuffle_epi32(c, _MM_SHUFFLE(0, 3, 2, 1));
    d = _mm_shuffle_epi32(d, _MM_SHUFFLE(1, 0, 3, 2));
    half_g<16, 12>(a, b, c, d, words(block, ix + 8));
    half_g<8, 7>(a, b, c, d, words(block, ix + 12));
    a = _mm_shuffle_epi32(a, _MM_SHUFFLE(0, 3, 2, 1));
    c = _mm_shuffle_epi32(c, _MM_SHUFFLE(2, 1, 0, 3));
    d = _mm_shuffle_epi32(d, _MM_SHUFFLE(1, 0, 3, 2));
  }
  h0 = _mm_ternarylogic_epi32(h0, a, c, 0x96);
  h1 = _mm_ternarylogic_epi32(h1, b, d, 0x96);
}

}  // namespace

void blake2s_blocks_avx512(std::uint32_t* h, const std::uint8_t* blocks, std::size_t nblocks, std::uint64_t t_first,
                           bool last_is_final) {
  __m128i h0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h));
  __m128i h1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h + 4));
  // (t_lo, t_hi) is the low 64-bit lane: one 64-bit add advances it.
  __m128i tf = _mm_cvtsi64_si128(static_cast<long long>(t_first));
  const __m128i step = _mm_cvtsi64_si128(64);
  for (std::size_t k = 0; k + 1 < nblocks; ++k, tf = _mm_add_epi64(tf, step)) compress(h0, h1, blocks + 64 * k, tf);
  if (nblocks != 0) {
    const __m128i flag = _mm_setr_epi32(0, 0, last_is_final ? -1 : 0, 0);
    compress(h0, h1, blocks + 64 * (nblocks - 1), _mm_or_si128(tf, flag));
  }
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h), h0);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h + 4), h1);
}

}  // namespace poreplab::cpu::kernels

#endif  // POREPLAB_HAVE_AVX512
