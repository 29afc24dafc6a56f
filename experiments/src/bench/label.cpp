#include "bench/label.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>

#include <omp.h>

#include "backends/backends.hpp"
#include "poreplab/cpu/features.hpp"
#include "poreplab/checked.hpp"
#include "poreplab/cpu/floor.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/cpu/latency.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/graph/zigzag_graph.hpp"
#include "poreplab/huge_buffer.hpp"
#include "poreplab/memory_check.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/sdr/sampled_check.hpp"
#include "poreplab/sdr/window_store.hpp"
#include "poreplab/sdr/layer_clock.hpp"
#include "poreplab/stats.hpp"
#include "records/environment.hpp"
#include "records/schema.hpp"
#include "util/text.hpp"

namespace poreplab {

namespace key = records::key;
namespace axis = records::axis;
namespace ctx = records::ctx;

namespace {


std::uint64_t status_kib(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::stoull(line.substr(std::string(key).size()));
  return 0;
}

// Resets the kernel's peak-RSS counter so VmHWM measures from here (Linux >= 4.0).
void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

// CPU time of the calling thread, seconds.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Runs f and returns the calling thread's share of the wall time it took on a core.
template <class F>
double cpu_share_of(F&& f) {
  const double c0 = thread_cpu_seconds();
  const auto w0 = std::chrono::steady_clock::now();
  f();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  return wall > 0 ? (thread_cpu_seconds() - c0) / wall : 1;
}

// Node-layers of the floor chain timed beside each labeling sample.
constexpr std::uint64_t kFloorPairChain = 8192;

}  // namespace

std::vector<std::uint8_t> replica_ids(std::uint32_t sectors) {
  std::vector<std::uint8_t> ids(32ull * sectors);
  for (std::uint32_t s = 0; s < sectors; ++s) {
    const std::string seed = "poreplab bench sector " + std::to_string(s);
    sha256::digest(ids.data() + 32ull * s, seed.data(), seed.size());
    ids[32ull * s + 31] &= 0x3f;
  }
  return ids;
}

graph::graph_params bench_graph(std::uint64_t sector_size, const sdr::registered_proof* proof, std::string& source) {
  sdr::bytes32 id = sdr::benchmark_porep_id(sector_size);
  graph::api_version api = graph::api_version::v1_1_0;
  if (proof != nullptr) {
    id = sdr::porep_id_of(*proof);
    api = proof->api;
    source = "registered " + std::string(proof->name);
  } else {
    source = "custom (the 32GiB V1_1 porep_id on a " + format_size(sector_size) + " graph)";
    for (const auto& p : sdr::registered_proofs())
      if (p.sector_size == sector_size && p.api == graph::api_version::v1_1_0) source = "registered " + std::string(p.name);
  }
  return graph::make_graph_params(id.data(), api, sector_size / 32);
}

namespace {

// The options with the proof's size filled in; std::invalid_argument for one out of range.
label_bench_options checked_options(const label_bench_options& in, const sdr::registered_proof*& proof) {
  label_bench_options opt = in;
  proof = opt.proof;
  if (proof != nullptr) opt.sector_size = proof->sector_size;
  if (opt.sector_size < 64 || (opt.sector_size & (opt.sector_size - 1)) != 0)
    throw std::invalid_argument("sector size " + std::to_string(opt.sector_size) +
                                " is not a power of two of at least 64 bytes");
  if (opt.sectors == 0) throw std::invalid_argument("sectors must be at least 1");
  if (opt.layers == 0 || opt.layers > sdr::kMaxLayers)
    throw std::invalid_argument("layers: " + std::to_string(opt.layers) + " is not from 1 to " +
                                std::to_string(sdr::kMaxLayers));
  if (opt.samples == 0) throw std::invalid_argument("samples must be at least 1");
  if (opt.samples > kMaxSamples)
    throw std::invalid_argument("samples: " + std::to_string(opt.samples) + " is above " + std::to_string(kMaxSamples));
  if (!(opt.target_ci >= 0 && opt.target_ci < 1))
    throw std::invalid_argument("target CI: " + format_number(opt.target_ci) + " is not from 0 to 1 (e.g. 0.02 for +-2%)");
  if (!(opt.max_seconds >= 0) || !std::isfinite(opt.max_seconds))
    throw std::invalid_argument("max seconds: " + format_number(opt.max_seconds) + " is not a positive, finite number");
  if (opt.verify_samples == 0 || opt.verify_samples > kMaxVerifySamples)
    throw std::invalid_argument("verify samples: " + std::to_string(opt.verify_samples) + " is not from 1 to " +
                                std::to_string(kMaxVerifySamples));
  const bool zz = opt.scheme.variant == sdr::porep_variant::zigzag;
  const std::uint64_t nodes = opt.sector_size / 32;
  if (opt.window_nodes > 0) {
    if (zz)
      throw std::invalid_argument(
          "--window applies to sdr only: zigzag encodes each layer in place in an order that reads the whole layer");
    if (opt.window_nodes > nodes)
      throw std::invalid_argument("window of " + std::to_string(opt.window_nodes) + " nodes is larger than the sector (" +
                                  std::to_string(nodes) + " nodes)");
    if (opt.window_offset >= 0 && static_cast<std::uint64_t>(opt.window_offset) > nodes - opt.window_nodes)
      throw std::invalid_argument("window offset " + std::to_string(opt.window_offset) + " + " +
                                  std::to_string(opt.window_nodes) + " nodes runs past the sector's " +
                                  std::to_string(nodes) + " nodes");
    const sdr::window_backing how = opt.window_backing;
    const std::string how_name = sdr::window_backing_name(how);
    if (opt.window_alias_period != sdr::window_alias{}.period && !sdr::window_backing_repeats(how))
      throw std::invalid_argument("window alias period: the " + how_name +
                                  " window backing does not repeat its layers (only " +
                                  sdr::window_backing_name(sdr::window_backing::aliased) + " does)");
    if (opt.window_page != sdr::window_alias{}.page && !sdr::window_backing_repeats(how))
      throw std::invalid_argument("window page: the " + how_name + " window backing has no page size to set (only " +
                                  sdr::window_backing_name(sdr::window_backing::aliased) + " has)");
    if (!sdr::is_alias_page(opt.window_page))
      throw std::invalid_argument("window page: " + std::to_string(opt.window_page) + " bytes is not one of " +
                                  sdr::alias_pages_text());
    if (opt.window_alias_period < opt.window_page)
      throw std::invalid_argument("window alias period: " + std::to_string(opt.window_alias_period) +
                                  " bytes is less than one " + sdr::page_size_text(opt.window_page) + " page");
  }
  if (zz && opt.verify == verify_mode::sampled)
    throw std::invalid_argument("sampled verification applies to sdr only; zigzag is verified in full");
  return opt;
}

// Refused before anything is allocated. Whole sectors: two layer buffers for the backend
// and two for a full reference check (zigzag: the data too) and the parent table; sampled
// verification needs no second pair. Windows: their parent rows here, the layers by the
// window store, which says what does not fit. Returns whether the run verifies by samples.
bool check_memory(const label_bench_options& opt) {
  const bool zz = opt.scheme.variant == sdr::porep_variant::zigzag;
  const std::uint64_t nodes = opt.sector_size / 32;
  const std::uint64_t layer = checked_mul(opt.sector_size, opt.sectors, "sector size * sectors");
  const std::uint64_t table = checked_mul(nodes, zz ? 112 : 56, "bench label memory");
  if (opt.window_nodes > 0) {
    require_memory(checked_mul(opt.window_nodes, 56, "window parent rows"), "bench label window parent rows");
    return false;
  }
  const std::uint64_t full = checked_add(checked_mul(layer, zz ? 5 : 4, "bench label memory"), table, "bench label memory");
  const bool sampled = !zz && (opt.verify == verify_mode::sampled ||
                             (opt.verify == verify_mode::automatic && !memory_shortfall_text(full).empty()));
  require_memory(sampled ? checked_add(checked_mul(layer, 2, "bench label memory"), table, "bench label memory") : full,
                 "bench label");
  return sampled;
}

// The job of one run and the parent rows, data and ids it points into (not movable: the
// job points into the members).
struct bench_job {
  graph::parent_table sdr_table;
  huge_buffer zigzag_table;
  std::vector<std::uint32_t> window_rows;
  std::vector<std::uint8_t> data;
  std::vector<std::uint8_t> ids;
  sdr::label_job job{};

