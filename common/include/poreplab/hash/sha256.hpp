#pragma once
// SHA-256 (FIPS 180-4), portable, for host and CUDA device code.
// compress*() read message words straight from their inputs: labeling feeds parent
// labels into the compression function without first gathering them into a buffer.
#include <cstddef>
#include <cstdint>

#include "poreplab/hash/bytes.hpp"
#include "poreplab/hd.hpp"

namespace poreplab::sha256 {

inline constexpr std::size_t kBlockBytes = 64;
inline constexpr std::size_t kDigestBytes = 32;

// FIPS 180-4 5.3.3
POREPLAB_HD void init_state(std::uint32_t h[8]) {
  h[0] = 0x6a09e667u; h[1] = 0xbb67ae85u; h[2] = 0x3c6ef372u; h[3] = 0xa54ff53au;
  h[4] = 0x510e527fu; h[5] = 0x9b05688cu; h[6] = 0x1f83d9abu; h[7] = 0x5be0cd19u;
}

// FIPS 180-4 4.2.2
constexpr std::uint32_t round_constant(int t) {
  constexpr std::uint32_t k[64] = {
      0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u,
      0xab1c5ed5u, 0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu,
      0x9bdc06a7u, 0xc19bf174u, 0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu,
      0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau, 0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u,
      0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u, 0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu,
      0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u, 0xa2bfe8a1u, 0xa81a664bu,
      0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u, 0x19a4c116u,
      0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
      0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u,
      0xc67178f2u};
  return k[t];
}

// The eight working variables of a compression.
struct round_state {
  std::uint32_t a, b, c, d, e, f, g, h;
};

// One round, wk = W[t] + K[t]. h and d were set three rounds earlier, so h + wk + d is
// summed off the serial path: the new e is then Sigma1(e) + Ch(e, f, g) + that sum, one
// three-input add after the rotations (an in-order GPU thread waits on every link). The
// new a is T1 + T2 = (new e - d) + Sigma0(a) + Maj(a, b, c), written so, so that no
// partial sum Sigma1 + Ch is shared to lengthen the e chain.
POREPLAB_HD void round(round_state& s, std::uint32_t wk) {
  const std::uint32_t hkd = s.h + wk + s.d;
  const std::uint32_t sigma1 = rotr32(s.e, 6) ^ rotr32(s.e, 11) ^ rotr32(s.e, 25);
  const std::uint32_t ch = (s.e & s.f) ^ (~s.e & s.g);
  const std::uint32_t sigma0 = rotr32(s.a, 2) ^ rotr32(s.a, 13) ^ rotr32(s.a, 22);
  const std::uint32_t maj = (s.a & s.b) ^ (s.a & s.c) ^ (s.b & s.c);
  const std::uint32_t e = sigma1 + ch + hkd;
#if defined(__CUDA_ARCH__)
  // One add after e: the compiler would otherwise fold Maj and d into an add on e first.
  std::uint32_t a;
  asm("add.u32 %0, %1, %2;" : "=r"(a) : "r"(e), "r"(sigma0 + maj - s.d));
#else
  const std::uint32_t a = e + (sigma0 + maj - s.d);
#endif
  s.h = s.g; s.g = s.f; s.f = s.e; s.e = e; s.d = s.c; s.c = s.b; s.b = s.a; s.a = a;
}

POREPLAB_HD void add_state(std::uint32_t h[8], const round_state& s) {
  h[0] += s.a; h[1] += s.b; h[2] += s.c; h[3] += s.d; h[4] += s.e; h[5] += s.f; h[6] += s.g; h[7] += s.h;
}

// One compression over 16 message words already in big-endian numeric form.
// The message schedule is computed beside the rounds here, and the rounds keep the
// textbook form: with the schedule interleaved, the GPU compiler orders this one better
// for a thread per sector than round()'s (docs/cuda-backend.md, "Latency kernels").
POREPLAB_HD void compress_words(std::uint32_t h[8], const std::uint32_t m[16]) {
  std::uint32_t w[16];
  POREPLAB_UNROLL
  for (int t = 0; t < 16; ++t) w[t] = m[t];
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  POREPLAB_UNROLL
  for (int t = 0; t < 64; ++t) {
    std::uint32_t wt;
    if (t < 16) {
      wt = w[t];
    } else {
      const std::uint32_t w15 = w[(t - 15) & 15], w2 = w[(t - 2) & 15];
      const std::uint32_t s0 = rotr32(w15, 7) ^ rotr32(w15, 18) ^ (w15 >> 3);
      const std::uint32_t s1 = rotr32(w2, 17) ^ rotr32(w2, 19) ^ (w2 >> 10);
      wt = w[t & 15] = w[t & 15] + s0 + w[(t - 7) & 15] + s1;
    }
    const std::uint32_t t1 = hh + (rotr32(e, 6) ^ rotr32(e, 11) ^ rotr32(e, 25)) +
                             ((e & f) ^ (~e & g)) + round_constant(t) + wt;
    const std::uint32_t t2 = (rotr32(a, 2) ^ rotr32(a, 13) ^ rotr32(a, 22)) +
                             ((a & b) ^ (a & c) ^ (b & c));
    hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

// One compression over the 64-byte block lo32 || hi32, read in place (no copy of
// the two halves into a contiguous buffer).
// Aligned16: both halves lie at 16-byte aligned addresses (read as 16-byte loads on the device).
template <bool Aligned16 = false>
POREPLAB_HD void compress2(std::uint32_t h[8], const std::uint8_t* lo32, const std::uint8_t* hi32) {
  std::uint32_t m[16];
  if constexpr (Aligned16) {
    load_be32x8_aligned16(lo32, m);
    load_be32x8_aligned16(hi32, m + 8);
  } else {
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) {
      m[i] = load_be32(lo32 + 4 * i);
      m[8 + i] = load_be32(hi32 + 4 * i);
    }
  }
  compress_words(h, m);
}

POREPLAB_HD void compress(std::uint32_t h[8], const std::uint8_t* block) {
  compress2(h, block, block + 32);
}

// The last block of a message whose length is a multiple of 64 bytes is a constant:
// 0x80, zeros, bit length. Its words are built here rather than in memory.
POREPLAB_HD void compress_length_block(std::uint32_t h[8], std::uint64_t message_bytes) {
  std::uint32_t m[16] = {0x80000000u, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const std::uint64_t bits = message_bytes * 8;
  m[14] = static_cast<std::uint32_t>(bits >> 32);
  m[15] = static_cast<std::uint32_t>(bits);
  compress_words(h, m);
}

// The 64 rounds of one compression from a precomputed schedule wk[t] = W[t] + K[t]:
// what is left on the serial path once the message schedule is computed elsewhere
// (a constant block below; the GPU's pipelined label kernels, label_pipelined.hpp).
// wk may lie in slow memory (GPU shared memory): each group of four words is read a
// group ahead of its rounds, so the reads overlap rounds rather than stall them.
POREPLAB_HD void compress_scheduled(std::uint32_t h[8], const std::uint32_t wk[64]) {
  round_state s{h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]};
  std::uint32_t next[4] = {wk[0], wk[1], wk[2], wk[3]};
  POREPLAB_UNROLL
  for (int t = 0; t < 64; t += 4) {
    const std::uint32_t cur[4] = {next[0], next[1], next[2], next[3]};
    if (t + 4 < 64) {
      POREPLAB_UNROLL
      for (int i = 0; i < 4; ++i) next[i] = wk[t + 4 + i];
    }
    POREPLAB_UNROLL
    for (int i = 0; i < 4; ++i) round(s, cur[i]);
  }
  add_state(h, s);
}

// wk[t] = W[t] + K[t] for the 16 message words m (big-endian numeric form). Plain
// shifts rather than rotr32 keep it constexpr; the device compiler emits funnel shifts.
POREPLAB_HD constexpr void expand_schedule(const std::uint32_t m[16], std::uint32_t wk[64]) {
  auto rot = [](std::uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); };
  std::uint32_t w[16] = {};
  POREPLAB_UNROLL
  for (int t = 0; t < 16; ++t) w[t] = m[t];
  POREPLAB_UNROLL
  for (int t = 0; t < 64; ++t) {
    if (t >= 16) {
      const std::uint32_t w15 = w[(t - 15) & 15], w2 = w[(t - 2) & 15];
      w[t & 15] += (rot(w15, 7) ^ rot(w15, 18) ^ (w15 >> 3)) + w[(t - 7) & 15] + (rot(w2, 17) ^ rot(w2, 19) ^ (w2 >> 10));
    }
    wk[t] = w[t & 15] + round_constant(t);
  }
}

// W[t] + K[t] of the padding block of a 64-byte message (0x80, zeros, length 512):
// a compile-time constant, so hashing two 32-byte nodes (Merkle trees, SDR node 0)
// skips that block's message schedule (docs/spec/merkle-padding.md).
struct padding64_schedule {
  std::uint32_t wk[64];
};

constexpr padding64_schedule make_padding64_schedule() {
  padding64_schedule s{};
  const std::uint32_t m[16] = {0x80000000u, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 512};
  expand_schedule(m, s.wk);
  return s;
}

POREPLAB_HD void compress_padding64(std::uint32_t h[8]) {
  constexpr padding64_schedule s = make_padding64_schedule();
  compress_scheduled(h, s.wk);
}

// mask(SHA256(left || right)) as used by tree_d and the SDR: two compressions, the
// second with the precomputed padding schedule.
POREPLAB_HD void hash_pair_masked(const std::uint8_t* left32, const std::uint8_t* right32, std::uint8_t out[32]);

POREPLAB_HD void store_digest(const std::uint32_t h[8], std::uint8_t out[32]) {
  POREPLAB_UNROLL
  for (int i = 0; i < 8; ++i) store_be32(out + 4 * i, h[i]);
}

POREPLAB_HD void hash_pair_masked(const std::uint8_t* left32, const std::uint8_t* right32, std::uint8_t out[32]) {
  std::uint32_t h[8];
  init_state(h);
  compress2(h, left32, right32);
  compress_padding64(h);
  store_digest(h, out);
  out[31] &= 0x3f;
}

// Streaming API.
struct ctx {
  std::uint32_t h[8];
  std::uint64_t total;  // bytes absorbed
  std::uint8_t buf[64];
  std::uint32_t buf_len;
};

POREPLAB_HD void init(ctx& c) {
  init_state(c.h);
  c.total = 0;
  c.buf_len = 0;
}

POREPLAB_HD void update(ctx& c, const void* data, std::size_t len) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  c.total += len;
  if (c.buf_len != 0) {
    while (len != 0 && c.buf_len < 64) {
      c.buf[c.buf_len++] = *p++;
      --len;
    }
    if (c.buf_len < 64) return;
    compress(c.h, c.buf);
    c.buf_len = 0;
  }
  for (; len >= 64; len -= 64, p += 64) compress(c.h, p);
  for (std::size_t i = 0; i < len; ++i) c.buf[i] = p[i];
  c.buf_len = static_cast<std::uint32_t>(len);
}

POREPLAB_HD void final(ctx& c, std::uint8_t out[32]) {
  const std::uint64_t bits = c.total * 8;
  std::uint32_t n = c.buf_len;
  c.buf[n++] = 0x80;
  if (n > 56) {
    while (n < 64) c.buf[n++] = 0;
    compress(c.h, c.buf);
    n = 0;
  }
  while (n < 56) c.buf[n++] = 0;
  store_be64(c.buf + 56, bits);
  compress(c.h, c.buf);
  store_digest(c.h, out);
}

POREPLAB_HD void digest(std::uint8_t out[32], const void* data, std::size_t len) {
  ctx c;
  init(c);
  update(c, data, len);
  final(c, out);
}

}  // namespace poreplab::sha256
