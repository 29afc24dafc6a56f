#pragma once
// Hash-chain kernel functors of the hash benchmark, written once for the device
// (cuda/src/bench.cu launches them) and the host (cuda-emu and the tests). Each is named
// <family>_chain_kernel: the SASS model finds a family's by that name.
#include <cstdint>

#include "poreplab/hash/blake2b.hpp"
#include "poreplab/hash/blake2s.hpp"
#include "poreplab/hash/family.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/hd.hpp"

namespace poreplab::hashbench {

// Chain step i of chain `gid`: the message block is the current state (the dependency
// that keeps steps from overlapping or being hoisted) followed by eight words that
// depend on the chain only. Starting from the algorithm's IV, one step is:
//   sha256:  the state after absorbing the 64-byte block (words big-endian);
//   blake2s: blake2s-256 of that 64-byte block (words little-endian);
//   blake2b: blake2b-512 of that 128-byte block (words little-endian);
// so step 1 can be checked against the portable streaming hashes.
POREPLAB_HD std::uint32_t chain_word(std::uint64_t gid, int i) {
  // Weyl sequence: odd constant times (gid, i), distinct per chain and word.
  return static_cast<std::uint32_t>((gid * 16 + static_cast<std::uint64_t>(i) + 1) * 0x9e3779b97f4a7c15ull >> 32);
}

// Each thread gid < chains runs `length` dependent compressions and writes its final
// state (digest byte order) to out + gid * state_bytes. Latency runs one chain, throughput
// runs many; the same functor serves both.
struct sha256_chain_kernel {
  static constexpr hash_family kAlgo = hash_family::sha256;
  static constexpr auto kStateBytes = static_cast<std::uint32_t>(full_digest_bytes(kAlgo));
  static constexpr auto kBlockBytes = static_cast<std::uint32_t>(compression_block_bytes(kAlgo));
  std::uint64_t chains;
  std::uint64_t length;
  std::uint8_t* out;

  POREPLAB_HD void operator()(std::uint64_t gid) const {
    if (gid >= chains) return;
    std::uint32_t h[8], m[16];
    sha256::init_state(h);
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) m[8 + i] = chain_word(gid, i);
    for (std::uint64_t k = 0; k < length; ++k) {
      POREPLAB_UNROLL
      for (int i = 0; i < 8; ++i) m[i] = h[i];
      sha256::compress_words(h, m);
    }
    sha256::store_digest(h, out + gid * kStateBytes);
  }
};

struct blake2s_chain_kernel {
  static constexpr hash_family kAlgo = hash_family::blake2s;
  static constexpr auto kStateBytes = static_cast<std::uint32_t>(full_digest_bytes(kAlgo));
  static constexpr auto kBlockBytes = static_cast<std::uint32_t>(compression_block_bytes(kAlgo));
  std::uint64_t chains;
  std::uint64_t length;
  std::uint8_t* out;

  POREPLAB_HD void operator()(std::uint64_t gid) const {
    if (gid >= chains) return;
    std::uint32_t h[8], m[16];
    blake2s::init_state(h, 32, 0);
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) m[8 + i] = chain_word(gid, i);
    for (std::uint64_t k = 0; k < length; ++k) {
      POREPLAB_UNROLL
      for (int i = 0; i < 8; ++i) m[i] = h[i];
      blake2s::compress_words(h, m, kBlockBytes, 0, true);
    }
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) store_le32(out + gid * kStateBytes + 4 * i, h[i]);
  }
};

struct blake2b_chain_kernel {
  static constexpr hash_family kAlgo = hash_family::blake2b;
  static constexpr auto kStateBytes = static_cast<std::uint32_t>(full_digest_bytes(kAlgo));
  static constexpr auto kBlockBytes = static_cast<std::uint32_t>(compression_block_bytes(kAlgo));
  std::uint64_t chains;
  std::uint64_t length;
  std::uint8_t* out;

  POREPLAB_HD void operator()(std::uint64_t gid) const {
    if (gid >= chains) return;
    std::uint64_t h[8], m[16];
    blake2b::init_state(h, 64, 0);
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i)
      m[8 + i] = static_cast<std::uint64_t>(chain_word(gid, 2 * i + 1)) << 32 | chain_word(gid, 2 * i);
    for (std::uint64_t k = 0; k < length; ++k) {
      POREPLAB_UNROLL
      for (int i = 0; i < 8; ++i) m[i] = h[i];
      blake2b::compress_words(h, m, kBlockBytes, 0, true);
    }
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) store_le64(out + gid * kStateBytes + 8 * i, h[i]);
  }
};

// A family's chain kernel, for code that picks it with with_family: a family with no
// specialization is an incomplete type where it is launched.
template <hash_family>
struct chain_kernel_for;
template <>
struct chain_kernel_for<hash_family::sha256> {
  using type = sha256_chain_kernel;
};
template <>
struct chain_kernel_for<hash_family::blake2s> {
  using type = blake2s_chain_kernel;
};
template <>
struct chain_kernel_for<hash_family::blake2b> {
  using type = blake2b_chain_kernel;
};

}  // namespace poreplab::hashbench