  bench_job(const label_bench_options& opt, const sdr::registered_proof* proof, sdr::label_scheme scheme,
            label_bench_result& r) {
    const auto g = bench_graph(opt.sector_size, proof, r.porep_id_source);
    const std::uint64_t layer_bytes = checked_mul(opt.sector_size, opt.sectors, "sector size * sectors");
    const std::uint32_t* parents = nullptr;
    std::uint64_t first_node = 0;
    if (opt.window_nodes > 0) {
      if (opt.window_offset >= 0) {
        first_node = static_cast<std::uint64_t>(opt.window_offset);
      } else {
        std::random_device rd;
        const std::uint64_t draw = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
        first_node = draw % (r.nodes - opt.window_nodes + 1);
      }
      // The window's rows only: the Feistel table (3 x 2^half_bits compressions) then
      // lookups, never the whole table (56 GiB at 64GiB).
      window_rows.resize(opt.window_nodes * graph::kParentsPerNode);
      graph::fill_parent_rows(g, graph::make_feistel_table(g), first_node, opt.window_nodes, window_rows.data());
      parents = window_rows.data();
    } else if (scheme.variant == sdr::porep_variant::zigzag) {
      zigzag_table = graph::zigzag_table(g);
      parents = reinterpret_cast<const std::uint32_t*>(zigzag_table.data());
      data = sdr::generated_field_data(layer_bytes, 0x9e3779b97f4a7c15ull);
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      sdr_table = graph::parent_table::generate(g);
      r.parent_table_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      parents = sdr_table.data();
    }
    ids = replica_ids(opt.sectors);
    job = {r.nodes, parents, opt.layers, opt.sectors, ids.data(), scheme, data.empty() ? nullptr : data.data()};
    if (opt.window_nodes > 0) {
      job.first_node = first_node;
      job.window_nodes = opt.window_nodes;
      r.window_first_node = first_node;
    }
    sdr::validate(job);
  }
  bench_job(const bench_job&) = delete;
  bench_job& operator=(const bench_job&) = delete;
};

// The layers' store: a node window's full-size store, or two rolling layers.
std::unique_ptr<sdr::layer_store> make_store(const label_bench_options& opt, const sdr::label_job& job,
                                             label_bench_result& r, sdr::window_layer_store*& window) {
  window = nullptr;
  if (opt.window_nodes == 0)
    return std::make_unique<sdr::rolling_layer_store>(checked_mul(opt.sector_size, opt.sectors, "sector size * sectors"));
  // Default: tmpfs (/dev/shm) when it has room: the same 4 KiB page-cache pages as a disk
  // file without their random writeback, which on a slow disk takes minutes.
  const sdr::window_backing how = opt.window_backing;
  std::filesystem::path dir = opt.window_dir;
  if (dir.empty()) {
    dir = std::filesystem::temp_directory_path();
    std::error_code ec;
    const auto shm = std::filesystem::space("/dev/shm", ec);
    if (!ec && shm.available > sdr::window_file_bytes(job) + (1ull << 30)) dir = "/dev/shm";
  }
  r.window_dir = dir.string();
  auto w = std::make_unique<sdr::window_layer_store>(job, how, dir, 0x5eed0f11e1d5ull,
                                                     sdr::window_alias{opt.window_alias_period, opt.window_page});
  window = w.get();
  r.window_backing = w->backing();
  r.window_alias_period = w->alias_period();
  r.window_page = w->alias_page();
  r.window_pages_filled = w->pages_filled();
  r.window_bytes_filled = w->bytes_filled();
  return w;
}

// What the samples leave behind for verification and the derived figures.
struct sample_log {
  std::vector<double> readings;  // core clock: before the floor, between, after the label
  std::vector<std::string> digests;
  std::vector<double> ratios;    // floor / label of each pair
  std::vector<std::vector<double>> per_layer_ns;  // [layer - first labeled layer][sample]
  double best_kernel_s = -1;
  sdr::sampled_result sampled;
  sdr::coordination_account coordination;  // summed over the timed samples
  double label_s = 0;                      // their wall time, summed
};

// One run's fixed parts, as the sample loop reads them.
struct bench_run {
  const label_bench_options& opt;
  const sdr::label_job& job;
  sdr::backend& be;
  sdr::layer_store& store;
  const cpu::engine* engine;       // the floor's engine, or none (GPU backends)
  const cpu::placed_backend* placed;
  bool sampled, header_ahead;
  double work;                     // node-layers of one sample
  cpu::floor_repeats repeats;
  std::uint64_t floor_chain;
  int threads;

