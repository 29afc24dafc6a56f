#pragma once
// Private to poreplab_cpu: SDR parents gathered off the critical path. A coordinator thread
// walks the parent table ahead of a team of hashing threads and copies each node's parents
// (every lane of the team, 32 x lanes contiguous bytes each: a batch's labels of one node lie
// side by side) into a ring slot; each hasher points its messages at its own lanes of the
// slot, so the scattered reads (a DRAM latency and a page walk each, at real sector sizes)
// stall the coordinator, not the hash chains. A base parent that not every hasher has
// labeled yet when the coordinator reaches its node is left out of the slot (bit clear in the
// slot's mask) and read in place: it lies at most a ring's depth back, written by the hasher
// that reads it, in its own cache. One hasher is the producer of docs/cpu-backend.md.
//
// The disk labeler (disk_labeler.cpp) runs the same team with its reader as the coordinator:
// it copies the parents it read from the disk, and the RAM rows of those every hasher has
// labeled, into the slots in node order.
//
// With the header ahead (labeler_options::header_ahead), the coordinator also compresses
// each node's header block (no parent in it) into the slot: a hasher's chain is then the 19
// blocks that wait on parents, and the header costs its core nothing.
//
// Positions count nodes over every layer the team labels in turn, so the counters never
// reset. A thread that throws stops the team: every wait then throws team_stopped.
#include <x86intrin.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <vector>

#include "label_message.hpp"
#include "poreplab/cpu/engines.hpp"
#include "poreplab/cpu/tune.hpp"
#include "poreplab/interrupt.hpp"
#include "poreplab/sdr/backend.hpp"
#include "wait.hpp"

namespace poreplab::cpu::detail {

// Lines of [p, p + span) into L1: the producer's own loads follow soon.
[[gnu::always_inline]] inline void prefetch_lines(const std::uint8_t* p, std::size_t span) {
  for (std::size_t off = 0; off < span; off += 64) __builtin_prefetch(p + off, 0, 3);
}

// Thrown out of a wait of a team another of its threads stopped (its own exception is the one
// the labeling reports).
struct team_stopped {};

class parent_ring {
 public:
  // wait_spins: how long a wait spins before it yields (wait.hpp); max_batch: the most nodes
  // a hasher labels between two publications of its progress.
  parent_ring(std::uint32_t slots, std::uint32_t lanes, std::uint32_t hashers = 1, std::uint32_t wait_spins = kCoreSpins,
              std::uint32_t max_batch = 32)
      : slots_(slots),
        lanes_(lanes),
        hashers_(hashers),
        wait_spins_(wait_spins),
        max_batch_(std::max<std::uint32_t>(1, max_batch)),
        states_at_(kHeader + 32ull * lanes * sdr::kParents),
        slot_bytes_(slot_bytes_for(lanes)),
        data_(slot_bytes_ * slots + 63),
        labeled_(std::make_unique<counter[]>(hashers)) {
    base_ = data_.data() + (-reinterpret_cast<std::uintptr_t>(data_.data()) & 63);
  }
  parent_ring(const parent_ring&) = delete;
  parent_ring& operator=(const parent_ring&) = delete;

 private:
  static constexpr std::size_t kHeader = 64;
  // The geometry, written once: declared first, so it lies in lines of its own.
  std::uint32_t slots_, lanes_, hashers_, wait_spins_, max_batch_;
  std::size_t states_at_, slot_bytes_;
  std::vector<std::uint8_t> data_;
  struct alignas(64) counter {
    std::atomic<std::uint64_t> value{0};
  };
  std::unique_ptr<counter[]> labeled_;
  std::uint8_t* base_;

