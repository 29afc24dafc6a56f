#pragma once
// Reference implementations: OpenSSL's EVP digests, measured beside the engines as the
// bar they are held to. Records name them in the engine axis, as they name engines; this
// table is the one place that spells them.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "poreplab/hash/family.hpp"

namespace poreplab::cpu {

enum class reference_impl : std::uint8_t { openssl, openssl_noshani };

struct reference {
  reference_impl id;
  std::string_view name;  // as records spell it
  std::string_view description;
  // OpenSSL takes its SHA-NI path wherever the CPU has one, unless the path is masked.
  bool uses_sha_ni;
  // OPENSSL_ia32cap for the run, empty for none. Read when libcrypto starts, so a masked
  // row runs in a child process with the variable set.
  std::string_view ia32cap;
  // Runs with OpenSSL's SHA-extension path masked: a row only for the families that have one.
  bool masks_sha_extensions;
};

inline constexpr std::array kReferences{
    reference{reference_impl::openssl, "openssl", "OpenSSL's EVP digest", true, "", false},
    reference{reference_impl::openssl_noshani, "openssl-noshani",
              "OpenSSL's EVP SHA-256 with its SHA-extension path masked (CPUID.7.EBX bit 29 cleared): the reference "
              "of a CPU without SHA-NI",
              false, ":~0x20000000", true}};

constexpr const reference& reference_of(reference_impl r) {
  for (const auto& x : kReferences)
    if (x.id == r) return x;
  return kReferences.front();
}
constexpr std::string_view reference_name(reference_impl r) { return reference_of(r).name; }
inline constexpr std::string_view kOpenssl = reference_name(reference_impl::openssl);
// The reference implementation a record's engine names; nullptr for any other name.
constexpr const reference* find_reference(std::string_view name) {
  for (const auto& x : kReferences)
    if (x.name == name) return &x;
  return nullptr;
}
// Whether the reference has a row for `algo`: a row that masks the SHA extensions has one
// only for the families they compute.
constexpr bool reference_covers(const reference& r, hash_family algo) {
  return !r.masks_sha_extensions || has_x86_sha_extensions(algo);
}

// The family's full digest of data[0, len) through OpenSSL's EVP; std::runtime_error
// when OpenSSL has no such digest or fails.
std::vector<std::uint8_t> openssl_digest(hash_family f, const void* data, std::size_t len);

}  // namespace poreplab::cpu
