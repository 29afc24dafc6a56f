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
