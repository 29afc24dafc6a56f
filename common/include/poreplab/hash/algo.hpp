#pragma once
// Host-side, name-selected streaming hashing (used by `poreplab hash` and tests).
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "poreplab/hash/family.hpp"

namespace poreplab {

// A digest: a hash family with an output length.
enum class hash_algo { sha256, blake2s_256, blake2b_256, blake2b_512 };

struct digest_kind {
  hash_algo algo;
  std::string_view name;
  hash_family family;
  std::size_t bytes;
};
inline constexpr std::array<digest_kind, 4> kDigests{{{hash_algo::sha256, "sha256", hash_family::sha256, 32},
                                                      {hash_algo::blake2s_256, "blake2s-256", hash_family::blake2s, 32},
                                                      {hash_algo::blake2b_256, "blake2b-256", hash_family::blake2b, 32},
                                                      {hash_algo::blake2b_512, "blake2b-512", hash_family::blake2b, 64}}};

constexpr const digest_kind& digest_of(hash_algo a) {
  for (const auto& d : kDigests)
    if (d.algo == a) return d;
  return kDigests[0];
}
constexpr hash_family family_of(hash_algo a) { return digest_of(a).family; }
constexpr std::size_t hash_algo_digest_bytes(hash_algo a) { return digest_of(a).bytes; }
// The digest of a family's full output (its known answers: the portable library's hash).
constexpr hash_algo full_digest(hash_family f) {
  switch (f) {
    case hash_family::sha256: return hash_algo::sha256;
    case hash_family::blake2s: return hash_algo::blake2s_256;
    case hash_family::blake2b: return hash_algo::blake2b_512;
  }
  throw std::invalid_argument("full_digest: not a hash family");
}
// The switch and the table agree: each family's full digest is its own, at full length.
static_assert([] {
  for (const auto& e : kHashFamilies.entries)
    if (family_of(full_digest(e.value)) != e.value || hash_algo_digest_bytes(full_digest(e.value)) != full_digest_bytes(e.value))
      return false;
  return true;
}());

// A digest's name ("blake2s-256") or a family's, which names its full digest ("blake2b" is
// blake2b-512); throws std::invalid_argument listing the valid names otherwise.
hash_algo parse_hash_algo(std::string_view name);
std::string_view hash_algo_name(hash_algo a);
std::vector<std::string_view> hash_algo_names();

class streaming_hash {
 public:
  explicit streaming_hash(hash_algo a);
  ~streaming_hash();
  streaming_hash(const streaming_hash&) = delete;
  streaming_hash& operator=(const streaming_hash&) = delete;
  void update(const void* data, std::size_t len);
  std::vector<std::uint8_t> finish();  // the object may not be updated afterwards

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

std::vector<std::uint8_t> hash_bytes(hash_algo a, const void* data, std::size_t len);

}  // namespace poreplab
