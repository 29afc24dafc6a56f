#include "bench/disk_label.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <tuple>

#include "bench/label.hpp"
#include "poreplab/checked.hpp"
#include "poreplab/cpu/features.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/memory_check.hpp"
#include "records/schema.hpp"
#include "util/text.hpp"

namespace poreplab {

namespace key = records::key;
namespace axis = records::axis;
namespace ctx = records::ctx;

namespace {

// Whole sectors up to this (every layer of the reference in memory) are verified in full.
constexpr std::uint64_t kFullCheckBytes = 1ull << 30;

void check(const disk_label_bench_options& o, std::uint64_t sector_size) {
  if (sector_size < 64 || (sector_size & (sector_size - 1)) != 0)
    throw std::invalid_argument("sector size " + std::to_string(sector_size) + " is not a power of two of at least 64 bytes");
  if (o.sectors == 0 || o.sectors > 4096) throw std::invalid_argument("sectors: expected 1..4096, not " + std::to_string(o.sectors));
  if (o.layers == 0 || o.layers > sdr::kMaxLayers)
    throw std::invalid_argument("layers: " + std::to_string(o.layers) + " is not from 1 to " + std::to_string(sdr::kMaxLayers));
  if (o.samples == 0 || o.samples > kMaxSamples)
    throw std::invalid_argument("samples: expected 1.." + std::to_string(kMaxSamples));
  const std::uint64_t nodes = sector_size / 32;
  if (o.window_nodes > nodes)
    throw std::invalid_argument("window of " + std::to_string(o.window_nodes) + " nodes is larger than the sector (" +
                                std::to_string(nodes) + " nodes)");
  if (o.window_offset >= 0 && static_cast<std::uint64_t>(o.window_offset) > nodes - o.window_nodes)
    throw std::invalid_argument("window offset " + std::to_string(o.window_offset) + " + " + std::to_string(o.window_nodes) +
                                " nodes runs past the sector's " + std::to_string(nodes));
  if (o.window_nodes == 0 && sector_size > (1ull << 30))
    throw std::invalid_argument("whole sectors on disk up to 1GiB here (its parent table is held in memory); time a "
                                "larger one as a window (--window)");
}

// The disk's random-read rate at a depth, measured once per directory, depth, engine and
// O_DIRECT in a process: every point of a run on the same settings shares it.
storage::read_probe_result probe_once(const disk_label_bench_options& o) {
  static std::mutex mu;
  static std::map<std::tuple<std::string, std::uint32_t, int, bool>, storage::read_probe_result> seen;
  const auto key = std::make_tuple(o.disk.layer_dir.string(), o.disk.queue_depth, static_cast<int>(o.disk.io), o.disk.direct);
  std::lock_guard lock(mu);
  if (auto it = seen.find(key); it != seen.end()) return it->second;
  storage::read_probe_options p;
  p.queue_depth = o.disk.queue_depth;
  p.seconds = o.probe_seconds;
  p.engine = o.disk.io;
  p.direct = o.disk.direct;
  return seen[key] = storage::probe_random_reads(o.disk.layer_dir, p);
}

std::string sha256_hex(const std::vector<std::uint8_t>& b) {
  std::uint8_t d[32];
  sha256::digest(d, b.data(), b.size());
  return to_hex(d, 32);
}

}  // namespace

disk_label_bench_result bench_disk_label(const disk_label_bench_options& in) {
  disk_label_bench_options opt = in;
  const sdr::registered_proof* proof = opt.proof;
  if (proof != nullptr) opt.sector_size = proof->sector_size;
  check(opt, opt.sector_size);
  disk_label_bench_result r;
  r.options = opt;
  r.nodes = opt.sector_size / 32;
  r.device = cpu::detect().model;
  const auto g = bench_graph(opt.sector_size, proof, r.porep_id_source);
  const bool window = opt.window_nodes > 0;
  std::vector<std::uint32_t> rows;
  graph::parent_table table;
  const std::uint32_t* parents = nullptr;
  if (window) {
    if (opt.window_offset >= 0) {
      r.first_node = static_cast<std::uint64_t>(opt.window_offset);
    } else {
      std::random_device rd;
      r.first_node = ((static_cast<std::uint64_t>(rd()) << 32) ^ rd()) % (r.nodes - opt.window_nodes + 1);
    }
    require_memory(checked_mul(opt.window_nodes, 4 * sdr::kParents, "window rows"), "the window's parent rows");
    rows.resize(opt.window_nodes * sdr::kParents);
    graph::fill_parent_rows(g, graph::make_feistel_table(g), r.first_node, opt.window_nodes, rows.data());
    parents = rows.data();
  } else {
    require_memory(checked_mul(r.nodes, 4 * sdr::kParents, "parent table"), "the parent table");
    table = graph::parent_table::generate(g);
    parents = table.data();
  }
  const std::vector<std::uint8_t> ids = replica_ids(opt.sectors);
  sdr::label_job job{r.nodes, parents, opt.layers, opt.sectors, ids.data()};
  if (window) {
    job.first_node = r.first_node;
    job.window_nodes = opt.window_nodes;
  }
  r.disk = storage::describe_disk(opt.disk.layer_dir);
  if (opt.probe_seconds > 0) r.probe = probe_once(opt);

  std::vector<cpu::disk_label_stats> runs;
  // One set of files for every sample: a window's pages are written once.
  const auto last = std::make_unique<cpu::disk_labeling>(job, opt.disk);
  stopping_rule stop{stopping_options{opt.samples, 0, opt.max_seconds}};
  for (std::uint32_t i = 0; i < opt.warmup; ++i) last->run();
  r.stopped_by = sample_until(
      stop,
      [&](std::size_t) {
        const cpu::disk_label_stats st = last->run();
        runs.push_back(st);
        r.samples_ns_per_node_layer.push_back(st.seconds * 1e9 / static_cast<double>(st.node_steps));
      },
      [&]() -> const std::vector<double>& { return r.samples_ns_per_node_layer; });
  // The median sample's figures.
  std::vector<std::size_t> order(runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return r.samples_ns_per_node_layer[a] < r.samples_ns_per_node_layer[b]; });
  const std::size_t mid = order[order.size() / 2];
  r.stats = runs[mid];
  r.ns_per_node_layer = r.samples_ns_per_node_layer[mid];
  r.labels_per_s = opt.sectors * 1e9 / r.ns_per_node_layer;

