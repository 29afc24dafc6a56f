#pragma once
// Private to poreplab_cpu: one node's key-derivation message gathered into an aligned
// buffer, and its digest through an engine of the scheme's hash. Used by the cpu
// backend's BLAKE2 paths (the BLAKE2 engines take contiguous blocks), by the BLAKE2
// floor, and by the replication profile (profile.cpp), whose "fetch" phase is exactly
// the gather below. The SHA-256 labeling paths do not use it: they hand the engine
// pointers to the chunks where they lie, or with assembly gather copy them into
// per-lane buffers of their own (labeler.cpp).
//
// Messages (docs/spec/sdr.md section 5, docs/spec/r2-zigzag.md):
//   sdr    regular node: header(64) || 37 parent labels           = 1248 bytes
//          node 0:       header(64)                                 =   64 bytes
//   zigzag regular node: replica_id(32) || 5 base || 8 expander    =  448 bytes
//          a direction's first node: replica_id(32)                 =   32 bytes
// Padding: SHA-256 appends 0x80 and the 64-bit bit length (a constant tail, written
// once); BLAKE2 zero-pads the last block (the tail past the message stays zero) and
// compresses it with the counter t = message length and the final flag.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "poreplab/cpu/engines.hpp"
#include "poreplab/hash/blake2b.hpp"
#include "poreplab/hash/blake2s.hpp"
#include "poreplab/hash/bytes.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/sdr/label.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "poreplab/sdr/zigzag.hpp"

namespace poreplab::cpu::detail {

inline void prefetch_read(const void* p) { __builtin_prefetch(p, 0, 3); }
inline void prefetch_write(const void* p) { __builtin_prefetch(p, 1, 3); }

template <sdr::porep_variant V, sdr::label_hash H>
struct node_message {
  static constexpr bool kSha = H == sdr::label_hash::sha256;
  static constexpr std::size_t kBlock = H == sdr::label_hash::blake2b_256 ? 128 : 64;
  static constexpr std::uint64_t kBytes = sdr::message_bytes(V);                   // 1248 | 448
  static constexpr std::uint64_t kShortBytes = V == sdr::porep_variant::sdr ? 64 : 32;
  static constexpr std::size_t padded(std::uint64_t bytes) {
    return kSha ? static_cast<std::size_t>((bytes + 8) / 64 * 64 + 64)
                : static_cast<std::size_t>((bytes + kBlock - 1) / kBlock * kBlock);
  }
  static constexpr std::size_t kBufBytes = padded(kBytes);
  static constexpr std::size_t kShortBufBytes = padded(kShortBytes);
  static_assert(!kSha || kBufBytes / 64 == 20 || kBufBytes / 64 == 8);

  alignas(64) std::uint8_t msg[kBufBytes] = {};
  alignas(64) std::uint8_t short_msg[kShortBufBytes] = {};
  // SHA-256: the engine's chunk pointers, into msg / short_msg (one lane).
  const std::uint8_t* ptrs[kSha ? kBufBytes / 32 : 1] = {};
  const std::uint8_t* short_ptrs[kSha ? kShortBufBytes / 32 : 1] = {};

  node_message() {
    if constexpr (kSha) {
      msg[kBytes] = 0x80;
      store_be64(msg + kBufBytes - 8, kBytes * 8);
      short_msg[kShortBytes] = 0x80;
      store_be64(short_msg + kShortBufBytes - 8, kShortBytes * 8);
      for (std::size_t k = 0; k < kBufBytes / 32; ++k) ptrs[k] = msg + 32 * k;
      for (std::size_t k = 0; k < kShortBufBytes / 32; ++k) short_ptrs[k] = short_msg + 32 * k;
    }
  }
  node_message(const node_message&) = delete;
  node_message& operator=(const node_message&) = delete;

  // ---- gather (the "parent fetch") ----

