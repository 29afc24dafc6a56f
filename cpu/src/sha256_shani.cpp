// SHA-256 with the SHA extensions: `shani` (one chain per pass) and `shani-x2/x3/x4`
// (two to four chains interleaved). One block is 32 dependent sha256rnds2 (two rounds
// each), so a single chain runs at that instruction's latency; more independent chains
// fill the issue slots the first leaves idle. The message schedule (sha256msg1/msg2) does not
// depend on the state and runs ahead of the rounds.
#include "sha256_kernels.hpp"

#if defined(POREPLAB_HAVE_SHANI)
#include <immintrin.h>

#include "poreplab/hash/sha256.hpp"
#include "poreplab/sdr/label.hpp"
#include "sha256_padding.hpp"

namespace poreplab::cpu::kernels {

namespace {

#define PL_INLINE inline __attribute__((always_inline))

// Big-endian words: reverse the bytes of each 32-bit lane.
PL_INLINE __m128i bswap_mask() { return _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3); }

PL_INLINE __m128i load_be(const std::uint8_t* p, __m128i mask) {
  return _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), mask);
}

PL_INLINE __m128i k4(int i) { return _mm_load_si128(reinterpret_cast<const __m128i*>(kSha256K + 4 * i)); }

// sha256rnds2 wants the state as {A,B,E,F} and {C,D,G,H}, A and C in the top dword.
PL_INLINE void load_state(const std::uint32_t* h, __m128i& abef, __m128i& cdgh) {
  const __m128i abcd = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h));     // A B C D (A lowest)
  const __m128i efgh = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h + 4));  // E F G H
  abef = _mm_shuffle_epi32(_mm_unpacklo_epi64(efgh, abcd), 0xB1);                   // F E B A
  cdgh = _mm_shuffle_epi32(_mm_unpackhi_epi64(efgh, abcd), 0xB1);                   // H G D C
}

PL_INLINE void store_state(std::uint32_t* h, __m128i abef, __m128i cdgh) {
  const __m128i efab = _mm_shuffle_epi32(abef, 0xB1);  // E F A B
  const __m128i ghcd = _mm_shuffle_epi32(cdgh, 0xB1);  // G H C D
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h), _mm_unpackhi_epi64(efab, ghcd));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h + 4), _mm_unpacklo_epi64(efab, ghcd));
}

// N chains, one block each, their instructions interleaved so that the out-of-order
// core sees N independent sha256rnds2 chains side by side.
// With Keep, each chain's W+K also goes to wk[j] for the block's repeats.
template <int N, bool Keep = false>
PL_INLINE void compress(__m128i* abef, __m128i* cdgh, const std::uint8_t* const* lo, const std::uint8_t* const* hi,
                        __m128i (*wk)[16] = nullptr) {
  const __m128i mask = bswap_mask();
  __m128i m[N][4], abef0[N], cdgh0[N];
  for (int j = 0; j < N; ++j) {
    m[j][0] = load_be(lo[j], mask);
    m[j][1] = load_be(lo[j] + 16, mask);
    m[j][2] = load_be(hi[j], mask);
    m[j][3] = load_be(hi[j] + 16, mask);
    abef0[j] = abef[j];
    cdgh0[j] = cdgh[j];
  }
#pragma GCC unroll 16
  for (int g = 0; g < 16; ++g) {  // 16 groups of 4 rounds
    const __m128i k = k4(g);
    for (int j = 0; j < N; ++j) {
      __m128i& w = m[j][g & 3];
      if (g >= 4) {
        // W[t..t+3] from W[t-16..t-1]: msg1 adds sigma0(W[t-15..]) to W[t-16..], the
        // alignr supplies W[t-7..t-4], msg2 adds sigma1(W[t-2..]).
        const __m128i w7 = _mm_alignr_epi8(m[j][(g - 1) & 3], m[j][(g - 2) & 3], 4);
        w = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(w, m[j][(g - 3) & 3]), w7), m[j][(g - 1) & 3]);
      }
      const __m128i kw = _mm_add_epi32(w, k);
      if constexpr (Keep) _mm_store_si128(&wk[j][g], kw);
      cdgh[j] = _mm_sha256rnds2_epu32(cdgh[j], abef[j], kw);
      abef[j] = _mm_sha256rnds2_epu32(abef[j], cdgh[j], _mm_shuffle_epi32(kw, 0x0E));
    }
  }
  for (int j = 0; j < N; ++j) {
    abef[j] = _mm_add_epi32(abef[j], abef0[j]);
    cdgh[j] = _mm_add_epi32(cdgh[j], cdgh0[j]);
  }
}

