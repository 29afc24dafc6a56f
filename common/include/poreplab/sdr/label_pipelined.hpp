#pragma once
// The latency-oriented SDR/SHA-256 label kernels (kernel variants staged and split): one
// block of three warps per sector, a block functor (grid.hpp) run by the CUDA backend
// and, phase by phase, by cuda-emu.
//
// A node's label is 20 chained compressions (header block, 18 parent-pair blocks, the
// last parent with the padding). Only the rounds of each compression are serial; the
// parent loads, the byte swaps, the message schedules and the header block's whole
// compression depend on nothing the node before produces, except the chunks that hold
// that node's label (the predecessor: base slot 0 from api 1.1.0 on, and any random base
// parent that sampled it). So the work is pipelined one node ahead:
//   round thread  (warp 0, lane 0)   node u: the rounds, from the header state onwards;
//   schedule lanes (warp 1, lane b)  node u+1: block b's parent labels into shared memory,
//                                    byte-swapped; split: its W[t]+K[t] as well;
//   header thread (warp 2, lane 0)   split: node u+1's header block compressed.
// Each step is two phases with a block barrier after each:
//   A: the round thread compresses block 1 (whose low chunk is usually the predecessor,
//      so no lane could have scheduled it); split: the schedule lanes compute the
//      schedules of node u's later blocks that hold the predecessor, published in B;
//   B: the round thread runs blocks 2..19 and publishes u's label; the others prepare u+1.
// staged keeps the schedules (and the header) on the round thread: it isolates what
// taking the parent loads off the serial path buys; split adds the schedules.
// Warps 0, 1 and 2 issue from different SM sub-partitions (warp index mod 4), so the
// helpers take no issue slots from the round thread.
#include <cstdint>

#include "poreplab/hash/bytes.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/hd.hpp"
#include "poreplab/sdr/label.hpp"
#include "poreplab/sdr/label_layer_args.hpp"

namespace poreplab::sdr {

inline constexpr std::uint32_t kPipelinedThreads = 96;
inline constexpr std::uint32_t kRoundThread = 0;
inline constexpr std::uint32_t kScheduleLane0 = 32;  // + b serves message block b (1..19)
inline constexpr std::uint32_t kHeaderThread = 64;
inline constexpr std::uint32_t kMessageBlocks = kLabelCompressions;  // block 0 is the header

// The roles the GPU latency model traces: a representative thread and how many lanes of
// its warp are active (for the bytes they move).
struct pipelined_role {
  std::uint32_t tid;
  std::uint32_t lanes;
  const char* name;
};
inline constexpr pipelined_role kPipelinedRoles[] = {
    {kRoundThread, 1, "rounds"}, {kScheduleLane0 + 2, kMessageBlocks - 1, "schedule"}, {kHeaderThread, 1, "header"}};

struct pipelined_shared {
  // Rows padded to 68 and 20 words: the lanes of warp 1 write rows b = 1..19 at once, and
  // unpadded 64- and 16-word rows would all start in one bank. Both stay 16-byte aligned.
  static constexpr std::uint32_t kScheduleRow = 68, kRawRow = 20;
  alignas(16) std::uint32_t schedule[2][kMessageBlocks][kScheduleRow];  // W[t] + K[t], by node parity
  alignas(16) std::uint32_t raw[2][kMessageBlocks][kRawRow];  // message words; predecessor chunks left out
  std::uint32_t header[2][8];                                  // state after the header block
  std::uint32_t predecessor[8];                                // the round thread's last label, as words
  std::uint8_t predecessor_chunks[2][kMessageBlocks];          // bit h: chunk 2b + h is the predecessor
};

struct pipelined_registers {
  std::uint32_t state[8];
  std::uint32_t predecessor[8];  // round thread: its last label, as words
};

template <bool Split>
struct pipelined_label_layer : label_layer_args {
  static constexpr std::uint32_t kBlockThreads = kPipelinedThreads;
  static constexpr std::uint32_t kPhases = 2;
  using shared_state = pipelined_shared;
  using thread_state = pipelined_registers;

  // Step s: the round thread labels node node_begin + s - 1, the others prepare node_begin + s.
  POREPLAB_HD std::uint64_t steps() const { return end() > node_begin ? end() - node_begin + 1 : 0; }

  POREPLAB_HD void phase(std::uint32_t p, std::uint64_t block, std::uint64_t step, std::uint32_t tid,
                         shared_state& sh, thread_state& r) const {
    if (block >= sectors) return;
    const layer_ref c = sector_view(cur, layout, nodes, sectors, block);
    const std::uint8_t* id = replica_ids + 32 * block;
    const std::uint64_t next = node_begin + step;  // prepared this step
    if (tid == kRoundThread) {
      if (step == 0) {
        if (p == 0) load_predecessor(c, sh, r);
      } else if (p == 0) {
        begin_node(next - 1, id, sh, r);
      } else {
        finish_node(next - 1, c, sh, r);
      }
    } else if (tid > kScheduleLane0 && tid < kScheduleLane0 + kMessageBlocks) {
      const std::uint32_t b = tid - kScheduleLane0;
      if (p == 0) {
        if (Split && step != 0 && b >= 2) schedule_predecessor_block(next - 1, b, sh);
      } else if (next < end()) {
        stage_block(next, b, c, sector_view(layer > 1 ? prev : nullptr, layout, nodes, sectors, block), sh);
      }
    } else if (Split && tid == kHeaderThread && p == 1 && next < end()) {
      header_state(id, next, sh.header[next & 1]);
    }
  }

