#pragma once
// Private to poreplab_cpu: the BLAKE2s and BLAKE2b kernels behind the engine table (engines.cpp).
#include <cstddef>
#include <cstdint>

#include "kernels.hpp"
#include "poreplab/hash/blake2_core.hpp"

namespace poreplab::cpu::kernels {

// RFC 7693 2.7 as a host table (rows addressable by pointer), built from common's
// sigma() so the permutation is written once.
struct blake2_sigma_table {
  std::uint8_t v[10][16];
};
constexpr blake2_sigma_table make_blake2_sigma_table() {
  blake2_sigma_table t{};
  for (int r = 0; r < 10; ++r)
    for (int i = 0; i < 16; ++i) t.v[r][i] = blake2::sigma(r, i);
  return t;
}
inline constexpr blake2_sigma_table kBlake2Sigma = make_blake2_sigma_table();

// Row-vectorised BLAKE2 keeps row b in place and, for the diagonal half-round, rotates
// rows a, c, d instead (see blake2s_avx512.cpp): lane i then runs G number
// kDiagG[i] = (i + 3) % 4, whose message words are sigma[8 + 2 * kDiagG[i]] and the next.
inline constexpr int kDiagG[4] = {3, 0, 1, 2};

void blake2s_blocks_avx2(std::uint32_t* h, const std::uint8_t* blocks, std::size_t nblocks, std::uint64_t t_first,
                         bool last_is_final);
void blake2s_blocks_avx512(std::uint32_t* h, const std::uint8_t* blocks, std::size_t nblocks, std::uint64_t t_first,
                           bool last_is_final);
void blake2b_blocks_avx2(std::uint64_t* h, const std::uint8_t* blocks, std::size_t nblocks, std::uint64_t t_first,
                         bool last_is_final);
void blake2b_blocks_avx512(std::uint64_t* h, const std::uint8_t* blocks, std::size_t nblocks, std::uint64_t t_first,
                           bool last_is_final);

// Multi-buffer BLAKE2 (blake2_lanes.hpp), blake2s_chains_fn / blake2b_chains_fn.
void blake2s_chains_avx2_x8(std::uint32_t* h, const std::uint8_t* const* chunks, std::size_t nblocks,
                            std::uint64_t t_first, bool last_is_final, std::size_t lanes);
void blake2b_chains_avx2_x4(std::uint64_t* h, const std::uint8_t* const* chunks, std::size_t nblocks,
                            std::uint64_t t_first, bool last_is_final, std::size_t lanes);
void blake2s_chains_avx512_x16(std::uint32_t* h, const std::uint8_t* const* chunks, std::size_t nblocks,
                               std::uint64_t t_first, bool last_is_final, std::size_t lanes);
void blake2b_chains_avx512_x8(std::uint64_t* h, const std::uint8_t* const* chunks, std::size_t nblocks,
                              std::uint64_t t_first, bool last_is_final, std::size_t lanes);

}  // namespace poreplab::cpu::kernels