// The 64 rounds of N chains whose W+K is kept in memory: sha256rnds2 alone, no message
// schedule. The second sha256rnds2 of a group reads its two words as a movq from the
// upper half.
template <int N>
PL_INLINE void rounds_kept(__m128i* abef, __m128i* cdgh, const __m128i (*wk)[16]) {
  __m128i abef0[N], cdgh0[N];
  for (int j = 0; j < N; ++j) {
    abef0[j] = abef[j];
    cdgh0[j] = cdgh[j];
  }
#pragma GCC unroll 16
  for (int g = 0; g < 16; ++g) {
    for (int j = 0; j < N; ++j) {
      const __m128i* p = &wk[j][g];
      cdgh[j] = _mm_sha256rnds2_epu32(cdgh[j], abef[j], _mm_load_si128(p));
      abef[j] = _mm_sha256rnds2_epu32(abef[j], cdgh[j],
                                      _mm_loadl_epi64(reinterpret_cast<const __m128i*>(reinterpret_cast<const std::uint64_t*>(p) + 1)));
    }
  }
  for (int j = 0; j < N; ++j) {
    abef[j] = _mm_add_epi32(abef[j], abef0[j]);
    cdgh[j] = _mm_add_epi32(cdgh[j], cdgh0[j]);
  }
}

// Lanes first..first+N-1 of a call whose rows hold `stride` pointers.
template <int N>
PL_INLINE void run_group(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                         std::size_t stride, std::size_t first) {
  __m128i abef[N], cdgh[N];
  for (int j = 0; j < N; ++j) load_state(state + (first + j) * 8, abef[j], cdgh[j]);
  for (std::size_t k = 0; k < nblocks; ++k) {
    const std::uint8_t* const* row = chunks + 2 * k * stride + first;
    const std::uint8_t* lo[N];
    const std::uint8_t* hi[N];
    for (int j = 0; j < N; ++j) {
      lo[j] = row[j];
      hi[j] = row[stride + j];
    }
    compress<N>(abef, cdgh, lo, hi);
  }
  for (int j = 0; j < N; ++j) store_state(state + (first + j) * 8, abef[j], cdgh[j]);
}

// Lanes first..first+N-1 with the repeats of first_of: a first occurrence that a later
// block repeats is compressed with its W+K kept; a repeat runs the kept W+K's rounds
// across all N chains. Blocks that need the schedule run as groups of U chains, which
// keeps the schedule's registers within the 16 the SHA instructions reach.
template <int N, int U>
PL_INLINE void run_group_repeat(std::uint32_t* state, const std::uint8_t* const* chunks, const std::uint8_t* first_of,
                                std::size_t nblocks, std::size_t stride, std::size_t first) {
  static_assert(N % U == 0);
  std::int8_t slot[kTrackedBlocks];
  kept_schedule_slots(first_of, nblocks, slot);
  alignas(64) __m128i wk[kKeptBlocks][N][16];
  __m128i abef[N], cdgh[N];
  for (int j = 0; j < N; ++j) load_state(state + (first + j) * 8, abef[j], cdgh[j]);
  for (std::size_t k = 0; k < nblocks; ++k) {
    const kept_slots use = kept_slots_of(slot, first_of, k);
    if (use.reused >= 0) {
      rounds_kept<N>(abef, cdgh, wk[use.reused]);
      continue;
    }
    const int to = use.kept;
    const std::uint8_t* const* row = chunks + 2 * k * stride + first;
#pragma GCC unroll 8
    for (int s = 0; s < N; s += U) {
      const std::uint8_t* lo[U];
      const std::uint8_t* hi[U];
      for (int j = 0; j < U; ++j) {
        lo[j] = row[s + j];
        hi[j] = row[stride + s + j];
      }
      if (to >= 0)
        compress<U, true>(abef + s, cdgh + s, lo, hi, wk[to] + s);
      else
        compress<U>(abef + s, cdgh + s, lo, hi);
    }
  }
  for (int j = 0; j < N; ++j) store_state(state + (first + j) * 8, abef[j], cdgh[j]);
}

}  // namespace

