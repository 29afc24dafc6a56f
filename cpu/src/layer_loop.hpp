#pragma once
// Private to poreplab_cpu: the CPU backend's one labeling loop. label_lanes runs one layer
// of a group of sectors node after node: prefetch the parents `prefetch_distance` nodes
// ahead, set up the node's message (fetch), hash it, and for ZigZag add the key to the
// node in place (encode). The labeler (labeler.cpp) runs it for every scheme with
// Timed = false; the replication profile (cpu/bench/src/profile.cpp) also with Timed =
// true, which reads the TSC between the phases and adds the intervals to phase_ticks.
// With Timed = false the clock reads compile to nothing.
#include <x86intrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
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

// SDR, SHA-256 in place: labels the nodes of `at` from the parents a producer thread puts
// in `ring` (produce_parents, same positions), reading in place only the base parents it
// left out; with the header ahead, from the header states it made. Prefetches the slot
// `prefetch_distance` ahead once it is filled.
template <hash_family H>
void label_lanes_from_ring(const engine& e, const sdr::label_job& job, const lane_layer<sdr::porep_variant::sdr>& at,
                           const labeler_options& opt, parent_ring& ring, std::uint64_t first_pos) {
  static_assert(H == hash_family::sha256);
  label_message<sdr::porep_variant::sdr, H> m(e, at, opt);
  const std::uint32_t lanes = m.lanes();
  const std::uint32_t words = at.read_words();
  const std::size_t span = 32ull * lanes;
  const std::uint64_t pd = opt.prefetch_distance;
  const std::uint64_t n = at.end - at.begin;
  const std::uint64_t batch = ring.labeled_batch();
  const bool headers_made = opt.header_ahead;  // by the producer, in the slots
  // labeler_options::whole_node: the engine is handed the node's parents, writes its label
  // (one lane, or many from their header states).
  const bool whole_node = opt.whole_node && headers_made && lanes == 1 && e.sha256_sdr_node != nullptr;
  const bool whole_nodes = opt.whole_node && headers_made && lanes > 1 && opt.schedule_reuse &&
                           e.sha256_sdr_nodes != nullptr;
  std::uint64_t produced = 0;  // the last value read: no shared load while the slot is known filled
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t pos = first_pos + i, v = at.begin + i;
    if (produced <= pos)
      parent_ring::wait_until([&] { return (produced = ring.produced.load(std::memory_order_acquire)) > pos; });
    if (pd != 0 && i + pd < n && pos + pd < produced) prefetch_span(ring.slot(pos + pd), ring.slot_bytes(), opt.prefetch_to);
    if (at.first == 0 && (v & (sdr::kProgressNodes - 1)) == 0) sdr::report_nodes(job, v);
    std::uint8_t* out = at.cur + v * at.stride;
    bool labeled = false;  // by the engine, whole
    if (v == 0) {
      m.fetch_short(v);
    } else {
      const std::uint32_t* row = at.row(v);
      const std::uint32_t mask = ring.mask(pos);
      const std::uint8_t* slot = ring.parents(pos);
      const std::uint8_t* p[sdr::kParents];
      for (std::uint32_t k = 0; k < words; ++k) p[k] = (mask >> k & 1) != 0 ? slot + span * k : at.word(row, k);
      if (whole_node) {
        e.sha256_sdr_node(ring.header_states(pos), p, words, out, nullptr, nullptr, nullptr);
        labeled = true;
      } else if (whole_nodes) {
        e.sha256_sdr_nodes(at.replica_ids, at.layer, v, ring.header_states(pos), p, words, lanes, out);
        labeled = true;
      } else {
        m.fetch_from(v, p, at);
      }
    }
    if (!labeled) {
      if (headers_made && v != 0)
        m.hash_from_header(e, ring.header_states(pos));
      else
        m.hash(e, v == 0);
      for (std::uint32_t j = 0; j < lanes; ++j) m.digest(j, out + 32ull * j);
    }
    if ((i + 1) % batch == 0 || i + 1 == n) ring.labeled.store(pos + 1, std::memory_order_release);
  }
}

}  // namespace poreplab::cpu::detail
