#pragma once
// Byte-order and rotate helpers for the hash functions, host and device.
#include <cstdint>

#include "poreplab/hd.hpp"

namespace poreplab {

POREPLAB_HD std::uint32_t rotr32(std::uint32_t x, unsigned n) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_r(x, x, n);
#else
  return (x >> n) | (x << ((32 - n) & 31));
#endif
}

POREPLAB_HD std::uint64_t rotr64(std::uint64_t x, unsigned n) {
  return (x >> n) | (x << ((64 - n) & 63));
}

POREPLAB_HD std::uint32_t load_be32(const std::uint8_t* p) {
#if defined(__CUDA_ARCH__)
  std::uint32_t w = static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
                    static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
  return __byte_perm(w, 0, 0x0123);
#else
  return static_cast<std::uint32_t>(p[0]) << 24 | static_cast<std::uint32_t>(p[1]) << 16 |
         static_cast<std::uint32_t>(p[2]) << 8 | static_cast<std::uint32_t>(p[3]);
#endif
}

// Eight big-endian words from 32 bytes at a 16-byte aligned address. On the device: two
// 16-byte loads and byte permutes instead of 32 one-byte loads.
POREPLAB_HD void load_be32x8_aligned16(const std::uint8_t* p, std::uint32_t w[8]) {
#if defined(__CUDA_ARCH__)
  const uint4 a = reinterpret_cast<const uint4*>(p)[0], b = reinterpret_cast<const uint4*>(p)[1];
  const std::uint32_t v[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  for (int i = 0; i < 8; ++i) w[i] = __byte_perm(v[i], 0, 0x0123);
#else
  for (int i = 0; i < 8; ++i) w[i] = load_be32(p + 4 * i);
#endif
}

POREPLAB_HD std::uint32_t load_le32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

POREPLAB_HD std::uint64_t load_le64(const std::uint8_t* p) {
  return static_cast<std::uint64_t>(load_le32(p)) | static_cast<std::uint64_t>(load_le32(p + 4)) << 32;
}

POREPLAB_HD std::uint64_t load_be64(const std::uint8_t* p) {
  return static_cast<std::uint64_t>(load_be32(p)) << 32 | load_be32(p + 4);
}

POREPLAB_HD void store_be32(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 24);
  p[1] = static_cast<std::uint8_t>(v >> 16);
  p[2] = static_cast<std::uint8_t>(v >> 8);
  p[3] = static_cast<std::uint8_t>(v);
}

POREPLAB_HD void store_le32(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v);
  p[1] = static_cast<std::uint8_t>(v >> 8);
  p[2] = static_cast<std::uint8_t>(v >> 16);
  p[3] = static_cast<std::uint8_t>(v >> 24);
}

POREPLAB_HD void store_le64(std::uint8_t* p, std::uint64_t v) {
  store_le32(p, static_cast<std::uint32_t>(v));
  store_le32(p + 4, static_cast<std::uint32_t>(v >> 32));
}

POREPLAB_HD void store_be64(std::uint8_t* p, std::uint64_t v) {
  store_be32(p, static_cast<std::uint32_t>(v >> 32));
  store_be32(p + 4, static_cast<std::uint32_t>(v));
}

}  // namespace poreplab
