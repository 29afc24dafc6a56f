#include "poreplab/sdr/seal.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "poreplab/checked.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/interrupt.hpp"
#include "poreplab/json_input.hpp"
#include "poreplab/memory_check.hpp"
#include "poreplab/sdr/mmap_layer_store.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/sdr/tree_d.hpp"

namespace poreplab::sdr {

namespace fs = std::filesystem;

std::string layer_file_name(std::uint32_t layer) { return "sc-02-data-layer-" + std::to_string(layer) + ".dat"; }

namespace {

// A regular file (a FIFO or a device would block or never end) of exactly `bytes`,
// read after its size is checked.
std::vector<std::uint8_t> read_file_of_size(const fs::path& p, std::uint64_t bytes, const std::string& expected) {
  const std::uint64_t size = regular_file_size(p);
  if (size != bytes)
    throw std::runtime_error(p.string() + ": size " + std::to_string(size) + " bytes does not match " +
                             std::to_string(bytes) + " bytes of " + expected);
  auto data = read_regular_file(p);
  if (data.size() != bytes) throw std::runtime_error(p.string() + ": changed while being read");
  return data;
}

// Space reserved first: a full disk is "no space left on <dir>: need X, have Y".
void write_file(const fs::path& p, const std::uint8_t* data, std::uint64_t n) { write_reserved_file(p, data, n); }

// A file a seal writes (or a temporary one of a seal): layer files, tree_d, replica,
// seal.json. Nothing else in an output directory is ever replaced or removed.
bool is_seal_file(std::string name) {
  if (name.ends_with(".tmp")) name.resize(name.size() - 4);
  if (name == kReplicaFile || name == kTreeDFile || name == kSealManifest) return true;
  const std::string_view prefix = "sc-02-data-layer-", suffix = ".dat";
  if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix)) return false;
  const std::string_view number(name.data() + prefix.size(), name.size() - prefix.size() - suffix.size());
  return std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// An output directory that holds anything is refused, unless `existing` allows replacing
// a previous seal there.
void check_output_dir(const fs::path& dir, existing_output existing) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return;
  if (!fs::is_directory(dir, ec)) throw std::runtime_error(dir.string() + ": exists and is not a directory");
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  if (ec) throw std::runtime_error(dir.string() + ": cannot list: " + ec.message());
  if (names.empty() || existing == existing_output::replace) return;
  std::sort(names.begin(), names.end());
  std::string shown;
  for (std::size_t i = 0; i < names.size() && i < 3; ++i) shown += (i ? ", " : "") + names[i];
  if (names.size() > 3) shown += " and " + std::to_string(names.size() - 3) + " more";
  throw std::runtime_error(dir.string() + ": not empty (holds " + shown +
                           "); seal into a new or empty directory, or pass --force to replace the previous seal "
                           "there (its layer files, tree_d, replica.dat and seal.json; other files are kept)");
}

// Temporary files of one seal: renamed together on commit, removed otherwise (with the
// output directory, when the seal created it). With `replace`, the commit also removes
// the files of a previous seal that the new one does not have (layers beyond its count,
// leftover .tmp files); the old seal.json goes first and the new one comes last, so the
// directory never looks like a complete seal that mixes the two.
class staged_files {
 public:
  staged_files(fs::path dir, bool created_dir, bool replace)
      : dir_(std::move(dir)), created_dir_(created_dir), replace_(replace) {}
  ~staged_files() {
    if (committed_) return;
    std::error_code ec;
    for (const auto& f : files_) fs::remove(tmp(f), ec);
    if (created_dir_) fs::remove(dir_, ec);  // only if empty
  }
  fs::path add(const std::string& name) {
    files_.push_back(name);
    return tmp(name);
  }
  void commit() {
    if (replace_) fs::remove(dir_ / kSealManifest);
    for (const auto& f : files_)
      if (f != kSealManifest) fs::rename(tmp(f), dir_ / f);
    if (replace_) {
      std::vector<fs::path> stale;
      for (const auto& e : fs::directory_iterator(dir_)) {
        const std::string name = e.path().filename().string();
        if (name != kSealManifest + std::string(".tmp") && is_seal_file(name) &&
            std::find(files_.begin(), files_.end(), name) == files_.end())
          stale.push_back(e.path());
      }
      for (const auto& p : stale) fs::remove(p);
    }
    for (const auto& f : files_)
      if (f == kSealManifest) fs::rename(tmp(f), dir_ / f);
    committed_ = true;
  }

