#pragma once
// Host-side, name-selected streaming hashing (used by `poreplab hash` and tests).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace poreplab {

enum class hash_algo { sha256, blake2s_256, blake2b_256, blake2b_512 };

// "sha256", "blake2s-256", "blake2b-256", "blake2b-512"; throws std::invalid_argument
// listing the valid names otherwise.
hash_algo parse_hash_algo(std::string_view name);
std::string_view hash_algo_name(hash_algo a);
std::size_t hash_algo_digest_bytes(hash_algo a);
const std::vector<std::string_view>& hash_algo_names();

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
