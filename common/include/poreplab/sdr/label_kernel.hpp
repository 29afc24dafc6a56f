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
#include "poreplab/grid.hpp"
#include "poreplab/hd.hpp"
#include "poreplab/sdr/label.hpp"
#include "poreplab/sdr/label_layer_args.hpp"
#include "poreplab/sdr/label_pipelined.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "poreplab/sdr/zigzag.hpp"

namespace poreplab::sdr {

// One thread per sector runs rows [node_begin, node_end) of one layer in order. The
// node loop stays inside the kernel: labels within a layer are sequential and the
// parallel axis is sectors. K: how sdr/sha256 nodes read their parents (scheme.hpp);
// the labels are the same. The block-per-sector variants are specialised below.
template <porep_variant V, hash_family H, kernel_variant K = kernel_variant::standard>
struct label_layer_kernel : label_layer_args {
  POREPLAB_HD void operator()(std::uint64_t gid) const {
    if (gid >= sectors) return;
    const layer_ref c = sector_view(cur, layout, nodes, sectors, gid);
    const std::uint8_t* id = replica_ids + 32 * gid;
    if constexpr (V == porep_variant::zigzag) {
      for (std::uint64_t r = node_begin; r < end(); ++r) zigzag_encode_node<H>(id, parents + kParents * (r - node_begin), c);
    } else {
      const layer_ref p = sector_view(layer > 1 ? prev : nullptr, layout, nodes, sectors, gid);
      for (std::uint64_t v = node_begin; v < end(); ++v)
        label_node<H, K>(id, layer, v, parents + kParents * (v - node_begin), c, p);
    }
  }
};

// One block per sector, latency-oriented (label_pipelined.hpp).
template <>
struct label_layer_kernel<porep_variant::sdr, hash_family::sha256, kernel_variant::staged> : pipelined_label_layer<false> {};
template <>
struct label_layer_kernel<porep_variant::sdr, hash_family::sha256, kernel_variant::split> : pipelined_label_layer<true> {};

// The launch shape of a label kernel for `sectors` sectors: threads per sector, or a
// block of the kernel's own size per sector (threads_per_block does not apply).
template <class Kernel>
grid_dims label_grid(std::uint32_t sectors, std::uint32_t threads_per_block) {
  if constexpr (block_functor<Kernel>) {
    if (sectors > kMaxGridBlocks)
      throw std::length_error("launch of " + std::to_string(sectors) + " blocks, more than a grid holds (2^31 - 1)");
    return {sectors == 0 ? 1 : sectors, Kernel::kBlockThreads};
  } else {
    return cover(sectors, threads_per_block);
  }
}

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
