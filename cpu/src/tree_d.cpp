#include "poreplab/cpu/tree_d.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "poreplab/hash/sha256.hpp"
#include "sha256_padding.hpp"

namespace poreplab::cpu {

sdr::bytes32 build_tree_d(const engine& e, const std::uint8_t* data, std::uint64_t nodes, std::uint8_t* tree,
                          bool pad_precompute) {
  if (nodes == 0 || (nodes & (nodes - 1)) != 0)
    throw std::invalid_argument("tree_d: node count " + std::to_string(nodes) + " is not a power of two");
  if (e.sha256 == nullptr) throw std::invalid_argument("tree_d: engine '" + std::string(e.name) + "' is not SHA-256");
  if (pad_precompute && e.sha256_pad64 == nullptr)
    throw std::invalid_argument("tree_d: engine '" + std::string(e.name) + "' has no precomputed-padding path");
  std::memcpy(tree, data, nodes * 32);
  const std::size_t width = std::max<std::size_t>(1, e.lanes);
  std::uint8_t* row = tree;
  for (std::uint64_t n = nodes; n > 1; n /= 2) {
    std::uint8_t* next = row + n * 32;
    const std::uint64_t parents = n / 2;
    const auto groups = static_cast<std::int64_t>((parents + width - 1) / width);
#pragma omp parallel for schedule(static) if (parents >= 4096)
    for (std::int64_t g = 0; g < groups; ++g) {
      const std::uint64_t first = static_cast<std::uint64_t>(g) * width;
      const std::size_t lanes = static_cast<std::size_t>(std::min<std::uint64_t>(width, parents - first));
      std::vector<const std::uint8_t*> chunks(4 * lanes);
      std::vector<std::uint32_t> state(8 * lanes);
      for (std::size_t j = 0; j < lanes; ++j) {
        sha256::init_state(state.data() + 8 * j);
        chunks[j] = row + 64 * (first + j);
        chunks[lanes + j] = row + 64 * (first + j) + 32;
        chunks[2 * lanes + j] = detail::kSha256Tail<64>.chunk(0);  // the padding block of a 64-byte message
        chunks[3 * lanes + j] = detail::kSha256Tail<64>.chunk(1);
      }
      if (pad_precompute) {
        e.sha256(state.data(), chunks.data(), 1, lanes);
        e.sha256_pad64(state.data(), lanes);
      } else {
        e.sha256(state.data(), chunks.data(), 2, lanes);
      }
      for (std::size_t j = 0; j < lanes; ++j) {
        std::uint8_t* out = next + 32 * (first + j);
        sha256::store_digest(state.data() + 8 * j, out);
        out[31] &= 0x3f;
      }
    }
    row = next;
  }
  sdr::bytes32 root;
  std::memcpy(root.data(), row, 32);
  return root;
}

}  // namespace poreplab::cpu