 private:
  fs::path tmp(const std::string& name) const { return dir_ / (name + ".tmp"); }
  fs::path dir_;
  bool created_dir_;
  bool replace_;
  std::vector<std::string> files_;
  bool committed_ = false;
};

std::string file_sha256_hex(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error(p.string() + ": cannot read back");
  sha256::ctx c;
  sha256::init(c);
  std::vector<char> buf(1 << 20);
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0)
    sha256::update(c, buf.data(), static_cast<std::size_t>(in.gcount()));
  std::uint8_t d[32];
  sha256::final(c, d);
  return to_hex(d, 32);
}

graph::parent_table parents_for(const graph::graph_params& g, const fs::path& cache_dir) {
  if (cache_dir.empty()) return graph::parent_table::generate(g);
  return graph::load_or_create_parent_cache(cache_dir, g);
}

// Returns whether the directory was created here.
bool ensure_writable_dir(const fs::path& dir) {
  std::error_code ec;
  const bool existed = fs::exists(dir, ec);
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir)) throw std::runtime_error(dir.string() + ": cannot create output directory");
  if (access(dir.c_str(), W_OK) != 0)
    throw std::runtime_error(dir.string() + ": output directory is not writable: " + std::strerror(errno));
  return !existed;
}

// seal.json's fields: every problem names the file and the JSON pointer.
class manifest_fields {
 public:
  manifest_fields(fs::path file, const nlohmann::json& root) : file_(std::move(file)), root_(root) {}

  [[noreturn]] void fail(const std::string& ptr, const std::string& what) const {
    throw std::runtime_error(file_.string() + ": " + ptr + ": " + what);
  }
  const nlohmann::json& at(const std::string& ptr) const {
    const nlohmann::json* v = &root_;
    std::size_t pos = 1;
    while (pos <= ptr.size()) {
      const std::size_t next = std::min(ptr.find('/', pos), ptr.size());
      const std::string key = ptr.substr(pos, next - pos);
      if (!v->is_object() || !v->contains(key)) fail(ptr, "missing");
      v = &(*v)[key];
      pos = next + 1;
    }
    return *v;
  }
  std::string text(const std::string& ptr) const {
    const auto& v = at(ptr);
    if (!v.is_string()) fail(ptr, "expected a string, got " + v.dump());
    return v.get<std::string>();
  }
  std::uint64_t integer(const std::string& ptr, std::uint64_t lo, std::uint64_t hi) const {
    const auto& v = at(ptr);
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() < lo || v.get<std::uint64_t>() > hi)
      fail(ptr, "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got " + v.dump());
    return v.get<std::uint64_t>();
  }
  bytes32 hex32(const std::string& ptr) const {
    std::vector<std::uint8_t> v;
    try {
      v = from_hex(text(ptr), 32, "32 bytes of hex");
    } catch (const std::invalid_argument& e) {
      fail(ptr, e.what());
    }
    bytes32 b;
    std::copy(v.begin(), v.end(), b.begin());
    return b;
  }

 private:
  fs::path file_;
  const nlohmann::json& root_;
};

// Checks for SIGINT/SIGTERM (interrupt.hpp) after every layer: an interrupted seal
// unwinds, which removes its temporary files.
class interruptible_store final : public layer_store {
 public:
  explicit interruptible_store(layer_store& inner) : inner_(inner) {}
  std::uint8_t* layer(std::uint32_t l) override { return inner_.layer(l); }
  void layer_done(std::uint32_t l) override {
    inner_.layer_done(l);
    throw_if_interrupted();
  }

 private:
  layer_store& inner_;
};

}  // namespace

