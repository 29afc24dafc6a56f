#pragma once
// Private to poreplab_cpu: where a layer loop's sectors and parents lie (lane_layer), and
// how a node's key-derivation message reaches an engine, behind the interface that the
// layer loop (layer_loop.hpp) drives:
//   label_message  a group of sectors in the lanes of an engine (SHA-256 or BLAKE2): the
//                  engine gets pointers to the 32-byte chunks where they lie (in place),
//                  or to per-lane copies (assembly gather)
//   fetch_short(v) / fetch(v, row, at)  set up node v's message (its row: the table's)
//   hash(e, short_message)              compress it, every lane
//   digest(lane, out)                   out[0..32) = mask(H(message)) of that lane
//
// Messages (docs/spec/sdr.md section 5, docs/spec/r2-zigzag.md):
//   sdr    regular node: header(64) || 37 parent labels           = 1248 bytes
//          node 0:       header(64)                                 =   64 bytes
//   zigzag regular node: replica_id(32) || 5 base || 8 expander    =  448 bytes
//          a direction's first node: replica_id(32)                 =   32 bytes
// Padding: SHA-256 appends constant chunks (sha256_padding.hpp); BLAKE2 zero-pads the
// last block (zero chunks) and compresses it with the counter t = message length and the
// final flag (blake2_message_blocks).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "poreplab/cpu/engines.hpp"
#include "poreplab/cpu/labeler_options.hpp"
#include "poreplab/hash/blake2b.hpp"
#include "poreplab/hash/blake2s.hpp"
#include "poreplab/hash/bytes.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/sdr/backend.hpp"
#include "poreplab/sdr/label.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "poreplab/sdr/zigzag.hpp"
#include "sha256_kernels.hpp"
#include "sha256_padding.hpp"

namespace poreplab::cpu::detail {

// A message's 32-byte chunks: those before the parents, the parents', the short message's.
template <sdr::porep_variant V>
struct message_layout {
  static constexpr bool kSdr = V == sdr::porep_variant::sdr;
  static constexpr std::size_t kLeadChunks = kSdr ? 2 : 1;  // sdr: the header; zigzag: replica_id
  static constexpr std::size_t kParentChunks = kSdr ? sdr::kParentBlocks : sdr::kZigzagRowWords - 1;
  static constexpr std::uint64_t kBytes = sdr::message_bytes(V);
  static constexpr std::uint64_t kShortBytes = 32 * kLeadChunks;
  static_assert(kBytes == 32 * (kLeadChunks + kParentChunks));
};

// Sectors [first, first + lanes) of one layer, node-major (node v of sector s at
// 32 * (v * sectors + s)), and the table rows of the nodes (sdr) or rows (zigzag)
// [begin, end) the loop labels.
template <sdr::porep_variant V>
struct lane_layer {
  static constexpr bool kSdr = V == sdr::porep_variant::sdr;
  std::uint32_t layer, first, lanes;
  std::uint64_t stride;              // 32 x sectors
  std::uint8_t* cur;                 // sector `first` of the layer
  const std::uint8_t* prev;          // sdr: of layer - 1 (null for layer 1)
  const std::uint8_t* replica_ids;   // sector `first`'s
  std::uint64_t begin, end;
  const std::uint32_t* rows;         // the row of `begin`

  lane_layer(const sdr::label_job& job, std::uint32_t l, const sdr::layer_inputs& in, std::uint32_t first_sector,
             std::uint32_t lane_count)
      : layer(l),
        first(first_sector),
        lanes(lane_count),
        stride(32ull * job.sectors),
        cur(in.cur + 32ull * first_sector),
        prev(in.prev != nullptr ? in.prev + 32ull * first_sector : nullptr),
        replica_ids(job.replica_ids + 32ull * first_sector),
        begin(kSdr ? job.node_begin() : 0),
        end(kSdr ? job.node_end() : job.nodes),
        rows(kSdr ? job.row(begin) : in.rows) {}

  const std::uint32_t* row(std::uint64_t i) const { return rows + sdr::kParents * (i - begin); }

