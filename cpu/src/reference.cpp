// OpenSSL's EVP digests behind the reference table.
#include "poreplab/cpu/reference.hpp"

#include <openssl/evp.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace poreplab::cpu {

std::vector<std::uint8_t> openssl_digest(hash_family f, const void* data, std::size_t len) {
  const std::unique_ptr<EVP_MD, void (*)(EVP_MD*)> md(EVP_MD_fetch(nullptr, openssl_evp_name(f), nullptr), EVP_MD_free);
  if (!md) throw std::runtime_error(std::string("OpenSSL has no ") + openssl_evp_name(f) + " digest");
  std::vector<std::uint8_t> out(static_cast<std::size_t>(EVP_MD_get_size(md.get())));
  unsigned n = 0;
  if (EVP_Digest(data, len, out.data(), &n, md.get(), nullptr) != 1 || n != out.size())
    throw std::runtime_error(std::string("OpenSSL ") + openssl_evp_name(f) + " digest failed");
  return out;
}

}  // namespace poreplab::cpu
