#include "poreplab/seal/seal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>
#include <ostream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "poreplab/checked.hpp"
#include "poreplab/crash_point.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/format_keys.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/hash/hmac_sha256.hpp"
#include "poreplab/hash/sha256_bulk.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/interrupt.hpp"
#include "poreplab/json_input.hpp"
#include "poreplab/machine_key.hpp"
#include "poreplab/memory_check.hpp"
#include "poreplab/sdr/mmap_layer_store.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/sdr/sampled_check.hpp"
#include "poreplab/sdr/tree_d.hpp"
#include "poreplab/writer_lock.hpp"

namespace poreplab::seal {

using namespace sdr;  // the pipeline is written in the graph and kernels' vocabulary

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

// A regular file of exactly `bytes`, checked before anything is read.
void check_file_size(const fs::path& p, std::uint64_t bytes, const std::string& expected) {
  const std::uint64_t size = regular_file_size(p);
  if (size != bytes)
    throw std::runtime_error(p.string() + ": size " + std::to_string(size) + " bytes does not match " +
                             std::to_string(bytes) + " bytes of " + expected);
}

// Created new (never through what was at the name), space reserved first: a full disk is
// "no space left on <dir>: need X, have Y".
void write_file(const fs::path& p, const std::uint8_t* data, std::uint64_t n) { write_staging_file(p, data, n); }

// A file an earlier run left (and this one may keep): a regular file of `bytes`, not a
// symbolic link, whose SHA-256 is `sha256`.
bool kept_file_matches(const fs::path& p, std::uint64_t bytes, const std::string& sha256) {
  std::error_code ec;
  const auto st = fs::symlink_status(p, ec);
  return !ec && fs::is_regular_file(st) && fs::file_size(p, ec) == bytes && !ec && file_sha256_hex(p) == sha256;
}

// A file a seal writes (or a temporary one of a seal): layer files, tree_d, replica,
// seal.json. Nothing else in an output directory is ever replaced or removed.
bool is_seal_file(std::string name) {
  if (name.ends_with(".tmp")) name.resize(name.size() - 4);
  if (name == kReplicaFile || name == kTreeDFile || name == kSealManifest || name == kSealState) return true;
  // PC2's tree files (pc2_tree_files): a replaced seal must not keep its predecessor's.
  if ((name.starts_with("sc-02-data-tree-c") || name.starts_with("sc-02-data-tree-r-last")) && name.ends_with(".dat"))
    return true;
  const std::string_view prefix = "sc-02-data-layer-", suffix = ".dat";
  if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix)) return false;
  const std::string_view number(name.data() + prefix.size(), name.size() - prefix.size() - suffix.size());
  return std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The names in an output directory, but its lock file.
std::vector<std::string> names_in(const fs::path& dir) {
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename() != kLockFile) names.push_back(e.path().filename().string());
  if (ec) throw std::runtime_error(dir.string() + ": cannot list: " + ec.message());
  return names;
}

// Staging files of a seal whose state file never recorded them: a seal killed before its
// first state file (tree_d's and the state's own), or one left by an older run. Nothing can
// resume from them; the next seal cleans them rather than refusing the directory.
void remove_unrecorded_staging(const fs::path& dir, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    if (!name.ends_with(".tmp") || !is_seal_file(name)) continue;
    const fs::path p = dir / name;
    require_replaceable(p, "a seal's staging file");
    if (::unlink(p.c_str()) != 0 && errno != ENOENT)
      throw std::runtime_error(p.string() + ": cannot remove a killed seal's staging file: " + std::strerror(errno));
  }
}

// What an output directory holds: nothing in the way, an unfinished seal (its state file,
// no seal.json), a state file beside a seal.json (the caller checks whether the state was
// committing), or a previous seal or other files (refused unless `existing` replaces them).
enum class dir_holds { nothing_in_the_way, unfinished_seal, state_and_manifest, other_files };