  const std::uint64_t first = job.node_begin(), count = job.node_end() - first;
  const std::vector<std::uint8_t> labeled = last->read_last_layer_rows(first, count);
  r.digest = sha256_hex(labeled);
  const std::uint64_t all_layers = checked_mul(checked_mul(opt.sector_size, opt.sectors, "layer bytes"), opt.layers, axis::layers);
  if (!window && all_layers <= kFullCheckBytes) {
    sdr::memory_layer_store want(opt.sector_size * opt.sectors, opt.layers);
    sdr::make_reference_backend()->label(job, want);
    r.verified = std::equal(labeled.begin(), labeled.end(), want.layer(opt.layers));
    r.verified_by = {check_method::full, 0};
    if (!r.verified) r.verify_failure = "the last layer differs from the reference's";
  } else {
    const sdr::sampled_result s = last->verify_samples(opt.verify_samples, 0x766572696679ull);
    r.verified = s.ok();
    r.verified_by = {check_method::sampled, s.checked};
    r.verify_failure = s.first_mismatch;
  }
  return r;
}

nlohmann::json to_json(const storage::disk_description& d) {
  return {{ctx::device, d.device}, {"model", d.model}, {"size_bytes", d.size_bytes}, {"rotational", d.rotational},
          {"filesystem", d.filesystem}};
}

