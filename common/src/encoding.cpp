#include "poreplab/sdr/encoding.hpp"

#include <stdexcept>
#include <string>

#include "poreplab/field/fr.hpp"

namespace poreplab::sdr {

std::int64_t first_noncanonical(const std::uint8_t* data, std::uint64_t elements) {
  for (std::uint64_t i = 0; i < elements; ++i)
    if (!fr::is_canonical(data + 32 * i)) return static_cast<std::int64_t>(i);
  return -1;
}

void encode(const std::uint8_t* key, const std::uint8_t* data, std::uint8_t* replica, std::uint64_t elements) {
  if (const auto bad = first_noncanonical(data, elements); bad >= 0)
    throw std::invalid_argument("data node " + std::to_string(bad) +
                                " is not a valid BLS12-381 field element (not fr32-padded?)");
  const auto n = static_cast<std::int64_t>(elements);
#pragma omp parallel for schedule(static) if (n >= 65536)
  for (std::int64_t i = 0; i < n; ++i) fr::add(key + 32 * i, data + 32 * i, replica + 32 * i);
}

void decode(const std::uint8_t* key, const std::uint8_t* replica, std::uint8_t* data, std::uint64_t elements) {
  if (const auto bad = first_noncanonical(replica, elements); bad >= 0)
    throw std::invalid_argument("replica node " + std::to_string(bad) + " is not a valid BLS12-381 field element");
  const auto n = static_cast<std::int64_t>(elements);
#pragma omp parallel for schedule(static) if (n >= 65536)
  for (std::int64_t i = 0; i < n; ++i) fr::sub(replica + 32 * i, key + 32 * i, data + 32 * i);
}


std::vector<std::uint8_t> generated_field_data(std::uint64_t bytes, std::uint64_t seed) {
  std::vector<std::uint8_t> d(bytes);
  std::uint64_t x = seed | 1;  // xorshift64 never leaves zero
  for (std::uint64_t i = 0; i < bytes; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    d[i] = static_cast<std::uint8_t>(x >> 24);
  }
  for (std::uint64_t i = 31; i < bytes; i += 32) d[i] &= 0x3f;
  return d;
}

}  // namespace poreplab::sdr
