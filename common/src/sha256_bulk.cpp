#include "poreplab/hash/sha256_bulk.hpp"

#include <algorithm>
#include <stdexcept>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define POREPLAB_BULK_SHANI 1
#endif

namespace poreplab::sha256 {

void compress_blocks_portable(std::uint32_t h[8], const std::uint8_t* p, std::size_t nblocks) {
  for (std::size_t b = 0; b < nblocks; ++b) compress(h, p + 64 * b);
}

#if defined(POREPLAB_BULK_SHANI)
namespace {

bool cpu_has_shani() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return false;
  const bool ssse3 = (c & (1u << 9)) != 0, sse41 = (c & (1u << 19)) != 0;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  return ssse3 && sse41 && (b & (1u << 29)) != 0;
}

alignas(16) constexpr std::uint32_t kK[64] = {
#define K(t) round_constant(t)
    K(0),  K(1),  K(2),  K(3),  K(4),  K(5),  K(6),  K(7),  K(8),  K(9),  K(10), K(11), K(12),
    K(13), K(14), K(15), K(16), K(17), K(18), K(19), K(20), K(21), K(22), K(23), K(24), K(25),
    K(26), K(27), K(28), K(29), K(30), K(31), K(32), K(33), K(34), K(35), K(36), K(37), K(38),
    K(39), K(40), K(41), K(42), K(43), K(44), K(45), K(46), K(47), K(48), K(49), K(50), K(51),
    K(52), K(53), K(54), K(55), K(56), K(57), K(58), K(59), K(60), K(61), K(62), K(63)};
#undef K

// One chain: each block is 32 dependent sha256rnds2, the schedule (msg1/msg2) running
// ahead of them.
__attribute__((target("sha,sse4.1,ssse3"))) void shani_blocks(std::uint32_t h[8], const std::uint8_t* p,
                                                              std::size_t nblocks) {
  const __m128i bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
  const __m128i abcd = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h));
  const __m128i efgh = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h + 4));
  // sha256rnds2 holds the state as {F,E,B,A} and {H,G,D,C}.
  __m128i abef = _mm_shuffle_epi32(_mm_unpacklo_epi64(efgh, abcd), 0xB1);
  __m128i cdgh = _mm_shuffle_epi32(_mm_unpackhi_epi64(efgh, abcd), 0xB1);
  for (std::size_t blk = 0; blk < nblocks; ++blk, p += 64) {
    const __m128i abef0 = abef, cdgh0 = cdgh;
    __m128i m[4];
    for (int i = 0; i < 4; ++i)
      m[i] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i)), bswap);
#pragma GCC unroll 16
    for (int g = 0; g < 16; ++g) {
      __m128i& w = m[g & 3];
      if (g >= 4) {
        const __m128i w7 = _mm_alignr_epi8(m[(g - 1) & 3], m[(g - 2) & 3], 4);
        w = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(w, m[(g - 3) & 3]), w7), m[(g - 1) & 3]);
      }
      const __m128i kw = _mm_add_epi32(w, _mm_load_si128(reinterpret_cast<const __m128i*>(kK + 4 * g)));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, kw);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(kw, 0x0E));
    }
    abef = _mm_add_epi32(abef, abef0);
    cdgh = _mm_add_epi32(cdgh, cdgh0);
  }
  const __m128i efab = _mm_shuffle_epi32(abef, 0xB1), ghcd = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h), _mm_unpackhi_epi64(efab, ghcd));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h + 4), _mm_unpacklo_epi64(efab, ghcd));
}

const bool kHaveShani = cpu_has_shani();

}  // namespace

const char* bulk_engine() { return kHaveShani ? "shani" : "portable"; }

void compress_blocks_shani(std::uint32_t h[8], const std::uint8_t* p, std::size_t nblocks) {
  if (!kHaveShani) throw std::logic_error("sha256: this CPU has no SHA extensions");
  shani_blocks(h, p, nblocks);
}

namespace {
void compress_blocks(std::uint32_t h[8], const std::uint8_t* p, std::size_t nblocks) {
  if (kHaveShani)
    shani_blocks(h, p, nblocks);
  else
    compress_blocks_portable(h, p, nblocks);
}
}  // namespace
#else
const char* bulk_engine() { return "portable"; }

void compress_blocks_shani(std::uint32_t*, const std::uint8_t*, std::size_t) {
  throw std::logic_error("sha256: this build has no SHA-extension path");
}

namespace {
void compress_blocks(std::uint32_t h[8], const std::uint8_t* p, std::size_t nblocks) {
  compress_blocks_portable(h, p, nblocks);
}
}  // namespace
#endif

void update_bulk(ctx& c, const void* data, std::size_t len) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  if (c.buf_len != 0) {
    const std::size_t take = std::min<std::size_t>(len, 64 - c.buf_len);
    update(c, p, take);  // fills (and compresses) the partial block
    p += take;
    len -= take;
    if (c.buf_len != 0) return;
  }
  const std::size_t blocks = len / 64;
  compress_blocks(c.h, p, blocks);
  c.total += 64 * blocks;
  update(c, p + 64 * blocks, len % 64);
}

void digest_bulk(std::uint8_t out[32], const void* data, std::size_t len) {
  ctx c;
  init(c);
  update_bulk(c, data, len);
  final(c, out);
}

}  // namespace poreplab::sha256
