#pragma once
// PC2's device kernel, one functor for the CUDA backend and cuda-emu: a batch of Poseidon
// hashes, one per thread, on the 32-bit-word field arithmetic (fr32.hpp). Preimage
// element k of hash i is at src[k] + i * stride, which covers both column hashes (src[k]
// = layer k, stride 32) and tree levels (src[k] = row + 32 k, stride 32 * arity).
// Inputs are canonical (the builder checks them on the host); outputs canonical bytes.
#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "poreplab/field/fr32.hpp"
#include "poreplab/hash/poseidon_fr32.hpp"
#include "poreplab/hash/poseidon_perm.hpp"
#include "poreplab/hd.hpp"
#include "poreplab/sdr/pc2_build.hpp"

namespace poreplab::sdr {

template <int Arity>
struct poseidon_batch_kernel {
  using rounds = poseidon::optimized_rounds<fr32::ops, poseidon::device_constants<Arity + 1>>;
  poseidon::device_constants<Arity + 1> c;
  const std::uint8_t* src[Arity];
  std::uint64_t stride = 0;
  std::uint8_t* out = nullptr;
  std::uint64_t count = 0;

  POREPLAB_HD void operator()(std::uint64_t i) const {
    if (i >= count) return;
    fr32::elem x[Arity];
    POREPLAB_WIDTH_UNROLL
    for (int k = 0; k < Arity; ++k) x[k] = fr32::from_bytes(src[k] + i * stride);
    fr32::to_bytes(rounds::hash(c, x), out + 32 * i);
  }
};

// The kernel over `count` columns of Arity layers (one pointer each).
template <int Arity>
poseidon_batch_kernel<Arity> column_batch(const poseidon::device_constants<Arity + 1>& c,
                                          const std::uint8_t* const* layers, std::uint64_t count, std::uint8_t* out) {
  poseidon_batch_kernel<Arity> k{c, {}, 32, out, count};
  for (int l = 0; l < Arity; ++l) k.src[l] = layers[l];
  return k;
}

// The kernel over `count` groups of Arity consecutive nodes of a tree row.
template <int Arity>
poseidon_batch_kernel<Arity> level_batch(const poseidon::device_constants<Arity + 1>& c, const std::uint8_t* in,
                                         std::uint64_t count, std::uint8_t* out) {
  poseidon_batch_kernel<Arity> k{c, {}, 32u * Arity, out, count};
  for (int l = 0; l < Arity; ++l) k.src[l] = in + 32 * l;
  return k;
}

// The arities PC2 runs: columns of 2 and 11 layers, tree levels of 8, comm_r (and the
// 64GiB shape's top) of 2. Calls f(std::integral_constant<int, arity>{}).
inline constexpr int kPc2Arities[] = {2, 8, 11};

template <class F>
decltype(auto) with_pc2_arity(std::uint32_t arity, F&& f) {
  switch (arity) {
    case 2: return f(std::integral_constant<int, 2>{});
    case 8: return f(std::integral_constant<int, 8>{});
    case 11: return f(std::integral_constant<int, 11>{});
    default:
      throw std::invalid_argument("no PC2 kernel hashes " + std::to_string(arity) + " inputs (2, 8 or 11)");
  }
}

// The constants of every PC2 arity, as the device reads them.
struct pc2_device_constants {
  poseidon::device_constants<3> arity2;
  poseidon::device_constants<9> arity8;
  poseidon::device_constants<12> arity11;
};

// One chunk's launches as the device runs them (cuda, and cuda-emu over host memory).
// With 2 or 11 layers (`layers`: each layer's slice for this chunk, readable by the
// kernels once staged), the columns' kernel in pieces of `piece` leaves, each launched
// after stage(first, n, piece_index) has made that slice readable; with one layer, stage
// puts the leaves into row 0 of `rows`. Then one launch a row above them, each reading the
// row below it in `rows` (row r at chunk_row_offset(leaves, r)). launch(kernel, count,
// piece_index) runs a kernel; piece_index is -1 for the rows above the leaves.
template <class Stage, class Launch>
void chunk_schedule(const pc2_device_constants& c, std::span<const std::uint8_t* const> layers, std::uint64_t leaves,
                    std::uint32_t levels, std::uint64_t piece, std::uint8_t* rows, Stage&& stage, Launch&& launch) {
  std::int64_t index = 0;
  for (std::uint64_t first = 0; first < leaves; first += piece, ++index) {
    const std::uint64_t n = std::min(piece, leaves - first);
    stage(first, n, index);
    const auto columns = [&](auto a, const auto& constants) {
      constexpr int A = decltype(a)::value;
      const std::uint8_t* from[A];
      for (int l = 0; l < A; ++l) from[l] = layers[l] + 32 * first;
      launch(column_batch<A>(constants, from, n, rows + 32 * first), n, index);
    };
    if (layers.size() == 2) columns(std::integral_constant<int, 2>{}, c.arity2);
    if (layers.size() == 11) columns(std::integral_constant<int, 11>{}, c.arity11);
  }
  std::uint64_t w = leaves;
  for (std::uint32_t r = 1; r <= levels; ++r, w /= 8)
    launch(level_batch<8>(c.arity8, rows + 32 * chunk_row_offset(leaves, r - 1), w / 8,
                          rows + 32 * chunk_row_offset(leaves, r)),
           w / 8, std::int64_t{-1});
}

}  // namespace poreplab::sdr
