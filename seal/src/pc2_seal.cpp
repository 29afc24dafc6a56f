// PC2 of a sealed directory: the tree files and seal.json's /pc2.
#include "poreplab/seal/pc2_seal.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <ostream>
#include <stdexcept>

#include "poreplab/checked.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/interrupt.hpp"
#include "poreplab/json_input.hpp"
#include "poreplab/memory_check.hpp"
#include "poreplab/writer_lock.hpp"

namespace poreplab::seal {

using namespace sdr;  // the pipeline is written in the graph and kernels' vocabulary

namespace fs = std::filesystem;

namespace {

using clock_type = std::chrono::steady_clock;

// The tree files under temporary names until every one is written; removed otherwise.
class staged_outputs {
 public:
  explicit staged_outputs(fs::path dir) : dir_(std::move(dir)) {}
  ~staged_outputs() {
    if (committed_) return;
    std::error_code ec;
    for (const auto& n : names_) fs::remove(tmp(n), ec);
  }
  fs::path add(const std::string& name) {
    names_.push_back(name);
    return tmp(name);
  }
  fs::path tmp(const std::string& name) const { return dir_ / (name + ".tmp"); }
  // Before any work: a directory where a file goes would fail the commit half-way.
  void require_replaceable(const std::string& name) const {
    poreplab::require_replaceable(dir_ / name, "PC2's " + name);
    poreplab::require_replaceable(tmp(name), "PC2's staging file");
  }
  // Tree files first, seal.json (added last) last: the directory never records a PC2
  // whose files are not all in place.
  void commit() {
    for (const auto& n : names_) rename_into_place(tmp(n), dir_ / n);
    committed_ = true;
  }

