#pragma once
// The key-derivation hashes of every labeling scheme over a message of 32-byte chunks
// that lie anywhere (header halves, parent labels), read in place: no message buffer
// is assembled. Count is a compile-time constant so device code unrolls completely.
#include <cstdint>

#include "poreplab/hash/blake2b.hpp"
#include "poreplab/hash/blake2s.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/hd.hpp"
#include "poreplab/sdr/scheme.hpp"

namespace poreplab::sdr {

// out = H(chunk(0) || ... || chunk(Count - 1)), 32 bytes: SHA-256, BLAKE2s-256 or
// BLAKE2b-256 (digest length 32 in its parameter block), all unkeyed. K applies to
// SHA-256 only: vec16 needs every chunk 16-byte aligned; rolled keeps the loop rolled.
template <hash_family H, std::uint32_t Count, kernel_variant K = kernel_variant::standard, class Chunk>
POREPLAB_HD void hash_chunks(const Chunk& chunk, std::uint8_t out[32]) {
  constexpr std::uint64_t kBytes = 32ull * Count;
  if constexpr (H == hash_family::sha256) {
    constexpr bool kAligned = K == kernel_variant::vec16;
    std::uint32_t h[8];
    sha256::init_state(h);
    // The first block is peeled: callers pass header halves from a local array there,
    // and constant indices keep that array in registers on the device.
    if constexpr (Count >= 2) sha256::compress2<kAligned>(h, chunk(0), chunk(1));
    if constexpr (K == kernel_variant::rolled) {
#if defined(__CUDA_ARCH__)
#pragma unroll 1
#endif
      for (std::uint32_t k = 2; k + 1 < Count; k += 2) sha256::compress2(h, chunk(k), chunk(k + 1));
    } else {
      POREPLAB_UNROLL
      for (std::uint32_t k = 2; k + 1 < Count; k += 2) sha256::compress2<kAligned>(h, chunk(k), chunk(k + 1));
    }
    if constexpr (Count % 2 == 1) {
      // The last chunk shares its block with the padding: 0x80, zeros, bit length.
      std::uint32_t m[16];
      const std::uint8_t* last = chunk(Count - 1);
      if constexpr (kAligned) {
        load_be32x8_aligned16(last, m);
      } else {
        POREPLAB_UNROLL
        for (int i = 0; i < 8; ++i) m[i] = load_be32(last + 4 * i);
      }
      m[8] = 0x80000000u;
      POREPLAB_UNROLL
      for (int i = 9; i < 15; ++i) m[i] = 0;
      m[15] = static_cast<std::uint32_t>(kBytes * 8);
      sha256::compress_words(h, m);
    } else if constexpr (Count == 2) {
      sha256::compress_padding64(h);
    } else {
      sha256::compress_length_block(h, kBytes);
    }
    sha256::store_digest(h, out);
  } else if constexpr (H == hash_family::blake2s) {
    std::uint32_t h[8];
    blake2s::init_state(h, 32, 0);
    if constexpr (Count >= 2) blake2s::compress2(h, chunk(0), chunk(1), 64, Count == 2);
    POREPLAB_UNROLL
    for (std::uint32_t k = 2; k + 1 < Count; k += 2)
      blake2s::compress2(h, chunk(k), chunk(k + 1), 32ull * (k + 2), k + 2 == Count);
    if constexpr (Count % 2 == 1) {
      std::uint32_t m[16];
      const std::uint8_t* last = chunk(Count - 1);
      POREPLAB_UNROLL
      for (int i = 0; i < 8; ++i) {
        m[i] = load_le32(last + 4 * i);
        m[8 + i] = 0;
      }
      blake2s::compress_words(h, m, static_cast<std::uint32_t>(kBytes), 0, true);
    }
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) store_le32(out + 4 * i, h[i]);
  } else if constexpr (H == hash_family::blake2b) {
    std::uint64_t h[8];
    blake2b::init_state(h, 32, 0);
    constexpr std::uint32_t kBlocks = (Count + 3) / 4;
    auto block = [&](std::uint32_t b) {
      // Four chunks a block; a short last block is zero-filled.
      std::uint64_t m[16];
      POREPLAB_UNROLL
      for (std::uint32_t q = 0; q < 4; ++q) {
        const std::uint32_t k = 4 * b + q;
        if (k < Count) {
          const std::uint8_t* c = chunk(k);
          POREPLAB_UNROLL
          for (int i = 0; i < 4; ++i) m[4 * q + i] = load_le64(c + 8 * i);
        } else {
          POREPLAB_UNROLL
          for (int i = 0; i < 4; ++i) m[4 * q + i] = 0;
        }
      }
      const bool last = b + 1 == kBlocks;
      const std::uint64_t t = last ? kBytes : 128ull * (b + 1);
      blake2b::compress_words(h, m, t, 0, last);
    };
    block(0);  // peeled, as above
    POREPLAB_UNROLL
    for (std::uint32_t b = 1; b < kBlocks; ++b) block(b);
    POREPLAB_UNROLL
    for (int i = 0; i < 4; ++i) store_le64(out + 8 * i, h[i]);
  } else {
    static_assert(unhandled_family<H>);
  }
}

}  // namespace poreplab::sdr
