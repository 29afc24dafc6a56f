#include "poreplab/sdr/tree_d.hpp"

#include <algorithm>
#include <array>
#include <bit>
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

namespace {

// One row above `row` (width nodes) into `next` (width / 2 nodes).
void hash_row(const std::uint8_t* row, std::uint64_t width, std::uint8_t* next, const tree_d_row_hasher& rows) {
  if (rows) {
    rows(row, width / 2, next);
    return;
  }
  const auto parents = static_cast<std::int64_t>(width / 2);
#pragma omp parallel for schedule(static) if (parents >= 4096)
  for (std::int64_t i = 0; i < parents; ++i) sha256::hash_pair_masked(row + 64 * i, row + 64 * i + 32, next + 32 * i);
}

bool all_zero(const std::uint8_t* p, std::uint64_t bytes) {
  static constexpr std::uint8_t kZeros[4096] = {};
  for (std::uint64_t at = 0; at < bytes; at += sizeof kZeros) {
    const std::uint64_t n = std::min<std::uint64_t>(sizeof kZeros, bytes - at);
    if (std::memcmp(p + at, kZeros, n) != 0) return false;
  }
  return true;
}

void fill_row(std::uint8_t* out, std::uint64_t width, unsigned height) {
  const bytes32& z = zero_subtree_root(height);
  for (std::uint64_t i = 0; i < width; ++i) std::memcpy(out + 32 * i, z.data(), 32);
}

}  // namespace

const bytes32& zero_subtree_root(unsigned h) {
  static const std::array<bytes32, 64> roots = [] {
    std::array<bytes32, 64> r{};
    for (std::size_t i = 1; i < r.size(); ++i) sha256::hash_pair_masked(r[i - 1].data(), r[i - 1].data(), r[i].data());
    return r;
  }();
  if (h >= roots.size()) throw std::invalid_argument("tree_d: no subtree of 2^" + std::to_string(h) + " leaves");
  return roots[h];
}

bytes32 build_tree_d(const std::uint8_t* data, std::uint64_t nodes, std::uint8_t* tree, const tree_d_row_hasher& rows) {
  require_power_of_two(nodes);
  std::memcpy(tree, data, nodes * 32);
  const bool zero = all_zero(data, nodes * 32);
  std::uint8_t* row = tree;
  unsigned height = 0;
  for (std::uint64_t width = nodes; width > 1; width /= 2) {
    std::uint8_t* next = row + width * 32;
    ++height;
    if (zero)
      fill_row(next, width / 2, height);
    else
      hash_row(row, width, next, rows);
    row = next;
  }
  bytes32 root;
  std::memcpy(root.data(), row, 32);
  return root;
}

bytes32 build_tree_d_streamed(std::uint64_t nodes, std::uint64_t chunk_nodes, const tree_d_reader& read,
                              const tree_d_writer& write, const tree_d_row_hasher& rows) {
  require_power_of_two(nodes);
  require_power_of_two(chunk_nodes);
  const std::uint64_t c = std::min(chunk_nodes, nodes);
  // row_offset[r]: where row r (nodes >> r wide) starts in the file.
  std::vector<std::uint64_t> row_offset{0};
  for (std::uint64_t w = nodes; w > 1; w /= 2) row_offset.push_back(row_offset.back() + w * 32);
  std::vector<std::uint8_t> a(c * 32), b(c * 32);
  std::vector<std::uint8_t> roots((nodes / c) * 32);
  for (std::uint64_t k = 0; k < nodes / c; ++k) {
    read(k * c, c, a.data());
    write(row_offset[0] + k * c * 32, a.data(), c * 32);
    std::uint8_t* row = a.data();
    std::uint8_t* next = b.data();
    const bool zero = all_zero(row, c * 32);
    std::size_t r = 0;
    for (std::uint64_t w = c; w > 1; w /= 2) {
      ++r;
      if (zero)
        fill_row(next, w / 2, static_cast<unsigned>(r));
      else
        hash_row(row, w, next, rows);
      write(row_offset[r] + k * (w / 2) * 32, next, (w / 2) * 32);
      std::swap(row, next);
    }
    std::memcpy(roots.data() + 32 * k, row, 32);
  }
  // The rows above the chunks' roots, in memory.
  std::size_t r = 0;  // the roots' row
  for (std::uint64_t w = c; w > 1; w /= 2) ++r;
  std::uint8_t* row = roots.data();
  std::vector<std::uint8_t> next(roots.size() / 2 + 32);
  for (std::uint64_t w = nodes / c; w > 1; w /= 2) {
    hash_row(row, w, next.data(), rows);
    ++r;
    write(row_offset[r], next.data(), (w / 2) * 32);
    std::memcpy(row, next.data(), (w / 2) * 32);
  }
  bytes32 root;
  std::memcpy(root.data(), row, 32);
  return root;
}

void comm_d_builder::add(const std::uint8_t* leaves, std::uint64_t count) {
  for (std::uint64_t i = 0; i < count; ++i) {
    bytes32 cur;
    std::memcpy(cur.data(), leaves + 32 * i, 32);
    std::size_t h = 0;
    while (filled_ >> h & 1) {
      bytes32 parent;
      sha256::hash_pair_masked(stack_[h].data(), cur.data(), parent.data());
      filled_ &= ~(std::uint64_t{1} << h);
      cur = parent;
      ++h;
    }
    stack_[h] = cur;
    filled_ |= std::uint64_t{1} << h;
  }
}

bytes32 comm_d_builder::root() const {
  for (std::size_t h = 0; h < 64; ++h)
    if (filled_ >> h & 1) return stack_[h];
  return {};
}

bytes32 comm_d(const std::uint8_t* data, std::uint64_t nodes) {
  require_power_of_two(nodes);
  if (all_zero(data, nodes * 32)) return zero_subtree_root(static_cast<unsigned>(std::countr_zero(nodes)));
  comm_d_builder b;
  b.add(data, nodes);
  return b.root();
}

}  // namespace poreplab::sdr