  // Words of a row whose labels are read: sdr layer 1 has no expander parents; a zigzag
  // row is the node itself (updated in place) and its 13 parents.
  std::uint32_t read_words() const { return kSdr && layer == 1 ? sdr::kBaseDegree : sdr::kParents; }
  // Lane 0's label of word k of a row. SDR base parents are in this layer, expander
  // parents in the previous one; zigzag reads every word from the layer it encodes.
  const std::uint8_t* word(const std::uint32_t* r, std::uint32_t k) const {
    if constexpr (kSdr) return (k < sdr::kBaseDegree ? cur : prev) + r[k] * stride;
    return cur + r[k] * stride;
  }

  // f(k, lane 0's chunk) for the message's parent chunks k = 0, 1, ... in order. With
  // FirstOccurrences (sdr), only those of blocks that are first occurrences in the layer's
  // block repeats: an engine that keeps schedules never reads the others.
  template <bool FirstOccurrences = false, class F>
  [[gnu::always_inline]] void for_each_parent_chunk(const std::uint32_t* r, F&& f) const {
    static_assert(kSdr || !FirstOccurrences);
    if constexpr (!kSdr) {
      // Each parent once (words 1..13); locals, as the copies f makes may alias this object.
      const std::uint8_t* const layer_lane = cur;
      const std::uint64_t node_stride = stride;
#pragma GCC unroll 13
      for (std::uint32_t k = 0; k < message_layout<V>::kParentChunks; ++k) f(k, layer_lane + r[k + 1] * node_stride);
    } else {
      const std::uint8_t* p[sdr::kParents];
      for (std::uint32_t k = 0; k < read_words(); ++k) p[k] = word(r, k);
      for_each_sdr_parent_chunk<FirstOccurrences>(p, f);
    }
  }

  // sdr: as for_each_parent_chunk, with lane 0's label of row word k at p[k] (k <
  // read_words()) wherever it lies, e.g. copied into a parent ring (parent_ring.hpp).
  template <bool FirstOccurrences = false, class F>
  [[gnu::always_inline]] void for_each_sdr_parent_chunk(const std::uint8_t* const* p, F&& f) const {
    static_assert(kSdr);
    if (layer == 1)
      sdr_parent_chunks<sdr::kBaseDegree, FirstOccurrences>(p, f);
    else
      sdr_parent_chunks<sdr::kParents, FirstOccurrences>(p, f);
  }

