#include "poreplab/graph/parent_table.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "poreplab/checked.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/graph/known_parent_caches.hpp"
#include "poreplab/graph/parents.hpp"
#include "poreplab/hash/bytes.hpp"
#include "poreplab/hash/sha256_bulk.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/stats.hpp"

namespace poreplab::graph {

// The table is used in memory as the file stores it.
static_assert(std::endian::native == std::endian::little, "parent table files are little-endian");

namespace {

constexpr std::uint64_t kRowBytes = kParentsPerNode * 4;
constexpr std::uint64_t kChunkNodes = 4096;

std::string errno_text(int e) { return std::system_category().message(e); }

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& problem) {
  throw std::runtime_error("parent cache " + file.string() + ": " + problem);
}

std::uint64_t table_bytes(std::uint64_t nodes) { return checked_mul(nodes, kRowBytes, "parent table bytes"); }

// Staged, fsynced and renamed over `target` (file_io.hpp's one way of writing a file).
void write_atomically(const std::filesystem::path& target, const void* bytes, std::size_t len) {
  write_file_atomic(target, std::string_view(static_cast<const char*>(bytes), len));
}

std::string sidecar_text(const digest32& d, const std::filesystem::path& cache_file) {
  return to_hex(d.data(), d.size()) + "  " + cache_file.filename().string() + "\n";
}

digest32 read_sidecar(const std::filesystem::path& sidecar) {
  if (std::error_code ec; !std::filesystem::exists(std::filesystem::symlink_status(sidecar, ec)))
    fail(sidecar, "cannot open the digest sidecar (files written by rust-fil-proofs have none; verify such a file "
                  "by regeneration)");
  const std::string text = read_small_file(sidecar, {.max_bytes = 4096});
  const std::string hex = text.substr(0, text.find_first_of(" \t\n"));
  digest32 d{};
  try {
    const auto bytes = from_hex(hex, 32, "digest");
    std::copy(bytes.begin(), bytes.end(), d.begin());
  } catch (const std::invalid_argument& e) {
    fail(sidecar, std::string("malformed digest sidecar (") + e.what() + ")");
  }
  return d;
}

// The published digest of this cache file's graph (known_parent_caches.hpp), if any.
std::optional<digest32> known_digest(const std::filesystem::path& file) {
  const known_parent_cache* k = find_known_parent_cache(file.filename().string());
  if (k == nullptr) return std::nullopt;
  const auto bytes = from_hex(k->sha256, 32, "known parent cache digest");
  digest32 d{};
  std::copy(bytes.begin(), bytes.end(), d.begin());
  return d;
}

// A production graph's cache must have the published digest, whatever its sidecar says.
void check_known_digest(const std::filesystem::path& file, const digest32& got) {
  const auto want = known_digest(file);
  if (want && got != *want)
    fail(file, "SHA-256 " + to_hex(got.data(), got.size()) + " is not " + to_hex(want->data(), want->size()) +
                   ", the published digest of this production graph (rust-fil-proofs' parent-cache manifest); "
                   "the file is corrupt (and so is its .sha256 sidecar if it agrees): delete both to regenerate it");
}

void compare_with_regenerated(const std::filesystem::path& file, const graph_params& g, const parent_table& t) {
  const parent_table fresh = parent_table::generate(g);
  const auto a = t.words();
  const auto b = fresh.words();
  const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin());
  if (ia != a.end()) {
    const auto w = static_cast<std::uint64_t>(ia - a.begin());
    fail(file, "contents differ from the regenerated table at node " + std::to_string(w / kParentsPerNode) +
                   " slot " + std::to_string(w % kParentsPerNode) + " (file " + std::to_string(*ia) +
                   ", expected " + std::to_string(*ib) + ")");
  }
}