nlohmann::json to_json(const storage::read_probe_result& r) {
  return {{"reads_per_s", r.reads_per_s}, {"mib_per_s", r.mib_per_s},   {"mean_latency_us", r.mean_latency_us},
          {"reads", r.reads},             {"seconds", r.seconds},       {"queue_depth", r.queue_depth},
          {"block_bytes", r.block_bytes}, {"file_bytes", r.file_bytes}, {ctx::engine, storage::io_engine_name(r.engine)},
          {"direct", r.direct}};
}

nlohmann::json to_json(const disk_label_bench_result& r) {
  const cpu::disk_label_stats& s = r.stats;
  const double steps = static_cast<double>(std::max<std::uint64_t>(1, s.node_steps));
  const double row = 32.0 * r.options.sectors;
  const double disk_parents = static_cast<double>(s.base_read + s.expander_read);
  const double base = static_cast<double>(s.base_cached + s.base_read);
  nlohmann::json j = {
      {axis::sector_size, r.options.sector_size},
      {axis::sectors, r.options.sectors},
      {axis::layers, r.options.layers},
      {"nodes", r.nodes},
      {"porep_id_source", r.porep_id_source},
      {ctx::device, r.device},
      {ctx::ns_per_node_layer, r.ns_per_node_layer},
      {ctx::labels_per_s, r.labels_per_s},
      {"samples_ns_per_node_layer", r.samples_ns_per_node_layer},
      {key::stopped_by, kStopReasons.name(r.stopped_by)},
      {"layer_dir", r.options.disk.layer_dir.string()},
      {"cache_nodes", s.cache_nodes},
      {"lookahead", s.lookahead},
      {"queue_depth", s.queue_depth},
      {"io_engine", storage::io_engine_name(s.io)},
      {"direct", s.direct},
      {"hashing_threads", s.hashing_threads},
      {ctx::engine, s.engine},
      {"lanes", s.lanes},
      {"ram_bytes", s.ram_bytes},
      {"reads", s.reads},
      {"reads_per_node", static_cast<double>(s.reads) / steps},
      {"reads_per_s", static_cast<double>(s.reads) / s.seconds},
      {"bytes_read", s.bytes_read},
      {"bytes_written", s.bytes_written},
      // Bytes read over the bytes of the parent labels they brought (each parent's row).
      {"read_amplification", disk_parents > 0 ? static_cast<double>(s.bytes_read) / (disk_parents * row) : 0},
      {"base_cache_hit_ratio", base > 0 ? static_cast<double>(s.base_cached) / base : 0},
      {"expander_cache_hit_ratio", 0.0},  // the previous layer is never cached: every expander parent is read
      {"parents_shared_per_node", static_cast<double>(s.parents_shared) / steps},
      {"read_wait_share", s.seconds > 0 ? s.read_wait_s / (s.seconds * s.hashing_threads) : 0},
      {key::verified, r.verified},
      {"verified_by", r.verified_by.text()},
      {key::digest, r.digest},
      {"disk", to_json(r.disk)},
  };
  if (r.options.window_nodes > 0) {
    j[axis::window_nodes] = r.options.window_nodes;
    j["window_first_node"] = r.first_node;
    j["window_bytes_filled"] = s.bytes_filled;
    j["window_fill_s"] = s.fill_seconds;
  }
  if (!r.verify_failure.empty()) j["verify_failure"] = r.verify_failure;
  if (r.probe.reads > 0) {
    j["disk_random_reads"] = to_json(r.probe);
    // What the disk allows at this depth: its reads per second over this point's reads
    // per label (a read serves every sector of its node).
    const double reads_per_label = static_cast<double>(s.reads) / (steps * r.options.sectors);
    if (reads_per_label > 0) {
      j["iops_bound_labels_per_s"] = r.probe.reads_per_s / reads_per_label;
      j["vs_iops_bound"] = r.labels_per_s / (r.probe.reads_per_s / reads_per_label);
    }
  }
  return j;
}

}  // namespace poreplab