 public:
  std::uint32_t slots() const { return slots_; }
  std::uint32_t lanes() const { return lanes_; }
  std::uint32_t hashers() const { return hashers_; }
  // A hasher publishes its progress every this many nodes (each store takes the line back
  // from a polling coordinator), and at a layer's end. At most half the ring: a coordinator
  // waiting for a slot always sees it freed.
  std::uint64_t labeled_batch() const { return std::min<std::uint64_t>(max_batch_, slots_ / 2); }
  std::size_t slot_bytes() const { return slot_bytes_; }
  static std::size_t slot_bytes_for(std::uint32_t lanes) {
    return (kHeader + 32ull * lanes * (sdr::kParents + 1) + 63) & ~std::size_t{63};
  }
  // labeler_options::ring_depth auto: the most slots (a power of two, 16 to 256) whose bytes
  // fit half of an L2 of `l2_bytes` (0: unknown, 1 MiB), where the coordinator's writes stay
  // until a hasher reads them.
  static std::uint32_t auto_slots(std::uint32_t lanes, std::uint64_t l2_bytes) {
    const std::uint64_t room = (l2_bytes > 0 ? l2_bytes : 1u << 20) / 2;
    std::uint32_t slots = 256;
    while (slots > 16 && slots * slot_bytes_for(lanes) > room) slots /= 2;
    return slots;
  }
  // A slot: a line holding the mask of the parents copied (bit k: row word k), then the
  // copies, parent k's lanes at parents(pos) + 32 x lanes x k, then the lanes' header
  // states (8 words each) where the coordinator makes them. Slots are whole lines, so a mask
  // shares no line with another slot: a hasher reads it while the coordinator fills the next.
  std::uint8_t* slot(std::uint64_t pos) { return base_ + slot_bytes_ * (pos & (slots_ - 1)); }  // slots: a power of two
  std::uint32_t& mask(std::uint64_t pos) { return *std::launder(reinterpret_cast<std::uint32_t*>(slot(pos))); }
  std::uint8_t* parents(std::uint64_t pos) { return slot(pos) + kHeader; }
  std::uint32_t* header_states(std::uint64_t pos) {
    return std::launder(reinterpret_cast<std::uint32_t*>(slot(pos) + states_at_));
  }

  // Hasher h has labeled its lanes of positions [.., pos).
  void publish_labeled(std::uint32_t h, std::uint64_t pos) { labeled_[h].value.store(pos, std::memory_order_release); }
  // Positions [.., result) every hasher has labeled.
  std::uint64_t labeled_by_all() const {
    std::uint64_t low = labeled_[0].value.load(std::memory_order_acquire);
    for (std::uint32_t h = 1; h < hashers_; ++h) low = std::min(low, labeled_[h].value.load(std::memory_order_acquire));
    return low;
  }

  // Waits until ready(); throws team_stopped once a thread of the team has stopped it.
  template <class Ready>
  void wait(Ready ready) const {
    wait_until([&] { return ready() || stopped_.load(std::memory_order_relaxed); }, wait_spins_);
    if (stopped_.load(std::memory_order_acquire)) throw team_stopped{};
  }
  void stop() { stopped_.store(true, std::memory_order_release); }
  bool stopped() const { return stopped_.load(std::memory_order_acquire); }

  // Each of the next three lines has one writer. The geometry above them is read by every
  // hasher at every node: sharing a line with the coordinator's per-node stores, it would
  // cost each hasher a line from the coordinator's core a node.
  alignas(64) std::atomic<std::uint64_t> produced{0};  // slots [.., produced) filled
  // The coordinator's account, read once the team has joined: TSC ticks in all and waiting
  // for a free slot, and parent rows copied.
  alignas(64) std::uint64_t ticks = 0;
  std::uint64_t wait_ticks = 0, rows_copied = 0;
  std::uint64_t next = 0;  // the position of the next layer's first node (moved on between parallel regions)

 private:
  alignas(64) std::atomic<bool> stopped_{false};
};

// The header blocks (replica_id || layer || node) of a team's lanes, compressed by `e` in
// groups of its lane width. A team narrower than `e` has the headers of the next nodes made
// in the same call (node v's lanes, then v + 1's...): they depend on the node's number only,
// and one lane's header alone is a latency-bound compression that costs a coordinator far
// more than its share of a wide engine's call.
class header_maker {
 public:
  header_maker(const engine& e, const lane_layer<sdr::porep_variant::sdr>& at)
      : e_(e),
        lanes_(at.lanes),
        width_(static_cast<std::uint32_t>(std::max<std::size_t>(1, e.lanes))),
        nodes_(std::max<std::uint32_t>(1, width_ / std::max<std::uint32_t>(1, lanes_))),
        tails_(nodes_, sdr_header_tail(at.layer)),
        states_(nodes_ > 1 ? 8ull * lanes_ * nodes_ : 0) {
    const std::uint32_t all = lanes_ * nodes_;
    for (std::uint32_t first = 0; first < all; first += width_) {
      const std::uint32_t n = std::min(width_, all - first);
      std::vector<const std::uint8_t*> rows(2 * n);
      for (std::uint32_t q = 0; q < n; ++q) {
        rows[q] = at.replica_ids + 32ull * ((first + q) % lanes_);
        rows[n + q] = tails_[(first + q) / lanes_].bytes;
      }
      rows_.push_back(std::move(rows));
    }
  }
  header_maker(const header_maker&) = delete;
  header_maker& operator=(const header_maker&) = delete;
  // Nodes whose headers one call makes.
  std::uint32_t nodes_a_call() const { return nodes_; }
  // out[8 j, 8 j + 8) = lane j's state after node v's header block.
  void make(std::uint64_t v, std::uint32_t* out) {
    if (nodes_ == 1) return compress(v, out);
    if (!made_ || v < first_ || v >= first_ + nodes_) {
      compress(v, states_.data());
      first_ = v;
      made_ = true;
    }
    std::memcpy(out, states_.data() + 8ull * lanes_ * (v - first_), 32ull * lanes_);
  }