// The padding block of a 64-byte message: W+K is a constant, so the rounds run
// without sha256msg1/msg2 (one chain at a time: the chains are short).
void sha256_pad64_shani(std::uint32_t* state, std::size_t lanes) {
  static constexpr sha256::padding64_schedule kPad = sha256::make_padding64_schedule();
  for (std::size_t j = 0; j < lanes; ++j) {
    __m128i abef, cdgh;
    load_state(state + j * 8, abef, cdgh);
    const __m128i abef0 = abef, cdgh0 = cdgh;
#pragma GCC unroll 16
    for (int g = 0; g < 16; ++g) {
      const __m128i kw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kPad.wk + 4 * g));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, kw);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(kw, 0x0E));
    }
    store_state(state + j * 8, _mm_add_epi32(abef, abef0), _mm_add_epi32(cdgh, cdgh0));
  }
}

void sha256_chains_shani(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                         std::size_t lanes) {
  for (std::size_t j = 0; j < lanes; ++j) run_group<1>(state, chunks, nblocks, lanes, j);
}

// The first block of each lane's chain runs as two interleaved chains with the one-block
// `ahead` chain, the rest alone: the ahead block costs the slots one chain leaves idle.
void sha256_chain_ahead_shani(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                              std::uint32_t* ahead, const std::uint8_t* const* ahead_chunks, std::size_t lanes) {
  for (std::size_t j = 0; j < lanes; ++j) {
    __m128i abef[2], cdgh[2];
    load_state(state + j * 8, abef[0], cdgh[0]);
    load_state(ahead + j * 8, abef[1], cdgh[1]);
    const std::uint8_t* lo[2] = {chunks[j], ahead_chunks[j]};
    const std::uint8_t* hi[2] = {chunks[lanes + j], ahead_chunks[lanes + j]};
    compress<2>(abef, cdgh, lo, hi);
    store_state(ahead + j * 8, abef[1], cdgh[1]);
    for (std::size_t k = 1; k < nblocks; ++k) {
      const std::uint8_t* const* row = chunks + 2 * k * lanes + j;
      const std::uint8_t* rlo[1] = {row[0]};
      const std::uint8_t* rhi[1] = {row[lanes]};
      compress<1>(abef, cdgh, rlo, rhi);
    }
    store_state(state + j * 8, abef[0], cdgh[0]);
  }
}

namespace {

// The label straight from the state registers: words A..D, then E..H with the top two
// bits of byte 31 cleared, big-endian, as two 16-byte stores (the next node's 16-byte
// loads of it forward from them).
PL_INLINE void store_label(__m128i abef, __m128i cdgh, std::uint8_t* out) {
  const __m128i efab = _mm_shuffle_epi32(abef, 0xB1);
  const __m128i ghcd = _mm_shuffle_epi32(cdgh, 0xB1);
  const __m128i mask = bswap_mask();
  const __m128i fr = _mm_set_epi32(0x3fffffff, -1, -1, -1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_shuffle_epi8(_mm_unpackhi_epi64(efab, ghcd), mask));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16),
                   _mm_and_si128(_mm_shuffle_epi8(_mm_unpacklo_epi64(efab, ghcd), mask), fr));
}

// One block of N chains as groups of U interleaved (the registers the SHA instructions
// reach hold U chains' schedules); with Keep each chain's W+K also goes to wk[j].
template <int N, int U, bool Keep>
PL_INLINE void compress_in_groups(__m128i* abef, __m128i* cdgh, const std::uint8_t* const* lo,
                                  const std::uint8_t* const* hi, __m128i (*wk)[16]) {
  static_assert(N % U == 0);
#pragma GCC unroll 8
  for (int s = 0; s < N; s += U) compress<U, Keep>(abef + s, cdgh + s, lo + s, hi + s, Keep ? wk + s : nullptr);
}