dir_holds check_output_dir(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return dir_holds::nothing_in_the_way;
  if (!fs::is_directory(dir, ec)) throw std::runtime_error(dir.string() + ": exists and is not a directory");
  const std::vector<std::string> names = names_in(dir);
  const auto has = [&](const char* n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  if (has(kSealState)) return has(kSealManifest) ? dir_holds::state_and_manifest : dir_holds::unfinished_seal;
  remove_unrecorded_staging(dir, names);
  return names_in(dir).empty() ? dir_holds::nothing_in_the_way : dir_holds::other_files;
}

// A complete seal is a result: never resumed over, replaced only when asked.
void refuse_unless_replacing(const fs::path& dir, existing_output existing) {
  if (existing == existing_output::replace) return;
  std::vector<std::string> names = names_in(dir);
  std::sort(names.begin(), names.end());
  std::string shown;
  for (std::size_t i = 0; i < names.size() && i < 3; ++i) shown += (i ? ", " : "") + names[i];
  if (names.size() > 3) shown += " and " + std::to_string(names.size() - 3) + " more";
  throw std::runtime_error(dir.string() + ": not empty (holds " + shown +
                           "); seal into a new or empty directory, or pass --force to replace the previous seal "
                           "there (its layer files, tree_d, replica.dat and seal.json; other files are kept)");
}

// Temporary files of one seal: renamed together on commit, removed otherwise (with the
// output directory, when the seal created it), except what a rerun resumes from: on an
// interrupt (SIGINT/SIGTERM) every file seal-state.json records, on a failure the files
// an earlier run left and this one checked; those stay with the state file. A fresh seal
// that fails leaves nothing. With `replace`, the commit also removes
// the files of a previous seal that the new one does not have (layers beyond its count,
// leftover .tmp files); the old seal.json goes first and the new one comes last, so the
// directory never looks like a complete seal that mixes the two. The seal's lock on the
// directory is released once it is left as it stays.
class staged_files {
 public:
  staged_files(fs::path dir, bool created_dir, bool replace, writer_lock& lock)
      : dir_(std::move(dir)), created_dir_(created_dir), replace_(replace), lock_(lock) {}
  ~staged_files() {
    if (committed_) return;
    const std::vector<std::string>& keep = interrupt_signal() != 0 ? recorded_ : checked_;
    std::error_code ec;
    for (const auto& f : files_)
      if (std::find(keep.begin(), keep.end(), f) == keep.end()) fs::remove(tmp(f), ec);
    fs::remove(dir_ / (std::string(kSealState) + ".tmp"), ec);
    if (!keep.empty()) return;
    fs::remove(dir_ / kSealState, ec);
    lock_.release();
    if (created_dir_) fs::remove(dir_, ec);  // only if empty
  }
  // The files seal-state.json records (kept on an interrupt), and those an earlier run
  // left that this one checked against it (kept on any failure).
  void set_recorded(std::vector<std::string> names) { recorded_ = std::move(names); }
  void set_checked(std::vector<std::string> names) { checked_ = std::move(names); }
  fs::path add(const std::string& name) {
    if (std::find(files_.begin(), files_.end(), name) == files_.end()) files_.push_back(name);
    return tmp(name);
  }
  // Before any work: a directory where a file of the seal goes would fail the commit
  // half-way, after a replaced seal's seal.json is gone.
  void require_replaceable(const std::vector<std::string>& names) const {
    for (const auto& n : names) {
      poreplab::require_replaceable(dir_ / n, "the seal's " + n);
      poreplab::require_replaceable(tmp(n), "the seal's staging file");
    }
  }
  // The state file, which says the seal is committing, goes last: a kill at any point
  // before leaves it for the same command to finish the commit.
  void commit() {
    if (replace_) fs::remove(dir_ / kSealManifest);
    for (const auto& f : files_)
      if (f != kSealManifest) {
        rename_into_place(tmp(f), dir_ / f);
        reach(crash_point::file_renamed);
      }
    if (replace_) {
      std::vector<fs::path> stale;
      for (const auto& e : fs::directory_iterator(dir_)) {
        const std::string name = e.path().filename().string();
        if (name != kSealManifest + std::string(".tmp") && name != kSealState && is_seal_file(name) &&
            std::find(files_.begin(), files_.end(), name) == files_.end())
          stale.push_back(e.path());
      }
      for (const auto& p : stale) fs::remove(p);
    }
    for (const auto& f : files_)
      if (f == kSealManifest) rename_into_place(tmp(f), dir_ / f);
    sync_directory(dir_);
    reach(crash_point::manifest_renamed);
    committed_ = true;
    std::error_code ec;
    fs::remove(dir_ / kSealState, ec);
    lock_.release();
  }

 private:
  fs::path tmp(const std::string& name) const { return dir_ / (name + ".tmp"); }
  fs::path dir_;
  bool created_dir_;
  bool replace_;
  writer_lock& lock_;
  std::vector<std::string> files_;
  std::vector<std::string> recorded_, checked_;
  bool committed_ = false;
};

// tree_d and the first `layers` layer files: what a state with those layers resumes from.
std::vector<std::string> resumable_files(std::size_t layers) {
  std::vector<std::string> names{kTreeDFile};
  for (std::size_t l = 1; l <= layers; ++l) names.push_back(layer_file_name(static_cast<std::uint32_t>(l)));
  return names;
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

// ---- resume state ----

// The inputs that decide every byte of a seal, as seal-state.json and seal.json record them.
nlohmann::json identity_of(const seal_inputs& in, std::uint64_t nodes, std::uint64_t size,
                           const std::string& data_sha256) {
  return {{"porep_id", to_hex(in.porep_id)},
          {"api_version", std::string(api_version_name(in.api))},
          {"layers", in.layers},
          {"nodes", nodes},
          {format_keys::sector_size, size},
          {"prover_id", to_hex(in.prover_id)},
          {"sector_id", in.sector_id},
          {"ticket", to_hex(in.ticket)},
          {"data_sha256", data_sha256}};
}

std::string hex_digest_field(const manifest_fields& f, const nlohmann::json& v, const std::string& ptr) {
  if (!v.is_string()) f.fail(ptr, "expected a string, got " + v.dump());
  const std::string t = v.get<std::string>();
  if (t.size() != 64 || !std::all_of(t.begin(), t.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }))
    f.fail(ptr, "expected 64 lowercase hex digits");
  return t;
}

seal_state read_seal_state(const fs::path& file, std::uint32_t max_layers) {
  return parse_seal_state(read_small_file(file, {.max_bytes = 1 << 20, .follow_links = false}), file, max_layers);
}

// What a state file's MAC covers: every field but the MAC, as one canonical JSON text.
nlohmann::json state_fields(const seal_state& st) {
  nlohmann::json j = {{"format", "poreplab-seal-state/1"},
                      {"inputs", st.identity},
                      {"tree_d_sha256", st.tree_d_sha256},
                      {"comm_d", to_hex(st.comm_d)},
                      {"layers", st.layers}};
  if (st.committing) j["committing"] = true;
  return j;
}

std::string state_mac(const seal_state& st, const machine_key& key) { return json_mac(state_fields(st), key); }

// Staged, fsynced, renamed: a state file is either the old one or the new one. With a
// machine key, the file carries the MAC of its fields under it.
void write_seal_state(const fs::path& dir, const seal_state& st, const std::optional<machine_key>& key) {
  nlohmann::json j = state_fields(st);
  if (key) j["mac"] = state_mac(st, *key);
  const std::string text = j.dump(2) + "\n";
  const fs::path file = dir / kSealState, staging = dir / (std::string(kSealState) + ".tmp");
  require_replaceable(file, "this file");
  write_staging_file(staging, text.data(), text.size());
  reach(crash_point::state_staged);
  rename_into_place(staging, file);
  sync_directory(dir);
  reach(crash_point::state_written);
}

// Whether a state file carries the MAC of its fields under this machine's key (true where
// no key can be had: the files it records are then checked by their digests only).
bool mac_verifies(const seal_state& st) {
  std::string why;
  const std::optional<machine_key> key = load_machine_key(why);
  return !key || (!st.mac.empty() && st.mac == state_mac(st, *key));
}

// The first input that differs, named for the error.
std::string first_difference(const nlohmann::json& recorded, const nlohmann::json& now) {
  for (auto it = now.begin(); it != now.end(); ++it)
    if (!recorded.contains(it.key()) || recorded.at(it.key()) != it.value())
      return it.key() + " " + (recorded.contains(it.key()) ? recorded.at(it.key()).dump() : std::string("missing")) +
             " there, " + it.value().dump() + " now";
  return {};
}

// ---- progress ----

std::string duration_text(double s) {
  if (!(s >= 0) || s > 1e8) return "?";
  const auto t = static_cast<std::uint64_t>(s + 0.5);
  char buf[32];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%lluh%02llum", static_cast<unsigned long long>(t / 3600),
                  static_cast<unsigned long long>(t / 60 % 60));
  else if (t >= 60)
    std::snprintf(buf, sizeof buf, "%llum%02llus", static_cast<unsigned long long>(t / 60),
                  static_cast<unsigned long long>(t % 60));
  else
    std::snprintf(buf, sizeof buf, "%llus", static_cast<unsigned long long>(t));
  return buf;
}

// A thread that, while labeling runs, prints where it stands every interval and asks the
// layer store to write back what it dirtied every second.
class seal_monitor {
 public:
  using clock = std::chrono::steady_clock;
  seal_monitor(std::ostream* out, double interval_s, const label_progress& p, std::uint32_t layers,
               std::uint64_t nodes, mmap_layer_store* writeback)
      : out_(out), interval_(interval_s), p_(p), layers_(layers), nodes_(nodes), store_(writeback) {
    thread_ = std::thread([this] { loop(); });
  }
  ~seal_monitor() {
    {
      const std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  seal_monitor(const seal_monitor&) = delete;
  seal_monitor& operator=(const seal_monitor&) = delete;

  void line(const std::string& text) {
    if (out_ == nullptr) return;
    const std::lock_guard<std::mutex> lock(out_mu_);
    *out_ << "seal: " << text << std::endl;
  }
  // Where labeling stands: "layer 2/11, node 1048576/67108864 (1.6%), 0.52 M nodes/s,
  // ETA 2m05s (layer), 1h10m (seal)".
  std::string status() {
    const std::uint32_t l = observe();
    const std::uint64_t done = p_.nodes_done.load(std::memory_order_relaxed);
    const double secs = std::chrono::duration<double>(clock::now() - layer_start_).count();
    const double rate = secs > 0 && done > start_nodes_ ? static_cast<double>(done - start_nodes_) / secs : 0;
    char head[160];
    std::snprintf(head, sizeof head, "layer %u/%u, node %llu/%llu (%.1f%%), %.2f M nodes/s", l, layers_,
                  static_cast<unsigned long long>(done), static_cast<unsigned long long>(nodes_),
                  100.0 * static_cast<double>(done) / static_cast<double>(nodes_), rate / 1e6);
    std::string s = head;
    if (rate > 0) {
      const double left_layer = static_cast<double>(nodes_ - std::min(done, nodes_)) / rate;
      const double left_all = left_layer + static_cast<double>(layers_ - std::min(l, layers_)) * static_cast<double>(nodes_) / rate;
      s += ", ETA " + duration_text(left_layer) + " (layer), " + duration_text(left_all) + " (seal)";
    } else {
      s += ", ETA ?";
    }
    return s;
  }

 private:
  // Notes when a new layer starts (within a tick), for the rate.
  std::uint32_t observe() {
    const std::uint32_t l = p_.layer.load(std::memory_order_relaxed);
    if (l != layer_) {
      layer_ = l;
      layer_start_ = clock::now();
      start_nodes_ = p_.nodes_done.load(std::memory_order_relaxed);
    }
    return l;
  }
  void loop() {
    auto last_line = clock::now();
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop_; })) {
      observe();
      if (++ticks_ % 4 != 0) continue;
      if (store_ != nullptr) store_->start_writeback();
      if (out_ != nullptr && interval_ > 0 &&
          std::chrono::duration<double>(clock::now() - last_line).count() >= interval_) {
        last_line = clock::now();
        line(status());
      }
    }
  }
  std::ostream* out_;
  double interval_;
  const label_progress& p_;
  std::uint32_t layers_;
  std::uint64_t nodes_;
  mmap_layer_store* store_;
  std::uint32_t layer_ = 0;
  clock::time_point layer_start_ = clock::now();
  std::uint64_t start_nodes_ = 0;
  std::uint64_t ticks_ = 0;
  std::mutex mu_, out_mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// Labels layer by layer into the mapped layer files; after each layer its digest goes
