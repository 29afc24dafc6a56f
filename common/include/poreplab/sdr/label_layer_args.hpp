#pragma once
// What every label kernel of one layer is given (label_kernel.hpp, label_pipelined.hpp),
// and how S sectors' labels lie in a device buffer.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "poreplab/hd.hpp"
#include "poreplab/name_table.hpp"
#include "poreplab/sdr/label.hpp"

namespace poreplab::sdr {

// How S sectors' labels of one layer lie in a device buffer.
//   sector_minor: node-major, node i of sectors 0..S-1 adjacent (the layer_store layout);
//                 the 32 threads of a warp read one parent's labels as 1 KiB contiguous.
//   sector_major: each sector's layer contiguous; every thread reads its own region.
enum class sector_layout : std::uint8_t { sector_minor, sector_major };

inline constexpr name_table kSectorLayouts{
    "sector layout", std::array{named<sector_layout>{sector_layout::sector_minor, "sector-minor"},
                                named<sector_layout>{sector_layout::sector_major, "sector-major"}}};
inline const char* sector_layout_name(sector_layout l) { return kSectorLayouts.name(l).data(); }
inline sector_layout parse_sector_layout(std::string_view name) { return kSectorLayouts.parse(name); }

// Where sector s's labels of a layer buffer lie.
POREPLAB_HD layer_ref sector_view(std::uint8_t* layer, sector_layout layout, std::uint64_t nodes,
                                  std::uint32_t sectors, std::uint64_t s) {
  if (layer == nullptr) return {nullptr, 0};  // layer 1 has no previous layer
  if (layout == sector_layout::sector_minor) return {layer + 32 * s, 32ull * sectors};
  return {layer + s * nodes * 32, 32};
}

// Rows [node_begin, node_end) of one layer. A layer may be split into several launches
// over consecutive row ranges (streamed parent table, bounded launches); `parents` then
// holds the rows of that range only: row r is at parents + 14 * (r - node_begin).
//   sdr:    row v labels node v of `cur` from `cur` (base) and `prev` (expander).
//   zigzag: `parents` starts at the layer's first row (zigzag_first_row) and row r
//           encodes node row[0] of `cur` in place; prev is unused.
struct label_layer_args {
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

  POREPLAB_HD std::uint64_t end() const { return node_end < nodes ? node_end : nodes; }
};

}  // namespace poreplab::sdr
