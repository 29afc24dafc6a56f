#include "poreplab/cpu/tree_d.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "poreplab/cpu/tune.hpp"
#include "poreplab/hash/sha256.hpp"
#include "sha256_padding.hpp"

namespace poreplab::cpu {

namespace {

constexpr std::size_t kMaxLanes = 16;

void check_engine(const engine& e, bool pad_precompute) {
  if (e.sha256 == nullptr) throw std::invalid_argument("tree_d: engine '" + std::string(e.name) + "' is not SHA-256");
  if (e.lanes > kMaxLanes)
    throw std::invalid_argument("tree_d: engine '" + std::string(e.name) + "' is wider than " +
                                std::to_string(kMaxLanes) + " lanes");
  if (pad_precompute && e.sha256_pad64 == nullptr)
    throw std::invalid_argument("tree_d: engine '" + std::string(e.name) + "' has no precomputed-padding path");
}

}  // namespace

void hash_tree_d_row(const engine& e, const std::uint8_t* row, std::uint64_t parents, std::uint8_t* next,
                     bool pad_precompute, int threads) {
  check_engine(e, pad_precompute);
  const int team = threads > 0 ? threads : omp_get_max_threads();
  if (e.sha256_pairs != nullptr) {
    // Whole messages in one kernel, 1024 a task.
    constexpr std::uint64_t kTask = 1024;
    const auto tasks = static_cast<std::int64_t>((parents + kTask - 1) / kTask);
#pragma omp parallel for schedule(static) num_threads(team) if (parents >= 4096)
    for (std::int64_t k = 0; k < tasks; ++k) {
      const std::uint64_t first = static_cast<std::uint64_t>(k) * kTask;
      e.sha256_pairs(row + 64 * first, static_cast<std::size_t>(std::min(kTask, parents - first)), next + 32 * first,
                     pad_precompute);
    }
    return;
  }
  const std::size_t width = std::max<std::size_t>(1, e.lanes);
  const auto groups = static_cast<std::int64_t>((parents + width - 1) / width);
#pragma omp parallel for schedule(static) num_threads(team) if (parents >= 4096)
  for (std::int64_t g = 0; g < groups; ++g) {
    const std::uint64_t first = static_cast<std::uint64_t>(g) * width;
    const std::size_t lanes = static_cast<std::size_t>(std::min<std::uint64_t>(width, parents - first));
    const std::uint8_t* chunks[4 * kMaxLanes];
    std::uint32_t state[8 * kMaxLanes];
    for (std::size_t j = 0; j < lanes; ++j) {
      sha256::init_state(state + 8 * j);
      chunks[j] = row + 64 * (first + j);
      chunks[lanes + j] = row + 64 * (first + j) + 32;
      chunks[2 * lanes + j] = detail::kSha256Tail<64>.chunk(0);  // the padding block of a 64-byte message
      chunks[3 * lanes + j] = detail::kSha256Tail<64>.chunk(1);
    }
    if (pad_precompute) {
      e.sha256(state, chunks, 1, lanes);
      e.sha256_pad64(state, lanes);
    } else {
      e.sha256(state, chunks, 2, lanes);
    }
    for (std::size_t j = 0; j < lanes; ++j) {
      std::uint8_t* out = next + 32 * (first + j);
      sha256::store_digest(state + 8 * j, out);
      out[31] &= 0x3f;
    }
  }
}

sdr::bytes32 build_tree_d(const engine& e, const std::uint8_t* data, std::uint64_t nodes, std::uint8_t* tree,
                          bool pad_precompute) {
  if (nodes == 0 || (nodes & (nodes - 1)) != 0)
    throw std::invalid_argument("tree_d: node count " + std::to_string(nodes) + " is not a power of two");
  check_engine(e, pad_precompute);
  std::memcpy(tree, data, nodes * 32);
  std::uint8_t* row = tree;
  for (std::uint64_t n = nodes; n > 1; n /= 2) {
    std::uint8_t* next = row + n * 32;
    hash_tree_d_row(e, row, n / 2, next, pad_precompute, 0);
    row = next;
  }
  sdr::bytes32 root;
  std::memcpy(root.data(), row, 32);
  return root;
}

const engine& tree_d_engine() { return fastest_engine(hash_family::sha256, std::size_t{1} << 20); }

sdr::tree_d_row_hasher make_tree_d_row_hasher(int threads) {
  const engine& e = tree_d_engine();
  const bool pad = e.sha256_pad64 != nullptr;
  return [&e, pad, threads](const std::uint8_t* row, std::uint64_t parents, std::uint8_t* next) {
    hash_tree_d_row(e, row, parents, next, pad, threads);
  };
}

}  // namespace poreplab::cpu