std::string graph_identifier(std::uint64_t nodes) {
  // storage-proofs StackedBucketGraph Debug-style identifier, hasher = poseidon.
  return "stacked_graph::StackedGraph{expansion_degree: " + std::to_string(kExpDegree) +
         " base_graph: drgraph::BucketGraph{size: " + std::to_string(nodes) +
         "; degree: " + std::to_string(kBaseDegree) + "; hasher: poseidon_hasher} }";
}

}  // namespace

void fill_parent_rows(const graph_params& g, std::uint64_t first, std::uint64_t count, std::uint32_t* out) {
  for (std::uint64_t v = first; v < first + count; ++v, out += kParentsPerNode) node_parents(g, v, out);
}

feistel_table make_feistel_table(const graph_params& g) {
  feistel_table t;
  t.half_bits = g.feistel_pre.half_bits;
  const std::uint64_t per_key = std::uint64_t{1} << t.half_bits;
  t.f.resize(static_cast<std::size_t>(kFeistelRounds * per_key));
  std::uint32_t* f = t.f.data();
  const auto total = static_cast<std::int64_t>(kFeistelRounds * per_key);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < total; ++i) {
    const auto k = static_cast<std::uint64_t>(i);
    f[k] = static_cast<std::uint32_t>(
        feistel_round(k & (per_key - 1), g.feistel_keys[k >> t.half_bits], g.feistel_pre.right_mask));
  }
  return t;
}

namespace {

// feistel_encode with the rounds looked up.
inline std::uint64_t encode_with(const std::uint32_t* f, const feistel_precomputed& p, std::uint64_t x) {
  std::uint64_t left = (x & p.left_mask) >> p.half_bits;
  std::uint64_t right = x & p.right_mask;
  for (int j = 0; j < kFeistelRounds; ++j) {
    const std::uint64_t next_right = left ^ f[static_cast<std::uint64_t>(j) << p.half_bits | right];
    left = right;
    right = next_right;
  }
  return left << p.half_bits | right;
}

}  // namespace

void fill_parent_rows(const graph_params& g, const feistel_table& t, std::uint64_t first, std::uint64_t count,
                      std::uint32_t* out) {
  if (t.half_bits != g.feistel_pre.half_bits || t.f.size() != (std::size_t{kFeistelRounds} << t.half_bits))
    throw std::invalid_argument("fill_parent_rows: the Feistel table is not this graph's");
  const std::uint32_t* f = t.f.data();
  const feistel_precomputed& p = g.feistel_pre;
  const std::uint64_t domain = g.nodes * kExpDegree;
  const bool legacy = g.api == api_version::v1_0_0;
  for (std::uint64_t v = first; v < first + count; ++v, out += kParentsPerNode) {
    base_parents(g, v, out);
    // feistel_permute: the 8 first encodings are independent chains of lookups, so they
    // are issued together; then cycle walking until inside the domain.
    std::uint64_t u[kExpDegree];
    for (std::uint32_t i = 0; i < kExpDegree; ++i) u[i] = encode_with(f, p, v * kExpDegree + i);
    for (std::uint32_t i = 0; i < kExpDegree; ++i) {
      while (u[i] >= domain) u[i] = encode_with(f, p, u[i]);
      // api 1.0.0 truncates to u32 before dividing (graph/expander.hpp).
      out[kBaseDegree + i] = legacy ? static_cast<std::uint32_t>(u[i]) / kExpDegree
                                    : static_cast<std::uint32_t>(u[i] / kExpDegree);
    }
  }
}

