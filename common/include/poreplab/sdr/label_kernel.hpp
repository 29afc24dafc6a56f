#pragma once
// Kernel functors of the CUDA backend, written once for the device (cuda/src launches
// them through one __global__ wrapper) and the host (emulate_grid runs them as the
// cuda-emu backend and in tests). Each holds plain pointers and sizes; its body calls
// common/ code only.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "poreplab/hash/blake2b.hpp"
#include "poreplab/hash/blake2s.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/hd.hpp"
#include "poreplab/sdr/label.hpp"

namespace poreplab::sdr {

// How S sectors' labels of one layer lie in a device buffer.
//   sector_minor: node-major, node i of sectors 0..S-1 adjacent (the layer_store layout);
//                 the 32 threads of a warp read one parent's labels as 1 KiB contiguous.
//   sector_major: each sector's layer contiguous; every thread reads its own region.
enum class sector_layout : std::uint8_t { sector_minor, sector_major };

inline const char* sector_layout_name(sector_layout l) {
  return l == sector_layout::sector_minor ? "sector-minor" : "sector-major";
}

inline sector_layout parse_sector_layout(std::string_view name) {
  if (name == "sector-minor") return sector_layout::sector_minor;
  if (name == "sector-major") return sector_layout::sector_major;
  throw std::invalid_argument("unknown sector layout '" + std::string(name) +
                              "' (valid: sector-minor, sector-major)");
}

// Where sector s's labels of a layer buffer lie.
POREPLAB_HD layer_ref sector_view(std::uint8_t* layer, sector_layout layout, std::uint64_t nodes,
                                  std::uint32_t sectors, std::uint64_t s) {
  if (layer == nullptr) return {nullptr, 0};  // layer 1 has no previous layer
  if (layout == sector_layout::sector_minor) return {layer + 32 * s, 32ull * sectors};
  return {layer + s * nodes * 32, 32};
}

// One thread per sector labels nodes [node_begin, node_end) of one layer in order.
// The node loop stays inside the kernel: labels within a layer are sequential and the
// parallel axis is sectors. A layer may be split into several launches over
// consecutive node ranges (streamed parent table); `parents` then holds the rows of
// that range only: row v is at parents + 14 * (v - node_begin).
struct label_layer_kernel {
  const std::uint32_t* parents;     // rows node_begin..node_end-1, 14 u32 each
  std::uint64_t nodes;              // nodes per layer (graph size)
  std::uint32_t layer;              // 1-based
  std::uint32_t sectors;
  const std::uint8_t* replica_ids;  // sectors x 32
  std::uint8_t* cur;                // layer being labeled
  std::uint8_t* prev;               // layer - 1; null for layer 1
  sector_layout layout;
  std::uint64_t node_begin = 0;
  std::uint64_t node_end = ~std::uint64_t{0};  // clamped to nodes

  POREPLAB_HD void operator()(std::uint64_t gid) const {
    if (gid >= sectors) return;
    const layer_ref c = sector_view(cur, layout, nodes, sectors, gid);
    const layer_ref p = sector_view(layer > 1 ? prev : nullptr, layout, nodes, sectors, gid);
    const std::uint8_t* id = replica_ids + 32 * gid;
    const std::uint64_t end = node_end < nodes ? node_end : nodes;
    for (std::uint64_t v = node_begin; v < end; ++v)
      label_node(id, layer, v, parents + kParents * (v - node_begin), c, p);
  }
};

// Rewrites a sector-major layer node-major (the layer_store layout), one thread per
// 32-byte label: consecutive threads write consecutive labels.
struct sector_major_to_minor_kernel {
  const std::uint8_t* src;  // sectors x nodes x 32
  std::uint8_t* dst;        // nodes x sectors x 32
  std::uint64_t nodes;
  std::uint32_t sectors;

  POREPLAB_HD void operator()(std::uint64_t gid) const {
    if (gid >= nodes * sectors) return;
    const std::uint64_t node = gid / sectors, s = gid % sectors;
    const std::uint8_t* from = src + (s * nodes + node) * 32;
    std::uint8_t* to = dst + gid * 32;
    POREPLAB_UNROLL
    for (int i = 0; i < 32; ++i) to[i] = from[i];
  }
};

}  // namespace poreplab::sdr