// into the state file, then a recorded signal stops the seal.
class recording_store final : public layer_store {
 public:
  recording_store(mmap_layer_store& inner, std::uint32_t first_new_layer, std::function<void(std::uint32_t)> on_done)
      : inner_(inner), created_up_to_(first_new_layer - 1), on_done_(std::move(on_done)) {}
  std::uint8_t* layer(std::uint32_t l) override {
    std::uint8_t* p = inner_.layer(l);
    if (l > created_up_to_) {  // its staging file was created just now
      created_up_to_ = l;
      reach(crash_point::layer_created);
    }
    return p;
  }
  void layer_done(std::uint32_t l) override {
    inner_.layer_done(l);
    reach(crash_point::layer_labeled);
    on_done_(l);
    throw_if_interrupted();
  }

 private:
  mmap_layer_store& inner_;
  std::uint32_t created_up_to_;
  std::function<void(std::uint32_t)> on_done_;
};

// ---- streaming ----

std::uint64_t chunk_nodes_of(const seal_options& opt, std::uint64_t nodes) {
  std::uint64_t c = 1;
  while (c * 2 * 32 <= std::max<std::uint64_t>(opt.chunk_bytes, 64) && c < nodes) c *= 2;
  return std::min(c, nodes);
}

// One pass over the data file: every node a field element, and its SHA-256.
std::string check_data_streamed(const fs::path& file, std::uint64_t nodes, std::uint64_t chunk_nodes) {
  unique_fd fd = open_regular_for_reading(file);
  std::vector<std::uint8_t> buf(chunk_nodes * 32);
  sha256::ctx c;
  sha256::init(c);
  for (std::uint64_t first = 0; first < nodes; first += chunk_nodes) {
    pread_exact(fd.get(), buf.data(), chunk_nodes * 32, first * 32, file);
    if (const auto bad = first_noncanonical(buf.data(), chunk_nodes); bad >= 0)
      throw std::invalid_argument(file.string() + ": node " + std::to_string(first + static_cast<std::uint64_t>(bad)) +
                                  " is not a valid field element (the data must be fr32-padded)");
    sha256::update_bulk(c, buf.data(), buf.size());
    ::posix_fadvise(fd.get(), static_cast<off_t>(first * 32), static_cast<off_t>(buf.size()), POSIX_FADV_DONTNEED);
  }
  std::uint8_t d[32];
  sha256::final(c, d);
  return to_hex(d, 32);
}

bytes32 write_tree_d_streamed(const fs::path& data_file, std::uint64_t nodes, std::uint64_t chunk_nodes,
                              const fs::path& tree_file, const tree_d_row_hasher& rows) {
  unique_fd data = open_regular_for_reading(data_file);
  unique_fd tree = create_staging_file(tree_file, tree_d_bytes(nodes));
  return build_tree_d_streamed(
      nodes, chunk_nodes,
      [&](std::uint64_t first, std::uint64_t count, std::uint8_t* out) {
        // Before each chunk, what the last one wrote goes to disk and out of the cache.
        flush_and_drop(tree.get(), tree_file);
        pread_exact(data.get(), out, count * 32, first * 32, data_file);
        ::posix_fadvise(data.get(), static_cast<off_t>(first * 32), static_cast<off_t>(count * 32), POSIX_FADV_DONTNEED);
      },
      [&](std::uint64_t offset, const std::uint8_t* bytes, std::uint64_t n) {
        pwrite_exact(tree.get(), bytes, n, offset, tree_file);
      },
      rows);
}

// replica = last layer + data, chunk by chunk; returns the replica's SHA-256.
std::string encode_streamed(const fs::path& key_file, const fs::path& data_file, const fs::path& replica_file,
                            std::uint64_t nodes, std::uint64_t chunk_nodes) {
  unique_fd key = open_regular_for_reading(key_file);
  unique_fd data = open_regular_for_reading(data_file);
  unique_fd out = create_staging_file(replica_file, nodes * 32);
  std::vector<std::uint8_t> k(chunk_nodes * 32), d(chunk_nodes * 32), r(chunk_nodes * 32);
  sha256::ctx c;
  sha256::init(c);
  for (std::uint64_t first = 0; first < nodes; first += chunk_nodes) {
    const std::uint64_t off = first * 32, n = chunk_nodes * 32;
    pread_exact(key.get(), k.data(), n, off, key_file);
    pread_exact(data.get(), d.data(), n, off, data_file);
    encode(k.data(), d.data(), r.data(), chunk_nodes);
    pwrite_exact(out.get(), r.data(), n, off, replica_file);
    sha256::update_bulk(c, r.data(), r.size());
    ::posix_fadvise(key.get(), static_cast<off_t>(off), static_cast<off_t>(n), POSIX_FADV_DONTNEED);
    ::posix_fadvise(data.get(), static_cast<off_t>(off), static_cast<off_t>(n), POSIX_FADV_DONTNEED);
    flush_and_drop(out.get(), replica_file);
  }
  sync_file(out.get(), replica_file);
  std::uint8_t dg[32];
  sha256::final(c, dg);
  return to_hex(dg, 32);
}

}  // namespace

std::uint64_t resident_previous_need(std::uint64_t size, const seal_options& opt) {
  // A quarter of a layer for that page cache, measured enough at 2GiB.
  const std::uint64_t chunk_nodes = chunk_nodes_of(opt, std::max<std::uint64_t>(size / 32, 1));
  return checked_add(size, std::max(chunk_nodes * 32 * 4, size / 4), "seal memory");
}

std::uint64_t seal_disk_need(std::uint64_t size, std::uint32_t layers) {
  return checked_add(
      checked_add(tree_d_bytes(size / 32), checked_mul(size, std::uint64_t{layers} + 1, "seal bytes"), "seal bytes"),
      64 << 10, "seal bytes");
}

namespace {
seal_result seal_files(const seal_inputs& in, const fs::path& data_file, const fs::path& out_dir, backend& be,
                       const fs::path& parent_cache_dir, const seal_options& opt);
}  // namespace

seal_result seal(const seal_inputs& in, const fs::path& data_file, const fs::path& out_dir, backend& be,
                 const fs::path& parent_cache_dir, existing_output existing) {
  seal_options opt;
  opt.existing = existing;
  return seal(in, data_file, out_dir, be, parent_cache_dir, opt);
}

seal_result seal(const seal_inputs& in, const fs::path& data_file, const fs::path& out_dir, backend& be,
                 const fs::path& parent_cache_dir, const seal_options& opt) {
  try {
    return seal_files(in, data_file, out_dir, be, parent_cache_dir, opt);
  } catch (const interrupted& e) {
    std::error_code ec;
    if (!fs::exists(out_dir / kSealState, ec)) throw;
    throw interrupted(e.signal, "the finished files are kept in " + out_dir.string() + " with " + kSealState +
                                    ": the same command resumes the seal, --force starts it over");
  }
}