void generate_parent_table(const graph_params& g, std::span<std::uint32_t> out, parent_table_method method) {
  if (out.size() != g.nodes * kParentsPerNode)
    throw std::invalid_argument("parent table: buffer holds " + std::to_string(out.size()) + " words, need " +
                                std::to_string(g.nodes * kParentsPerNode));
  const auto chunks = static_cast<std::int64_t>((g.nodes + kChunkNodes - 1) / kChunkNodes);
  std::uint32_t* base = out.data();
  const bool per_node = method == parent_table_method::per_node;
  const feistel_table t = per_node ? feistel_table{} : make_feistel_table(g);
  // Dynamic: cycle walking makes the cost per node uneven.
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::uint64_t first = static_cast<std::uint64_t>(c) * kChunkNodes;
    const std::uint64_t count = std::min(kChunkNodes, g.nodes - first);
    if (per_node)
      fill_parent_rows(g, first, count, base + first * kParentsPerNode);
    else
      fill_parent_rows(g, t, first, count, base + first * kParentsPerNode);
  }
}

parent_table::parent_table(parent_table&& o) noexcept { *this = std::move(o); }

parent_table& parent_table::operator=(parent_table&& o) noexcept {
  if (this != &o) {
    reset();
    owned_ = std::move(o.owned_);
    map_ = std::exchange(o.map_, nullptr);
    map_len_ = std::exchange(o.map_len_, 0);
    data_ = std::exchange(o.data_, nullptr);
    nodes_ = std::exchange(o.nodes_, 0);
  }
  return *this;
}

parent_table::~parent_table() { reset(); }

void parent_table::reset() noexcept {
  if (map_ != nullptr) ::munmap(map_, map_len_);
  map_ = nullptr;
  map_len_ = 0;
  owned_ = huge_buffer();
  data_ = nullptr;
  nodes_ = 0;
}

parent_table parent_table::generate(const graph_params& g, parent_table_method method) {
  parent_table t;
  const std::uint64_t bytes = table_bytes(g.nodes);
  const auto words = static_cast<std::size_t>(bytes / sizeof(std::uint32_t));
  t.owned_ = huge_buffer(bytes);
  auto* table = reinterpret_cast<std::uint32_t*>(t.owned_.data());
  generate_parent_table(g, {table, words}, method);
  t.data_ = table;
  t.nodes_ = g.nodes;
  return t;
}

