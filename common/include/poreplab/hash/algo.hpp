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
  std::string_view abc_hex;  // its published digest of "abc" (FIPS 180-4 B.1, RFC 7693, BLAKE2's reference)
};
inline constexpr std::array<digest_kind, 4> kDigests{
    {{hash_algo::sha256, "sha256", hash_family::sha256, 32,
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
     {hash_algo::blake2s_256, "blake2s-256", hash_family::blake2s, 32,
      "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982"},
     {hash_algo::blake2b_256, "blake2b-256", hash_family::blake2b, 32,
      "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319"},
     {hash_algo::blake2b_512, "blake2b-512", hash_family::blake2b, 64,
      "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8db"
      "f1925ab92386edd4009923"}}};

constexpr const digest_kind& digest_of(hash_algo a) {
  for (const auto& d : kDigests)
    if (d.algo == a) return d;
  return kDigests[0];
}
constexpr hash_family family_of(hash_algo a) { return digest_of(a).family; }
constexpr std::size_t hash_algo_digest_bytes(hash_algo a) { return digest_of(a).bytes; }
// The family's digest of `bytes` bytes (a label's is 32: "blake2b-256"); std::invalid_argument
// where kDigests has no such row.
constexpr hash_algo digest_with(hash_family f, std::size_t bytes) {
  for (const auto& d : kDigests)
    if (d.family == f && d.bytes == bytes) return d.algo;
  throw std::invalid_argument("no digest of that family and length");
}
// The digest of a family's full output (its known answers: the portable library's hash).
constexpr hash_algo full_digest(hash_family f) { return digest_with(f, full_digest_bytes(f)); }
// Every family has its full digest in the table, and every row's known answer is whole.
static_assert([] {
  for (const auto& e : kHashFamilies.entries) (void)full_digest(e.value);
  for (const auto& d : kDigests)
    if (d.abc_hex.size() != 2 * d.bytes) return false;
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