namespace {

// What a seal of this data file needs and how it runs: in memory, or bounded (streamed
// tree_d and replica, layers through the page cache, the parent table mapped from a file).
struct seal_plan {
  std::uint64_t size = 0, nodes = 0;
  std::uint64_t in_memory_need = 0;  // the data, tree_d (2x), the replica and the parent table
  std::uint64_t budget = 0;
  bool bounded = false;
  std::uint64_t chunk_nodes = 0;
  bool resident_previous = false;
  fs::path cache_dir;
};

seal_plan plan_seal(const seal_inputs& in, const fs::path& data_file, const fs::path& parent_cache_dir,
                    const seal_options& opt) {
  if (in.layers == 0 || in.layers > kMaxLayers)
    throw std::invalid_argument("layers: " + std::to_string(in.layers) + " is not from 1 to " +
                                std::to_string(kMaxLayers) + " (Filecoin's SDR uses 2 or 11)");
  seal_plan p;
  // The size first: a FIFO or device is refused before it can block, a wrong size
  // before anything is read.
  p.size = regular_file_size(data_file);
  if (in.expected_sector_size && p.size != *in.expected_sector_size)
    throw std::invalid_argument(data_file.string() + ": size " + std::to_string(p.size) + " bytes, but " +
                                in.proof_name + " seals sectors of " + std::to_string(*in.expected_sector_size) +
                                " bytes");
  if (p.size < 64 || p.size % 32 != 0 || ((p.size / 32) & (p.size / 32 - 1)) != 0)
    throw std::invalid_argument(data_file.string() + ": size " + std::to_string(p.size) +
                                " bytes is not nodes * 32 with a power-of-two node count >= 2");
  p.nodes = p.size / 32;
  // In memory: the data, tree_d (2x), the replica and the parent table together (the
  // layers are mapped files). Bounded when that does not fit the budget.
  p.in_memory_need =
      checked_add(checked_mul(p.size, 4, "seal memory"), checked_mul(p.nodes, 56, "seal memory"), "seal memory");
  p.budget = opt.memory_limit != 0 ? opt.memory_limit : memory_budget_bytes();
  p.bounded = p.budget != 0 && p.in_memory_need > p.budget;
  p.chunk_nodes = chunk_nodes_of(opt, p.nodes);
  p.resident_previous = p.bounded && p.budget >= resident_previous_need(p.size, opt);
  p.cache_dir = p.bounded && parent_cache_dir.empty() ? fs::path(graph::kDefaultParentCacheDir) : parent_cache_dir;
  if (p.bounded && opt.memory_limit == 0) {
    // Even bounded, a few chunks and a slice of the parent table are buffers.
    const std::uint64_t floor = checked_add(checked_mul(p.chunk_nodes * 32, 4, "seal memory"),
                                            std::min<std::uint64_t>(p.nodes, 1 << 20) * 56, "seal memory");
    if (floor > p.budget)
      throw insufficient_memory(data_file.string() + ": does not fit in memory: needs " + byte_size_text(floor) + " (" +
                                std::to_string(floor) + " bytes) even streamed, " + byte_size_text(p.budget) +
                                " available (MemAvailable or the cgroup's limit)");
  }
  return p;
}

// The data's SHA-256, every node checked to be a field element; in memory, `data` holds it.
std::string read_data(const seal_plan& p, const fs::path& data_file, std::vector<std::uint8_t>& data) {
  if (p.bounded) return check_data_streamed(data_file, p.nodes, p.chunk_nodes);
  require_memory(p.in_memory_need, data_file.string());
  data = read_file_of_size(data_file, p.size, "the data file when it was opened");
  if (const auto bad = first_noncanonical(data.data(), p.nodes); bad >= 0)
    throw std::invalid_argument(data_file.string() + ": node " + std::to_string(bad) +
                                " is not a valid field element (the data must be fr32-padded)");
  return sha256_hex(data.data(), p.size);
}

// An unfinished seal of the same inputs is continued; of other inputs, refused (or, with
// replace, discarded). A seal.json beside a committing state of the same inputs is that
// seal's own, renamed into place just before it was killed: it is taken back and the
// commit done again. Beside any other state, seal.json is a complete seal.
std::optional<seal_state> unfinished_seal(const fs::path& out_dir, const seal_options& opt, std::uint32_t layers,
                                          const nlohmann::json& identity) {
  std::optional<seal_state> previous;
  const dir_holds holds = check_output_dir(out_dir);
  if (holds == dir_holds::nothing_in_the_way) return previous;
  if (holds == dir_holds::other_files) {
    refuse_unless_replacing(out_dir, opt.existing);
    return previous;
  }
  try {
    previous = read_seal_state(out_dir / kSealState, layers);
  } catch (const std::runtime_error&) {
    if (opt.existing != existing_output::replace && holds == dir_holds::unfinished_seal) throw;
  }
  if (holds == dir_holds::state_and_manifest) {
    if (!previous || !previous->committing || !first_difference(previous->identity, identity).empty() ||
        !mac_verifies(*previous)) {
      refuse_unless_replacing(out_dir, opt.existing);
      return std::nullopt;
    }
    fs::remove(out_dir / kSealManifest);
  }
  if (previous) {
    if (const auto diff = first_difference(previous->identity, identity); !diff.empty()) {
      if (opt.existing != existing_output::replace)
        throw std::runtime_error(out_dir.string() + ": holds an unfinished seal of other inputs (" + diff +
                                 "); rerun that seal to finish it, seal into another directory, or pass --force "
                                 "to discard it");
      previous.reset();
    }
  }
  return previous;
}

// Everything this seal writes, checked before the first byte: no directory where a file
// goes; room for tree_d, the layers, the replica (and a few KiB of seal.json), less what an
// unfinished seal already holds.
void check_outputs(const staged_files& staged, const fs::path& out_dir, const seal_plan& p, std::uint32_t layers,
                   bool resuming) {
  std::vector<std::string> outputs = resumable_files(layers);
  for (const char* f : {kReplicaFile, kSealManifest, kSealState}) outputs.emplace_back(f);
  staged.require_replaceable(outputs);
  std::uint64_t disk = seal_disk_need(p.size, layers);
  if (resuming) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(out_dir, ec))
      if (e.path().extension() == ".tmp" && is_seal_file(e.path().filename().string()))
        disk -= std::min(disk, static_cast<std::uint64_t>(e.file_size(ec)));
  }
  require_disk_space(out_dir, disk);
}

// Progress lines: through the labeling's monitor while it runs, else straight out.
struct seal_notes {
  std::ostream* progress = nullptr;
  seal_monitor* monitor = nullptr;
  void operator()(const std::string& text) const {
    if (monitor != nullptr) return monitor->line(text);
    if (progress != nullptr) *progress << "seal: " << text << std::endl;
  }
};

// A state file vouches for the layers it records only with a MAC under this machine's
// key: digests alone can be rewritten together with the files they describe.
void trust_previous(std::optional<seal_state>& previous, const std::optional<machine_key>& key,
                    const std::string& key_why, const seal_notes& note) {
  if (previous && key && (previous->mac.empty() || previous->mac != state_mac(*previous, *key))) {
    note("resuming: " + std::string(kSealState) +
         (previous->mac.empty() ? " carries no MAC" : "'s MAC does not verify") + " under this machine's key (" +
         key->file.string() + "): nothing it records is trusted; sealing from the start");
    previous.reset();
  } else if (previous && !key) {
    note("resuming: no machine key (" + key_why + "): the recorded files are checked by their digests and sampled " +
         "labels only");
  }
}

