#pragma once
// Deterministic sector data for timed runs: xorshift64 bytes from `seed`, each 32-byte
// node's top two bits cleared (as fr32 padding leaves them), so every node is a field element.
#include <cstdint>
#include <vector>

namespace poreplab {

inline std::vector<std::uint8_t> field_element_data(std::uint64_t bytes, std::uint64_t seed) {
  std::vector<std::uint8_t> data(bytes);
  std::uint64_t x = seed;
  for (std::size_t i = 0; i + 8 <= data.size(); i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    for (std::size_t j = 0; j < 8; ++j) data[i + j] = static_cast<std::uint8_t>(x >> (8 * j));
  }
  for (std::size_t i = 31; i < data.size(); i += 32) data[i] &= 0x3f;
  return data;
}

}  // namespace poreplab