parent_table parent_table::map_file(const std::filesystem::path& file, std::uint64_t nodes) {
  // A directory or a FIFO at the name is named as such, before its size is judged.
  const unique_fd fd = open_regular_for_reading(file);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail(file, "cannot stat: " + errno_text(errno));
  const std::uint64_t expected = table_bytes(nodes);
  if (static_cast<std::uint64_t>(st.st_size) != expected)
    fail(file, "size is " + std::to_string(st.st_size) + " bytes, expected " + std::to_string(expected) + " (" +
                   std::to_string(nodes) + " nodes x 56); the file is truncated or not this graph's");
  void* m = ::mmap(nullptr, static_cast<std::size_t>(expected), PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (m == MAP_FAILED) fail(file, "cannot map: " + errno_text(errno));
  parent_table t;
  t.map_ = m;
  t.map_len_ = static_cast<std::size_t>(expected);
  t.data_ = static_cast<const std::uint32_t*>(m);
  t.nodes_ = nodes;
  return t;
}

digest32 parent_table_digest(std::span<const std::uint32_t> words) {
  digest32 d{};
  sha256::digest_bulk(d.data(), words.data(), words.size_bytes());
  return d;
}

digest32 parent_cache_key(const graph_params& g) {
  sha256::ctx c;
  sha256::init(c);
  constexpr char kHasher[] = "poseidon_hasher";
  sha256::update(c, kHasher, sizeof kHasher - 1);
  const std::string id = graph_identifier(g.nodes);
  sha256::update(c, id.data(), id.size());
  std::uint8_t tail[4 * 8 + 4];
  for (int j = 0; j < 4; ++j) store_le64(tail + 8 * j, g.feistel_keys[j]);
  store_le32(tail + 32, static_cast<std::uint32_t>(g.nodes));
  sha256::update(c, tail, sizeof tail);
  digest32 d{};
  sha256::final(c, d.data());
  return d;
}

std::string parent_cache_file_name(const graph_params& g) {
  const digest32 k = parent_cache_key(g);
  return "v28-sdr-parent-" + to_hex(k.data(), k.size()) + ".cache";
}

std::filesystem::path parent_cache_path(const std::filesystem::path& dir, const graph_params& g) {
  return dir / parent_cache_file_name(g);
}

std::filesystem::path parent_cache_sidecar_path(const std::filesystem::path& cache_file) {
  std::filesystem::path p = cache_file;
  p += ".sha256";
  return p;
}

digest32 read_parent_cache_sidecar(const std::filesystem::path& cache_file) {
  return read_sidecar(parent_cache_sidecar_path(cache_file));
}

std::filesystem::path write_parent_cache(const std::filesystem::path& dir, const graph_params& g,
                                         std::span<const std::uint32_t> table) {
  if (table.size() != g.nodes * kParentsPerNode)
    throw std::invalid_argument("write_parent_cache: table holds " + std::to_string(table.size()) +
                                " words, the graph needs " + std::to_string(g.nodes * kParentsPerNode));
  make_directories(dir);
  const auto file = parent_cache_path(dir, g);
  const digest32 d = parent_table_digest(table);
  write_atomically(file, table.data(), table.size_bytes());
  // After the table: a crash in between leaves a file without sidecar, which loading
  // then verifies by regeneration.
  const std::string side = sidecar_text(d, file);
  write_atomically(parent_cache_sidecar_path(file), side.data(), side.size());
  return file;
}

std::uint64_t check_sampled_rows(const graph_params& g, const parent_table& t, const std::filesystem::path& file,
                                 std::uint64_t samples, std::uint64_t seed) {
  if (t.nodes() != g.nodes)
    fail(file, std::to_string(t.nodes()) + " rows, but the graph has " + std::to_string(g.nodes) + " nodes");
  std::uint64_t checked = 0;
  for_each_sampled_index(g.nodes, samples, seed, [&](std::uint64_t node) {
    std::uint32_t want[kParentsPerNode];
    fill_parent_rows(g, node, 1, want);
    const std::uint32_t* row = t.row(node);
    for (std::uint32_t k = 0; k < kParentsPerNode; ++k)
      if (row[k] != want[k])
        fail(file, "node " + std::to_string(node) + " slot " + std::to_string(k) + " holds parent " +
                       std::to_string(row[k]) + ", the graph's is " + std::to_string(want[k]) +
                       " (recomputed rows, checked whatever the digests say); the file is corrupt or of another "
                       "graph: delete it and its .sha256 to regenerate it");
    ++checked;
  });
  return checked;
}

parent_table load_parent_cache(const std::filesystem::path& dir, const graph_params& g, cache_check check,
                               std::uint64_t sampled_rows) {
  const auto file = parent_cache_path(dir, g);
  if (!std::filesystem::exists(file)) fail(file, "does not exist");
  // Read the sidecar first so that a missing one fails before hashing a large file.
  digest32 want{};
  if (check == cache_check::digest) want = read_sidecar(parent_cache_sidecar_path(file));
  parent_table t = parent_table::map_file(file, g.nodes);
  switch (check) {
    case cache_check::size_only:
      break;
    case cache_check::digest: {
      ::madvise(const_cast<std::uint32_t*>(t.data()), t.size_bytes(), MADV_SEQUENTIAL);
      const digest32 got = parent_table_digest(t.words());
      if (got != want)
        fail(file, "SHA-256 " + to_hex(got.data(), got.size()) + " does not match " +
                       to_hex(want.data(), want.size()) + " in " + parent_cache_sidecar_path(file).filename().string() +
                       "; the file is corrupt");
      check_known_digest(file, got);
      // Without a published digest the sidecar may have been rewritten with the file: rows
      // are recomputed from the graph.
      if (sampled_rows > 0 && !known_digest(file)) check_sampled_rows(g, t, file, sampled_rows);
      break;
    }
    case cache_check::regenerate:
      compare_with_regenerated(file, g, t);
      break;
  }
  return t;
}

bool parent_cache_present(const std::filesystem::path& dir, const graph_params& g) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) fail(dir, "exists and is not a directory");
  return regular_file_exists(parent_cache_path(dir, g));
}

