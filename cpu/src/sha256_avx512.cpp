// SHA-256 `avx512-x16`: 16 independent chains, one per 32-bit lane of a zmm register.
// Rotations are single vprord instructions and every three-input boolean function (Ch,
// Maj, the Sigma/sigma XORs) is one vpternlogd, so a round costs ~17 vector operations
// (+11 for the message schedule) for 16 blocks at once. Throughput-bound: the chains
// share no dependencies, and on Zen 4 the ~42 rotations and shifts per block (vprord
// zmm issues at most once per cycle there) plus ~65 other operations set the rate.
// `avx512-x8` runs the same rounds, written once over the vector width, on 8 lanes of
// ymm registers (AVX-512VL): for CPUs whose 512-bit operations are split or slow down
// the clock, and for callers with at most 8 chains; elsewhere x16 is the faster of the two
// (measurements in docs/cpu-backend.md).
// Per block, each lane's two 32-byte chunks are loaded in place and transposed into
// word vectors; the state stays transposed in registers across the blocks of a call.
#include "sha256_kernels.hpp"

#if defined(POREPLAB_HAVE_AVX512)
#include "avx512_intrinsics.hpp"

#include <cstring>
#include <utility>

#include "poreplab/hash/sha256.hpp"
#include "poreplab/sdr/label.hpp"
#include "simd_transpose.hpp"