namespace poreplab::hashbench {

// The compression functions the hash kernels time.
enum class compression { sha256, blake2s, blake2b };

// Chain step i of chain `gid`: the message block is the current state (the dependency
// that keeps steps from overlapping or being hoisted) followed by eight words that
// depend on the chain only. Starting from the algorithm's IV, one step is:
//   sha256:  the state after absorbing the 64-byte block (words big-endian);
//   blake2s: blake2s-256 of that 64-byte block (words little-endian);
//   blake2b: blake2b-512 of that 128-byte block (words little-endian);
// so step 1 can be checked against the portable streaming hashes.
POREPLAB_HD std::uint32_t chain_word(std::uint64_t gid, int i) {
  // Weyl sequence: odd constant times (gid, i), distinct per chain and word.
  return static_cast<std::uint32_t>((gid * 16 + static_cast<std::uint64_t>(i) + 1) * 0x9e3779b97f4a7c15ull >> 32);
}

// Each thread gid < chains runs `length` dependent compressions and writes its final
// state (digest byte order) to out + gid * state_bytes. Latency runs one chain, throughput
// runs many; the same functor serves both.
struct sha256_chain_kernel {
  static constexpr compression kAlgo = compression::sha256;
  static constexpr std::uint32_t kStateBytes = 32;
  static constexpr std::uint32_t kBlockBytes = 64;
  std::uint64_t chains;
  std::uint64_t length;
  std::uint8_t* out;

  POREPLAB_HD void operator()(std::uint64_t gid) const {
    if (gid >= chains) return;
    std::uint32_t h[8], m[16];
    sha256::init_state(h);
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) m[8 + i] = chain_word(gid, i);
    for (std::uint64_t k = 0; k < length; ++k) {
      POREPLAB_UNROLL
      for (int i = 0; i < 8; ++i) m[i] = h[i];
      sha256::compress_words(h, m);
    }
    sha256::store_digest(h, out + gid * kStateBytes);
  }
};

struct blake2s_chain_kernel {
  static constexpr compression kAlgo = compression::blake2s;
  static constexpr std::uint32_t kStateBytes = 32;
  static constexpr std::uint32_t kBlockBytes = 64;
  std::uint64_t chains;
  std::uint64_t length;
  std::uint8_t* out;

  POREPLAB_HD void operator()(std::uint64_t gid) const {
    if (gid >= chains) return;
    std::uint32_t h[8], m[16];
    blake2s::init_state(h, 32, 0);
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) m[8 + i] = chain_word(gid, i);
    for (std::uint64_t k = 0; k < length; ++k) {
      POREPLAB_UNROLL
      for (int i = 0; i < 8; ++i) m[i] = h[i];
      blake2s::compress_words(h, m, kBlockBytes, 0, true);
    }
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) store_le32(out + gid * kStateBytes + 4 * i, h[i]);
  }
};

struct blake2b_chain_kernel {
  static constexpr compression kAlgo = compression::blake2b;
  static constexpr std::uint32_t kStateBytes = 64;
  static constexpr std::uint32_t kBlockBytes = 128;
  std::uint64_t chains;
  std::uint64_t length;
  std::uint8_t* out;

  POREPLAB_HD void operator()(std::uint64_t gid) const {
    if (gid >= chains) return;
    std::uint64_t h[8], m[16];
    blake2b::init_state(h, 64, 0);
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i)
      m[8 + i] = static_cast<std::uint64_t>(chain_word(gid, 2 * i + 1)) << 32 | chain_word(gid, 2 * i);
    for (std::uint64_t k = 0; k < length; ++k) {
      POREPLAB_UNROLL
      for (int i = 0; i < 8; ++i) m[i] = h[i];
      blake2b::compress_words(h, m, kBlockBytes, 0, true);
    }
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) store_le64(out + gid * kStateBytes + 8 * i, h[i]);
  }
};

}  // namespace poreplab::hashbench
