#pragma once
// Private to poreplab_cpu: SDR parents gathered off the critical path. A producer thread
// walks the parent table ahead of a labeling thread and copies each node's parents (all
// lanes of the group, 32 x lanes contiguous bytes each) into a ring slot; the labeling
// thread points its message at the slot, so the scattered reads (a DRAM latency and a page
// walk each, at real sector sizes) stall the producer, not the hash chain. A base parent
// that is not labeled yet when the producer reaches its node is left out of the slot (bit
// clear in the slot's mask) and read in place: it lies at most a ring's depth back, in the
// labeling thread's own cache.
//
// With the header ahead (labeler_options::header_ahead), the producer also compresses each
// node's header block (no parent in it) into the slot: the labeling thread's chain is then
// the 19 blocks that wait on parents, and the header costs its core nothing.
//
// Positions count nodes over every group the pair labels in turn (group g's node v is at
// the group's first position + v - begin), so the two counters never reset between groups.
#include <emmintrin.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>
#include <optional>
#include <vector>

#include "label_message.hpp"
#include "poreplab/cpu/engines.hpp"
#include "poreplab/sdr/backend.hpp"

namespace poreplab::cpu::detail {

// Lines of [p, p + span) into L1: the producer's own loads follow soon.
[[gnu::always_inline]] inline void prefetch_lines(const std::uint8_t* p, std::size_t span) {
  for (std::size_t off = 0; off < span; off += 64) __builtin_prefetch(p + off, 0, 3);
}

class parent_ring {
 public:
  parent_ring(std::uint32_t slots, std::uint32_t lanes)
      : slots_(slots),
        states_at_(kHeader + 32ull * lanes * sdr::kParents),
        slot_bytes_((states_at_ + 32ull * lanes + 63) & ~std::size_t{63}),
        data_(slot_bytes_ * slots + 63) {
    base_ = data_.data() + (-reinterpret_cast<std::uintptr_t>(data_.data()) & 63);
  }
  parent_ring(const parent_ring&) = delete;
  parent_ring& operator=(const parent_ring&) = delete;

  std::uint32_t slots() const { return slots_; }
  // The labeling thread publishes `labeled` every this many nodes (each store takes the line
  // back from a polling producer), and at a group's end. At most half the ring: a producer
  // waiting for a slot always sees it freed.
  std::uint64_t labeled_batch() const { return std::min<std::uint64_t>(32, slots_ / 2); }
  std::size_t slot_bytes() const { return slot_bytes_; }
  // A slot: a line holding the mask of the parents copied (bit k: row word k), then the
  // copies, parent k's lanes at parents(pos) + 32 x lanes x k, then the lanes' header
  // states (8 words each) where the producer makes them. Slots are whole lines, so a mask
  // shares no line with another slot: the labeling thread reads it while the producer fills the next.
  std::uint8_t* slot(std::uint64_t pos) { return base_ + slot_bytes_ * (pos & (slots_ - 1)); }  // slots: a power of two
  std::uint32_t& mask(std::uint64_t pos) { return *std::launder(reinterpret_cast<std::uint32_t*>(slot(pos))); }
  std::uint8_t* parents(std::uint64_t pos) { return slot(pos) + kHeader; }
  std::uint32_t* header_states(std::uint64_t pos) {
    return std::launder(reinterpret_cast<std::uint32_t*>(slot(pos) + states_at_));
  }

  // Spin, then yield: a pair sharing one CPU with other work must not starve its partner.
  template <class Ready>
  static void wait_until(Ready ready) {
    for (std::uint32_t spins = 0; !ready(); ++spins) {
      if (spins < 4096)
        _mm_pause();
      else
        sched_yield();
    }
  }

  alignas(64) std::atomic<std::uint64_t> produced{0};  // slots [.., produced) filled
  alignas(64) std::atomic<std::uint64_t> labeled{0};   // positions [.., labeled) labeled
  std::uint64_t next = 0;  // the position of the next group's first node (moved on between parallel regions)

 private:
  static constexpr std::size_t kHeader = 64;
  std::uint32_t slots_;
  std::size_t states_at_, slot_bytes_;
  std::vector<std::uint8_t> data_;
  std::uint8_t* base_;
};

// The header blocks (replica_id || layer || node) of a group's lanes, compressed by `e`.
class header_maker {
 public:
  header_maker(const engine& e, const lane_layer<sdr::porep_variant::sdr>& at)
      : e_(e), lanes_(at.lanes), tail_(at.layer), rows_(2 * lanes_) {
    for (std::uint32_t j = 0; j < lanes_; ++j) {
      rows_[j] = at.replica_ids + 32ull * j;
      rows_[lanes_ + j] = tail_.bytes;
    }
  }
  header_maker(const header_maker&) = delete;
  header_maker& operator=(const header_maker&) = delete;
  // out[8 j, 8 j + 8) = lane j's state after node v's header block.
  void make(std::uint64_t v, std::uint32_t* out) {
    tail_.set_node(v);
    compress_headers(e_, rows_.data(), lanes_, out);
  }

 private:
  const engine& e_;
  std::uint32_t lanes_;
  sdr_header_tail tail_;
  std::vector<const std::uint8_t*> rows_;
};

// Fills the ring for the nodes [at.begin, at.end) of one group, positions from `first_pos`;
// with `headers`, the nodes' header states too (node 0's message is its header alone).
template <sdr::porep_variant V>
void produce_parents(const lane_layer<V>& at, parent_ring& ring, std::uint64_t first_pos,
                     std::uint64_t prefetch_distance, const engine* headers) {
  static_assert(V == sdr::porep_variant::sdr);
  const std::uint32_t words = at.read_words();
  const std::size_t span = 32ull * at.lanes;
  const std::uint64_t n = at.end - at.begin;
  std::optional<header_maker> header;
  if (headers != nullptr) header.emplace(*headers, at);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t pos = first_pos + i;
    // The slot's previous node must be hashed before it is overwritten.
    if (pos >= ring.slots())
      parent_ring::wait_until([&] { return ring.labeled.load(std::memory_order_acquire) > pos - ring.slots(); });
    if (prefetch_distance != 0 && i + prefetch_distance < n) {
      const std::uint32_t* ahead = at.row(at.begin + i + prefetch_distance);
      // Base parents well behind the labeling thread only: not the lines it is writing now.
      const std::uint64_t far = at.begin + i + prefetch_distance;
      for (std::uint32_t k = 0; k < words; ++k)
        if (k >= sdr::kBaseDegree || ahead[k] + 2ull * ring.slots() < far) prefetch_lines(at.word(ahead, k), span);
    }
    const std::uint64_t v = at.begin + i;
    std::uint32_t mask = 0;
    if (v != 0) {
      const std::uint64_t labeled = ring.labeled.load(std::memory_order_acquire);
      const std::uint64_t ready_below = at.begin + (labeled > first_pos ? labeled - first_pos : 0);
      const std::uint32_t* row = at.row(v);
      std::uint8_t* dst = ring.parents(pos);
      for (std::uint32_t k = 0; k < words; ++k) {
        if (k < sdr::kBaseDegree && row[k] >= ready_below) continue;
        std::memcpy(dst + span * k, at.word(row, k), span);
        mask |= 1u << k;
      }
      if (header) header->make(v, ring.header_states(pos));
    }
    ring.mask(pos) = mask;
    ring.produced.store(pos + 1, std::memory_order_release);
  }
}

}  // namespace poreplab::cpu::detail