// A file an earlier run recorded and its commit, cut short, renamed already: put back
// under its staging name while it still holds the recorded bytes, where the resume looks.
void take_back_renamed(const fs::path& staging, std::uint64_t bytes, const std::string& sha256) {
  std::error_code ec;
  if (fs::exists(fs::symlink_status(staging, ec))) return;
  fs::path final_name = staging;
  final_name.replace_extension();  // without ".tmp"
  if (kept_file_matches(final_name, bytes, sha256)) rename_into_place(final_name, staging);
}

// tree_d: kept when its file still has the recorded digest and root, else built.
void make_tree_d(const seal_plan& p, const fs::path& data_file, const std::vector<std::uint8_t>& data,
                 const fs::path& tree_tmp, const std::optional<seal_state>& previous, backend& be, seal_state& state,
                 seal_result& res, const seal_notes& note) {
  if (previous) take_back_renamed(tree_tmp, tree_d_bytes(p.nodes), previous->tree_d_sha256);
  if (previous && fs::exists(tree_tmp)) {
    if (kept_file_matches(tree_tmp, tree_d_bytes(p.nodes), previous->tree_d_sha256)) {
      unique_fd fd = open_regular_for_reading(tree_tmp, false);
      bytes32 root;
      pread_exact(fd.get(), root.data(), 32, tree_d_bytes(p.nodes) - 32, tree_tmp);
      if (root == previous->comm_d) {
        res.tree_d_reused = true;
        state.tree_d_sha256 = previous->tree_d_sha256;
        res.comm_d = root;
      }
    }
    note(res.tree_d_reused ? "resuming: tree_d matches " + std::string(kSealState)
                           : "resuming: tree_d does not match " + std::string(kSealState) + "; building it again");
  }
  if (!res.tree_d_reused) {
    throw_if_interrupted();
    if (!p.bounded) {
      std::vector<std::uint8_t> tree(tree_d_bytes(p.nodes));
      res.comm_d = build_tree_d(data.data(), p.nodes, tree.data(), be.tree_d_rows());
      write_file(tree_tmp, tree.data(), tree.size());
      state.tree_d_sha256 = sha256_hex(tree.data(), tree.size());
    } else {
      res.comm_d = write_tree_d_streamed(data_file, p.nodes, p.chunk_nodes, tree_tmp, be.tree_d_rows());
      state.tree_d_sha256 = file_sha256_hex(tree_tmp);
    }
    reach(crash_point::tree_d_written);
  }
  state.comm_d = res.comm_d;
}

// Finished layers of the unfinished seal, each checked against its digest and by sampled
// labels recomputed from their parents; labeling goes on after the last good one.
void reuse_layers(const seal_plan& p, const graph::graph_params& g, const std::vector<fs::path>& layer_files,
                  const seal_state& previous, staged_files& staged, seal_state& state, seal_result& res,
                  const seal_notes& note) {
  std::uint64_t sampled = 0;
  for (std::uint32_t l = 1; l <= previous.layers.size(); ++l) {
    const fs::path& f = layer_files[l - 1];
    take_back_renamed(f, p.size, previous.layers[l - 1]);
    bool good = kept_file_matches(f, p.size, previous.layers[l - 1]);
    std::string why = "does not match " + std::string(kSealState);
    if (good) {
      // The digest can have been rewritten with the file: labels are recomputed too.
      const sampled_result r = check_layer_file_samples(g, res.replica_id.data(), l, f,
                                                        l > 1 ? layer_files[l - 2] : fs::path{}, kDefaultVerifySamples);
      good = r.ok();
      sampled = r.checked;
      if (!good)
        why = "matches its digest in " + std::string(kSealState) + ", but " + std::to_string(r.mismatched) + " of " +
              std::to_string(r.checked) + " labels re-labeled from their parents differ (first: " + r.first_mismatch +
              ")";
    }
    if (!good) {
      note("resuming: layer " + std::to_string(l) + "'s file " + why + "; labeling again from layer " + std::to_string(l));
      break;
    }
    state.layers.push_back(previous.layers[l - 1]);
  }
  res.layers_reused = static_cast<std::uint32_t>(state.layers.size());
  staged.set_checked(resumable_files(state.layers.size()));
  if (res.layers_reused > 0)
    note("resuming after layer " + std::to_string(res.layers_reused) + " (tree_d and layers 1.." +
         std::to_string(res.layers_reused) + " match their digests, and " + std::to_string(sampled) +
         (sampled == p.nodes ? " labels (all)" : " sampled labels") + " of each re-labeled from their parents)");
}

// The layers after the reused ones, labeled straight into their (temporary) files mapped
// into memory, each recorded in seal-state.json as it finishes. Returns the parent
// table's SHA-256.
std::string label_layers(const seal_inputs& in, const seal_plan& p, const graph::graph_params& g,
                         const fs::path& out_dir, const std::vector<fs::path>& layer_files,
                         const std::optional<machine_key>& key, const seal_options& opt, backend& be,
                         staged_files& staged, seal_state& state, const seal_result& res, seal_notes& note) {
  const auto table = p.bounded ? graph::load_or_create_parent_cache(p.cache_dir, g) : parents_for(g, p.cache_dir);
  // A loaded or created cache file has a checked sidecar: no second pass over the table.
  std::string parents_sha256 = p.cache_dir.empty()
                                   ? to_hex(graph::parent_table_digest(table.words()))
                                   : to_hex(graph::read_parent_cache_sidecar(graph::parent_cache_path(p.cache_dir, g)));
  const std::uint32_t first = res.layers_reused + 1;
  if (first > in.layers) return parents_sha256;
  mmap_layer_store store(out_dir, p.size, [](std::uint32_t l) { return layer_file_name(l) + ".tmp"; },
                         {first, res.resident_previous});
  label_progress progress;
  label_job job{p.nodes, table.data(), in.layers, 1, res.replica_id.data()};
  job.first_layer = first;
  job.progress = &progress;
  throw_if_interrupted();
  seal_monitor mon(opt.progress, opt.progress_interval_s, progress, in.layers, p.nodes, p.bounded ? &store : nullptr);
  note.monitor = &mon;
  auto t0 = std::chrono::steady_clock::now();
  recording_store recorded(store, first, [&](std::uint32_t l) {
    const auto t1 = std::chrono::steady_clock::now();
    state.layers.push_back(file_sha256_hex(layer_files[l - 1]));
    write_seal_state(out_dir, state, key);
    staged.set_recorded(resumable_files(state.layers.size()));
    const double secs = std::chrono::duration<double>(t1 - t0).count();
    char rate[64];
    std::snprintf(rate, sizeof rate, "%.2f M nodes/s", secs > 0 ? static_cast<double>(p.nodes) / secs / 1e6 : 0.0);
    mon.line("layer " + std::to_string(l) + "/" + std::to_string(in.layers) + " done in " + duration_text(secs) +
             " (" + rate + "), ETA " + duration_text(secs * (in.layers - l)));
    t0 = std::chrono::steady_clock::now();
  });
  try {
    be.label(job, recorded);
  } catch (...) {
    note.monitor = nullptr;
    throw;
  }
  note.monitor = nullptr;
  return parents_sha256;
}

// replica = last layer + data, written to its staging file; returns its SHA-256.
std::string write_replica(const seal_plan& p, std::uint32_t layers, const fs::path& out_dir, const fs::path& data_file,
                          const std::vector<std::uint8_t>& data, const fs::path& last_layer, const fs::path& replica_tmp) {
  if (p.bounded) return encode_streamed(last_layer, data_file, replica_tmp, p.nodes, p.chunk_nodes);
  mmap_layer_store last(out_dir, p.size, [](std::uint32_t l) { return layer_file_name(l) + ".tmp"; }, {layers + 1, false});
  std::vector<std::uint8_t> replica(p.size);
  encode(last.layer(layers), data.data(), replica.data(), p.nodes);
  write_file(replica_tmp, replica.data(), p.size);
  return sha256_hex(replica.data(), p.size);
}

