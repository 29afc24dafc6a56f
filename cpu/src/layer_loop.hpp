#pragma once
// Private to poreplab_cpu: the CPU backend's one labeling loop. label_lanes runs one layer
// of a group of sectors node after node: prefetch the parents `prefetch_distance` nodes
// ahead, set up the node's message (fetch), hash it, and for ZigZag add the key to the
// node in place (encode). The labeler (labeler.cpp) runs it for every scheme with
// Timed = false; the replication profile (cpu/bench/src/profile.cpp) also with Timed =
// true, which reads the TSC between the phases and adds the intervals to phase_ticks.
// With Timed = false the clock reads compile to nothing.
#include <x86intrin.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "fr_montgomery.hpp"
#include "label_message.hpp"
#include "parent_ring.hpp"
#include "poreplab/cpu/engines.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/field/fr.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/sdr/backend.hpp"

namespace poreplab::cpu::detail {

// A TSC reading. Fenced: every earlier instruction has completed and no later one has
// started, so a phase's interval holds that phase's work only.
inline std::uint64_t tsc_stamp(bool fenced) {
  if (!fenced) return __rdtsc();
  _mm_lfence();
  const std::uint64_t t = __rdtsc();
  _mm_lfence();
  return t;
}

template <bool Timed>
struct phase_clock {
  bool fenced = true;
  std::uint64_t now() const {
    if constexpr (Timed) return tsc_stamp(fenced);
    return 0;
  }
};

// TSC ticks per phase, summed over nodes (Timed only).
struct phase_ticks {
  std::uint64_t fetch = 0, hash = 0, encode = 0;
};

inline void prefetch(const void* p) { __builtin_prefetch(p, 0, 3); }

// The lines of [p, p + span) into L1 (prefetcht0) or L2 only (prefetcht1).
[[gnu::always_inline]] inline void prefetch_span(const std::uint8_t* p, std::size_t span, prefetch_level to) {
  if (to == prefetch_level::l1) {
    for (std::size_t off = 0; off < span; off += 64) prefetch(p + off);
  } else {
    for (std::size_t off = 0; off < span; off += 64) __builtin_prefetch(p + off, 0, 2);
  }
}

// ZigZag: node = node + key mod r, in normal form or through the Montgomery round trip.
inline void add_key(field_encoding enc, std::uint8_t* node, const std::uint8_t* key) {
  if (enc == field_encoding::montgomery)
    fr_add_montgomery(node, key, node);
  else
    fr::add(node, key, node);
}

// Labels (sdr) or encodes (zigzag) the nodes [at.begin, at.end) of one layer for the
// lanes of `at`. Options used: prefetch_distance, prefetch_to, assembly, pad_precompute, encoding.
template <bool Timed, sdr::porep_variant V, hash_family H>
void label_lanes(const engine& e, const sdr::label_job& job, const lane_layer<V>& at, const labeler_options& opt,
                 phase_clock<Timed> clock, phase_ticks& ticks) {
  constexpr bool kSdr = V == sdr::porep_variant::sdr;
  label_message<V, H> m(e, at, opt);
  const std::uint32_t lanes = m.lanes();
  std::vector<std::uint8_t> keys(Timed && !kSdr ? 32ull * lanes : 0);  // timed zigzag: the add timed apart
  const std::uint64_t pd = opt.prefetch_distance;
  const prefetch_level prefetch_to = opt.prefetch_to;
  const field_encoding encoding = opt.encoding;
  const std::uint32_t read_words = at.read_words();
  const std::size_t line_span = 32ull * lanes;  // bytes of one node across the lanes
  // labeler_options::whole_node, many lanes in place: the engine is handed each regular
  // node's parent rows and writes the lanes' labels (the timed profile keeps its phases).
  bool whole_nodes = false;
  // One lane with its header off the chain: the engine hashes node v whole from v's header
  // state and makes v + 1's beside it (sha256_sdr_node's ahead block).
  bool whole_node = false;
  if constexpr (kSdr && H == hash_family::sha256 && !Timed) {
    const bool in_place = opt.whole_node && opt.assembly != message_assembly::gather;
    whole_nodes = in_place && opt.schedule_reuse && lanes > 1 && e.sha256_sdr_nodes != nullptr;
    whole_node = in_place && header_ahead_in_thread(opt, lanes) && e.sha256_sdr_node != nullptr;
  }
  alignas(16) std::uint32_t header_state[8], next_header[8];
  std::uint64_t header_node = ~0ull;  // the node whose header state header_state holds
  sdr_header_tail header_tail(at.layer);
  for (std::uint64_t i = at.begin; i < at.end; ++i) {
    [[maybe_unused]] const std::uint64_t t0 = clock.now();
    if (pd != 0 && i + pd < at.end) {
      const std::uint32_t* ahead = at.row(i + pd);
      for (std::uint32_t k = 0; k < read_words; ++k) prefetch_span(at.word(ahead, k), line_span, prefetch_to);
      if (i + pd + 4 < at.end) prefetch(at.row(i + pd + 4));
    }
    // sdr: node progress from the group holding sector 0; zigzag reports whole layers only.
    if (kSdr && at.first == 0 && (i & (sdr::kProgressNodes - 1)) == 0) sdr::report_nodes(job, i);
    const std::uint32_t* row = at.row(i);
    // sdr node 0 hashes its header alone, a zigzag direction's first node replica_id alone.
    const bool short_message = kSdr ? i == 0 : row[1] == row[0];
    if ((whole_nodes || whole_node) && !short_message) {
      const std::uint8_t* p[sdr::kParents];
      for (std::uint32_t k = 0; k < read_words; ++k) p[k] = at.word(row, k);
      if (whole_nodes) {
        e.sha256_sdr_nodes(at.replica_ids, at.layer, i, nullptr, p, read_words, lanes, at.cur + i * at.stride);
        continue;
      }
      if (header_node != i) {  // the first regular node of the range
        header_tail.set_node(i);
        sha256::init_state(header_state);
        sha256::compress2(header_state, at.replica_ids, header_tail.bytes);
      }
      const bool next = i + 1 < at.end;
      if (next) {
        header_tail.set_node(i + 1);
        sha256::init_state(next_header);
      }
      e.sha256_sdr_node(header_state, p, read_words, at.cur + i * at.stride, next ? next_header : nullptr,
                        at.replica_ids, header_tail.bytes);
      if (next) std::memcpy(header_state, next_header, sizeof header_state);
      header_node = i + 1;
      continue;
    }
    if (short_message)
      m.fetch_short(i);
    else
      m.fetch(i, row, at);
    [[maybe_unused]] const std::uint64_t t1 = clock.now();
    m.hash(e, short_message);
    if constexpr (kSdr) {
      std::uint8_t* out = at.cur + i * at.stride;
      for (std::uint32_t j = 0; j < lanes; ++j) m.digest(j, out + 32ull * j);
    } else if constexpr (!Timed) {
      // The key goes from the digest straight into the add: a local the compiler keeps in
      // registers (through memory, its byte stores would stall the add's word loads).
      std::uint8_t* node = at.cur + row[0] * at.stride;
      for (std::uint32_t j = 0; j < lanes; ++j) {
        alignas(32) std::uint8_t key[32];
        m.digest(j, key);
        add_key(encoding, node + 32ull * j, key);
      }
    } else {
      for (std::uint32_t j = 0; j < lanes; ++j) m.digest(j, keys.data() + 32ull * j);
    }
    [[maybe_unused]] const std::uint64_t t2 = clock.now();
    if constexpr (Timed) {
      ticks.fetch += t1 - t0;
      ticks.hash += t2 - t1;
      if constexpr (!kSdr) {
        std::uint8_t* node = at.cur + row[0] * at.stride;
        for (std::uint32_t j = 0; j < lanes; ++j) add_key(encoding, node + 32ull * j, keys.data() + 32ull * j);
        ticks.encode += clock.now() - t2;
      }
    }
  }
}

// One hasher of a coordinator's team (parent_ring.hpp): its lanes of the team's, in groups
// of the engine's width, each group a lane_layer and its offset among the team's lanes.
struct hasher_slice {
  std::uint32_t index = 0;  // among the team's hashers
  std::vector<lane_layer<sdr::porep_variant::sdr>> groups;
  std::vector<std::uint32_t> offsets;
};

// Where a hasher finds node u's row of its layer (its labels at at.cur + row x at.stride):
// the layer's row u when the whole layer is in RAM, row u mod `rows` of the disk labeler's
// RAM rows. Called per node and per parent left out of the slot: a plain function object,
// inlined.
struct layer_rows {
  std::uint64_t operator()(std::uint64_t u) const { return u; }
};
struct recent_rows {
  std::uint64_t rows;
  std::uint64_t operator()(std::uint64_t u) const { return u % rows; }
};

// SDR, SHA-256 in place: labels the hasher's lanes of nodes [begin, end) from the parents the
// team's coordinator puts in `ring` (produce_parents, or the disk labeler's reader; same
// positions), node after node, each of its groups in turn; the base parents the
// coordinator left out are read in place, at the rows `row_of` gives, where the labels go
// too. With the header ahead, from the header states it made. Prefetches the slot
// `prefetch_distance` ahead once it is filled. Returns the nanoseconds it waited for the
// coordinator.
template <hash_family H, class RowOf = layer_rows>
std::uint64_t label_slice_from_ring(const engine& e, const sdr::label_job& job, const hasher_slice& slice,
                                    std::uint32_t team_lanes, const labeler_options& opt, parent_ring& ring,
                                    std::uint64_t first_pos, RowOf row_of = {}) {
  static_assert(H == hash_family::sha256);
  using message = label_message<sdr::porep_variant::sdr, H>;
  const auto& lead = slice.groups.front();
  const std::uint32_t words = lead.read_words();
  const std::size_t team_span = 32ull * team_lanes;
  const std::uint64_t pd = opt.prefetch_distance;
  const std::uint64_t n = lead.end - lead.begin;
  const std::uint64_t batch = ring.labeled_batch();
  const bool headers_made = opt.header_ahead;  // by the coordinator, in the slots
  std::vector<std::unique_ptr<message>> messages;
  std::vector<std::uint8_t> whole;  // per group: hashed whole by the engine (labeler_options::whole_node)
  for (const auto& at : slice.groups) {
    messages.push_back(std::make_unique<message>(e, at, opt));
    const bool one = opt.whole_node && headers_made && at.lanes == 1 && e.sha256_sdr_node != nullptr;
    const bool many = opt.whole_node && headers_made && at.lanes > 1 && opt.schedule_reuse && e.sha256_sdr_nodes != nullptr;
    whole.push_back(one || many ? 1 : 0);
  }
  std::uint64_t produced = 0;  // the last value read: no shared load while the slot is known filled
  std::chrono::steady_clock::duration waited{};
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t pos = first_pos + i, v = lead.begin + i;
    if (produced <= pos && (produced = ring.produced.load(std::memory_order_acquire)) <= pos) {
      const auto t0 = std::chrono::steady_clock::now();
      ring.wait([&] { return (produced = ring.produced.load(std::memory_order_acquire)) > pos; });
      waited += std::chrono::steady_clock::now() - t0;
    }
    if (pd != 0 && i + pd < n && pos + pd < produced) {
      // The slot ahead's mask line, the hasher's own lanes of it, and their header states.
      const std::uint32_t lo = slice.offsets.front(), hi = slice.offsets.back() + slice.groups.back().lanes;
      prefetch_span(ring.slot(pos + pd), 64, opt.prefetch_to);
      std::uint8_t* ahead = ring.parents(pos + pd);
      for (std::uint32_t k = 0; k < words; ++k) prefetch_span(ahead + team_span * k + 32ull * lo, 32ull * (hi - lo), opt.prefetch_to);
      if (headers_made) prefetch_span(reinterpret_cast<const std::uint8_t*>(ring.header_states(pos + pd) + 8ull * lo), 32ull * (hi - lo), opt.prefetch_to);
    }
    if (lead.first == 0 && (v & (sdr::kProgressNodes - 1)) == 0) sdr::report_nodes(job, v);
    const std::uint32_t mask = v == 0 ? 0 : ring.mask(pos);
    const std::uint8_t* slot = ring.parents(pos);
    const std::uint32_t* states = ring.header_states(pos);
    for (std::size_t g = 0; g < slice.groups.size(); ++g) {
      const auto& at = slice.groups[g];
      message& m = *messages[g];
      const std::uint32_t off = slice.offsets[g];
      std::uint8_t* out = at.cur + row_of(v) * at.stride;
      if (v == 0) {
        m.fetch_short(v);
        m.hash(e, true);
        for (std::uint32_t j = 0; j < at.lanes; ++j) m.digest(j, out + 32ull * j);
        continue;
      }
      const std::uint32_t* row = at.row(v);
      const std::uint8_t* p[sdr::kParents];
      // Only base parents are left out: they lie in this layer.
      for (std::uint32_t k = 0; k < words; ++k)
        p[k] = (mask >> k & 1) != 0 ? slot + team_span * k + 32ull * off : at.cur + row_of(row[k]) * at.stride;
      if (whole[g] != 0) {
        if (at.lanes == 1)
          e.sha256_sdr_node(states + 8ull * off, p, words, out, nullptr, nullptr, nullptr);
        else
          e.sha256_sdr_nodes(at.replica_ids, at.layer, v, states + 8ull * off, p, words, at.lanes, out);
        continue;
      }
      m.fetch_from(v, p, at);
      if (headers_made)
        m.hash_from_header(e, states + 8ull * off);
      else
        m.hash(e, false);
      for (std::uint32_t j = 0; j < at.lanes; ++j) m.digest(j, out + 32ull * j);
    }
    if ((i + 1) % batch == 0 || i + 1 == n) ring.publish_labeled(slice.index, pos + 1);
  }
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count());
}

}  // namespace poreplab::cpu::detail