// SDR nodes of N lanes (sha256_sdr_nodes_fn; one lane from its header state is
// sha256_sdr_node_fn), their N chains interleaved:
// the header block from the replica_ids and `tail` (the header's second chunk) or the
// states given, the 18 parent pairs, the last chunk with the padding, the labels stored
// from the registers. With U < N the repeated pairs run on W+K kept from their first block
// (sha256rnds2 alone, all N chains side by side), as the x4 repeat path does.
template <int N, int U, std::uint32_t Cycle>
void sdr_nodes_group(const std::uint8_t* ids, const std::uint8_t* tail, const std::uint32_t* header_states,
                     const std::uint8_t* const* parents, std::uint8_t* out) {
  constexpr std::uint32_t kPairs = sdr::kParentBlocks / 2, kDistinct = Cycle / 2;
  constexpr bool kKeep = U < N;
  static_assert(kPairs + 1 == sdr::kChainedCompressions && Cycle % 2 == 0);  // a pair never wraps
  __m128i abef[N], cdgh[N];
  const std::uint8_t* lo[N];
  const std::uint8_t* hi[N];
  if (header_states != nullptr) {
    for (int j = 0; j < N; ++j) load_state(header_states + 8 * j, abef[j], cdgh[j]);
  } else {
    std::uint32_t iv[8];
    sha256::init_state(iv);
    for (int j = 0; j < N; ++j) {
      load_state(iv, abef[j], cdgh[j]);
      lo[j] = ids + 32 * j;
      hi[j] = tail;
    }
    compress_in_groups<N, U, false>(abef, cdgh, lo, hi, nullptr);
  }
  alignas(64) __m128i wk[kKeep ? kDistinct : 1][N][16];
  for (std::uint32_t b = 0, q = 0; b < kPairs; ++b, q = q + 1 == kDistinct ? 0 : q + 1) {
    if (kKeep && b >= kDistinct) {
      rounds_kept<N>(abef, cdgh, wk[q]);
      continue;
    }
    for (int j = 0; j < N; ++j) {
      lo[j] = parents[2 * q] + 32 * j;
      hi[j] = parents[2 * q + 1] + 32 * j;
    }
    compress_in_groups<N, U, kKeep>(abef, cdgh, lo, hi, wk[kKeep ? q : 0]);
  }
  for (int j = 0; j < N; ++j) {
    lo[j] = parents[(sdr::kParentBlocks - 1) % Cycle] + 32 * j;
    hi[j] = detail::kSha256Tail<sdr::kSdrMessageBytes>.chunk(0);
  }
  compress_in_groups<N, U, false>(abef, cdgh, lo, hi, nullptr);
  for (int j = 0; j < N; ++j) store_label(abef[j], cdgh[j], out + 32 * j);
}

}  // namespace

namespace {

// One lane's chain from its header state (sha256_sdr_node_fn); with `ahead`, the first
// parent pair runs as two interleaved chains with the ahead block, the rest alone.
template <std::uint32_t Cycle>
void sdr_node(const std::uint32_t* header_state, const std::uint8_t* const* parents, std::uint8_t* out,
              std::uint32_t* ahead, const std::uint8_t* ahead_lo, const std::uint8_t* ahead_hi) {
  constexpr std::uint32_t kPairs = sdr::kParentBlocks / 2, kDistinct = Cycle / 2;
  static_assert(kPairs + 1 == sdr::kChainedCompressions && Cycle % 2 == 0);  // a pair never wraps
  __m128i abef[2], cdgh[2];
  load_state(header_state, abef[0], cdgh[0]);
  std::uint32_t b = 0, q = 0;
  if (ahead != nullptr) {
    load_state(ahead, abef[1], cdgh[1]);
    const std::uint8_t* lo[2] = {parents[0], ahead_lo};
    const std::uint8_t* hi[2] = {parents[1], ahead_hi};
    compress<2>(abef, cdgh, lo, hi);
    store_state(ahead, abef[1], cdgh[1]);
    b = q = 1;
  }
  for (; b < kPairs; ++b, q = q + 1 == kDistinct ? 0 : q + 1) {
    const std::uint8_t* lo[1] = {parents[2 * q]};
    const std::uint8_t* hi[1] = {parents[2 * q + 1]};
    compress<1>(abef, cdgh, lo, hi);
  }
  const std::uint8_t* lo[1] = {parents[(sdr::kParentBlocks - 1) % Cycle]};
  const std::uint8_t* hi[1] = {detail::kSha256Tail<sdr::kSdrMessageBytes>.chunk(0)};
  compress<1>(abef, cdgh, lo, hi);
  store_label(abef[0], cdgh[0], out);
}

}  // namespace

void sha256_sdr_node_shani(const std::uint32_t* header_state, const std::uint8_t* const* parents, std::uint32_t cycle,
                           std::uint8_t* out, std::uint32_t* ahead, const std::uint8_t* ahead_lo,
                           const std::uint8_t* ahead_hi) {
  if (cycle == sdr::kBaseDegree) return sdr_node<sdr::kBaseDegree>(header_state, parents, out, ahead, ahead_lo, ahead_hi);
  sdr_node<sdr::kParents>(header_state, parents, out, ahead, ahead_lo, ahead_hi);
}

