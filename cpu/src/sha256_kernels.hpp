#pragma once
// Private to poreplab_cpu: the SHA-256 kernels behind the engine table (engines.cpp).
#include <cstddef>
#include <cstdint>

#include "kernels.hpp"

namespace poreplab::cpu::kernels {

// FIPS 180-4 4.2.2, laid out for vector loads.
alignas(64) inline constexpr std::uint32_t kSha256K[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u};

// Where a sha256_repeat_fn call keeps W+K: slot[f] for a first occurrence f that a later
// block repeats, among the call's first kTrackedBlocks blocks, at most kKeptBlocks of them
// (an SDR node keeps 3 or 7 of its 20); -1 elsewhere. A repeat of a block not kept is
// recomputed: the limits sha256_repeat_fn promises. (A plain array, not an object: the
// engines' W+K stores may alias anything, and an object's fields would be reloaded after each.)
constexpr std::size_t kTrackedBlocks = 32;
constexpr int kKeptBlocks = 8;
constexpr void kept_schedule_slots(const std::uint8_t* first_of, std::size_t nblocks, std::int8_t (&slot)[kTrackedBlocks]) {
  for (std::size_t k = 0; k < kTrackedBlocks; ++k) slot[k] = -1;
  int kept = 0;
  for (std::size_t k = 0; k < nblocks && kept < kKeptBlocks; ++k) {
    const std::size_t f = first_of[k];
    if (f < k && f < kTrackedBlocks && first_of[f] == f && slot[f] < 0) slot[f] = static_cast<std::int8_t>(kept++);
  }
}
// Block k's slots: `reused`, the W+K it runs on (-1: it needs its own schedule);
// `kept`, where its W+K goes (-1: nothing repeats it).
struct kept_slots {
  int reused, kept;
};
constexpr kept_slots kept_slots_of(const std::int8_t (&slot)[kTrackedBlocks], const std::uint8_t* first_of,
                                std::size_t k) {
  const std::size_t f = first_of[k];
  return {f < k && f < kTrackedBlocks ? slot[f] : -1, f == k && k < kTrackedBlocks ? slot[k] : -1};
}

void sha256_chains_shani(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                         std::size_t lanes);
void sha256_chains_shani_x2(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                            std::size_t lanes);
void sha256_chains_shani_x3(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                            std::size_t lanes);
void sha256_chains_shani_x4(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                            std::size_t lanes);
void sha256_chains_avx2_x8(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                           std::size_t lanes);
void sha256_chains_avx2_1(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                          std::size_t lanes);
void sha256_chains_avx512_x16(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                              std::size_t lanes);
void sha256_chains_avx512_x8(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                             std::size_t lanes);

void sha256_repeat_shani_x4(std::uint32_t* state, const std::uint8_t* const* chunks, const std::uint8_t* first_of,
                            std::size_t nblocks, std::size_t lanes);

void sha256_repeat_avx512_x16(std::uint32_t* state, const std::uint8_t* const* chunks, const std::uint8_t* first_of,
                              std::size_t nblocks, std::size_t lanes);
void sha256_repeat_avx512_x8(std::uint32_t* state, const std::uint8_t* const* chunks, const std::uint8_t* first_of,
                             std::size_t nblocks, std::size_t lanes);

void sha256_chain_ahead_shani(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                              std::uint32_t* ahead, const std::uint8_t* const* ahead_chunks, std::size_t lanes);

void sha256_sdr_node_shani(const std::uint32_t* header_state, const std::uint8_t* const* parents, std::uint32_t cycle,
                           std::uint8_t* out, std::uint32_t* ahead, const std::uint8_t* ahead_lo,
                           const std::uint8_t* ahead_hi);

// The many-lane whole-node entries: engines.hpp's sha256_sdr_nodes_fn (that header stays out
// of the ISA files, whose inline code would be built with their flags).
using sha256_sdr_nodes_kernel = void(const std::uint8_t* replica_ids, std::uint32_t layer, std::uint64_t node,
                                     const std::uint32_t* header_states, const std::uint8_t* const* parents,
                                     std::uint32_t cycle, std::size_t lanes, std::uint8_t* out);
sha256_sdr_nodes_kernel sha256_sdr_nodes_shani_x2, sha256_sdr_nodes_shani_x4, sha256_sdr_nodes_avx512_x16,
    sha256_sdr_nodes_avx512_x8;

void sha256_pad64_shani(std::uint32_t* state, std::size_t lanes);
void sha256_pad64_avx2_1(std::uint32_t* state, std::size_t lanes);
void sha256_pad64_avx512_x16(std::uint32_t* state, std::size_t lanes);
void sha256_pad64_avx512_x8(std::uint32_t* state, std::size_t lanes);
void sha256_pairs_avx512_x16(const std::uint8_t* in, std::size_t count, std::uint8_t* out, bool pad_precompute);
void sha256_pairs_avx512_x8(const std::uint8_t* in, std::size_t count, std::uint8_t* out, bool pad_precompute);

}  // namespace poreplab::cpu::kernels
