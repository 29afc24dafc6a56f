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
#include "poreplab/sdr/scheme.hpp"
#include "poreplab/sdr/zigzag.hpp"

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

// One thread per sector runs rows [node_begin, node_end) of one layer in order. The
// node loop stays inside the kernel: labels within a layer are sequential and the
// parallel axis is sectors. A layer may be split into several launches over
// consecutive row ranges (streamed parent table); `parents` then holds the rows of
// that range only: row r is at parents + 14 * (r - node_begin).
//   sdr:    row v labels node v of `cur` from `cur` (base) and `prev` (expander).
//   zigzag: `parents` starts at the layer's first row (zigzag_first_row) and row r
//           encodes node row[0] of `cur` in place; prev is unused.
// K: how sdr/sha256 nodes read their parents (scheme.hpp); the labels are the same.
template <porep_variant V, label_hash H, kernel_variant K = kernel_variant::standard>
struct label_layer_kernel {
  static constexpr porep_variant kVariant = V;
  static constexpr label_hash kHash = H;
  static constexpr kernel_variant kKernel = K;
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
    const std::uint8_t* id = replica_ids + 32 * gid;
    const std::uint64_t end = node_end < nodes ? node_end : nodes;
    if constexpr (V == porep_variant::zigzag) {
      for (std::uint64_t r = node_begin; r < end; ++r) zigzag_encode_node<H>(id, parents + kParents * (r - node_begin), c);
    } else {
      const layer_ref p = sector_view(layer > 1 ? prev : nullptr, layout, nodes, sectors, gid);
      for (std::uint64_t v = node_begin; v < end; ++v)
        label_node<H, K>(id, layer, v, parents + kParents * (v - node_begin), c, p);
    }
  }
};

// Copies a layer from one sector layout to another (or the same), one thread per
// 32-byte label, threads in destination order so that consecutive threads write
// consecutive labels when the destination is sector-minor.
struct relayout_kernel {
  const std::uint8_t* src;
  std::uint8_t* dst;
  std::uint64_t nodes;
  std::uint32_t sectors;
  sector_layout from = sector_layout::sector_major;
  sector_layout to = sector_layout::sector_minor;

  POREPLAB_HD static std::uint64_t offset(sector_layout l, std::uint64_t node, std::uint64_t s, std::uint64_t nodes,
                                          std::uint32_t sectors) {
    return l == sector_layout::sector_minor ? (node * sectors + s) * 32 : (s * nodes + node) * 32;
  }

  POREPLAB_HD void operator()(std::uint64_t gid) const {
    if (gid >= nodes * sectors) return;
    const bool minor = to == sector_layout::sector_minor;
    const std::uint64_t node = minor ? gid / sectors : gid % nodes;
    const std::uint64_t s = minor ? gid % sectors : gid / nodes;
    const std::uint8_t* from_p = src + offset(from, node, s, nodes, sectors);
    std::uint8_t* to_p = dst + offset(to, node, s, nodes, sectors);
    POREPLAB_UNROLL
    for (int i = 0; i < 32; ++i) to_p[i] = from_p[i];
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
