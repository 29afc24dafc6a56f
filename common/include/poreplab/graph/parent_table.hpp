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
#include <vector>

#include "poreplab/graph/graph_params.hpp"
#include "poreplab/huge_buffer.hpp"

namespace poreplab::graph {

using digest32 = std::array<std::uint8_t, 32>;

// Rows [first, first + count) into out (count * 14 words), on the calling thread, node by
// node as graph/parents.hpp defines them: the reference.
void fill_parent_rows(const graph_params& g, std::uint64_t first, std::uint64_t count, std::uint32_t* out);

// The Feistel round function of one graph, tabulated. Its input is a half block
// (right = x & right_mask < 2^half_bits, at most 2^18 values) and its key one of 3 fixed
// keys, so 3 * 2^half_bits BLAKE2b compressions (49152 for 512MiB, 393216 for 32GiB) give
// every value the expander parents need, where evaluating it node by node costs about 48
// per node. f[j << half_bits | r] = feistel_round(r, feistel_keys[j], right_mask).
struct feistel_table {
  std::uint32_t half_bits = 0;
  std::vector<std::uint32_t> f;
};
feistel_table make_feistel_table(const graph_params& g);  // OpenMP threads

// As fill_parent_rows, the expander parents' Feistel rounds looked up in t (bit-exact).
void fill_parent_rows(const graph_params& g, const feistel_table& t, std::uint64_t first, std::uint64_t count,
                      std::uint32_t* out);

enum class parent_table_method {
  feistel_table,  // make_feistel_table once, then rows with lookups (the default)
  per_node,       // fill_parent_rows node by node (the reference; for comparisons)
};

// The whole table into out (exactly nodes * 14 words), with OpenMP threads over node
// ranges.
void generate_parent_table(const graph_params& g, std::span<std::uint32_t> out,
                           parent_table_method method = parent_table_method::feistel_table);

// A read-only table, owned in memory or mapped from a cache file.
class parent_table {
 public:
  parent_table() = default;
  parent_table(parent_table&& o) noexcept;
  parent_table& operator=(parent_table&& o) noexcept;
  parent_table(const parent_table&) = delete;
  parent_table& operator=(const parent_table&) = delete;
  ~parent_table();

  static parent_table generate(const graph_params& g,
                               parent_table_method method = parent_table_method::feistel_table);
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
// The digest in a cache file's sidecar; throws std::runtime_error when it is missing or
// malformed.
digest32 read_parent_cache_sidecar(const std::filesystem::path& cache_file);

// Rows of a table recomputed by the reference (fill_parent_rows) and compared with it:
// every row when the graph has at most `samples` nodes, else `samples` rows drawn from
// `seed`. A digest proves only that a file is the one its sidecar or state file was
// written for, and both can be rewritten together; the graph definition cannot. A table
// of another graph, or one wrong in a share s of its rows, fails with probability about
// 1 - (1 - s)^samples; a single wrong row among N with samples / N. Throws
// std::runtime_error naming `file`, the node and the slot; returns the rows compared.
inline constexpr std::uint64_t kDefaultSampledRows = 4096;
inline constexpr std::uint64_t kSampledRowsSeed = 0x7061726e7473ull;
std::uint64_t check_sampled_rows(const graph_params& g, const parent_table& t, const std::filesystem::path& file,
                                 std::uint64_t samples = kDefaultSampledRows, std::uint64_t seed = kSampledRowsSeed);

enum class cache_check {
  size_only,   // trust the contents
  digest,      // SHA-256 of the file against the .sha256 sidecar (which must exist); then
               // the published digest of a production graph, or else sampled rows
               // (check_sampled_rows) recomputed from the graph
  regenerate,  // regenerate the table and compare word by word
};

// Writes dir/<name> and dir/<name>.sha256, each to a temporary name then renamed, so a
// reader never sees a partial file. Creates dir if needed. Returns the cache file path.
std::filesystem::path write_parent_cache(const std::filesystem::path& dir, const graph_params& g,
                                         std::span<const std::uint32_t> table);

// Maps dir/<name> and checks it. Throws std::runtime_error naming the file and the
// problem: missing, wrong size, missing or malformed sidecar, digest or content mismatch.
// sampled_rows: how many rows `digest` recomputes for a graph without a published digest
// (0: none, for a caller that samples itself).
parent_table load_parent_cache(const std::filesystem::path& dir, const graph_params& g,
                               cache_check check = cache_check::digest,
                               std::uint64_t sampled_rows = kDefaultSampledRows);

// Generates the table slice by slice straight into dir/<name> (through a temporary file,
// renamed; then its sidecar), holding one slice of 2^20 rows in memory however large the
// graph: the way a sector larger than memory gets its table. Returns the path.
std::filesystem::path generate_parent_cache_file(const std::filesystem::path& dir, const graph_params& g,
                                                 std::uint64_t slice_nodes = std::uint64_t{1} << 20);

// rust-fil-proofs' default cache directory, when FIL_PROOFS_PARENT_CACHE is not set.
inline constexpr const char* kDefaultParentCacheDir = "/var/tmp/filecoin-parents";
// Where rust-fil-proofs keeps parent tables: $FIL_PROOFS_PARENT_CACHE when set and not
// empty, else kDefaultParentCacheDir.
std::filesystem::path default_parent_cache_dir();

// Whether g's table is in `dir` as a seal takes it: a regular file at its name (a link to
// one is followed). Throws what a seal would refuse: "<dir>: exists and is not a
// directory", "<file>: is a FIFO, not a regular file" (directory, device likewise).
// `poreplab doctor` asks this too, so that both say the same.
bool parent_cache_present(const std::filesystem::path& dir, const graph_params& g);

// Loads a checked cache file, or generates and writes it when absent (slice by slice,
// generate_parent_cache_file). A file without a
// sidecar is verified by regeneration and then gets one. A bad file is an error, not
// silently replaced.
parent_table load_or_create_parent_cache(const std::filesystem::path& dir, const graph_params& g);

}  // namespace poreplab::graph