 private:
  // The N parents' labels first, then the 37 chunks cycling through them (sdr::parent_slot).
  // The first-occurrence blocks hold the first cycle and the last chunk (sdr_first_occurrence_chunks).
  template <std::uint32_t N, bool FirstOccurrences, class F>
  [[gnu::always_inline]] void sdr_parent_chunks(const std::uint8_t* const* p, F& f) const {
    if constexpr (FirstOccurrences) {
      for (std::uint32_t k = 0; k < N; ++k) f(k, p[k]);
      f(sdr::kParentBlocks - 1, p[(sdr::kParentBlocks - 1) % N]);
    } else {
#pragma GCC unroll 37  // constant slots: no k % N per chunk
      for (std::uint32_t k = 0; k < sdr::kParentBlocks; ++k) f(k, p[k % N]);
    }
  }
};

// Whether the parent chunks of the first-occurrence blocks of the layer's block repeats
// (header: chunks 0-1; parent chunk k: message chunk 2 + k, block 1 + k / 2) are exactly
// the first cycle through the `cycle` parents and the last chunk, and the engines' slot
// rule (kept_schedule_slots) keeps every repeat's first occurrence (no repeat's rows are read).
constexpr bool sdr_first_occurrence_chunks(const sdr::label_block_repeats& r, std::uint32_t cycle) {
  std::int8_t slot[kernels::kTrackedBlocks] = {};
  kernels::kept_schedule_slots(r.first_of, sdr::kLabelCompressions, slot);
  for (std::uint32_t b = 0; b < sdr::kLabelCompressions; ++b)
    if (r.first_of[b] != b && kernels::kept_slots_of(slot, r.first_of, b).reused < 0) return false;
  for (std::uint32_t k = 0; k < sdr::kParentBlocks; ++k) {
    const std::uint32_t b = 1 + k / 2;
    const bool read = r.first_of[b] == b;
    if (read != (k < cycle || k == sdr::kParentBlocks - 1)) return false;
  }
  return true;
}
static_assert(sdr_first_occurrence_chunks(sdr::kLayer1BlockRepeats, sdr::kBaseDegree) &&
              sdr_first_occurrence_chunks(sdr::kLaterLayerBlockRepeats, sdr::kParents));

// Whether the slot rule keeps the first occurrence of every repeat among n blocks.
constexpr bool keeps_every_repeat(const std::uint8_t* first_of, std::uint32_t n) {
  std::int8_t slot[kernels::kTrackedBlocks] = {};
  kernels::kept_schedule_slots(first_of, n, slot);
  for (std::uint32_t b = 0; b < n; ++b)
    if (first_of[b] != b && kernels::kept_slots_of(slot, first_of, b).reused < 0) return false;
  return true;
}
// The chain after the header block keeps them too: its unread rows stay unread.
static_assert(keeps_every_repeat(sdr::kLayer1ChainedRepeats.first_of, sdr::kChainedCompressions) &&
              keeps_every_repeat(sdr::kLaterLayerChainedRepeats.first_of, sdr::kChainedCompressions));

// The chunks after a message of Bytes bytes up to its last block: SHA-256's padding
// (sha256_padding.hpp), BLAKE2's zeros.
template <hash_family H, std::uint64_t Bytes>
struct message_tail {
  static constexpr std::size_t kBlock = compression_block_bytes(H);
  static constexpr std::size_t kBlocks = (Bytes + kBlock - 1) / kBlock;
  static constexpr std::size_t kChunks = (kBlocks * kBlock - Bytes) / 32;
  static const std::uint8_t* chunk(std::size_t) { return kernels::kZeroChunk; }
};
template <std::uint64_t Bytes>
struct message_tail<hash_family::sha256, Bytes> : sha256_tail<Bytes> {
  static const std::uint8_t* chunk(std::size_t t) { return kSha256Tail<Bytes>.chunk(t); }
};

// A BLAKE2 message of Len bytes (and its zero chunks) in `lanes` lanes, from rows of
// chunk pointers (engines.hpp), into initialised or running states: the whole blocks,
// then a short last block with t = Len; the last block is final.
template <hash_family H, std::uint64_t Len, class Word>
[[gnu::always_inline]] inline void blake2_message_blocks(const engine& e, Word* state, const std::uint8_t* const* rows,
                                                         std::uint32_t lanes) {
  constexpr std::size_t B = message_tail<H, Len>::kBlock, C = B / 32, whole = Len / B;
  const auto fn = [&](const std::uint8_t* const* r, std::size_t n, std::uint64_t t, bool final) {
    if constexpr (H == hash_family::blake2s)
      e.blake2s(state, r, n, t, final, lanes);
    else if constexpr (H == hash_family::blake2b)
      e.blake2b(state, r, n, t, final, lanes);
    else
      static_assert(unhandled_family<H>);
  };
  if constexpr (Len % B == 0) {
    fn(rows, whole, B, true);
  } else {
    if constexpr (whole != 0) fn(rows, whole, B, false);
    fn(rows + whole * C * lanes, 1, Len, true);
  }
}

// SDR's header block after replica_id: u32_BE(layer) || u64_BE(node) || zeros
// (docs/spec/sdr.md section 5).
struct sdr_header_tail {
  alignas(32) std::uint8_t bytes[32] = {};
  explicit sdr_header_tail(std::uint32_t layer) { store_be32(bytes, layer); }
  void set_node(std::uint64_t v) { store_be64(bytes + 4, v); }
};

// out[8 j, 8 j + 8) = lane j's state after its header block, whose chunks are rows[j]
// (replica_id) and rows[lanes + j] (an sdr_header_tail).
inline void compress_headers(const engine& e, const std::uint8_t* const* rows, std::uint32_t lanes,
                             std::uint32_t* out) {
  for (std::uint32_t j = 0; j < lanes; ++j) sha256::init_state(out + 8 * j);
  e.sha256(out, rows, 1, lanes);
}

// A group of sectors in an engine's lanes: chunk row r of lane j is rows[r * lanes + j].
// The lead chunks (replica_id, sdr's header) and the tail (padding) are pointed at once; the parents' rows are rewritten per node (in place; for an engine that
// keeps SDR's repeated schedules, only the rows it reads) or point at per-lane buffers the
// parents are copied into (gather).
template <sdr::porep_variant V, hash_family H>
class label_message {
  // SHA-256's own paths (precomputed padding, repeated schedules, header states).
  static constexpr bool kSha = [] {
    switch (H) {
      case hash_family::sha256: return true;
      case hash_family::blake2s:
      case hash_family::blake2b: return false;
    }
    return false;
  }();
  using layout = message_layout<V>;
  using tail = message_tail<H, layout::kBytes>;
  using short_tail = message_tail<H, layout::kShortBytes>;
  using word = state_word_t<H>;
  static constexpr std::size_t kRows = layout::kLeadChunks + layout::kParentChunks + tail::kChunks;
  static constexpr std::size_t kShortRows = layout::kLeadChunks + short_tail::kChunks;