 private:
  // The states of nodes [v, v + nodes_), each node's lanes together.
  void compress(std::uint64_t v, std::uint32_t* out) {
    for (std::uint32_t b = 0; b < nodes_; ++b) tails_[b].set_node(v + b);
    for (std::size_t g = 0; g < rows_.size(); ++g) {
      const auto n = static_cast<std::uint32_t>(rows_[g].size() / 2);
      compress_headers(e_, rows_[g].data(), n, out + 8ull * width_ * g);
    }
  }

  const engine& e_;
  std::uint32_t lanes_, width_, nodes_;
  std::vector<sdr_header_tail> tails_;  // one a node of a call; rows_ point into it
  std::vector<std::vector<const std::uint8_t*>> rows_;
  std::vector<std::uint32_t> states_;  // a call's states, when it makes more than one node's
  std::uint64_t first_ = 0;
  bool made_ = false;
};

// The engine a coordinator makes headers with: the one measured fastest a lane, its width
// filled (header_maker fills it with the next nodes' headers).
inline const engine& header_engine() { return best_engine(hash_family::sha256); }

// The coordinator: fills the ring for the nodes [at.begin, at.end) of one layer, every lane
// of `at` (the team's), positions from `first_pos`; with `headers`, the nodes' header states
// too (node 0's message is its header alone). Counts its ticks into the ring's account and
// checks for an interrupt every sdr::kProgressNodes nodes.
template <sdr::porep_variant V>
void produce_parents(const lane_layer<V>& at, parent_ring& ring, std::uint64_t first_pos,
                     std::uint64_t prefetch_distance, const engine* headers) {
  static_assert(V == sdr::porep_variant::sdr);
  const std::uint64_t start = __rdtsc();
  const std::uint32_t words = at.read_words();
  const std::size_t span = 32ull * at.lanes;
  const std::uint64_t n = at.end - at.begin;
  std::optional<header_maker> header;
  if (headers != nullptr) header.emplace(*headers, at);
  std::uint64_t labeled = 0;  // the last value read
  std::uint64_t wait_ticks = 0, rows_copied = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t pos = first_pos + i;
    if ((i & (sdr::kProgressNodes - 1)) == 0) throw_if_interrupted();
    // The slot's previous node must be hashed by every hasher before it is overwritten.
    if (pos >= ring.slots() && labeled <= pos - ring.slots()) {
      const std::uint64_t t = __rdtsc();
      ring.wait([&] { return (labeled = ring.labeled_by_all()) > pos - ring.slots(); });
      wait_ticks += __rdtsc() - t;
    }
    if (prefetch_distance != 0 && i + prefetch_distance < n) {
      const std::uint32_t* ahead = at.row(at.begin + i + prefetch_distance);
      // Base parents well behind the hashers only: not the lines they are writing now.
      const std::uint64_t far = at.begin + i + prefetch_distance;
      for (std::uint32_t k = 0; k < words; ++k)
        if (k >= sdr::kBaseDegree || ahead[k] + 2ull * ring.slots() < far) prefetch_lines(at.word(ahead, k), span);
    }
    const std::uint64_t v = at.begin + i;
    std::uint32_t mask = 0;
    if (v != 0) {
      labeled = ring.labeled_by_all();
      const std::uint64_t ready_below = at.begin + (labeled > first_pos ? labeled - first_pos : 0);
      const std::uint32_t* row = at.row(v);
      std::uint8_t* dst = ring.parents(pos);
      for (std::uint32_t k = 0; k < words; ++k) {
        if (k < sdr::kBaseDegree && row[k] >= ready_below) continue;
        std::memcpy(dst + span * k, at.word(row, k), span);
        mask |= 1u << k;
      }
      rows_copied += static_cast<std::uint64_t>(__builtin_popcount(mask));
      if (header) header->make(v, ring.header_states(pos));
    }
    ring.mask(pos) = mask;
    ring.produced.store(pos + 1, std::memory_order_release);
  }
  ring.ticks += __rdtsc() - start;
  ring.wait_ticks += wait_ticks;
  ring.rows_copied += rows_copied;
}

}  // namespace poreplab::cpu::detail