namespace poreplab::cpu::kernels {

namespace {

#define PL_INLINE inline __attribute__((always_inline))


// vpternlogd truth tables over (x, y, z) = (0xF0, 0xCC, 0xAA).
constexpr int kXor3 = 0x96;
constexpr int kChoose = 0xCA;    // x ? y : z
constexpr int kMajority = 0xE8;  // at least two of x, y, z

// The few operations the rounds need, for both widths.
PL_INLINE __m256i add(__m256i a, __m256i b) { return _mm256_add_epi32(a, b); }
PL_INLINE __m512i add(__m512i a, __m512i b) { return _mm512_add_epi32(a, b); }
template <int N> PL_INLINE __m256i ror(__m256i a) { return _mm256_ror_epi32(a, N); }
template <int N> PL_INLINE __m512i ror(__m512i a) { return _mm512_ror_epi32(a, N); }
template <int N> PL_INLINE __m256i shr(__m256i a) { return _mm256_srli_epi32(a, N); }
template <int N> PL_INLINE __m512i shr(__m512i a) { return _mm512_srli_epi32(a, N); }
template <int F> PL_INLINE __m256i tern(__m256i a, __m256i b, __m256i c) { return _mm256_ternarylogic_epi32(a, b, c, F); }
template <int F> PL_INLINE __m512i tern(__m512i a, __m512i b, __m512i c) { return _mm512_ternarylogic_epi32(a, b, c, F); }
template <class V> PL_INLINE V splat(std::uint32_t k);
template <> PL_INLINE __m256i splat<__m256i>(std::uint32_t k) { return _mm256_set1_epi32(static_cast<int>(k)); }
template <> PL_INLINE __m512i splat<__m512i>(std::uint32_t k) { return _mm512_set1_epi32(static_cast<int>(k)); }

template <class V> PL_INLINE V big_sigma0(V a) { return tern<kXor3>(ror<2>(a), ror<13>(a), ror<22>(a)); }
template <class V> PL_INLINE V big_sigma1(V e) { return tern<kXor3>(ror<6>(e), ror<11>(e), ror<25>(e)); }
template <class V> PL_INLINE V small_sigma0(V w) { return tern<kXor3>(ror<7>(w), ror<18>(w), shr<3>(w)); }
template <class V> PL_INLINE V small_sigma1(V w) { return tern<kXor3>(ror<17>(w), ror<19>(w), shr<10>(w)); }

// Where a round's W+K comes from: the message schedule, the schedule with W+K also kept
// for the block's repeats, or the kept W+K of an earlier block with the same bytes.
enum class wk_source { schedule, schedule_and_keep, kept };

// Round T with the working variables addressed by rotation: a = s[(0 - T) & 7], ...
template <int T, wk_source M, class V>
PL_INLINE void round(V (&s)[8], V (&w)[16], V* wk) {
  V& a = s[(0 - T) & 7];
  V& b = s[(1 - T) & 7];
  V& c = s[(2 - T) & 7];
  V& d = s[(3 - T) & 7];
  V& e = s[(4 - T) & 7];
  V& f = s[(5 - T) & 7];
  V& g = s[(6 - T) & 7];
  V& h = s[(7 - T) & 7];
  V kw;
  if constexpr (M == wk_source::kept) {
    kw = wk[T];
  } else {
    V& wt = w[T & 15];
    if constexpr (T >= 16)
      wt = add(add(wt, small_sigma0(w[(T - 15) & 15])), add(w[(T - 7) & 15], small_sigma1(w[(T - 2) & 15])));
    kw = add(wt, splat<V>(kSha256K[T]));
    if constexpr (M == wk_source::schedule_and_keep) wk[T] = kw;
  }
  const V t1 = add(add(h, kw), add(big_sigma1(e), tern<kChoose>(e, f, g)));
  const V t2 = add(big_sigma0(a), tern<kMajority>(a, b, c));
  d = add(d, t1);
  h = add(t1, t2);
}

template <wk_source M, class V, std::size_t... T>
PL_INLINE void rounds(V (&s)[8], V (&w)[16], V* wk, std::index_sequence<T...>) {
  (round<static_cast<int>(T), M>(s, w, wk), ...);
}

template <std::size_t Lanes>
struct vec;
template <>
struct vec<8> {
  using type = __m256i;
};
template <>
struct vec<16> {
  using type = __m512i;
};

// Lanes first..first+n-1 (n <= L) of a call whose rows hold `stride` pointers. With
// Repeats (sha256_repeat_fn), a repeated block runs on the W+K kept from its first
// occurrence: no loads, transposes or schedule.
template <std::size_t L, bool Repeats>
void run_group(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks, std::size_t stride,
               std::size_t first, std::size_t n, const std::uint8_t* first_of) {
  using V = typename vec<L>::type;
  const std::uint8_t* p[L];
  for (std::size_t j = 0; j < L; ++j)
    p[j] = j < n ? reinterpret_cast<const std::uint8_t*>(state + (first + j) * 8) : kZeroChunk;
  V s[8];
  simd::transpose32<false>(p, s);
  std::int8_t slot[kTrackedBlocks];
  if constexpr (Repeats) kept_schedule_slots(first_of, nblocks, slot);
  alignas(64) V wk[Repeats ? kKeptBlocks : 1][64];
  for (std::size_t k = 0; k < nblocks; ++k) {
    V v[8];
    for (int i = 0; i < 8; ++i) v[i] = s[i];
    V w[16];
    const kept_slots use = Repeats ? kept_slots_of(slot, first_of, k) : kept_slots{-1, -1};
    if (use.reused >= 0) {
      rounds<wk_source::kept>(v, w, wk[use.reused], std::make_index_sequence<64>{});
    } else {
      const std::uint8_t* const* row = chunks + 2 * k * stride + first;
      for (std::size_t j = 0; j < L; ++j) p[j] = j < n ? row[j] : kZeroChunk;
      simd::transpose32<true>(p, w);
      for (std::size_t j = 0; j < L; ++j) p[j] = j < n ? row[stride + j] : kZeroChunk;
      simd::transpose32<true>(p, w + 8);
      if (use.kept >= 0)
        rounds<wk_source::schedule_and_keep>(v, w, wk[use.kept], std::make_index_sequence<64>{});
      else
        rounds<wk_source::schedule>(v, w, wk[0], std::make_index_sequence<64>{});
    }
    for (int i = 0; i < 8; ++i) s[i] = add(s[i], v[i]);
  }
  alignas(64) std::uint32_t out[8][L];
  for (int i = 0; i < 8; ++i) std::memcpy(out[i], &s[i], sizeof(V));
  for (std::size_t j = 0; j < n; ++j)
    for (int i = 0; i < 8; ++i) state[(first + j) * 8 + i] = out[i][j];
}

// The padding block of a 64-byte message on lanes first..first+n-1: its W+K is a
// constant (sha256::make_padding64_schedule), broadcast; no loads, transposes or schedule.
template <std::size_t L>
void pad64_group(std::uint32_t* state, std::size_t first, std::size_t n) {
  using V = typename vec<L>::type;
  static constexpr sha256::padding64_schedule kPad = sha256::make_padding64_schedule();
  const std::uint8_t* p[L];
  for (std::size_t j = 0; j < L; ++j)
    p[j] = j < n ? reinterpret_cast<const std::uint8_t*>(state + (first + j) * 8) : kZeroChunk;
  V s[8];
  simd::transpose32<false>(p, s);
  alignas(64) V wk[64];
  for (int t = 0; t < 64; ++t) wk[t] = splat<V>(kPad.wk[t]);
  V v[8];
  for (int i = 0; i < 8; ++i) v[i] = s[i];
  V w[16];
  rounds<wk_source::kept>(v, w, wk, std::make_index_sequence<64>{});
  alignas(64) std::uint32_t out[8][L];
  for (int i = 0; i < 8; ++i) {
    s[i] = add(s[i], v[i]);
    std::memcpy(out[i], &s[i], sizeof(V));
  }
  for (std::size_t j = 0; j < n; ++j)
    for (int i = 0; i < 8; ++i) state[(first + j) * 8 + i] = out[i][j];
}

// Whole 64-byte messages, L at a time (tree_d's parents): the IV broadcast, the data block
// loaded in place, the padding block from broadcast W+K (or its schedule, for the A/B), the
// digests transposed back, byte-swapped and masked.
template <std::size_t L>
void pairs(const std::uint8_t* in, std::size_t count, std::uint8_t* out, bool pad_precompute) {
  using V = typename vec<L>::type;
  static constexpr sha256::padding64_schedule kPad = sha256::make_padding64_schedule();
  static constexpr std::uint32_t kPadWords[16] = {0x80000000u, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 512};
  std::uint32_t iv[8];
  sha256::init_state(iv);
  alignas(64) V wk[64];
  for (int t = 0; t < 64; ++t) wk[t] = splat<V>(kPad.wk[t]);
  for (std::size_t first = 0; first < count; first += L) {
    const std::size_t n = count - first < L ? count - first : L;
    const std::uint8_t* p[L];
    for (std::size_t j = 0; j < L; ++j) p[j] = j < n ? in + 64 * (first + j) : kZeroChunk;
    V w[16];
    simd::transpose32<true>(p, w);
    for (std::size_t j = 0; j < L; ++j) p[j] += 32;  // kZeroChunk is 64 bytes
    simd::transpose32<true>(p, w + 8);
    V s[8], v[8];
    for (int i = 0; i < 8; ++i) s[i] = v[i] = splat<V>(iv[i]);
    rounds<wk_source::schedule>(v, w, wk, std::make_index_sequence<64>{});
    for (int i = 0; i < 8; ++i) s[i] = v[i] = add(s[i], v[i]);
    if (pad_precompute) {
      rounds<wk_source::kept>(v, w, wk, std::make_index_sequence<64>{});
    } else {
      for (int i = 0; i < 16; ++i) w[i] = splat<V>(kPadWords[i]);
      rounds<wk_source::schedule>(v, w, wk, std::make_index_sequence<64>{});
    }
    alignas(64) std::uint32_t o[8][L];
    for (int i = 0; i < 8; ++i) {
      s[i] = add(s[i], v[i]);
      std::memcpy(o[i], &s[i], sizeof(V));
    }
    for (std::size_t j = 0; j < n; ++j) {
      std::uint8_t* d = out + 32 * (first + j);
      for (int i = 0; i < 8; ++i) {
        const std::uint32_t x = __builtin_bswap32(o[i][j]);
        std::memcpy(d + 4 * i, &x, 4);
      }
      d[31] &= 0x3f;
    }
  }
}

// The digest's store for both widths: bytes swapped within each word, and word i of lane j
// scattered to out + 32 j + 4 i for the lanes the mask keeps.
PL_INLINE __m256i bswap_words(__m256i d) {
  return _mm256_shuffle_epi8(d, _mm256_broadcastsi128_si256(simd::bswap32_mask()));
}
PL_INLINE __m512i bswap_words(__m512i d) { return _mm512_shuffle_epi8(d, _mm512_broadcast_i32x4(simd::bswap32_mask())); }
PL_INLINE __m256i and_words(__m256i a, __m256i b) { return _mm256_and_si256(a, b); }
PL_INLINE __m512i and_words(__m512i a, __m512i b) { return _mm512_and_si512(a, b); }
PL_INLINE void scatter_word(std::uint8_t* out, std::uint32_t keep, std::uint32_t i, __m256i d) {
  const __m256i at = _mm256_add_epi32(_mm256_set_epi32(56, 48, 40, 32, 24, 16, 8, 0), splat<__m256i>(i));
  _mm256_mask_i32scatter_epi32(out, static_cast<__mmask8>(keep), at, d, 4);
}
PL_INLINE void scatter_word(std::uint8_t* out, std::uint32_t keep, std::uint32_t i, __m512i d) {
  const __m512i at = _mm512_add_epi32(
      _mm512_set_epi32(120, 112, 104, 96, 88, 80, 72, 64, 56, 48, 40, 32, 24, 16, 8, 0), splat<__m512i>(i));
  _mm512_mask_i32scatter_epi32(out, static_cast<__mmask16>(keep), at, d, 4);
}

// SDR nodes in the L lanes (sha256_sdr_nodes_fn): Full when every lane is a sector, else
// the first n, the others reading zeros and writing nothing. The parent pairs' W+K are
// kept from their first block for the blocks that repeat them (Cycle / 2 distinct pairs).
template <std::size_t L, std::uint32_t Cycle, bool Full>
void sdr_nodes(const std::uint8_t* ids, std::uint32_t layer, std::uint64_t node, const std::uint32_t* header_states,
               const std::uint8_t* const* parents, std::size_t n, std::uint8_t* out) {
  using V = typename vec<L>::type;
  constexpr std::uint32_t kPairs = sdr::kParentBlocks / 2, kDistinct = Cycle / 2;
  static_assert(Cycle % 2 == 0 && kPairs + 1 == sdr::kChainedCompressions);  // a pair never wraps
  const std::uint8_t* p[L];
  const auto lanes_at = [&](const std::uint8_t* base) {
    for (std::size_t j = 0; j < L; ++j) p[j] = Full || j < n ? base + 32 * j : kZeroChunk;
  };
  std::uint32_t iv[8];
  sha256::init_state(iv);
  V s[8], v[8], w[16];
  alignas(64) V wk[kDistinct][64];
  if (header_states != nullptr) {
    lanes_at(reinterpret_cast<const std::uint8_t*>(header_states));  // 8 words a lane: 32 bytes
    simd::transpose32<false>(p, s);
  } else {
    // The header block: replica_id, then u32_BE(layer) || u64_BE(node) || zeros, read as words.
    lanes_at(ids);
    simd::transpose32<true>(p, w);
    w[8] = splat<V>(layer);
    w[9] = splat<V>(static_cast<std::uint32_t>(node >> 32));
    w[10] = splat<V>(static_cast<std::uint32_t>(node));
    for (int i = 11; i < 16; ++i) w[i] = splat<V>(0);
    for (int i = 0; i < 8; ++i) s[i] = v[i] = splat<V>(iv[i]);
    rounds<wk_source::schedule>(v, w, wk[0], std::make_index_sequence<64>{});
    for (int i = 0; i < 8; ++i) s[i] = add(s[i], v[i]);
  }
  for (std::uint32_t b = 0, q = 0; b < kPairs; ++b, q = q + 1 == kDistinct ? 0 : q + 1) {
    for (int i = 0; i < 8; ++i) v[i] = s[i];
    if (b < kDistinct) {
      lanes_at(parents[2 * q]);
      simd::transpose32<true>(p, w);
      lanes_at(parents[2 * q + 1]);
      simd::transpose32<true>(p, w + 8);
      rounds<wk_source::schedule_and_keep>(v, w, wk[q], std::make_index_sequence<64>{});
    } else {
      rounds<wk_source::kept>(v, w, wk[q], std::make_index_sequence<64>{});
    }
    for (int i = 0; i < 8; ++i) s[i] = add(s[i], v[i]);
  }
  // The last parent chunk and SHA-256's padding: 0x80, zeros, the message's length in bits.
  lanes_at(parents[(sdr::kParentBlocks - 1) % Cycle]);
  simd::transpose32<true>(p, w);
  w[8] = splat<V>(0x80000000u);
  for (int i = 9; i < 15; ++i) w[i] = splat<V>(0);
  w[15] = splat<V>(static_cast<std::uint32_t>(sdr::kSdrMessageBytes * 8));
  for (int i = 0; i < 8; ++i) v[i] = s[i];
  rounds<wk_source::schedule>(v, w, wk[0], std::make_index_sequence<64>{});
  // Digest word i of lane j to out + 32 j + 4 i, big-endian; the label's byte 31 (word 7's
  // low byte) loses its top two bits.
  const std::uint32_t keep = Full ? (1u << L) - 1 : (1u << n) - 1;
  for (std::uint32_t i = 0; i < 8; ++i) {
    V d = add(s[i], v[i]);
    if (i == 7) d = and_words(d, splat<V>(0xffffff3fu));
    scatter_word(out, keep, i, bswap_words(d));
  }
}

template <std::size_t L>
void sdr_nodes_lanes(const std::uint8_t* replica_ids, std::uint32_t layer, std::uint64_t node,
                     const std::uint32_t* header_states, const std::uint8_t* const* parents, std::uint32_t cycle,
                     std::size_t lanes, std::uint8_t* out) {
  const bool full = lanes == L;
  if (cycle == sdr::kBaseDegree)
    return full ? sdr_nodes<L, sdr::kBaseDegree, true>(replica_ids, layer, node, header_states, parents, lanes, out)
                : sdr_nodes<L, sdr::kBaseDegree, false>(replica_ids, layer, node, header_states, parents, lanes, out);
  full ? sdr_nodes<L, sdr::kParents, true>(replica_ids, layer, node, header_states, parents, lanes, out)
       : sdr_nodes<L, sdr::kParents, false>(replica_ids, layer, node, header_states, parents, lanes, out);
}

template <std::size_t L>
void pad64(std::uint32_t* state, std::size_t lanes) {
  for (std::size_t first = 0; first < lanes; first += L) pad64_group<L>(state, first, lanes - first < L ? lanes - first : L);
}

template <std::size_t L, bool Repeats = false>
void chains(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks, std::size_t lanes,
            const std::uint8_t* first_of = nullptr) {
  for (std::size_t first = 0; first < lanes; first += L)
    run_group<L, Repeats>(state, chunks, nblocks, lanes, first, lanes - first < L ? lanes - first : L, first_of);
}

}  // namespace

void sha256_chains_avx512_x16(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                              std::size_t lanes) {
  chains<16>(state, chunks, nblocks, lanes);
}

void sha256_chains_avx512_x8(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                             std::size_t lanes) {
  chains<8>(state, chunks, nblocks, lanes);
}

void sha256_repeat_avx512_x16(std::uint32_t* state, const std::uint8_t* const* chunks, const std::uint8_t* first_of,
                              std::size_t nblocks, std::size_t lanes) {
  chains<16, true>(state, chunks, nblocks, lanes, first_of);
}

void sha256_repeat_avx512_x8(std::uint32_t* state, const std::uint8_t* const* chunks, const std::uint8_t* first_of,
                             std::size_t nblocks, std::size_t lanes) {
  chains<8, true>(state, chunks, nblocks, lanes, first_of);
}

void sha256_sdr_nodes_avx512_x16(const std::uint8_t* replica_ids, std::uint32_t layer, std::uint64_t node,
                                 const std::uint32_t* header_states, const std::uint8_t* const* parents,
                                 std::uint32_t cycle, std::size_t lanes, std::uint8_t* out) {
  sdr_nodes_lanes<16>(replica_ids, layer, node, header_states, parents, cycle, lanes, out);
}

void sha256_sdr_nodes_avx512_x8(const std::uint8_t* replica_ids, std::uint32_t layer, std::uint64_t node,
                                const std::uint32_t* header_states, const std::uint8_t* const* parents,
                                std::uint32_t cycle, std::size_t lanes, std::uint8_t* out) {
  sdr_nodes_lanes<8>(replica_ids, layer, node, header_states, parents, cycle, lanes, out);
}

void sha256_pad64_avx512_x16(std::uint32_t* state, std::size_t lanes) { pad64<16>(state, lanes); }
void sha256_pad64_avx512_x8(std::uint32_t* state, std::size_t lanes) { pad64<8>(state, lanes); }
void sha256_pairs_avx512_x16(const std::uint8_t* in, std::size_t count, std::uint8_t* out, bool pad_precompute) {
  pairs<16>(in, count, out, pad_precompute);
}
void sha256_pairs_avx512_x8(const std::uint8_t* in, std::size_t count, std::uint8_t* out, bool pad_precompute) {
  pairs<8>(in, count, out, pad_precompute);
}

}  // namespace poreplab::cpu::kernels

#endif  // POREPLAB_HAVE_AVX512