namespace {

// `lanes` (at most N) as one group of N chains or, for fewer, one narrower group.
template <int N, int U, std::uint32_t Cycle>
void sdr_nodes_lanes(const std::uint8_t* ids, const std::uint8_t* tail, const std::uint32_t* header_states,
                     const std::uint8_t* const* parents, std::size_t lanes, std::uint8_t* out) {
  if (lanes >= N) return sdr_nodes_group<N, U, Cycle>(ids, tail, header_states, parents, out);
  if constexpr (N > 1) sdr_nodes_lanes<N - 1, (N - 1) % U == 0 ? U : N - 1, Cycle>(ids, tail, header_states, parents, lanes, out);
}

template <int N, int U>
void sdr_nodes(const std::uint8_t* replica_ids, std::uint32_t layer, std::uint64_t node,
               const std::uint32_t* header_states, const std::uint8_t* const* parents, std::uint32_t cycle,
               std::size_t lanes, std::uint8_t* out) {
  alignas(32) std::uint8_t header[64];  // its second chunk, the same in every lane
  if (header_states == nullptr) sdr::make_header(header, replica_ids, layer, node);
  const std::uint8_t* tail = header + 32;
  if (cycle == sdr::kBaseDegree)
    return sdr_nodes_lanes<N, U, sdr::kBaseDegree>(replica_ids, tail, header_states, parents, lanes, out);
  sdr_nodes_lanes<N, U, sdr::kParents>(replica_ids, tail, header_states, parents, lanes, out);
}

}  // namespace

void sha256_sdr_nodes_shani_x2(const std::uint8_t* replica_ids, std::uint32_t layer, std::uint64_t node,
                               const std::uint32_t* header_states, const std::uint8_t* const* parents,
                               std::uint32_t cycle, std::size_t lanes, std::uint8_t* out) {
  sdr_nodes<2, 2>(replica_ids, layer, node, header_states, parents, cycle, lanes, out);
}

void sha256_sdr_nodes_shani_x4(const std::uint8_t* replica_ids, std::uint32_t layer, std::uint64_t node,
                               const std::uint32_t* header_states, const std::uint8_t* const* parents,
                               std::uint32_t cycle, std::size_t lanes, std::uint8_t* out) {
  sdr_nodes<4, 2>(replica_ids, layer, node, header_states, parents, cycle, lanes, out);
}

namespace {

// Groups of N, then the remainder as one narrower group.
template <int N>
void chains_interleaved(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                        std::size_t lanes) {
  std::size_t j = 0;
  for (; j + N <= lanes; j += N) run_group<N>(state, chunks, nblocks, lanes, j);
  const std::size_t rest = lanes - j;
  if constexpr (N > 3) {
    if (rest == 3) return run_group<3>(state, chunks, nblocks, lanes, j);
  }
  if constexpr (N > 2) {
    if (rest == 2) return run_group<2>(state, chunks, nblocks, lanes, j);
  }
  if (rest == 1) run_group<1>(state, chunks, nblocks, lanes, j);
}

}  // namespace

void sha256_chains_shani_x2(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                            std::size_t lanes) {
  chains_interleaved<2>(state, chunks, nblocks, lanes);
}

// Three and four chains: sha256rnds2 issues once a cycle on some cores (`bench latency`
// shows its reciprocal throughput), so more than two chains can fill its 4-cycle latency;
// past two, the 16 registers the SHA instructions reach hold the chains' state and part
// of their schedule, and the rest is spilled.
void sha256_chains_shani_x3(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                            std::size_t lanes) {
  chains_interleaved<3>(state, chunks, nblocks, lanes);
}

void sha256_chains_shani_x4(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                            std::size_t lanes) {
  chains_interleaved<4>(state, chunks, nblocks, lanes);
}

// Four chains with kept schedules: the repeats' rounds run four wide, the schedule's blocks
// as two interleaved pairs; a remainder of lanes runs as one narrower group, also on kept
// schedules (callers need not point a repeat's rows anywhere useful).
void sha256_repeat_shani_x4(std::uint32_t* state, const std::uint8_t* const* chunks, const std::uint8_t* first_of,
                            std::size_t nblocks, std::size_t lanes) {
  std::size_t j = 0;
  for (; j + 4 <= lanes; j += 4) run_group_repeat<4, 2>(state, chunks, first_of, nblocks, lanes, j);
  switch (lanes - j) {
    case 3: return run_group_repeat<3, 3>(state, chunks, first_of, nblocks, lanes, j);
    case 2: return run_group_repeat<2, 2>(state, chunks, first_of, nblocks, lanes, j);
    case 1: return run_group_repeat<1, 1>(state, chunks, first_of, nblocks, lanes, j);
    default: return;
  }
}

}  // namespace poreplab::cpu::kernels

#endif  // POREPLAB_HAVE_SHANI
