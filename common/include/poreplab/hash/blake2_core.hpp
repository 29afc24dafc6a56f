#pragma once
// BLAKE2 (RFC 7693) written once over its word size: blake2s.hpp and blake2b.hpp
// instantiate it with 32- and 64-bit words. Portable for host and CUDA device code.
#include <cstddef>
#include <cstdint>

#include "poreplab/hash/bytes.hpp"
#include "poreplab/hd.hpp"

namespace poreplab::blake2 {

// RFC 7693 2.7
POREPLAB_HD constexpr std::uint8_t sigma(int round, int i) {
  constexpr std::uint8_t s[10][16] = {
      {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
      {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
      {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
      {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
      {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
      {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
      {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
      {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
      {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
      {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0}};
  return s[round % 10][i];
}

// Traits: word type W, rounds, G rotations, IV (RFC 7693 2.1, 2.6).
struct traits_s {
  using word = std::uint32_t;
  static constexpr int kRounds = 10;
  static constexpr unsigned kR1 = 16, kR2 = 12, kR3 = 8, kR4 = 7;
  POREPLAB_HD static word iv(int i) {
    constexpr word v[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                           0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
    return v[i];
  }
  POREPLAB_HD static word rotr(word x, unsigned n) { return rotr32(x, n); }
  POREPLAB_HD static word load(const std::uint8_t* p) { return load_le32(p); }
  POREPLAB_HD static void store(std::uint8_t* p, word v) { store_le32(p, v); }
};

struct traits_b {
  using word = std::uint64_t;
  static constexpr int kRounds = 12;
  static constexpr unsigned kR1 = 32, kR2 = 24, kR3 = 16, kR4 = 63;
  POREPLAB_HD static word iv(int i) {
    constexpr word v[8] = {0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull,
                           0xa54ff53a5f1d36f1ull, 0x510e527fade682d1ull, 0x9b05688c2b3e6c1full,
                           0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull};
    return v[i];
  }
  POREPLAB_HD static word rotr(word x, unsigned n) { return rotr64(x, n); }
  POREPLAB_HD static word load(const std::uint8_t* p) { return load_le64(p); }
  POREPLAB_HD static void store(std::uint8_t* p, word v) { store_le64(p, v); }
};

template <class T>
struct hasher {
  using word = typename T::word;
  static constexpr std::size_t kWordBytes = sizeof(word);
  static constexpr std::size_t kBlockBytes = 16 * kWordBytes;
  static constexpr std::size_t kMaxDigestBytes = 8 * kWordBytes;
  static constexpr std::size_t kMaxKeyBytes = 8 * kWordBytes;

  POREPLAB_HD static void g(word v[16], int a, int b, int c, int d, word x, word y) {
    v[a] = v[a] + v[b] + x; v[d] = T::rotr(v[d] ^ v[a], T::kR1);
    v[c] = v[c] + v[d];     v[b] = T::rotr(v[b] ^ v[c], T::kR2);
    v[a] = v[a] + v[b] + y; v[d] = T::rotr(v[d] ^ v[a], T::kR3);
    v[c] = v[c] + v[d];     v[b] = T::rotr(v[b] ^ v[c], T::kR4);
  }

  // Compression F over decoded message words. (t_lo, t_hi) = bytes absorbed including
  // this block; last = final-block flag.
  POREPLAB_HD static void compress_words(word h[8], const word m[16], word t_lo, word t_hi, bool last) {
    word v[16];
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) {
      v[i] = h[i];
      v[i + 8] = T::iv(i);
    }
    v[12] ^= t_lo;
    v[13] ^= t_hi;
    if (last) v[14] = ~v[14];
    POREPLAB_UNROLL
    for (int r = 0; r < T::kRounds; ++r) {
      g(v, 0, 4, 8, 12, m[sigma(r, 0)], m[sigma(r, 1)]);
      g(v, 1, 5, 9, 13, m[sigma(r, 2)], m[sigma(r, 3)]);
      g(v, 2, 6, 10, 14, m[sigma(r, 4)], m[sigma(r, 5)]);
      g(v, 3, 7, 11, 15, m[sigma(r, 6)], m[sigma(r, 7)]);
      g(v, 0, 5, 10, 15, m[sigma(r, 8)], m[sigma(r, 9)]);
      g(v, 1, 6, 11, 12, m[sigma(r, 10)], m[sigma(r, 11)]);
      g(v, 2, 7, 8, 13, m[sigma(r, 12)], m[sigma(r, 13)]);
      g(v, 3, 4, 9, 14, m[sigma(r, 14)], m[sigma(r, 15)]);
    }
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) h[i] ^= v[i] ^ v[i + 8];
  }

  // One compression over the block lo || hi (each half kBlockBytes/2), read in place.
  POREPLAB_HD static void compress2(word h[8], const std::uint8_t* lo, const std::uint8_t* hi,
                                    std::uint64_t t, bool last) {
    word m[16];
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) {
      m[i] = T::load(lo + kWordBytes * i);
      m[8 + i] = T::load(hi + kWordBytes * i);
    }
    compress_words(h, m, static_cast<word>(t), kWordBytes == 4 ? static_cast<word>(t >> 32 & 0xffffffffu) : word{0},
                   last);
  }

  POREPLAB_HD static void compress(word h[8], const std::uint8_t* block, std::uint64_t t, bool last) {
    compress2(h, block, block + kBlockBytes / 2, t, last);
  }

  // Parameter block word 0: digest length, key length, fanout 1, depth 1.
  POREPLAB_HD static void init_state(word h[8], std::size_t outlen, std::size_t keylen) {
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) h[i] = T::iv(i);
    h[0] ^= static_cast<word>(0x01010000u ^ (keylen << 8) ^ outlen);
  }

  struct ctx {
    word h[8];
    std::uint64_t t;  // bytes absorbed; 2^64 bytes is far beyond any input here
    std::uint8_t buf[kBlockBytes];
    std::uint32_t buf_len;
    std::uint32_t outlen;
  };

  // outlen 1..kMaxDigestBytes, keylen 0..kMaxKeyBytes; callers validate (host code
  // goes through checked wrappers), out-of-range values are clamped here.
  POREPLAB_HD static void init(ctx& c, std::size_t outlen = kMaxDigestBytes, const void* key = nullptr,
                               std::size_t keylen = 0) {
    if (outlen == 0 || outlen > kMaxDigestBytes) outlen = kMaxDigestBytes;
    if (keylen > kMaxKeyBytes) keylen = kMaxKeyBytes;
    init_state(c.h, outlen, keylen);
    c.t = 0;
    c.buf_len = 0;
    c.outlen = static_cast<std::uint32_t>(outlen);
    if (keylen != 0) {
      const auto* k = static_cast<const std::uint8_t*>(key);
      for (std::size_t i = 0; i < kBlockBytes; ++i) c.buf[i] = i < keylen ? k[i] : 0;
      c.buf_len = kBlockBytes;
    }
  }

  // The last block is held back until final(), which must set the final flag on it.
  POREPLAB_HD static void update(ctx& c, const void* data, std::size_t len) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    while (len != 0) {
      if (c.buf_len == kBlockBytes) {
        c.t += kBlockBytes;
        compress(c.h, c.buf, c.t, false);
        c.buf_len = 0;
      }
      if (c.buf_len == 0) {
        for (; len > kBlockBytes; len -= kBlockBytes, p += kBlockBytes) {
          c.t += kBlockBytes;
          compress(c.h, p, c.t, false);
        }
      }
      while (len != 0 && c.buf_len < kBlockBytes) {
        c.buf[c.buf_len++] = *p++;
        --len;
      }
    }
  }

  POREPLAB_HD static void final(ctx& c, std::uint8_t* out) {
    c.t += c.buf_len;
    for (std::uint32_t i = c.buf_len; i < kBlockBytes; ++i) c.buf[i] = 0;
    compress(c.h, c.buf, c.t, true);
    std::uint8_t full[kMaxDigestBytes];
    POREPLAB_UNROLL
    for (int i = 0; i < 8; ++i) T::store(full + kWordBytes * i, c.h[i]);
    for (std::uint32_t i = 0; i < c.outlen; ++i) out[i] = full[i];
  }

  POREPLAB_HD static void digest(std::uint8_t* out, std::size_t outlen, const void* data, std::size_t len,
                                 const void* key = nullptr, std::size_t keylen = 0) {
    ctx c;
    init(c, outlen, key, keylen);
    update(c, data, len);
    final(c, out);
  }
};

}  // namespace poreplab::blake2
