#include "poreplab/hash/hmac_sha256.hpp"

#include <cstring>

#include "poreplab/hash/sha256.hpp"

namespace poreplab::sha256 {

void hmac(std::uint8_t out[32], const std::uint8_t* key, std::size_t key_len, const void* msg, std::size_t len) {
  std::uint8_t k[kBlockBytes] = {};
  if (key_len > kBlockBytes)
    digest(k, key, key_len);
  else if (key_len > 0)
    std::memcpy(k, key, key_len);
  std::uint8_t pad[kBlockBytes];
  std::uint8_t inner[kDigestBytes];
  ctx c;
  for (std::size_t i = 0; i < kBlockBytes; ++i) pad[i] = static_cast<std::uint8_t>(k[i] ^ 0x36);
  init(c);
  update(c, pad, kBlockBytes);
  update(c, msg, len);
  final(c, inner);
  for (std::size_t i = 0; i < kBlockBytes; ++i) pad[i] = static_cast<std::uint8_t>(k[i] ^ 0x5c);
  init(c);
  update(c, pad, kBlockBytes);
  update(c, inner, kDigestBytes);
  final(c, out);
}

}  // namespace poreplab::sha256