  std::string output_digest() const {
    const std::uint64_t node_bytes = 32ull * opt.sectors;
    const bool window = opt.window_nodes > 0;
    return sha256_hex(store.layer(opt.layers) + (window ? job.first_node * node_bytes : 0),
                      window ? opt.window_nodes * node_bytes : opt.sector_size * opt.sectors);
  }
  double floor_ns(bool after_header = false) const {
    cpu::floor_repeats how = repeats;
    how.after_header = after_header;
    return cpu::measure_floor_seconds(*engine, job.scheme, opt.sectors, floor_chain, threads, how) * 1e9 /
           static_cast<double>(floor_chain);
  }
};

// Sample i: the floor pair (where there is an engine), then one timed labeling.
void take_sample(const bench_run& run, std::uint32_t i, label_bench_result& r, sample_log& log) {
  if (log.readings.empty()) log.readings.push_back(cpu::measure_core_hz());
  double f = 0, chain_f = 0, floor_share = 1;
  if (run.engine != nullptr) {
    floor_share = cpu_share_of([&] {
      f = run.floor_ns();
      if (run.header_ahead) chain_f = run.floor_ns(true);
    });
    log.readings.push_back(cpu::measure_core_hz());
  }
  sdr::label_run_times t;
  double share = 1;
  std::vector<std::pair<std::uint32_t, double>> layer_s;
  if (run.sampled) {
    // The capture (K/L nodes x 14 parent reads at each layer's end) is inside the timed
    // run: microseconds against a sector's seconds.
    sdr::sampling_layer_store check(run.store, run.job, run.opt.verify_samples, 0x51de5eedull + i);
    sdr::layer_clock_store clocked(check);
    clocked.start();
    share = cpu_share_of([&] { t = run.be.timed_label(run.job, clocked); });
    layer_s = clocked.layer_seconds();
    const sdr::sampled_result v = check.verify();
    log.sampled.checked += v.checked;
    log.sampled.mismatched += v.mismatched;
    if (log.sampled.first_mismatch.empty() && !v.first_mismatch.empty())
      log.sampled.first_mismatch = "sample " + std::to_string(i) + ": " + v.first_mismatch;
  } else {
    sdr::layer_clock_store clocked(run.store);
    clocked.start();
    share = cpu_share_of([&] { t = run.be.timed_label(run.job, clocked); });
    layer_s = clocked.layer_seconds();
  }
  const double layer_nodes = static_cast<double>(run.opt.window_nodes > 0 ? run.opt.window_nodes : r.nodes);
  for (const auto& [l, sec] : layer_s) {
    const std::uint32_t k = l - run.job.start_layer();
    if (k >= log.per_layer_ns.size()) log.per_layer_ns.resize(k + 1);
    log.per_layer_ns[k].push_back(sec * 1e9 / layer_nodes);
  }
  log.readings.push_back(cpu::measure_core_hz());
  if (run.placed != nullptr) r.thread_map = thread_map_json(run.placed->last_threads());
  r.cpu_share.push_back(share);
  if (std::min(share, floor_share) < kMinCpuShare) r.preempted.push_back(i);
  const double ns = t.end_to_end_s * 1e9 / run.work;
  r.samples_ns_per_node_layer.push_back(ns);
  if (run.engine != nullptr) {
    r.pairs.push_back({f, ns, f / ns, chain_f, chain_f / ns});
    log.ratios.push_back(f / ns);
  }
  if (!run.sampled) log.digests.push_back(run.output_digest());
  if (!t.kernel.empty()) r.fastest_run.kernel = t.kernel;  // every sample runs the same kernel
  log.label_s += t.end_to_end_s;
  log.coordination.coordinators = t.coordination.coordinators;
  log.coordination.hashers = t.coordination.hashers;
  log.coordination.coordinator_ticks += t.coordination.coordinator_ticks;
  log.coordination.coordinator_wait_ticks += t.coordination.coordinator_wait_ticks;
  log.coordination.parent_rows_copied += t.coordination.parent_rows_copied;
  if (!t.device.empty()) {
    r.device = t.device;
    r.device_sm_count = t.device_multiprocessors;
    r.device_clock_mhz = t.device_clock_mhz;
  }
  if (t.kernel_s >= 0) {
    // Device backends: samples are end to end; the label kernels alone are kept beside
    // them, with the fastest sample's breakdown.
    r.kernel_samples_ns_per_node_layer.push_back(t.kernel_s * 1e9 / run.work);
    if (log.best_kernel_s < 0 || t.kernel_s < log.best_kernel_s) {
      log.best_kernel_s = t.kernel_s;
      r.fastest_run = t;
    }
  }
}

// Every sample checked: against the portable reference (the whole last layer, or the
// window labeled again by the reference from the same store), or by its sampled nodes.
void verify_samples(const bench_run& run, const sample_log& log, label_bench_result& r) {
  if (run.sampled) {
    // Every sample's K nodes recomputed by the reference from the parents it read.
    r.verified_by = {check_method::sampled, run.opt.verify_samples};
    r.verified = log.sampled.ok();
    r.verify_failure = log.sampled.first_mismatch;
    r.digest = run.output_digest();
    return;
  }
  std::string want;
  if (run.opt.window_nodes > 0) {
    sdr::make_reference_backend()->label(run.job, run.store);
    want = run.output_digest();
    r.verified_by = {check_method::window, 0};
  } else {
    const std::uint64_t layer_bytes = run.opt.sector_size * run.opt.sectors;
    sdr::rolling_layer_store ref(layer_bytes);
    sdr::make_reference_backend()->label(run.job, ref);
    want = sha256_hex(ref.layer(run.opt.layers), layer_bytes);
    r.verified_by = {check_method::full, 0};
  }
  r.digest = log.digests.back();
  r.verified = std::all_of(log.digests.begin(), log.digests.end(), [&](const std::string& d) { return d == want; });
}

// The medians, intervals, floors, efficiencies and clocks of the samples.
void derive_figures(const sample_log& log, bool has_engine, bool header_ahead, label_bench_result& r) {
  r.ns_per_node_layer = median(r.samples_ns_per_node_layer);
  r.labels_per_s = static_cast<double>(r.options.sectors) * 1e9 / r.ns_per_node_layer;
  if (r.parent_table_s > 0 && r.ns_per_node_layer > 0)
    r.parent_table_vs_layer = r.parent_table_s / (r.ns_per_node_layer * 1e-9 * static_cast<double>(r.nodes));
  // Per sector stream, as the 2019 Supranational PoRep report counts (rdtsc per hashed byte): every sector
  // advances one node per ns_per_node_layer.
  if (const double hz = cpu::tsc_hz(); hz > 0)
    r.cycles_per_byte = r.ns_per_node_layer * 1e-9 * hz / static_cast<double>(r.hashed_bytes_per_node);
  const interval ns_ci = bootstrap_median_interval(r.samples_ns_per_node_layer);
  r.ns_lo = ns_ci.lo;
  r.ns_hi = ns_ci.hi;
  if (!r.pairs.empty()) {
    std::vector<double> floors;
    for (const auto& p : r.pairs) floors.push_back(p.floor_ns);
    r.floor_ns_per_node_layer = median(floors);
    r.efficiency = median(log.ratios);
    if (header_ahead) {
      std::vector<double> chain_floors, chain_ratios;
      for (const auto& p : r.pairs) {
        chain_floors.push_back(p.chain_floor_ns);
        chain_ratios.push_back(p.chain_ratio);
      }
      r.chain_floor_ns_per_node_layer = median(chain_floors);
      r.chain_efficiency = median(chain_ratios);
    }
    const interval ci = bootstrap_median_interval(log.ratios);
    r.efficiency_lo = ci.lo;
    r.efficiency_hi = ci.hi;
    r.efficiency_spread = relative_spread(log.ratios);
  }
  if (const sdr::coordination_account& c = log.coordination; c.coordinators > 0 && c.coordinator_ticks > 0) {
    r.coordinators = c.coordinators;
    r.hashers = c.hashers;
    r.coordinator_busy_share = c.busy_share();
    r.parent_rows_per_s = log.label_s > 0 ? static_cast<double>(c.parent_rows_copied) / log.label_s : 0;
    r.labels_per_s_per_cpu = r.labels_per_s / (c.coordinators + c.hashers);
    const double per = static_cast<double>(c.hashers) / c.coordinators;
    const double hashing = std::min(1.0, header_ahead ? r.chain_efficiency : r.efficiency);
    if (hashing > 0 && r.coordinator_busy_share > 0)
      r.hashers_per_coordinator_max = static_cast<std::uint32_t>(per * hashing / r.coordinator_busy_share + 1e-9);
  }
  // The host's clock says nothing about a device's samples.
  if (!r.kernel_samples_ns_per_node_layer.empty()) {
    // A device sample's host thread waits on the device: its CPU share says nothing.
    r.cpu_share.clear();
    r.preempted.clear();
    return;
  }
  const std::size_t n = r.samples_ns_per_node_layer.size();
  const clock_track c = track_clock(log.readings, n, has_engine);
  if (c.median_hz > 0) {
    r.core_hz = c.median_hz;
    r.clock_hz = c.sample_hz;
    r.clock_flagged = c.flagged;
    std::vector<double> cpb;
    for (std::size_t i = 0; i < n; ++i)
      cpb.push_back(r.samples_ns_per_node_layer[i] * 1e-9 * c.sample_hz[i] / static_cast<double>(r.hashed_bytes_per_node));
    r.cycles_per_byte_core = median(cpb);
  }
}

}  // namespace

label_bench_result bench_label(const label_bench_options& in) {
  const sdr::registered_proof* proof = nullptr;
  const label_bench_options opt = checked_options(in, proof);
  const bool sampled = check_memory(opt);
  const bool window = opt.window_nodes > 0;
  label_bench_result r;
  r.options = opt;
  r.nodes = opt.sector_size / 32;
  reset_peak_rss();
  r.device = cpu::detect().model;

  const backend_entry& entry = *opt.backend;
  auto be = entry.make(opt.knobs);  // throws if it cannot run here

  const sdr::label_scheme scheme = opt.scheme;
  r.hashed_bytes_per_node = sdr::message_bytes(scheme.variant);
  const cpu::engine* engine = entry.floor_engine ? entry.floor_engine(scheme, opt.sectors, opt.knobs) : nullptr;
  r.engine = engine != nullptr ? std::string(engine->name) : entry.name;

  const bench_job bj(opt, proof, scheme, r);
  const sdr::label_job& job = bj.job;
  cpu::planned_teams teams;
  if (entry.reads(axis::producer) && scheme.variant == sdr::porep_variant::sdr) {
    teams = cpu::planned_coordination(cpu_labeler_options(opt.knobs), job);
    r.producer = teams.where;
  }

  // Peak RSS growth from here covers the two layer buffers and whatever the backend
  // allocates; the parent table (56 B/node, or mapped from a cache file) is not included.
  const std::uint64_t base_kib = status_kib("VmRSS:");
  reset_peak_rss();
  sdr::window_layer_store* wstore = nullptr;
  const std::unique_ptr<sdr::layer_store> store = make_store(opt, job, r, wstore);

  const std::uint64_t knob_threads = opt.knobs.count(axis::threads);
  bench_run run{opt, job, *be, *store, engine, dynamic_cast<const cpu::placed_backend*>(be.get()), sampled, false,
                window ? static_cast<double>(opt.window_nodes) : static_cast<double>(r.nodes) * opt.layers, {}, 0,
                knob_threads > 0 ? static_cast<int>(knob_threads) : omp_get_max_threads()};
  // With coordinators the floor runs on the hashing threads: the efficiency is each one's.
  if (teams.hashers > 0) run.threads = static_cast<int>(teams.hashers);
  // The floor beside each sample runs a shorter chain than the labeling (measure_floor_seconds
  // repeats it to at least 50 ms): a pair of an 8 MiB sector stays well under a second.
  run.floor_chain = std::min<std::uint64_t>(static_cast<std::uint64_t>(run.work), kFloorPairChain);
  // The floor repeats blocks as the labeler does: the window's layer, or layer 1's share.
  if (engine != nullptr) {
    run.repeats.reuse = entry.reads("schedule_reuse") && opt.knobs.count("schedule_reuse") != 0;
    run.repeats.layer1_share = window ? (opt.layers == 1 ? 1.0 : 0.0) : 1.0 / opt.layers;
  }
  // The header off the chain leaves 19 chained compressions a node: that floor is timed too.
  run.header_ahead = engine != nullptr && entry.reads("header_ahead") &&
                     cpu::header_off_chain(cpu_labeler_options(opt.knobs), job);

  if (run.placed != nullptr) r.placement = cpu::kThreadPlacements.name(run.placed->placement());
  stopping_rule stop{stopping_options{opt.target_ci > 0 ? std::max(opt.samples, kMinPairsForTarget) : opt.samples,
                                      opt.target_ci,
                                      opt.max_seconds > 0 ? opt.max_seconds : opt.target_ci > 0 ? kDefaultTargetSeconds : 0,
                                      kMaxSamples}};
  for (std::uint32_t i = 0; i < opt.warmup; ++i) be->label(job, *store);
  if (engine != nullptr && opt.warmup > 0) run.floor_ns();

  sample_log log;
  r.stopped_by = sample_until(
      stop, [&](std::size_t i) { take_sample(run, static_cast<std::uint32_t>(i), r, log); },
      [&]() -> const std::vector<double>& { return engine != nullptr ? log.ratios : r.samples_ns_per_node_layer; });
  if (!r.kernel_samples_ns_per_node_layer.empty()) r.kernel_ns_per_node_layer = median(r.kernel_samples_ns_per_node_layer);
  r.first_timed_layer = job.start_layer();
  for (const auto& v : log.per_layer_ns) r.layer_ns_per_node.push_back(v.empty() ? 0.0 : median(v));
  r.layer_groups = sdr::group_layers(job.scheme.variant, r.first_timed_layer, r.layer_ns_per_node);
  const std::uint64_t peak_kib = std::max(status_kib("VmHWM:"), base_kib);
  r.max_rss_bytes = status_kib("VmHWM:") * 1024;
  if (wstore != nullptr) r.window_resident_bytes = wstore->resident_bytes();

  verify_samples(run, log, r);
  // A window's process growth is its filled pages, not a sector's need: see window_*.
  r.rss_bytes_per_node = window ? 0
                                : static_cast<double>(peak_kib - base_kib) * 1024 /
                                      (static_cast<double>(r.nodes) * opt.sectors);
  derive_figures(log, engine != nullptr, run.header_ahead, r);
  return r;
}

clock_track track_clock(const std::vector<double>& readings, std::size_t samples, bool pairs) {
  clock_track c;
  const std::size_t step = pairs ? 2 : 1;
  if (samples == 0 || readings.size() != step * samples + 1 ||
      std::any_of(readings.begin(), readings.end(), [](double hz) { return !(hz > 0); }))
    return c;  // no add-chain kernel here
  c.median_hz = median(readings);
  for (std::size_t i = 0; i < samples; ++i) {
    const std::size_t first = step * i, label = first + step - 1;
    c.sample_hz.push_back((readings[label] + readings[label + 1]) / 2);
    bool off = false;
    for (std::size_t k = first; k <= first + step; ++k)
      off = off || std::abs(readings[k] / c.median_hz - 1) > kClockTolerance;
    if (off) c.flagged.push_back(i);
  }
  return c;
}

namespace {

nlohmann::json pairs_json(const label_bench_result& r) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& p : r.pairs) {
    nlohmann::json pair = {{"floor_ns", p.floor_ns}, {"label_ns", p.label_ns}, {"ratio", p.ratio}};
    if (p.chain_floor_ns > 0) {
      pair["chain_floor_ns"] = p.chain_floor_ns;
      pair["chain_ratio"] = p.chain_ratio;
    }
    a.push_back(pair);
  }
  return a;
}

}  // namespace

