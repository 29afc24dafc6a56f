#pragma once
// ChaCha8 keystream as rand_chacha 0.3 ChaCha8Rng produces it (docs/spec/sdr.md section 3): djb
// layout, 256-bit key, 64-bit block counter in words 12..13, stream words 14..15 = 0.
#include <cstdint>

#include "poreplab/hash/bytes.hpp"
#include "poreplab/hd.hpp"

namespace poreplab::graph {

POREPLAB_HD std::uint32_t chacha_rotl(std::uint32_t x, unsigned n) { return rotr32(x, 32 - n); }

POREPLAB_HD void chacha_quarter(std::uint32_t x[16], int a, int b, int c, int d) {
  x[a] += x[b]; x[d] = chacha_rotl(x[d] ^ x[a], 16);
  x[c] += x[d]; x[b] = chacha_rotl(x[b] ^ x[c], 12);
  x[a] += x[b]; x[d] = chacha_rotl(x[d] ^ x[a], 8);
  x[c] += x[d]; x[b] = chacha_rotl(x[b] ^ x[c], 7);
}

// One 64-byte block as 16 words: out = rounds(state) + state.
POREPLAB_HD void chacha8_block(const std::uint32_t key[8], std::uint64_t counter, std::uint32_t out[16]) {
  std::uint32_t s[16];
  s[0] = 0x61707865u;  // "expand 32-byte k"
  s[1] = 0x3320646eu;
  s[2] = 0x79622d32u;
  s[3] = 0x6b206574u;
  POREPLAB_UNROLL
  for (int i = 0; i < 8; ++i) s[4 + i] = key[i];
  s[12] = static_cast<std::uint32_t>(counter);
  s[13] = static_cast<std::uint32_t>(counter >> 32);
  s[14] = 0;
  s[15] = 0;
  POREPLAB_UNROLL
  for (int i = 0; i < 16; ++i) out[i] = s[i];
  POREPLAB_UNROLL
  for (int r = 0; r < 4; ++r) {  // 4 double rounds = 8 rounds
    chacha_quarter(out, 0, 4, 8, 12);
    chacha_quarter(out, 1, 5, 9, 13);
    chacha_quarter(out, 2, 6, 10, 14);
    chacha_quarter(out, 3, 7, 11, 15);
    chacha_quarter(out, 0, 5, 10, 15);
    chacha_quarter(out, 1, 6, 11, 12);
    chacha_quarter(out, 2, 7, 8, 13);
    chacha_quarter(out, 3, 4, 9, 14);
  }
  POREPLAB_UNROLL
  for (int i = 0; i < 16; ++i) out[i] += s[i];
}

// Sequential word reader over the keystream, like rand_core's BlockRng.
struct chacha8_rng {
  std::uint32_t key[8];
  std::uint64_t counter;  // next block to generate
  std::uint32_t buf[16];
  std::uint32_t pos;      // next unread word of buf; 16 = empty
};

POREPLAB_HD void chacha8_seed(chacha8_rng& r, const std::uint8_t seed[32]) {
  POREPLAB_UNROLL
  for (int i = 0; i < 8; ++i) r.key[i] = load_le32(seed + 4 * i);
  r.counter = 0;
  r.pos = 16;
}

POREPLAB_HD std::uint32_t chacha8_next_u32(chacha8_rng& r) {
  if (r.pos == 16) {
    chacha8_block(r.key, r.counter++, r.buf);
    r.pos = 0;
  }
  return r.buf[r.pos++];
}

// rand_core: low word first, also across a block boundary.
POREPLAB_HD std::uint64_t chacha8_next_u64(chacha8_rng& r) {
  const std::uint64_t lo = chacha8_next_u32(r);
  const std::uint64_t hi = chacha8_next_u32(r);
  return lo | hi << 32;
}

}  // namespace poreplab::graph