 private:
  // The label before the launch's first node, which the launch does not compute.
  POREPLAB_HD void load_predecessor(layer_ref c, shared_state& sh, thread_state& r) const {
    if (node_begin == 0) return;
    const std::uint8_t* label = c.at(node_begin - 1);
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) sh.predecessor[i] = r.predecessor[i] = load_be32(label + 4 * i);
  }

  POREPLAB_HD void header_state(const std::uint8_t* id, std::uint64_t node, std::uint32_t h[8]) const {
    alignas(16) std::uint8_t hdr[64];
    make_header(hdr, id, layer, node);
    sha256::init_state(h);
    sha256::compress2(h, hdr, hdr + 32);
  }

  // Message words of block b of node u: the staged ones, the predecessor's where it lies.
  POREPLAB_HD static void block_words(const shared_state& sh, const std::uint32_t pred[8], std::uint64_t u,
                                      std::uint32_t b, std::uint32_t w[16]) {
    const std::uint32_t* raw = sh.raw[u & 1][b];
    const std::uint8_t flags = sh.predecessor_chunks[u & 1][b];
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) {
      w[i] = (flags & 1) != 0 ? pred[i] : raw[i];
      w[8 + i] = (flags & 2) != 0 ? pred[i] : raw[8 + i];
    }
  }

  // Phase A of node u: the header state, then block 1.
  POREPLAB_HD void begin_node(std::uint64_t u, const std::uint8_t* id, const shared_state& sh, thread_state& r) const {
    if constexpr (Split) {
      POREPLAB_UNROLL
      for (int i = 0; i < 8; ++i) r.state[i] = sh.header[u & 1][i];
    } else {
      header_state(id, u, r.state);
    }
    if (u == 0) return;  // node 0 hashes the header alone
    std::uint32_t w[16];
    block_words(sh, r.predecessor, u, 1, w);
    sha256::compress_words(r.state, w);
  }

  // Phase B of node u: blocks 2..19 (node 0: the padding block), then the label.
  POREPLAB_HD void finish_node(std::uint64_t u, layer_ref c, shared_state& sh, thread_state& r) const {
    if (u == 0) {
      sha256::compress_padding64(r.state);
    } else {
      // Left rolled: one compression's code stays in the instruction cache.
#if defined(__CUDA_ARCH__)
#pragma unroll 1
#endif
      for (std::uint32_t b = 2; b < kMessageBlocks; ++b) {
        if constexpr (Split) {
          sha256::compress_scheduled(r.state, sh.schedule[u & 1][b]);
        } else {
          std::uint32_t w[16];
          block_words(sh, r.predecessor, u, b, w);
          sha256::compress_words(r.state, w);
        }
      }
    }
    r.state[7] &= 0xffffff3fu;  // the label's mask: its last byte loses its top two bits
    std::uint8_t* out = c.at(u);
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) {
      store_be32(out + 4 * i, r.state[i]);
      sh.predecessor[i] = r.predecessor[i] = r.state[i];
    }
  }

  // Phase B, lane b, node u (u >= 1): block b's two chunks into shared memory, except a
  // chunk that is node u - 1, which the round thread is computing meanwhile.
  POREPLAB_HD void stage_block(std::uint64_t u, std::uint32_t b, layer_ref c, layer_ref pv, shared_state& sh) const {
    if (u == 0) return;
    const std::uint32_t* row = parents + kParents * (u - node_begin);
    std::uint32_t* raw = sh.raw[u & 1][b];
    std::uint8_t flags = 0;
    for (std::uint32_t h = 0; h < 2; ++h) {
      const std::uint32_t chunk = 2 * b + h;
      std::uint32_t* w = raw + 8 * h;
      if (chunk == 2 + kParentBlocks) {  // after the last parent: 0x80, zeros, the bit length
        w[0] = 0x80000000u;
        POREPLAB_UNROLL
        for (int i = 1; i < 7; ++i) w[i] = 0;
        w[7] = static_cast<std::uint32_t>(kSdrMessageBytes * 8);
        continue;
      }
      const std::uint32_t slot = parent_slot(layer, chunk - 2);
      const bool base = slot < kBaseDegree;
      if (base && row[slot] + 1 == u) {
        flags |= static_cast<std::uint8_t>(1u << h);
        continue;
      }
      load_be32x8_aligned16((base ? c : pv).at(row[slot]), w);
    }
    sh.predecessor_chunks[u & 1][b] = flags;
    if (Split && b >= 2 && flags == 0) sha256::expand_schedule(raw, sh.schedule[u & 1][b]);
  }

  // Phase A, lane b, node u: a block that holds the predecessor is scheduled now that
  // the round thread has published it; the round thread needs it in phase B.
  POREPLAB_HD void schedule_predecessor_block(std::uint64_t u, std::uint32_t b, shared_state& sh) const {
    if (u == 0 || sh.predecessor_chunks[u & 1][b] == 0) return;
    std::uint32_t w[16];
    block_words(sh, sh.predecessor, u, b, w);
    sha256::expand_schedule(w, sh.schedule[u & 1][b]);
  }
};

}  // namespace poreplab::sdr