 public:
  label_message(const engine& e, const lane_layer<V>& at, const labeler_options& opt)
      : lanes_(at.lanes),
        gather_(opt.assembly == message_assembly::gather),
        pad_precompute_(kSha && layout::kSdr && opt.pad_precompute),
        repeats_(kSha && layout::kSdr && opt.schedule_reuse ? repeats_of(at.layer) : nullptr),
        header_ahead_(kSha && layout::kSdr && header_ahead_in_thread(opt, lanes_)),
        chained_repeats_(repeats_ == nullptr ? nullptr : chained_repeats_of(at.layer)),
        first_occurrences_only_(repeats_ != nullptr && e.sha256_repeat != nullptr),
        header_tail_(at.layer),
        rows_(kRows * lanes_),
        short_rows_(kShortRows * lanes_),
        gathered_(gather_ ? 32 * layout::kParentChunks * lanes_ + 63 : 0),
        copies_(gathered_.data() + (-reinterpret_cast<std::uintptr_t>(gathered_.data()) & 63)),
        state_(8 * lanes_),
        ahead_(header_ahead_ ? 8 * lanes_ : 0) {
    for (std::uint32_t j = 0; j < lanes_; ++j) {
      const std::uint8_t* lead[2] = {at.replica_ids + 32ull * j, header_tail_.bytes};
      for (std::size_t r = 0; r < layout::kLeadChunks; ++r) rows_[r * lanes_ + j] = short_rows_[r * lanes_ + j] = lead[r];
      for (std::size_t t = 0; t < tail::kChunks; ++t)
        rows_[(kRows - tail::kChunks + t) * lanes_ + j] = tail::chunk(t);
      for (std::size_t t = 0; t < short_tail::kChunks; ++t)
        short_rows_[(layout::kLeadChunks + t) * lanes_ + j] = short_tail::chunk(t);
      for (std::size_t k = 0; k < layout::kParentChunks; ++k)
        rows_[(layout::kLeadChunks + k) * lanes_ + j] =
            gather_ ? copies_ + 32 * (j * layout::kParentChunks + k) : kernels::kZeroChunk;
    }
  }
  label_message(const label_message&) = delete;
  label_message& operator=(const label_message&) = delete;

  std::uint32_t lanes() const { return lanes_; }
  [[gnu::always_inline]] void fetch_short(std::uint64_t v) { set_node(v); }
  [[gnu::always_inline]] void fetch(std::uint64_t v, const std::uint32_t* row, const lane_layer<V>& at) {
    set_node(v);
    if constexpr (layout::kSdr) {
      if (!gather_) {
        const std::uint8_t* p[sdr::kParents];
        for (std::uint32_t k = 0; k < at.read_words(); ++k) p[k] = at.word(row, k);
        return fetch_from(v, p, at);
      }
    }
    // Locals: the byte copies below may alias any member, which would reload them.
    const std::uint32_t lanes = lanes_;
    std::uint8_t* const copies = copies_;
    if (gather_ && lanes == 1) {  // the profile's case: one contiguous message, one copy a chunk
      at.for_each_parent_chunk(row, [&](std::uint32_t k, const std::uint8_t* p) { std::memcpy(copies + 32 * k, p, 32); });
    } else if (gather_) {
      at.for_each_parent_chunk(row, [&](std::uint32_t k, const std::uint8_t* p) {
        for (std::uint32_t j = 0; j < lanes; ++j)
          std::memcpy(copies + 32 * (j * layout::kParentChunks + k), p + 32ull * j, 32);
      });
    } else {
      at.for_each_parent_chunk(row, pointer_setter());
    }
  }
  // sdr, in place: node v's message with lane 0's label of row word k at p[k].
  [[gnu::always_inline]] void fetch_from(std::uint64_t v, const std::uint8_t* const* p, const lane_layer<V>& at) {
    static_assert(layout::kSdr);
    set_node(v);
    if (first_occurrences_only_) return at.template for_each_sdr_parent_chunk<true>(p, pointer_setter());
    at.for_each_sdr_parent_chunk(p, pointer_setter());
  }