seal_result seal(const seal_inputs& in, const fs::path& data_file, const fs::path& out_dir, backend& be,
                 const fs::path& parent_cache_dir, existing_output existing) {
  if (in.layers == 0 || in.layers > kMaxLayers)
    throw std::invalid_argument("layers: " + std::to_string(in.layers) + " is not from 1 to " +
                                std::to_string(kMaxLayers) + " (Filecoin's SDR uses 2 or 11)");
  // The size first: a FIFO or device is refused before it can block, a wrong size
  // before anything is read.
  const std::uint64_t size = regular_file_size(data_file);
  if (in.expected_sector_size && size != *in.expected_sector_size)
    throw std::invalid_argument(data_file.string() + ": size " + std::to_string(size) + " bytes, but " +
                                in.proof_name + " seals sectors of " + std::to_string(*in.expected_sector_size) +
                                " bytes");
  if (size < 64 || size % 32 != 0 || ((size / 32) & (size / 32 - 1)) != 0)
    throw std::invalid_argument(data_file.string() + ": size " + std::to_string(size) +
                                " bytes is not nodes * 32 with a power-of-two node count >= 2");
  const std::uint64_t nodes = size / 32;
  // The data, tree_d (2x), the replica and the parent table are in memory together (the
  // layers are mapped files): refused before any of it is allocated.
  require_memory(checked_add(checked_mul(size, 4, "seal memory"), checked_mul(nodes, 56, "seal memory"), "seal memory"),
                 data_file.string());
  const auto data = read_file_of_size(data_file, size, "the data file when it was opened");
  if (const auto bad = first_noncanonical(data.data(), nodes); bad >= 0)
    throw std::invalid_argument(data_file.string() + ": node " + std::to_string(bad) +
                                " is not a valid field element (the data must be fr32-padded)");
  check_output_dir(out_dir, existing);
  staged_files staged(out_dir, ensure_writable_dir(out_dir), existing == existing_output::replace);
  // Everything this seal writes, checked before the first byte: tree_d, the layers, the
  // replica (and a few KiB of seal.json). Each file also reserves its space when created.
  const std::uint64_t disk = checked_add(
      checked_add(tree_d_bytes(nodes), checked_mul(size, std::uint64_t{in.layers} + 1, "seal bytes"), "seal bytes"),
      64 << 10, "seal bytes");
  require_disk_space(out_dir, disk);

  seal_result res;
  nlohmann::json files = nlohmann::json::object();
  {
    throw_if_interrupted();
    std::vector<std::uint8_t> tree(tree_d_bytes(nodes));
    res.comm_d = build_tree_d(data.data(), nodes, tree.data());
    write_file(staged.add(kTreeDFile), tree.data(), tree.size());
    files[kTreeDFile] = {{"bytes", tree.size()}, {"sha256", sha256_hex(tree.data(), tree.size())}};
  }
  res.replica_id = replica_id(in.prover_id, in.sector_id, in.ticket, res.comm_d, in.porep_id);

  const auto g = graph::make_graph_params(in.porep_id.data(), in.api, nodes);
  const auto table = parents_for(g, parent_cache_dir);
  // Layers are labeled straight into their (temporary) files, mapped into memory.
  std::vector<fs::path> layer_files;
  for (std::uint32_t l = 1; l <= in.layers; ++l) layer_files.push_back(staged.add(layer_file_name(l)));
  mmap_layer_store store(out_dir, size, [](std::uint32_t l) { return layer_file_name(l) + ".tmp"; });
  const label_job job{nodes, table.data(), in.layers, 1, res.replica_id.data()};
  throw_if_interrupted();
  interruptible_store watched(store);
  be.label(job, watched);
  for (std::uint32_t l = 1; l <= in.layers; ++l)
    files[layer_file_name(l)] = {{"bytes", size}, {"sha256", file_sha256_hex(layer_files[l - 1])}};

  std::vector<std::uint8_t> replica(size);
  encode(store.layer(in.layers), data.data(), replica.data(), nodes);
  write_file(staged.add(kReplicaFile), replica.data(), size);
  files[kReplicaFile] = {{"bytes", size}, {"sha256", sha256_hex(replica.data(), size)}};

  res.manifest = {{"format", "poreplab-seal/1"},
                  {"inputs",
                   {{"proof", in.proof_name},
                    {"porep_id", to_hex(in.porep_id)},
                    {"api_version", std::string(api_version_name(in.api))},
                    {"layers", in.layers},
                    {"nodes", nodes},
                    {"sector_size", size},
                    {"prover_id", to_hex(in.prover_id)},
                    {"sector_id", in.sector_id},
                    {"ticket", to_hex(in.ticket)},
                    {"data_file", fs::absolute(data_file).string()},
                    {"data_sha256", sha256_hex(data.data(), size)}}},
                  {"replica_id", to_hex(res.replica_id)},
                  {"comm_d", to_hex(res.comm_d)},
                  {"parent_cache_file", graph::parent_cache_file_name(g)},
                  {"parents_sha256", to_hex(graph::parent_table_digest(table.words()))},
                  {"backend", be.name()},
                  {"files", files}};
  const std::string text = res.manifest.dump(2) + "\n";
  write_file(staged.add(kSealManifest), reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  throw_if_interrupted();
  staged.commit();
  return res;
}

seal_manifest parse_seal_manifest(std::string_view text, const fs::path& file) {
  const nlohmann::json m = parse_json(text, file.string() + ": malformed");
  const manifest_fields f(file, m);
  seal_manifest sm;
  sm.comm_d = f.hex32("/comm_d");
  sm.replica_id = f.hex32("/replica_id");
  sm.porep_id = f.hex32("/inputs/porep_id");
  // Bounded: 2^32 - 1 layers (or -1) would label for ever.
  sm.layers = static_cast<std::uint32_t>(f.integer("/inputs/layers", 1, kMaxLayers));
  sm.nodes = f.integer("/inputs/nodes", 2, ~std::uint64_t{0});
  if ((sm.nodes & (sm.nodes - 1)) != 0) f.fail("/inputs/nodes", std::to_string(sm.nodes) + " is not a power of two");
  try {
    sm.sector_bytes = checked_mul(sm.nodes, 32, "sector bytes");
  } catch (const size_overflow& e) {
    f.fail("/inputs/nodes", e.what());
  }
  try {
    sm.api = parse_api_version(f.text("/inputs/api_version"));
  } catch (const std::invalid_argument& e) {
    f.fail("/inputs/api_version", e.what());
  }
  return sm;
}

unseal_result unseal(const fs::path& sealed_dir, const fs::path& out_file, backend& be, bool recompute,
                     const fs::path& parent_cache_dir, existing_output existing) {
  // Before any work: an existing file is never silently replaced.
  if (std::error_code ec; fs::exists(fs::symlink_status(out_file, ec))) {
    if (fs::is_directory(out_file, ec)) throw std::runtime_error(out_file.string() + ": is a directory");
    if (existing == existing_output::refuse)
      throw std::runtime_error(out_file.string() + ": already exists; pass --force to replace it");
  }
  const fs::path manifest_path = sealed_dir / kSealManifest;
  if (!fs::exists(manifest_path))
    throw std::runtime_error(manifest_path.string() + ": missing (not a sealed directory?)");
  const seal_manifest sm = parse_seal_manifest(read_text_input(manifest_path, 16 << 20), manifest_path);
  unseal_result res;
  const bytes32& comm_d = sm.comm_d;
  const bytes32& id = sm.replica_id;
  const std::uint32_t layers = sm.layers;
  const std::uint64_t nodes = sm.nodes;
  const std::uint64_t sector_bytes = sm.sector_bytes;
  const fs::path last_layer = sealed_dir / layer_file_name(layers);
  const bool relabel = recompute || !fs::exists(last_layer);
  // Replica, key and data; labeling adds two layer buffers and the parent table.
  require_memory(checked_add(checked_mul(sector_bytes, relabel ? 5 : 3, "unseal memory"),
                             relabel ? checked_mul(nodes, 56, "unseal memory") : 0, "unseal memory"),
                 sealed_dir.string());
  const auto replica = read_file_of_size(sealed_dir / kReplicaFile, sector_bytes, "seal.json (nodes * 32)");
  std::vector<std::uint8_t> key;
  if (!relabel) {
    key = read_file_of_size(last_layer, sector_bytes, "the replica");
  } else {
    const auto g = graph::make_graph_params(sm.porep_id.data(), sm.api, nodes);
    const auto table = parents_for(g, parent_cache_dir);
    rolling_layer_store store(sector_bytes);
    interruptible_store watched(store);
    be.label({nodes, table.data(), layers, 1, id.data()}, watched);
    const std::uint8_t* last = store.layer(layers);
    key.assign(last, last + sector_bytes);
    res.recomputed = true;
  }
  std::vector<std::uint8_t> data(replica.size());
  decode(key.data(), replica.data(), data.data(), nodes);
  res.comm_d = sdr::comm_d(data.data(), nodes);
  if (res.comm_d != comm_d)
    throw std::runtime_error("unsealed data does not match comm_d (expected " + to_hex(comm_d) + ", got " +
                             to_hex(res.comm_d) + "): the replica or layer file is corrupt");
  const fs::path tmp = out_file.string() + ".tmp";
  try {
    write_file(tmp, data.data(), data.size());
    fs::rename(tmp, out_file);
  } catch (...) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw;
  }
  return res;
}

}  // namespace poreplab::sdr
