#pragma once
// The hash families, spelled once. A family is one compression function: what the CPU
// engines and the chain kernels implement and what a label scheme hashes with. A digest
// (hash_algo) is a family with an output length; a label keeps 32 bytes of its family.
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "poreplab/hd.hpp"
#include "poreplab/name_table.hpp"

namespace poreplab {

// In a namespace of its own: its enumerators share their names with the hasher types
// poreplab::blake2s and poreplab::blake2b, which -Wshadow would otherwise report.
namespace families {
enum class hash_family : std::uint8_t { sha256, blake2s, blake2b };
}
using families::hash_family;

inline constexpr name_table kHashFamilies{
    "hash family", std::array{named<hash_family>{hash_family::sha256, "sha256"}, named<hash_family>{hash_family::blake2s, "blake2s"},
                              named<hash_family>{hash_family::blake2b, "blake2b"}}};

// A family's traits, each one switch with no default: a new family is an error here
// (-Wswitch) until it states them, and code that asks a trait never tests the family.
// The returns after the switches are unreachable; device code cannot throw.

// Bytes of the family's full digest.
POREPLAB_HD constexpr std::size_t full_digest_bytes(hash_family f) {
  switch (f) {
    case hash_family::sha256: return 32;
    case hash_family::blake2s: return 32;
    case hash_family::blake2b: return 64;
  }
  return 0;
}
// Bytes of the message block one compression absorbs.
POREPLAB_HD constexpr std::size_t compression_block_bytes(hash_family f) {
  switch (f) {
    case hash_family::sha256: return 64;
    case hash_family::blake2s: return 64;
    case hash_family::blake2b: return 128;
  }
  return 0;
}
// Bytes of one word of the chaining state (8 words in all three).
POREPLAB_HD constexpr std::size_t state_word_bytes(hash_family f) {
  switch (f) {
    case hash_family::sha256: return 4;
    case hash_family::blake2s: return 4;
    case hash_family::blake2b: return 8;
  }
  return 0;
}
// Bytes the padding needs after a message, in its last block: SHA-256's 0x80 and 64-bit
// length; none for BLAKE2 (its counter and final flag go into the compression).
POREPLAB_HD constexpr std::size_t padding_min_bytes(hash_family f) {
  switch (f) {
    case hash_family::sha256: return 9;
    case hash_family::blake2s: return 0;
    case hash_family::blake2b: return 0;
  }
  return 0;
}
// The name OpenSSL's EVP fetches the family's full digest by.
constexpr const char* openssl_evp_name(hash_family f) {
  switch (f) {
    case hash_family::sha256: return "SHA256";
    case hash_family::blake2s: return "BLAKE2S-256";
    case hash_family::blake2b: return "BLAKE2B-512";
  }
  return "";
}
// Whether x86's SHA extensions compute the family's compression: the path an
// implementation takes where the CPU has them (and a CPU without them lacks).
constexpr bool has_x86_sha_extensions(hash_family f) {
  switch (f) {
    case hash_family::sha256: return true;
    case hash_family::blake2s: return false;
    case hash_family::blake2b: return false;
  }
  return false;
}
// Compressions that hash a message of `bytes` (> 0) bytes whole.
constexpr std::uint64_t compressions_for(hash_family f, std::uint64_t bytes) {
  const std::uint64_t block = compression_block_bytes(f);
  return (bytes + padding_min_bytes(f) + block - 1) / block;
}
// The chaining state's word type.
template <hash_family H>
using state_word_t = std::conditional_t<state_word_bytes(H) == 8, std::uint64_t, std::uint32_t>;

// Calls f(std::integral_constant<hash_family, F>{}) for f's family: the one place a
// family value becomes a compile-time one, so that code templated on the family (a
// kernel, a chain kernel, a label scheme) needs no switch of its own.
template <class Fn>
decltype(auto) with_family(hash_family f, Fn&& fn) {
  switch (f) {
    case hash_family::sha256: return fn(std::integral_constant<hash_family, hash_family::sha256>{});
    case hash_family::blake2s: return fn(std::integral_constant<hash_family, hash_family::blake2s>{});
    case hash_family::blake2b: return fn(std::integral_constant<hash_family, hash_family::blake2b>{});
  }
  throw std::invalid_argument("hash family value " + std::to_string(static_cast<int>(f)));
}

// For the last branch of an `if constexpr` chain over a family: static_assert(unhandled_family<H>)
// makes a family no branch names a compile error there, as -Wswitch does for a switch.
template <hash_family>
inline constexpr bool unhandled_family = false;

inline std::string_view hash_family_name(hash_family f) { return kHashFamilies.name(f); }
// Throws std::invalid_argument "unknown hash family 'x' (valid: sha256, blake2s, blake2b)".
inline hash_family parse_hash_family(std::string_view s) { return kHashFamilies.parse(s); }

// Every family, in table order.
inline const std::vector<hash_family>& hash_families() {
  static const std::vector<hash_family> v = [] {
    std::vector<hash_family> out;
    for (const auto& e : kHashFamilies.entries) out.push_back(e.value);
    return out;
  }();
  return v;
}

// A family's name with an output length of `bytes`: the family's own name where that is
// its full digest ("sha256", "blake2s"), "<family>-<bits>" otherwise ("blake2b-256").
inline std::string hash_output_name(hash_family f, std::size_t bytes) {
  std::string name(hash_family_name(f));
  if (bytes != full_digest_bytes(f)) {
    name += '-';
    name += std::to_string(bytes * 8);
  }
  return name;
}

}  // namespace poreplab