  [[gnu::always_inline]] void hash(const engine& e, bool short_message) {
    word* state = state_.data();
    if constexpr (kSha) {
      if constexpr (layout::kSdr)
        if (header_ahead_ && !short_message) return hash_after_header(e);
      for (std::uint32_t j = 0; j < lanes_; ++j) sha256::init_state(state + 8 * j);
      if (!short_message) {
        sha256_chains_repeating(e, state, rows_.data(), repeats_, tail::kBlocks, lanes_);
      } else if (pad_precompute_) {  // sdr node 0: the header block, then the padding block's W+K
        e.sha256(state, short_rows_.data(), 1, lanes_);
        e.sha256_pad64(state, lanes_);
      } else {
        e.sha256(state, short_rows_.data(), short_tail::kBlocks, lanes_);
      }
    } else {
      for (std::uint32_t j = 0; j < lanes_; ++j) {
        if constexpr (H == hash_family::blake2s)
          blake2s::init_state(state + 8 * j, 32, 0);
        else if constexpr (H == hash_family::blake2b)
          blake2b::init_state(state + 8 * j, 32, 0);  // BLAKE2b-256: digest length 32 in the parameter block
        else
          static_assert(unhandled_family<H>);
      }
      if (short_message)
        blake2_message_blocks<H, layout::kShortBytes>(e, state, short_rows_.data(), lanes_);
      else
        blake2_message_blocks<H, layout::kBytes>(e, state, rows_.data(), lanes_);
    }
  }
  // sdr, SHA-256: the regular node's chain from its header states, made elsewhere (a
  // producer thread: parent_ring.hpp), 8 words a lane.
  [[gnu::always_inline]] void hash_from_header(const engine& e, const std::uint32_t* header_states) {
    static_assert(kSha && layout::kSdr);
    std::memcpy(state_.data(), header_states, 32ull * lanes_);
    sha256_chains_repeating(e, state_.data(), rows_.data() + layout::kLeadChunks * lanes_, chained_repeats_,
                            sdr::kChainedCompressions, lanes_);
  }
  [[gnu::always_inline]] void digest(std::uint32_t lane, std::uint8_t* out) const {
    const word* h = state_.data() + 8 * lane;
    if constexpr (kSha)
      sha256::store_digest(h, out);
    else if constexpr (H == hash_family::blake2s)
      for (int i = 0; i < 8; ++i) store_le32(out + 4 * i, h[i]);
    else if constexpr (H == hash_family::blake2b)
      for (int i = 0; i < 4; ++i) store_le64(out + 8 * i, h[i]);
    else
      static_assert(unhandled_family<H>);
    out[31] &= 0x3f;
  }

 private:
  // In place: parent chunk k of lane j points at p + 32 * j.
  [[gnu::always_inline]] auto pointer_setter() {
    return [parent_rows = rows_.data() + layout::kLeadChunks * lanes_, lanes = lanes_](std::uint32_t k,
                                                                                       const std::uint8_t* p) {
      for (std::uint32_t j = 0; j < lanes; ++j) parent_rows[k * lanes + j] = p + 32ull * j;
    };
  }