seal_result seal_files(const seal_inputs& in, const fs::path& data_file, const fs::path& out_dir, backend& be,
                       const fs::path& parent_cache_dir, const seal_options& opt) {
  const seal_plan p = plan_seal(in, data_file, parent_cache_dir, opt);
  seal_result res;
  res.mode = p.bounded ? seal_mode::bounded : seal_mode::in_memory;
  res.resident_previous = p.resident_previous;
  std::vector<std::uint8_t> data;  // in memory only
  const nlohmann::json identity = identity_of(in, p.nodes, p.size, read_data(p, data_file, data));

  if (std::error_code ec; fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec))
    throw std::runtime_error(out_dir.string() + ": exists and is not a directory");
  const bool created_dir = ensure_writable_dir(out_dir);
  // Held until the last rename: a second seal, PC2 or unseal here would remove or rename
  // this one's staging files and mix the two.
  writer_lock lock(out_dir / kLockFile, [&](const std::string& pid) { return being_written(out_dir, pid); },
                   writer_lock::file_after::removed);
  std::optional<seal_state> previous;
  try {
    previous = unfinished_seal(out_dir, opt, in.layers, identity);
  } catch (...) {
    lock.refused();  // the directory as it was found
    throw;
  }
  staged_files staged(out_dir, created_dir, opt.existing == existing_output::replace, lock);
  // Until they are checked, what the earlier run recorded is kept on any failure.
  if (previous) staged.set_checked(resumable_files(previous->layers.size()));
  try {
    check_outputs(staged, out_dir, p, in.layers, previous.has_value());
  } catch (...) {
    lock.refused();
    throw;
  }

  seal_notes note{opt.progress, nullptr};
  std::string key_why;
  const std::optional<machine_key> key = load_machine_key(key_why);
  trust_previous(previous, key, key_why, note);
  if (p.bounded)
    note("bounded memory: 4x the sector does not fit the budget of " + byte_size_text(p.budget) +
         (res.resident_previous ? "; previous layer in memory" : "; previous layer left to the page cache") +
         ", chunks of " + byte_size_text(p.chunk_nodes * 32) + ", parent table mapped from " + p.cache_dir.string());

  seal_state state;
  state.identity = identity;
  make_tree_d(p, data_file, data, staged.add(kTreeDFile), previous, be, state, res, note);
  res.replica_id = replica_id(in.prover_id, in.sector_id, in.ticket, res.comm_d, in.porep_id);

  std::vector<fs::path> layer_files;
  for (std::uint32_t l = 1; l <= in.layers; ++l) layer_files.push_back(staged.add(layer_file_name(l)));
  const auto g = graph::make_graph_params(in.porep_id.data(), in.api, p.nodes);
  if (previous && res.tree_d_reused) reuse_layers(p, g, layer_files, *previous, staged, state, res, note);
  write_seal_state(out_dir, state, key);
  staged.set_recorded(resumable_files(state.layers.size()));
  const std::string parents_sha256 = label_layers(in, p, g, out_dir, layer_files, key, opt, be, staged, state, res, note);

  nlohmann::json files = nlohmann::json::object();
  files[kTreeDFile] = {{"bytes", tree_d_bytes(p.nodes)}, {"sha256", state.tree_d_sha256}};
  for (std::uint32_t l = 1; l <= in.layers; ++l)
    files[layer_file_name(l)] = {{"bytes", p.size}, {"sha256", state.layers[l - 1]}};
  throw_if_interrupted();
  files[kReplicaFile] = {{"bytes", p.size},
                         {"sha256", write_replica(p, in.layers, out_dir, data_file, data, layer_files[in.layers - 1],
                                                  staged.add(kReplicaFile))}};
  reach(crash_point::replica_written);

  nlohmann::json inputs = identity;
  inputs["proof"] = in.proof_name;
  inputs["data_file"] = fs::absolute(data_file).string();
  res.manifest = {{"format", "poreplab-seal/1"},
                  {"inputs", inputs},
                  {"replica_id", to_hex(res.replica_id)},
                  {"comm_d", to_hex(res.comm_d)},
                  {"parent_cache_file", graph::parent_cache_file_name(g)},
                  {"parents_sha256", parents_sha256},
                  {"backend", be.name()},
                  {"files", files}};
  sign_seal_manifest(res.manifest, true);
  const std::string text = res.manifest.dump(2) + "\n";
  write_file(staged.add(kSealManifest), reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  reach(crash_point::manifest_written);
  throw_if_interrupted();
  state.committing = true;
  write_seal_state(out_dir, state, key);
  staged.commit();
  return res;
}

}  // namespace

seal_state parse_seal_state(std::string_view text, const fs::path& file, std::uint32_t max_layers) {
  const nlohmann::json j = parse_json(text, file.string() + ": malformed");
  const manifest_fields f(file, j);
  if (f.text("/format") != "poreplab-seal-state/1")
    f.fail("/format", "expected \"poreplab-seal-state/1\", got " + j.at("format").dump());
  seal_state st;
  st.identity = f.at("/inputs");
  if (!st.identity.is_object()) f.fail("/inputs", "expected an object");
  st.tree_d_sha256 = hex_digest_field(f, f.at("/tree_d_sha256"), "/tree_d_sha256");
  st.comm_d = f.hex32("/comm_d");
  const auto& layers = f.at("/layers");
  if (!layers.is_array()) f.fail("/layers", "expected an array");
  if (layers.size() > max_layers)
    f.fail("/layers", std::to_string(layers.size()) + " finished layers, more than the " + std::to_string(max_layers) +
                          " of this seal");
  for (std::size_t i = 0; i < layers.size(); ++i) st.layers.push_back(hex_digest_field(f, layers[i], "/layers/" + std::to_string(i)));
  if (j.is_object() && j.contains("committing")) {
    if (!j.at("committing").is_boolean()) f.fail("/committing", "expected true or false, got " + j.at("committing").dump());
    st.committing = j.at("committing").get<bool>();
  }
  if (j.is_object() && j.contains("mac")) st.mac = hex_digest_field(f, j.at("mac"), "/mac");
  return st;
}