 private:
  fs::path dir_;
  std::vector<std::string> names_;
  bool committed_ = false;
};

// What PC2 must not or cannot run on: a seal that has its PC2 (unless replacing), a layer
// count or sector size with no rust-fil-proofs column arity or tree shape.
tree_shape pc2_shape_of(const fs::path& manifest_path, const seal_manifest& sm, existing_output existing) {
  const nlohmann::json& manifest = sm.document;
  if (manifest.contains("pc2") && existing == existing_output::refuse)
    throw std::runtime_error(manifest_path.string() + ": /pc2: this seal already has its PC2 (comm_r " +
                             (manifest["pc2"].is_object() && manifest["pc2"].contains("comm_r")
                                  ? manifest["pc2"]["comm_r"].dump()
                                  : std::string("?")) +
                             "); pass --force to compute it again and replace its tree files");
  if (sm.layers != 2 && sm.layers != 11)
    throw std::invalid_argument(manifest_path.string() + ": /inputs/layers: PC2 hashes columns of 2 or 11 layers "
                                "(rust-fil-proofs' only column arities); this seal has " +
                                std::to_string(sm.layers));
  try {
    return tree_shape_for_sector_size(sm.sector_bytes);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument(manifest_path.string() + ": /inputs/nodes: a sector of " +
                                std::to_string(sm.sector_bytes) +
                                " bytes has no rust-fil-proofs tree shape (2KiB, 4KiB, 16KiB, 32KiB, 8MiB, 16MiB, "
                                "512MiB, 1GiB, 32GiB, 64GiB)");
  }
}

}  // namespace

pc2_seal_result pc2_sealed(const fs::path& dir, pc2_hasher& h, const std::string& backend_name,
                           const pc2_seal_options& opt) {
  const auto t0 = clock_type::now();
  const fs::path manifest_path = dir / kSealManifest;
  // Held until seal.json is renamed, before seal.json is read: a seal --force or a second
  // PC2 here would replace the files this one reads or writes. A directory that is not
  // there is named by the read below.
  std::optional<writer_lock> lock;
  if (std::error_code ec; fs::is_directory(dir, ec))
    lock.emplace(dir / kLockFile, [&](const std::string& pid) { return being_written(dir, pid); },
                 writer_lock::file_after::removed);
  const seal_manifest sm = read_seal_manifest(manifest_path);
  nlohmann::json manifest = sm.document;
  const tree_shape shape = pc2_shape_of(manifest_path, sm, opt.existing);
  pc2_file_inputs inputs(dir, sm);

  pc2_seal_result res;
  res.files = pc2_tree_files(sm.sector_bytes);
  std::uint64_t disk = 64 << 10;
  for (const auto& f : res.files) disk = checked_add(disk, f.bytes, "pc2 bytes");
  require_disk_space(dir, disk);
  const std::uint64_t chunk = opt.chunk_nodes != 0 ? opt.chunk_nodes : std::uint64_t{1} << 18;
  // Every layer's chunk in each of the pipeline's buffers, and the hasher's column and row buffers.
  const std::uint64_t chunk_buffers = std::uint64_t{sm.layers} * opt.buffers + 2;
  require_memory(checked_mul(checked_mul(std::min(chunk, sm.nodes), 32, "pc2 memory"), chunk_buffers, "pc2 memory"),
                 dir.string());

  staged_outputs staged(dir);
  for (const auto& f : res.files) staged.require_replaceable(f.name);
  staged.require_replaceable(kSealManifest);
  // Without a MAC that verifies here, seal.json's digests prove nothing about the files:
  // the layers are re-labeled in part, the replica decoded back to comm_d.
  res.trust = check_seal_layers(sm, dir, 1);
  if (!res.trust.mac_verified && decoded_comm_d(sm, dir) != sm.comm_d)
    throw std::runtime_error(inputs.replica_path().string() + ": does not decode with the last layer to the data of comm_d " +
                             to_hex(sm.comm_d) + " (" + res.trust.why + ", so its digests alone are not trusted)");
  std::vector<unique_fd> out;
  std::vector<fs::path> out_paths;
  for (const auto& f : res.files) {
    out_paths.push_back(staged.add(f.name));
    out.push_back(create_staging_file(out_paths.back(), f.bytes));
  }

  pc2_job job;
  job.nodes = sm.nodes;
  job.layers = sm.layers;
  job.shape = shape;
  job.chunk_nodes = opt.chunk_nodes;
  job.buffers = opt.buffers;
  inputs.feed(job);
  job.write = [&](std::uint32_t f, std::uint64_t off, const std::uint8_t* p, std::uint64_t n) {
    pwrite_exact(out[f].get(), p, n, off, out_paths[f]);
  };
  auto last_line = clock_type::now();
  job.progress = [&](std::uint64_t columns, std::uint64_t replica_nodes) {
    throw_if_interrupted();
    if (opt.progress == nullptr || opt.progress_interval_s <= 0) return;
    const auto now = clock_type::now();
    if (std::chrono::duration<double>(now - last_line).count() < opt.progress_interval_s) return;
    last_line = now;
    *opt.progress << "pc2: columns " << columns << "/" << sm.nodes << ", replica nodes " << replica_nodes << "/"
                  << sm.nodes << "\n";
  };
  // The reader thread reads the inputs in order, each file's digest taken as it goes.
  res.trees = build_pc2(job, h);
  res.inputs_checked = inputs.check_digests(manifest_path);
  for (std::size_t i = 0; i < out.size(); ++i) sync_file(out[i].get(), out_paths[i]);
  throw_if_interrupted();

  nlohmann::json files = nlohmann::json::object();
  for (std::size_t i = 0; i < res.files.size(); ++i)
    files[res.files[i].name] = {{"bytes", res.files[i].bytes}, {"sha256", file_sha256_hex(out_paths[i])}};
  manifest["pc2"] = {{"comm_c", to_hex(res.trees.comm_c)},
                     {"comm_r_last", to_hex(res.trees.comm_r_last)},
                     {"comm_r", to_hex(res.trees.comm_r)},
                     {"backend", backend_name},
                     {"hasher", h.name()},
                     {"files", files}};
  // Signed again only when the seal it extends was vouched for by its MAC.
  sign_seal_manifest(manifest, res.trust.mac_verified);
  const std::string text = manifest.dump(2) + "\n";
  write_staging_file(staged.add(kSealManifest), text.data(), text.size());
  throw_if_interrupted();
  staged.commit();
  res.manifest = std::move(manifest);
  res.seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
  return res;
}

}  // namespace poreplab::seal
