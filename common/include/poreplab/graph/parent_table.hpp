#pragma once
// The parent table (nodes x 14 u32, 6 base then 8 expander per node) and its cache file,
// named and laid out as rust-fil-proofs writes it (docs/spec/sdr.md section 9). Host only.
//
// Cache integrity: rust-fil-proofs files carry no checksum, so beside each file we write
// `<name>.sha256` (sha256sum format) with the SHA-256 of the table, and check it on load.
// A file without a sidecar (e.g. one written by rust-fil-proofs) is checked by
// regenerating the table. A production graph's file (known_parent_caches.hpp) must
// also have the digest rust-fil-proofs publishes for it, sidecar or not.
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "poreplab/graph/graph_params.hpp"
#include "poreplab/huge_buffer.hpp"

namespace poreplab::graph {

using digest32 = std::array<std::uint8_t, 32>;

// Rows [first, first + count) into out (count * 14 words), on the calling thread.
void fill_parent_rows(const graph_params& g, std::uint64_t first, std::uint64_t count, std::uint32_t* out);

// The whole table into out (exactly nodes * 14 words), with OpenMP threads.
void generate_parent_table(const graph_params& g, std::span<std::uint32_t> out);

// A read-only table, owned in memory or mapped from a cache file.
class parent_table {
 public:
  parent_table() = default;
  parent_table(parent_table&& o) noexcept;
  parent_table& operator=(parent_table&& o) noexcept;
  parent_table(const parent_table&) = delete;
  parent_table& operator=(const parent_table&) = delete;
  ~parent_table();

  static parent_table generate(const graph_params& g);
  // Maps `file` read-only; throws unless its size is exactly nodes * 56 bytes.
  static parent_table map_file(const std::filesystem::path& file, std::uint64_t nodes);

  std::uint64_t nodes() const { return nodes_; }
  const std::uint32_t* data() const { return data_; }
  std::span<const std::uint32_t> words() const { return {data_, static_cast<std::size_t>(nodes_ * kParentsPerNode)}; }
  const std::uint32_t* row(std::uint64_t node) const { return data_ + node * kParentsPerNode; }
  std::size_t size_bytes() const { return static_cast<std::size_t>(nodes_ * kParentsPerNode * 4); }
  bool is_mapped() const { return map_ != nullptr; }

 private:
  void reset() noexcept;
  huge_buffer owned_;
  void* map_ = nullptr;
  std::size_t map_len_ = 0;
  const std::uint32_t* data_ = nullptr;
  std::uint64_t nodes_ = 0;
};

// SHA-256 of the table as stored (u32 little-endian); the vectors' `parents.sha256`.
digest32 parent_table_digest(std::span<const std::uint32_t> words);

// SHA256("poseidon_hasher" || graph identifier || keys as u64_LE || u32_LE(nodes)).
digest32 parent_cache_key(const graph_params& g);
// "v28-sdr-parent-<hex key>.cache"
std::string parent_cache_file_name(const graph_params& g);
std::filesystem::path parent_cache_path(const std::filesystem::path& dir, const graph_params& g);
std::filesystem::path parent_cache_sidecar_path(const std::filesystem::path& cache_file);

enum class cache_check {
  size_only,   // trust the contents
  digest,      // SHA-256 of the file against the .sha256 sidecar (which must exist)
  regenerate,  // regenerate the table and compare word by word
};

// Writes dir/<name> and dir/<name>.sha256, each to a temporary name then renamed, so a
// reader never sees a partial file. Creates dir if needed. Returns the cache file path.
std::filesystem::path write_parent_cache(const std::filesystem::path& dir, const graph_params& g,
                                         std::span<const std::uint32_t> table);

// Maps dir/<name> and checks it. Throws std::runtime_error naming the file and the
// problem: missing, wrong size, missing or malformed sidecar, digest or content mismatch.
parent_table load_parent_cache(const std::filesystem::path& dir, const graph_params& g,
                               cache_check check = cache_check::digest);

// Loads a checked cache file, or generates and writes it when absent. A file without a
// sidecar is verified by regeneration and then gets one. A bad file is an error, not
// silently replaced.
parent_table load_or_create_parent_cache(const std::filesystem::path& dir, const graph_params& g);

}  // namespace poreplab::graph