parent_table load_or_create_parent_cache(const std::filesystem::path& dir, const graph_params& g) {
  const auto file = parent_cache_path(dir, g);
  if (parent_cache_present(dir, g)) {
    const auto sidecar = parent_cache_sidecar_path(file);
    if (std::filesystem::exists(sidecar)) return load_parent_cache(dir, g, cache_check::digest);
    // No sidecar (a file rust-fil-proofs wrote): a production graph's file is checked
    // against the published digest, any other by regenerating the table.
    const bool known = known_digest(file).has_value();
    parent_table t = load_parent_cache(dir, g, known ? cache_check::size_only : cache_check::regenerate);
    const digest32 d = parent_table_digest(t.words());
    check_known_digest(file, d);
    const std::string side = sidecar_text(d, file);
    write_atomically(sidecar, side.data(), side.size());
    return t;
  }
  generate_parent_cache_file(dir, g);
  return parent_table::map_file(file, g.nodes);
}

std::filesystem::path generate_parent_cache_file(const std::filesystem::path& dir, const graph_params& g,
                                                 std::uint64_t slice_nodes) {
  make_directories(dir);
  const auto file = parent_cache_path(dir, g);
  require_replaceable(file, "the parent cache file");
  const std::filesystem::path tmp = staging_path(file);
  // Removes the temporary file on every way out but the rename.
  struct scratch {
    const std::filesystem::path& p;
    bool keep = false;
    ~scratch() {
      if (!keep) ::unlink(p.c_str());
    }
  } guard{tmp};
  const std::uint64_t bytes = table_bytes(g.nodes);
  unique_fd fd = create_staging_file(tmp, bytes);
  const feistel_table t = make_feistel_table(g);
  // Rows in slices, each written back and dropped from the page cache before the next:
  // memory stays one slice whatever the graph.
  const std::uint64_t kSliceNodes = std::max<std::uint64_t>(slice_nodes, 1);
  std::vector<std::uint32_t> slice(static_cast<std::size_t>(std::min(g.nodes, kSliceNodes) * kParentsPerNode));
  sha256::ctx c;
  sha256::init(c);
  for (std::uint64_t first = 0; first < g.nodes; first += kSliceNodes) {
    const std::uint64_t count = std::min(kSliceNodes, g.nodes - first);
    const auto chunks = static_cast<std::int64_t>((count + kChunkNodes - 1) / kChunkNodes);
    std::uint32_t* base = slice.data();
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t ch = 0; ch < chunks; ++ch) {
      const std::uint64_t off = static_cast<std::uint64_t>(ch) * kChunkNodes;
      fill_parent_rows(g, t, first + off, std::min(kChunkNodes, count - off), base + off * kParentsPerNode);
    }
    const std::uint64_t n = count * kRowBytes;
    sha256::update_bulk(c, base, static_cast<std::size_t>(n));
    pwrite_exact(fd.get(), base, n, first * kRowBytes, tmp);
    flush_and_drop(fd.get(), tmp);
  }
  digest32 d{};
  sha256::final(c, d.data());
  sync_file(fd.get(), tmp);
  fd = unique_fd();
  rename_into_place(tmp, file);
  guard.keep = true;
  const std::string side = sidecar_text(d, file);
  write_atomically(parent_cache_sidecar_path(file), side.data(), side.size());
  return file;
}

std::filesystem::path default_parent_cache_dir() {
  const char* env = std::getenv("FIL_PROOFS_PARENT_CACHE");
  return env != nullptr && *env != '\0' ? std::filesystem::path(env) : std::filesystem::path(kDefaultParentCacheDir);
}

}  // namespace poreplab::graph
