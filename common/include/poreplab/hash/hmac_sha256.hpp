#pragma once
// HMAC-SHA256 (RFC 2104, FIPS 198-1) over the portable SHA-256.
#include <cstddef>
#include <cstdint>

namespace poreplab::sha256 {

void hmac(std::uint8_t out[32], const std::uint8_t* key, std::size_t key_len, const void* msg, std::size_t len);

}  // namespace poreplab::sha256
