#include "poreplab/hex.hpp"

#include <stdexcept>

#include "poreplab/hash/sha256_bulk.hpp"

namespace poreplab {

std::string to_hex(const std::uint8_t* p, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (std::size_t i = 0; i < n; ++i) {
    s[2 * i] = kDigits[p[i] >> 4];
    s[2 * i + 1] = kDigits[p[i] & 15];
  }
  return s;
}

std::string sha256_hex(const std::uint8_t* p, std::uint64_t n) {
  std::uint8_t d[32];
  sha256::digest_bulk(d, p, n);
  return to_hex(d, 32);
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::vector<std::uint8_t> from_hex(std::string_view hex, std::size_t expected_bytes,
                                   std::string_view what) {
  if (hex.size() >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
  if (hex.size() % 2 != 0)
    throw std::invalid_argument(std::string(what) + ": odd number of hex digits");
  if (expected_bytes != 0 && hex.size() != 2 * expected_bytes)
    throw std::invalid_argument(std::string(what) + ": expected " + std::to_string(expected_bytes) +
                                " bytes (" + std::to_string(2 * expected_bytes) +
                                " hex digits), got " + std::to_string(hex.size()) + " digits");
  std::vector<std::uint8_t> out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0)
      throw std::invalid_argument(std::string(what) + ": not a hex digit at position " +
                                  std::to_string(2 * i + (hi < 0 ? 0 : 1)));
    out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
  }
  return out;
}

}  // namespace poreplab