namespace {

// /inputs: nodes, sector size, layers and api version, each checked and against the others.
void parse_manifest_inputs(const manifest_fields& f, seal_manifest& sm) {
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
  const std::string size_ptr = std::string("/inputs/") + format_keys::sector_size;
  if (const std::uint64_t size = f.integer(size_ptr, 0, ~std::uint64_t{0}); size != sm.sector_bytes)
    f.fail(size_ptr, std::to_string(size) + " bytes, but /inputs/nodes " + std::to_string(sm.nodes) + " x 32 is " +
                         std::to_string(sm.sector_bytes));
  try {
    sm.api = parse_api_version(f.text("/inputs/api_version"));
  } catch (const std::invalid_argument& e) {
    f.fail("/inputs/api_version", e.what());
  }
}

// /replica_id must be the one the inputs and comm_d give: the layers are labeled with it.
void check_replica_id(const manifest_fields& f, const seal_manifest& sm) {
  const bytes32 want = replica_id(f.hex32("/inputs/prover_id"), f.integer("/inputs/sector_id", 0, ~std::uint64_t{0}),
                                  f.hex32("/inputs/ticket"), sm.comm_d, sm.porep_id);
  if (want != sm.replica_id)
    f.fail("/replica_id", to_hex(sm.replica_id) + " is not " + to_hex(want) +
                              ", the one /inputs and /comm_d give (prover id, sector id, ticket, comm_d, porep id)");
}

// /files: only this seal's files, each of its size, with a digest.
void parse_manifest_files(const manifest_fields& f, seal_manifest& sm) {
  std::vector<std::pair<std::string, std::uint64_t>> expected{{kReplicaFile, sm.sector_bytes},
                                                               {kTreeDFile, tree_d_bytes(sm.nodes)}};
  for (std::uint32_t l = 1; l <= sm.layers; ++l) expected.emplace_back(layer_file_name(l), sm.sector_bytes);
  const auto& files = f.at("/files");
  if (!files.is_object()) f.fail("/files", "expected an object");
  for (const auto& item : files.items()) {
    const std::string& name = item.key();
    if (std::none_of(expected.begin(), expected.end(), [&](const auto& e) { return e.first == name; }))
      f.fail("/files/" + name, "not a file of a seal of " + std::to_string(sm.layers) + " layers");
  }
  for (const auto& [name, bytes] : expected) {
    const std::string ptr = "/files/" + name;
    if (f.integer(ptr + "/bytes", 0, ~std::uint64_t{0}) != bytes)
      f.fail(ptr + "/bytes", f.at(ptr + "/bytes").dump() + " bytes, but this seal's " + name + " holds " +
                                 std::to_string(bytes));
    const std::string digest = hex_digest_field(f, f.at(ptr + "/sha256"), ptr + "/sha256");
    if (name == kReplicaFile) sm.replica_sha256 = digest;
  }
  for (std::uint32_t l = 1; l <= sm.layers; ++l)
    sm.layer_sha256.push_back(files.at(layer_file_name(l)).at("sha256").get<std::string>());
  sm.last_layer_sha256 = sm.layer_sha256.back();
}

}  // namespace

seal_manifest parse_seal_manifest(std::string_view text, const fs::path& file) {
  seal_manifest sm;
  sm.document = parse_json(text, file.string() + ": malformed");
  const manifest_fields f(file, sm.document);
  if (const std::string format = f.text("/format"); format != "poreplab-seal/1")
    f.fail("/format", "expected \"poreplab-seal/1\", got \"" + format + "\"");
  sm.comm_d = f.hex32("/comm_d");
  sm.replica_id = f.hex32("/replica_id");
  parse_manifest_inputs(f, sm);
  hex_digest_field(f, f.at("/inputs/data_sha256"), "/inputs/data_sha256");
  check_replica_id(f, sm);
  if (sm.document.contains("files")) parse_manifest_files(f, sm);
  if (sm.document.contains("mac")) sm.mac = hex_digest_field(f, sm.document.at("mac"), "/mac");
  return sm;
}

seal_manifest read_seal_manifest(const fs::path& file) {
  if (std::error_code ec; !fs::exists(fs::symlink_status(file, ec)))
    throw std::runtime_error(file.string() + ": missing (not a sealed directory?)");
  return parse_seal_manifest(read_small_file(file, {.max_bytes = 16 << 20, .follow_links = false}), file);
}

namespace {

std::string manifest_mac(nlohmann::json manifest, const machine_key& key) {
  manifest.erase("mac");
  return json_mac(manifest, key);
}

// Whether seal.json's MAC verifies here; else why not.
manifest_trust verify_manifest_mac(const seal_manifest& sm) {
  manifest_trust t;
  std::string why;
  const std::optional<machine_key> key = load_machine_key(why);
  if (!key)
    t.why = "no machine key (" + why + ")";
  else if (sm.mac.empty())
    t.why = "it carries no MAC under this machine's key (" + key->file.string() + ")";
  else if (sm.mac != manifest_mac(sm.document, *key))
    t.why = "its MAC does not verify under this machine's key (" + key->file.string() + "; sealed elsewhere, or edited)";
  t.mac_verified = t.why.empty();
  return t;
}

}  // namespace

void sign_seal_manifest(nlohmann::json& manifest, bool sign) {
  manifest.erase("mac");
  std::string why;
  if (const std::optional<machine_key> key = sign ? load_machine_key(why) : std::nullopt; key)
    manifest["mac"] = manifest_mac(manifest, *key);
}

std::string manifest_trust::text() const {
  if (mac_verified) return "its MAC verifies under this machine's key";
  return why + ": " + std::to_string(sampled) + " labels of each layer read re-labeled from their parents";
}

manifest_trust check_seal_layers(const seal_manifest& sm, const fs::path& dir, std::uint32_t first_layer) {
  manifest_trust t = verify_manifest_mac(sm);
  if (t.mac_verified) return t;
  const auto g = graph::make_graph_params(sm.porep_id.data(), sm.api, sm.nodes);
  const auto check = [&](std::uint32_t l) {
    return check_layer_file_samples(g, sm.replica_id.data(), l, dir / layer_file_name(l),
                                    l > 1 ? dir / layer_file_name(l - 1) : fs::path{}, kDefaultVerifySamples);
  };
  for (std::uint32_t l = std::max<std::uint32_t>(first_layer, 1); l <= sm.layers; ++l) {
    sampled_result r = check(l);
    // A layer's labels are re-labeled from the layer before it: a damaged earlier layer
    // fails this one too, so the first layer that fails is the one named.
    std::uint32_t bad = l;
    for (std::uint32_t earlier = 1; !r.ok() && earlier < l; ++earlier)
      if (sampled_result e = check(earlier); !e.ok()) {
        r = std::move(e);
        bad = earlier;
        break;
      }
    if (!r.ok())
      throw std::runtime_error((dir / layer_file_name(bad)).string() + ": " + std::to_string(r.mismatched) + " of " +
                               std::to_string(r.checked) + " labels re-labeled from their parents differ (first: " +
                               r.first_mismatch + "): not the layer " + kSealManifest + " describes (" + t.why +
                               ", so its digests alone are not trusted)");
    t.sampled = r.checked;
  }
  return t;
}

bytes32 decoded_comm_d(const seal_manifest& sm, const fs::path& dir) {
  const fs::path replica_file = dir / kReplicaFile, key_file = dir / layer_file_name(sm.layers);
  const std::uint64_t chunk = std::min<std::uint64_t>(sm.nodes, std::uint64_t{1} << 18);
  require_memory(checked_mul(chunk, 3 * 32, "comm_d check memory"), dir.string());
  const unique_fd rf = open_regular_for_reading(replica_file), kf = open_regular_for_reading(key_file);
  std::vector<std::uint8_t> r(chunk * 32), k(chunk * 32), d(chunk * 32);
  comm_d_builder root;
  for (std::uint64_t first = 0; first < sm.nodes; first += chunk) {
    const std::uint64_t off = first * 32, n = chunk * 32;
    pread_exact(rf.get(), r.data(), n, off, replica_file);
    pread_exact(kf.get(), k.data(), n, off, key_file);
    for (const auto& [bytes, file] : {std::pair{&r, &replica_file}, std::pair{&k, &key_file}})
      if (const auto bad = first_noncanonical(bytes->data(), chunk); bad >= 0)
        throw std::runtime_error(file->string() + ": node " + std::to_string(first + static_cast<std::uint64_t>(bad)) +
                                 " is not a canonical field element (>= r)");
    decode(k.data(), r.data(), d.data(), chunk);
    root.add(d.data(), chunk);
    ::posix_fadvise(rf.get(), static_cast<off_t>(off), static_cast<off_t>(n), POSIX_FADV_DONTNEED);
    ::posix_fadvise(kf.get(), static_cast<off_t>(off), static_cast<off_t>(n), POSIX_FADV_DONTNEED);
  }
  return root.root();
}

void check_file_digest(const fs::path& file, const fs::path& manifest, const std::string& recorded,
                       const std::string& got) {
  if (got != recorded)
    throw std::runtime_error(file.string() + ": SHA-256 " + got + " is not " + recorded + ", the digest " +
                             manifest.string() + " records (/files/" + file.filename().string() +
                             "/sha256); the file or seal.json is damaged");
}