nlohmann::json to_json(const label_bench_result& r) {
  nlohmann::json j = {{"kind", "label"},
                      {axis::backend, r.options.backend->name},
                      {axis::variant, sdr::variant_name(r.options.scheme.variant)},
                      {"hash", sdr::label_hash_name(r.options.scheme.hash)},
                      {ctx::scheme, sdr::scheme_name(r.options.scheme)},
                      {ctx::scheme_status, sdr::scheme_status(r.options.scheme)},
                      {"hashed_bytes_per_node", r.hashed_bytes_per_node},
                      {"cycles_per_byte", r.cycles_per_byte},
                      {ctx::engine, r.engine},
                      {ctx::producer, cpu::kParentProducers.name(r.producer)},
                      {ctx::device, r.device},
                      {"layout", r.options.knobs.text("layout")},
                      {axis::sector_size, r.options.sector_size},
                      {axis::sectors, r.options.sectors},
                      {ctx::threads, r.options.knobs.count(axis::threads)},
                      {"nodes", r.nodes},
                      {axis::layers, r.options.layers},
                      {ctx::ns_per_node_layer, r.ns_per_node_layer},
                      {ctx::labels_per_s, r.labels_per_s},
                      {"floor_ns_per_node_layer", r.floor_ns_per_node_layer},
                      {key::verified, r.verified},
                      {key::digest, r.digest},
                      {"rss_bytes_per_node", r.rss_bytes_per_node},
                      {"parent_table_s", r.parent_table_s},
                      {"parent_table_vs_layer", r.parent_table_vs_layer},
                      {"max_rss_bytes", r.max_rss_bytes},
                      {"samples_ns_per_node_layer", r.samples_ns_per_node_layer},
                      {"verified_by", r.verified_by.text()},
                      {"porep_id_source", r.porep_id_source},
                      {axis::window_nodes, r.options.window_nodes}};
  // Each group only where the run has it: a reader tells a GPU run by its kernel times,
  // not by zeros.
  if (!r.pairs.empty()) j[ctx::efficiency] = r.efficiency;
  if (r.chain_efficiency > 0) {
    j["chain_floor_ns_per_node_layer"] = r.chain_floor_ns_per_node_layer;
    j["chain_efficiency"] = r.chain_efficiency;
  }
  if (!r.fastest_run.kernel.empty()) j["kernel_used"] = r.fastest_run.kernel;
  if (r.coordinators > 0) {
    j[ctx::coordinators] = r.coordinators;
    j[ctx::hashers] = r.hashers;
    j[ctx::coordinator_busy_share] = r.coordinator_busy_share;
    j["parent_rows_per_s"] = r.parent_rows_per_s;
    j[ctx::hashers_per_coordinator_max] = r.hashers_per_coordinator_max;
    j["labels_per_s_per_cpu"] = r.labels_per_s_per_cpu;
  }
  if (!r.kernel_samples_ns_per_node_layer.empty()) {
    // Samples are end to end (uploads, launches, layers back in host memory); the label
    // kernels alone are kept beside them.
    j["timing"] = "end_to_end";
    j["kernel_ns_per_node_layer"] = r.kernel_ns_per_node_layer;
    j["kernel_samples_ns_per_node_layer"] = r.kernel_samples_ns_per_node_layer;
    j["kernel_load_s"] = r.fastest_run.load_s;
    j["upload_s"] = r.fastest_run.upload_s;
    j["transpose_s"] = r.fastest_run.transpose_s;
    j["copy_s"] = r.fastest_run.copy_s;
    j["label_launches"] = r.fastest_run.label_launches;
    j["launch_nodes"] = r.fastest_run.launch_nodes;
    j["parent_placement"] = r.fastest_run.parent_placement;
    j["device_sm_count"] = r.device_sm_count;
    j["device_clock_mhz"] = r.device_clock_mhz;
    j["threads_per_block"] = r.options.knobs.count("threads_per_block");
    j["kernel"] = r.options.knobs.text("kernel");
  }
  if (r.options.window_nodes > 0) {
    j["window_first_node"] = r.window_first_node;
    j[ctx::window_backing] = sdr::window_backing_name(r.window_backing);
    if (sdr::window_backing_uses_dir(r.window_backing)) j["window_dir"] = r.window_dir;
    if (r.window_alias_period > 0) j[ctx::window_alias_period_bytes] = r.window_alias_period;
    if (r.window_page > 0) j[ctx::window_page_bytes] = r.window_page;
    j["window_pages_filled"] = r.window_pages_filled;
    j["window_bytes_filled"] = r.window_bytes_filled;
    j["window_resident_bytes"] = r.window_resident_bytes;
  }
  if (!r.verify_failure.empty()) j["verify_failure"] = r.verify_failure;
  if (!r.placement.empty()) {
    j["placement"] = r.placement;
    j[ctx::thread_map] = r.thread_map;
  }
  if (!r.layer_ns_per_node.empty()) {
    j["first_timed_layer"] = r.first_timed_layer;
    j["layer_ns_per_node"] = r.layer_ns_per_node;
    nlohmann::json g = nlohmann::json::object();
    for (const auto& [name, ns] : r.layer_groups) g[name] = ns;
    j["layer_groups_ns_per_node"] = g;
  }
  const nlohmann::json m = measurement_json(r);  // named: items() must not outlive it
  for (const auto& [k, v] : m.items()) j[k] = v;
  return j;
}

nlohmann::json measurement_json(const label_bench_result& r) {
  nlohmann::json j = {{"ns_per_node_layer_ci95", {r.ns_lo, r.ns_hi}},
                      {key::stopped_by, kStopReasons.name(r.stopped_by)},
                      {"samples_taken", r.samples_ns_per_node_layer.size()}};
  if (!r.pairs.empty()) {
    j["efficiency_ci95"] = {r.efficiency_lo, r.efficiency_hi};
    j["efficiency_spread"] = r.efficiency_spread;
    j["efficiency_pairs"] = pairs_json(r);
  }
  if (r.core_hz > 0) {
    j[ctx::core_hz] = r.core_hz;
    j["clock_hz"] = r.clock_hz;
    j["clock_flagged"] = r.clock_flagged.size();
    j["clock_flagged_samples"] = r.clock_flagged;
    j["cycles_per_byte_core"] = r.cycles_per_byte_core;
  }
  if (!r.cpu_share.empty()) {
    j["cpu_share"] = r.cpu_share;
    j["preempted"] = r.preempted.size();
    j["preempted_samples"] = r.preempted;
  }
  return j;
}

}  // namespace poreplab
