#include <cstdint>

#include "poreplab/sdr/label.hpp"

namespace poreplab::sdr {

namespace {

// The parent-pair loop rolled (kernel_variant::rolled, the same digest): host verification
// recomputes thousands of nodes, not billions, and the unrolled 18 compressions cost the
// optimizer minutes of compile time in this one unit.
template <hash_family H>
void label_in(const std::uint8_t* replica_id, std::uint32_t layer, std::uint64_t node,
                              const std::uint8_t* labels, std::uint8_t* out) {
  alignas(16) std::uint8_t hdr[64];
  make_header(hdr, replica_id, layer, node);
  if (node == 0) {
    hash_chunks<H, 2, kernel_variant::rolled>([&](std::uint32_t k) -> const std::uint8_t* { return hdr + 32 * k; }, out);
  } else {
    hash_chunks<H, 2 + kParentBlocks, kernel_variant::rolled>(
        [&](std::uint32_t k) -> const std::uint8_t* {
          return k < 2 ? hdr + 32 * k : labels + 32 * parent_slot(layer, k - 2);
        },
        out);
  }
  out[31] &= 0x3f;
}

}  // namespace

void label_from_parent_labels(hash_family h, const std::uint8_t* replica_id, std::uint32_t layer, std::uint64_t node,
                              const std::uint8_t* labels, std::uint8_t* out) {
  with_family(h, [&](auto f) { label_in<decltype(f)::value>(replica_id, layer, node, labels, out); });
}

}  // namespace poreplab::sdr