  // sdr, SHA-256: node v's chain from its header state (made ahead, or now where node v is
  // the first regular node this message hashes), after node v + 1's header state is made.
  // The header compression comes first in program order, so an out-of-order core runs it
  // in the slots a latency-bound chain leaves idle.
  [[gnu::always_inline]] void hash_after_header(const engine& e) {
    static_assert(kSha && layout::kSdr && tail::kBlocks == sdr::kChainedCompressions + 1);
    const std::uint32_t lanes = lanes_;
    std::uint32_t* state = state_.data();
    std::uint32_t* ahead = ahead_.data();
    const std::uint64_t v = node_;
    if (ahead_node_ != v) header_state(e, ahead);
    std::memcpy(state, ahead, 32ull * lanes);
    set_node(v + 1);
    ahead_node_ = v + 1;
    const std::uint8_t* const* chain = rows_.data() + layout::kLeadChunks * lanes;
    if (e.sha256_chain_ahead != nullptr && e.sha256_repeat == nullptr) {
      // One instruction stream: the header's rounds interleaved with the chain's first block.
      for (std::uint32_t j = 0; j < lanes; ++j) sha256::init_state(ahead + 8 * j);
      return e.sha256_chain_ahead(state, chain, sdr::kChainedCompressions, ahead, rows_.data(), lanes);
    }
    header_state(e, ahead);
    sha256_chains_repeating(e, state, chain, chained_repeats_, sdr::kChainedCompressions, lanes);
  }
  // The states after the header block (replica_id || header_tail_) of every lane.
  [[gnu::always_inline]] void header_state(const engine& e, std::uint32_t* out) const {
    compress_headers(e, rows_.data(), lanes_, out);
  }

  static const std::uint8_t* repeats_of(std::uint32_t layer) {
    static_assert(!kSha || !layout::kSdr || tail::kBlocks == sdr::kLabelCompressions);
    return layer == 1 ? sdr::kLayer1BlockRepeats.first_of : sdr::kLaterLayerBlockRepeats.first_of;
  }

  static const std::uint8_t* chained_repeats_of(std::uint32_t layer) {
    return layer == 1 ? sdr::kLayer1ChainedRepeats.first_of : sdr::kLaterLayerChainedRepeats.first_of;
  }

  // sdr: the header's node field.
  void set_node(std::uint64_t v) {
    if constexpr (layout::kSdr) {
      header_tail_.set_node(v);
      node_ = v;
    }
  }

  std::uint32_t lanes_;
  bool gather_, pad_precompute_;
  const std::uint8_t* repeats_;  // sdr: the layer's block repeats, unless schedule reuse is off
  bool header_ahead_;
  const std::uint8_t* chained_repeats_;  // repeats_ for the chain after the header block
  // The engine keeps schedules for repeats_: only first-occurrence blocks' rows are read, so
  // only those are rewritten per node (the rest keep kZeroChunk).
  bool first_occurrences_only_;
  alignas(64) sdr_header_tail header_tail_;  // sdr: the header block's second chunk
  std::vector<const std::uint8_t*> rows_, short_rows_;
  std::vector<std::uint8_t> gathered_;
  std::uint8_t* copies_;  // gather: lane j's parent chunks at copies_ + 32 * kParentChunks * j, 64-byte aligned
  std::vector<word> state_;
  // header_ahead_: the header states of node ahead_node_ (none made yet: ~0).
  std::vector<std::uint32_t> ahead_;
  std::uint64_t ahead_node_ = ~0ull;
  std::uint64_t node_ = 0;  // sdr: the node whose header header_tail_ holds
};

// The hash floor's work (floor.cpp): `chains` dependent node hashes of the scheme's regular
// message in `lanes` lanes, with the engine calls the labeler makes, from any readable
// chunk rows. SHA-256 hashes `nblocks` blocks a node (the chain after the header block, or
// the whole message), its first `layer1` nodes on layer1_first_of's repeats and the rest on
// later_first_of's (null: no schedule reused). BLAKE2 hashes its whole message, no repeats.
template <sdr::porep_variant V, hash_family H>
void floor_chains(const engine& e, const std::uint8_t* const* rows, std::uint32_t lanes, std::uint64_t chains,
                  std::size_t nblocks, std::uint64_t layer1, const std::uint8_t* layer1_first_of,
                  const std::uint8_t* later_first_of) {
  using word = state_word_t<H>;
  std::vector<word> state(8 * lanes, 1);
  if constexpr (H == hash_family::sha256) {
    for (std::uint64_t i = 0; i < chains; ++i)
      sha256_chains_repeating(e, state.data(), rows, i < layer1 ? layer1_first_of : later_first_of, nblocks, lanes);
  } else if constexpr (H == hash_family::blake2s || H == hash_family::blake2b) {
    for (std::uint64_t i = 0; i < chains; ++i)
      blake2_message_blocks<H, message_layout<V>::kBytes>(e, state.data(), rows, lanes);
  } else {
    static_assert(unhandled_family<H>);
  }
  volatile word sink = state[0];  // keeps the chains observable
  (void)sink;
}

}  // namespace poreplab::cpu::detail
