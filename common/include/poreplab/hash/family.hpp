#pragma once
// The hash families, spelled once. A family is one compression function: what the CPU
// engines and the chain kernels implement and what a label scheme hashes with. A digest
// (hash_algo) is a family with an output length; a label keeps 32 bytes of its family.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
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

// Bytes of the family's full digest and of the message block one compression absorbs.
POREPLAB_HD constexpr std::size_t full_digest_bytes(hash_family f) { return f == hash_family::blake2b ? 64 : 32; }
POREPLAB_HD constexpr std::size_t compression_block_bytes(hash_family f) { return f == hash_family::blake2b ? 128 : 64; }

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