namespace {

// A file unseal read against the digest seal.json records for it (none recorded: nothing
// to compare). `digest` holds the file's bytes so far.
void check_recorded_digest(const seal_manifest& sm, const fs::path& manifest_path, const fs::path& file,
                           const std::string& recorded, sha256::ctx digest) {
  if (sm.replica_sha256.empty()) return;
  std::uint8_t d[32];
  sha256::final(digest, d);
  check_file_digest(file, manifest_path, recorded, to_hex(d, 32));
}

// The files one unseal reads and the staging file it writes.
struct unseal_files {
  const fs::path& sealed_dir;
  const fs::path& manifest;
  const fs::path& replica;
  const fs::path& last_layer;
  const fs::path& tmp;
};

// Replica and last layer in chunks: memory is three chunks, whatever the sector.
void unseal_from_last_layer(const seal_manifest& sm, const unseal_files& f, unseal_result& res) {
  const std::uint64_t nodes = sm.nodes;
  const std::uint64_t sector_bytes = sm.sector_bytes;
  check_file_size(f.last_layer, sector_bytes, "the replica");
  // Without a MAC that verifies here, the layer's digest in seal.json proves nothing.
  res.trust = check_seal_layers(sm, f.sealed_dir, sm.layers);
  constexpr std::uint64_t kChunkNodes = std::uint64_t{1} << 21;  // 64 MiB
  const std::uint64_t chunk = std::min(nodes, kChunkNodes);
  require_memory(checked_mul(chunk, 3 * 32, "unseal memory"), f.sealed_dir.string());
  unique_fd rf = open_regular_for_reading(f.replica);
  unique_fd kf = open_regular_for_reading(f.last_layer);
  unique_fd out = create_staging_file(f.tmp, sector_bytes);
  std::vector<std::uint8_t> r(chunk * 32), k(chunk * 32), d(chunk * 32);
  comm_d_builder root;
  sha256::ctx replica_digest, layer_digest;
  sha256::init(replica_digest);
  sha256::init(layer_digest);
  for (std::uint64_t first = 0; first < nodes; first += chunk) {
    const std::uint64_t off = first * 32, n = chunk * 32;
    pread_exact(rf.get(), r.data(), n, off, f.replica);
    pread_exact(kf.get(), k.data(), n, off, f.last_layer);
    // The digests (when seal.json records any) on another thread, beside decoding: both
    // only read r and k. Joined before r and k are read into again, or on the way out.
    std::jthread hasher;
    if (!sm.replica_sha256.empty())
      hasher = std::jthread([&] {
        sha256::update_bulk(replica_digest, r.data(), static_cast<std::size_t>(n));
        sha256::update_bulk(layer_digest, k.data(), static_cast<std::size_t>(n));
      });
    if (const auto bad = first_noncanonical(r.data(), chunk); bad >= 0)
      throw std::invalid_argument("replica node " + std::to_string(first + static_cast<std::uint64_t>(bad)) +
                                  " is not a valid BLS12-381 field element");
    decode(k.data(), r.data(), d.data(), chunk);
    root.add(d.data(), chunk);
    pwrite_exact(out.get(), d.data(), n, off, f.tmp);
    ::posix_fadvise(rf.get(), static_cast<off_t>(off), static_cast<off_t>(n), POSIX_FADV_DONTNEED);
    ::posix_fadvise(kf.get(), static_cast<off_t>(off), static_cast<off_t>(n), POSIX_FADV_DONTNEED);
    flush_and_drop(out.get(), f.tmp);
  }
  res.comm_d = root.root();
  check_recorded_digest(sm, f.manifest, f.replica, sm.replica_sha256, replica_digest);
  check_recorded_digest(sm, f.manifest, f.last_layer, sm.last_layer_sha256, layer_digest);
  res.digests_checked = !sm.replica_sha256.empty();
  sync_file(out.get(), f.tmp);
}

// The last layer labeled afresh from the replica ID; the data staged only when its comm_d
// is the sealed one.
void unseal_by_relabeling(const seal_manifest& sm, const unseal_files& f, backend& be,
                          const fs::path& parent_cache_dir, unseal_result& res) {
  const std::uint32_t layers = sm.layers;
  const std::uint64_t nodes = sm.nodes;
  const std::uint64_t sector_bytes = sm.sector_bytes;
  // Replica, key and data; labeling adds two layer buffers and the parent table.
  require_memory(checked_add(checked_mul(sector_bytes, 5, "unseal memory"), checked_mul(nodes, 56, "unseal memory"),
                             "unseal memory"),
                 f.sealed_dir.string());
  const auto replica = read_file_of_size(f.replica, sector_bytes, "seal.json (nodes * 32)");
  sha256::ctx replica_digest;
  sha256::init(replica_digest);
  sha256::update_bulk(replica_digest, replica.data(), replica.size());
  check_recorded_digest(sm, f.manifest, f.replica, sm.replica_sha256, replica_digest);
  res.digests_checked = !sm.replica_sha256.empty();
  const auto g = graph::make_graph_params(sm.porep_id.data(), sm.api, nodes);
  const auto table = parents_for(g, parent_cache_dir);
  rolling_layer_store store(sector_bytes);
  interruptible_store watched(store);
  be.label({nodes, table.data(), layers, 1, sm.replica_id.data()}, watched);
  res.recomputed = true;
  std::vector<std::uint8_t> data(replica.size());
  decode(store.layer(layers), replica.data(), data.data(), nodes);
  res.comm_d = sdr::comm_d(data.data(), nodes);
  if (res.comm_d == sm.comm_d) write_file(f.tmp, data.data(), data.size());
}

}  // namespace

unseal_result unseal(const fs::path& sealed_dir, const fs::path& out_file, backend& be, bool recompute,
                     const fs::path& parent_cache_dir, existing_output existing) {
  // One unseal into a file at a time, held until its rename; before anything is checked.
  // A directory that is not there is named when the file is created.
  std::optional<writer_lock> lock;
  if (std::error_code ec; fs::is_directory(out_file.parent_path().empty() ? "." : out_file.parent_path(), ec))
    lock.emplace(out_file.string() + kLockFile, [&](const std::string& pid) { return being_written(out_file, pid); },
                 writer_lock::file_after::removed);
  // Before any work: an existing file is never silently replaced.
  refuse_existing_output(out_file, existing == existing_output::replace);
  const fs::path manifest_path = sealed_dir / kSealManifest;
  const seal_manifest sm = read_seal_manifest(manifest_path);
  unseal_result res;
  const bytes32& comm_d = sm.comm_d;
  const fs::path last_layer = sealed_dir / layer_file_name(sm.layers);
  const bool relabel = recompute || !fs::exists(last_layer);
  const fs::path replica_file = sealed_dir / kReplicaFile;
  check_file_size(replica_file, sm.sector_bytes, "seal.json (nodes * 32)");
  const fs::path tmp = staging_path(out_file);
  remove_stale_staging_files(out_file);
  struct scratch {
    const fs::path& p;
    bool keep = false;
    ~scratch() {
      std::error_code ec;
      if (!keep) fs::remove(p, ec);
    }
  } guard{tmp};
  const unseal_files files{sealed_dir, manifest_path, replica_file, last_layer, tmp};
  if (!relabel)
    unseal_from_last_layer(sm, files, res);
  else
    unseal_by_relabeling(sm, files, be, parent_cache_dir, res);
  if (res.comm_d != comm_d)
    throw std::runtime_error("unsealed data does not match comm_d (expected " + to_hex(comm_d) + ", got " +
                             to_hex(res.comm_d) + "): the replica or layer file is corrupt");
  rename_into_place(tmp, out_file);
  guard.keep = true;
  return res;
}

}  // namespace poreplab::seal