  // sdr: the header of (replica_id, layer); the node field is set per node.
  void sdr_begin(const std::uint8_t* replica_id, std::uint32_t layer) {
    std::memcpy(msg, replica_id, 32);
    std::memset(msg + 32, 0, 32);
    store_be32(msg + 32, layer);
  }
  // sdr node 0: its message is the header alone.
  void sdr_gather_first() {
    store_be64(msg + 36, 0);
    std::memcpy(short_msg, msg, 64);
  }
  // sdr node v > 0: header || 37 parents (base ones from cur, expander from prev).
  void sdr_gather(std::uint32_t layer, std::uint64_t v, const std::uint32_t* par, const std::uint8_t* cur,
                  const std::uint8_t* prev, std::uint64_t stride) {
    store_be64(msg + 36, v);
    std::uint8_t* dst = msg + 64;
    if (layer == 1) {
      const std::uint8_t* p[sdr::kBaseDegree];
      for (std::uint32_t k = 0; k < sdr::kBaseDegree; ++k) p[k] = cur + par[k] * stride;
      for (std::uint32_t k = 0; k < sdr::kParentBlocks; ++k) std::memcpy(dst + 32 * k, p[k % sdr::kBaseDegree], 32);
    } else {
      const std::uint8_t* p[sdr::kParents];
      for (std::uint32_t k = 0; k < sdr::kParents; ++k) p[k] = (k < sdr::kBaseDegree ? cur : prev) + par[k] * stride;
      for (std::uint32_t k = 0; k < sdr::kParentBlocks; ++k) std::memcpy(dst + 32 * k, p[k % sdr::kParents], 32);
    }
  }

  // zigzag: replica_id leads every message of the sector.
  void zigzag_begin(const std::uint8_t* replica_id) {
    std::memcpy(msg, replica_id, 32);
    std::memcpy(short_msg, replica_id, 32);
  }
  // zigzag row [node, 5 base, 8 expander]: the 13 parents' current values.
  void zigzag_gather(const std::uint32_t* row, const std::uint8_t* buf, std::uint64_t stride) {
    for (std::uint32_t k = 1; k < sdr::kZigzagRowWords; ++k) std::memcpy(msg + 32 * k, buf + row[k] * stride, 32);
  }

  // ---- hash: out = mask(H(message)) ----
  void hash(const engine& e, std::uint8_t* out) const { digest<kBytes>(e, msg, ptrs, out); }
  void hash_short(const engine& e, std::uint8_t* out) const { digest<kShortBytes>(e, short_msg, short_ptrs, out); }

  template <std::uint64_t Len>
  static void digest(const engine& e, const std::uint8_t* buf, const std::uint8_t* const* chunk_ptrs,
                     std::uint8_t* out) {
    if constexpr (kSha) {
      std::uint32_t h[8];
      sha256::init_state(h);
      e.sha256(h, chunk_ptrs, padded(Len) / 64, 1);
      sha256::store_digest(h, out);
    } else if constexpr (H == sdr::label_hash::blake2s) {
      std::uint32_t h[8];
      blake2s::init_state(h, 32, 0);
      blake2_blocks<64, Len>(e.blake2s, h, buf);
      for (int i = 0; i < 8; ++i) store_le32(out + 4 * i, h[i]);
    } else {
      std::uint64_t h[8];
      blake2b::init_state(h, 32, 0);  // BLAKE2b-256: digest length 32 in the parameter block
      blake2_blocks<128, Len>(e.blake2b, h, buf);
      for (int i = 0; i < 4; ++i) store_le64(out + 8 * i, h[i]);
    }
    out[31] &= 0x3f;
  }

  // Whole blocks with counters B, 2B, ...; a short last block (zero-padded in the
  // buffer) as its own call with t = the message length. The last block is final.
  template <std::size_t B, std::uint64_t Len, class Word, class Fn>
  static void blake2_blocks(Fn fn, Word* h, const std::uint8_t* buf) {
    constexpr std::size_t whole = Len / B;
    if constexpr (Len % B == 0) {
      fn(h, buf, whole, B, true);
    } else {
      if constexpr (whole != 0) fn(h, buf, whole, B, false);
      fn(h, buf + whole * B, 1, Len, true);
    }
  }
};

}  // namespace poreplab::cpu::detail
