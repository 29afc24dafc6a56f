#pragma once
// Host-only hex helpers (lowercase, no prefix).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace poreplab {

std::string to_hex(const std::uint8_t* p, std::size_t n);
inline std::string to_hex(std::span<const std::uint8_t> s) { return to_hex(s.data(), s.size()); }

// to_hex of the SHA-256 digest of p[0..n): how records and checks name a buffer's content.
std::string sha256_hex(const std::uint8_t* p, std::uint64_t n);

// Throws std::invalid_argument naming `what` when the text is not hex or, with
// expected_bytes != 0, not exactly that many bytes. Accepts an optional 0x prefix.
std::vector<std::uint8_t> from_hex(std::string_view hex, std::size_t expected_bytes = 0,
                                   std::string_view what = "hex string");

}  // namespace poreplab
