#include "poreplab/sdr/tree_d.hpp"

#include <cstring>
#include <stdexcept>
#include <vector>

#include "poreplab/hash/sha256.hpp"

namespace poreplab::sdr {

namespace {
void require_power_of_two(std::uint64_t nodes) {
  if (nodes == 0 || (nodes & (nodes - 1)) != 0)
    throw std::invalid_argument("tree_d: node count " + std::to_string(nodes) + " is not a power of two");
}
}  // namespace

bytes32 build_tree_d(const std::uint8_t* data, std::uint64_t nodes, std::uint8_t* tree) {
  require_power_of_two(nodes);
  std::memcpy(tree, data, nodes * 32);
  std::uint8_t* row = tree;
  for (std::uint64_t width = nodes; width > 1; width /= 2) {
    std::uint8_t* next = row + width * 32;
    const auto parents = static_cast<std::int64_t>(width / 2);
#pragma omp parallel for schedule(static) if (parents >= 4096)
    for (std::int64_t i = 0; i < parents; ++i)
      sha256::hash_pair_masked(row + 64 * i, row + 64 * i + 32, next + 32 * i);
    row = next;
  }
  bytes32 root;
  std::memcpy(root.data(), row, 32);
  return root;
}

bytes32 comm_d(const std::uint8_t* data, std::uint64_t nodes) {
  require_power_of_two(nodes);
  // stack[h] holds a pending left subtree root of height h.
  std::vector<bytes32> stack(64);
  std::vector<bool> filled(64, false);
  for (std::uint64_t i = 0; i < nodes; ++i) {
    bytes32 cur;
    std::memcpy(cur.data(), data + 32 * i, 32);
    std::size_t h = 0;
    while (filled[h]) {
      bytes32 parent;
      sha256::hash_pair_masked(stack[h].data(), cur.data(), parent.data());
      filled[h] = false;
      cur = parent;
      ++h;
    }
    stack[h] = cur;
    filled[h] = true;
  }
  for (std::size_t h = 0; h < 64; ++h)
    if (filled[h]) return stack[h];
  return {};
}

}  // namespace poreplab::sdr
