#pragma once
// Timed SDR labeling of S sectors on one backend, verified against the portable
// reference. Shared by `poreplab bench label` and the experiment runner.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/backends.hpp"
#include "bench/verification.hpp"
#include "poreplab/cpu/labeler_options.hpp"
#include "poreplab/graph/graph_params.hpp"
#include "poreplab/sampling.hpp"
#include "poreplab/sdr/backend.hpp"
#include "poreplab/name_table.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "poreplab/sdr/window_store.hpp"

namespace poreplab {

// How a whole-sector point is verified: full (the reference labels it again: 4 layers in
// memory), sampled (verify_samples nodes recomputed from their captured parents: 2 layers),
// automatic (full when it fits, else sampled).
enum class verify_mode { automatic, full, sampled };
inline constexpr name_table kVerifyModes{
    "verify mode", std::array{named<verify_mode>{verify_mode::automatic, "auto"}, named<verify_mode>{verify_mode::full, "full"},
                              named<verify_mode>{verify_mode::sampled, "sampled"}}};

struct label_bench_options {
  const backend_entry* backend = backend_entry_of(device_class::host_cpu);
  sdr::label_scheme scheme{sdr::porep_variant::sdr, hash_family::sha256};
  backend_settings knobs;           // engine, threads, layout, threads_per_block, kernel...
  std::uint64_t sector_size = 2048;     // bytes, power of two >= 64
  std::uint32_t sectors = 1;
  std::uint32_t layers = 2;
  std::uint32_t warmup = 1;
  // Timed samples; where there is a floor each is a (floor, label) pair. With target_ci
  // the fewest pairs (at least kMinPairsForTarget) before the interval is looked at.
  std::uint32_t samples = 3;
  // > 0: keep sampling until the 95% interval of the median efficiency (of the median
  // time without a floor) has a half-width <= target_ci x the median, or the time budget
  // ends. Below 1.
  double target_ci = 0;
  // > 0: stop once the next sample would end more than this many seconds after the
  // warmup began (at least one sample is taken). 0 with target_ci: kDefaultTargetSeconds.
  double max_seconds = 0;
  // A registered proof (e.g. StackedDrg32GiBV1_1): its sector size, porep_id and api
  // version. None: sector_size with benchmark_porep_id.
  const sdr::registered_proof* proof = nullptr;
  // > 0: time a window of this many consecutive nodes of layer `layers` of a full-size
  // sector (docs/scaling.md), verified against the reference on the same window.
  std::uint64_t window_nodes = 0;
  std::int64_t window_offset = -1;     // first node; < 0: drawn at random (recorded)
  sdr::window_backing window_backing = sdr::window_backing::automatic;
  // aliased: bytes after which a layer's bytes repeat (sdr::window_alias; 64 MiB keeps them
  // in a last-level cache, the default 4 GiB sends them to DRAM)
  std::uint64_t window_alias_period = sdr::window_alias{}.period;
  std::uint64_t window_page = sdr::window_alias{}.page;  // aliased: the layers' page size (sdr::kAliasPages)
  std::string window_dir;              // where mmap-file windows put their files; empty: /dev/shm when it has room, else the temp directory
  verify_mode verify = verify_mode::automatic;
  std::uint64_t verify_samples = 4096;
};

inline constexpr std::uint32_t kMinPairsForTarget = 5;
inline constexpr double kDefaultTargetSeconds = 30;
// Sampled verification keeps 480 bytes a sample.
inline constexpr std::uint64_t kMaxVerifySamples = 1u << 20;
// A sample whose core clock is further than this from the run's median clock is flagged.
inline constexpr double kClockTolerance = 0.03;
// A sample during which the timing thread ran on a core for less than this share of the
// wall time (CPU time / wall time) was preempted: another process had its core.
inline constexpr double kMinCpuShare = 0.95;

// One interleaved sample: the floor timed just before the labeling, both per node per
// layer, and the core clock around each.
struct label_pair {
  double floor_ns = 0;  // floor ns per node per layer
  double label_ns = 0;  // labeling ns per node per layer
  double ratio = 0;     // floor_ns / label_ns: this pair's efficiency
  // SDR with the header ahead (knob header_ahead): the 19-block chain's floor beside the
  // 20-block one, and its ratio. 0 where the label waits on all 20.
  double chain_floor_ns = 0;
  double chain_ratio = 0;
};

struct label_bench_result {
  label_bench_options options;
  std::uint64_t hashed_bytes_per_node = 0;  // message bytes per regular node (1248 or 448)
  double cycles_per_byte = 0;      // TSC cycles per hashed byte at the median (0: no TSC)
  std::string engine;              // the engine actually used
  cpu::parent_producer producer = cpu::parent_producer::off;  // cpu: where the coordinators ran
  // cpu with coordinators: the teams (the floor beside each sample then runs on `hashers`
  // threads, so efficiency is each hashing thread's), and over the timed samples the share
  // of their time the coordinators worked, the parent rows they copied a second, the hashers
  // one coordinator could feed with every hasher at its floor (k x efficiency / busy share),
  // and labels/s per CPU, coordinators counted.
  std::uint32_t coordinators = 0, hashers = 0;
  double coordinator_busy_share = 0, parent_rows_per_s = 0, labels_per_s_per_cpu = 0;
  std::uint32_t hashers_per_coordinator_max = 0;
  // cpu: the thread placement (compact, spread, siblings, cores, none) and where each
  // thread of the last timed sample ran (records/environment.hpp, thread_map_json).
  std::string placement;
  nlohmann::json thread_map = nlohmann::json::array();
  std::string device;              // CPU model or GPU name
  int device_sm_count = 0;         // cuda only
  int device_clock_mhz = 0;        // cuda only: SM clock
  std::uint64_t nodes = 0;
  std::vector<double> samples_ns_per_node_layer;  // one per sample
  double ns_per_node_layer = 0;    // median of samples
  double labels_per_s = 0;         // sectors * nodes * layers / median time
  // Median of the pairs' floors: chained compressions on the same engine and lane grouping
  // with cache-resident inputs, timed beside each labeling sample.
  double floor_ns_per_node_layer = 0;
  double efficiency = 0;           // median of the pairs' floor / actual (above 1: the frontier)
  // With the header ahead: the medians of the 19-block floors and of their ratios, the
  // efficiency against the chain the label actually waits on (0 without it).
  double chain_floor_ns_per_node_layer = 0;
  double chain_efficiency = 0;
  std::vector<label_pair> pairs;   // one per sample where there is a floor (cpu, reference)
  double efficiency_lo = 0, efficiency_hi = 0;  // bootstrap 95% interval of the median ratio
  double efficiency_spread = 0;    // (max - min) / median of the pairs' ratios
  double ns_lo = 0, ns_hi = 0;     // bootstrap 95% interval of ns_per_node_layer
  // Host backends: the core clock (add-chain calibration, Hz) during each sample (mean of
  // the readings just before and after it), their median over every reading of the run,
  // and the samples taken where a reading beside them (floor or label) was more than
  // kClockTolerance off that median.
  std::vector<double> clock_hz;
  double core_hz = 0;
  std::vector<std::size_t> clock_flagged;
  // Host backends: the timing thread's CPU time / wall time during each labeling sample
  // (1: it had a core throughout), and the samples where it, or the floor beside it, ran
  // below kMinCpuShare. Time slicing leaves the clock as it was; this is what shows it.
  std::vector<double> cpu_share;
  std::vector<std::size_t> preempted;
  double cycles_per_byte_core = 0;  // median over samples of ns x that sample's core clock / byte
  stop_reason stopped_by = stop_reason::samples;
  bool verified = false;           // output digest equals the portable reference
  std::string digest;              // SHA-256 over all sectors' last layers
  double rss_bytes_per_node = 0;   // peak resident set growth / (sectors * nodes)
  // The SDR parent table built for this point (whole sectors, sdr only): its wall time,
  // and that over one layer's labeling time of this point (ns_per_node_layer x nodes).
  // 0 where no table was built (zigzag, windows).
  double parent_table_s = 0;
  double parent_table_vs_layer = 0;
  // The process's peak resident set (VmHWM, reset as the point starts) while the point
  // ran, parent table included; the reference check's own buffers come after it.
  std::uint64_t max_rss_bytes = 0;
  // cuda only, from CUDA events: label kernels alone (samples_ns_per_node_layer is then
  // end to end: uploads, kernels and every layer copied back).
  std::vector<double> kernel_samples_ns_per_node_layer;
  double kernel_ns_per_node_layer = 0;
  // cuda only: the fastest sample's breakdown (by kernel time): where the rest of the end
  // to end time went (seconds), how the layers were launched, where the parents lived.
  // kernel_load_s in records is its load_s (kernels loaded or JIT-compiled, outside every sample).
  sdr::label_run_times fastest_run;
  verification verified_by;
  std::string verify_failure;      // the first sampled mismatch, when there is one
  // Windows: the first node, where the two layers lived (sdr::kWindowBackings), the 4 KiB pages
  // and bytes filled before timing, and the bytes of both layers resident after it.
  std::uint64_t window_first_node = 0;
  sdr::window_backing window_backing = sdr::window_backing::automatic;
  std::uint64_t window_alias_period = 0;  // aliased: bytes after which a layer's bytes repeat
  std::uint64_t window_page = 0;          // aliased: the layers' page size
  std::string window_dir;          // mmap-file: the directory of its (unlinked) files
  std::uint64_t window_pages_filled = 0;
  std::uint64_t window_bytes_filled = 0;
  std::uint64_t window_resident_bytes = 0;
  std::string porep_id_source;     // "registered <proof>" | "custom (32GiB V1_1 id on a <size> graph)"
  // Per labeled layer (index 0 = the first labeled layer): the median over samples of the
  // layer's time per node of one sector (all sectors' labels of that node included), from
  // the host clock at each layer's end (sdr/layer_clock.hpp); and the layers grouped
  // (sdr: layer 1 / layers 2+, zigzag: forward / reverse), each the mean of its layers.
  std::uint32_t first_timed_layer = 1;
  std::vector<double> layer_ns_per_node;
  std::vector<std::pair<std::string, double>> layer_groups;
};

// The core clock around each of `samples` samples from the add-chain readings taken
// between them: with pairs, before each floor, between floor and label, and after the
// label (sample i: readings 2i, 2i+1, 2i+2); without, before and after each label (i,
// i+1). A sample's clock is the mean of the two readings around its label run; it is
// flagged when any reading beside it (floor included) is more than kClockTolerance off
// the median of all readings. Empty (median_hz 0) when the readings are missing or 0.
struct clock_track {
  double median_hz = 0;
  std::vector<double> sample_hz;
  std::vector<std::size_t> flagged;  // sample indices
};
clock_track track_clock(const std::vector<double>& readings, std::size_t samples, bool pairs);

// The replica ids of benchmark sectors 0..sectors-1 (valid field elements).
std::vector<std::uint8_t> replica_ids(std::uint32_t sectors);
// The graph a benchmark labels: the registered proof's, or the 32GiB V1_1 porep_id on a
// graph of sector_size (a registered proof of that size named as the source); `source`
// says which.
graph::graph_params bench_graph(std::uint64_t sector_size, const sdr::registered_proof* proof, std::string& source);

// Throws std::invalid_argument for bad options, unavailable_error when the backend
// cannot run here (e.g. no GPU), with the reason in the message.
label_bench_result bench_label(const label_bench_options& opt);

// The stable row schema shared by `bench label --json` and experiment records.
nlohmann::json to_json(const label_bench_result& r);
// The parts of that row about how far to trust it: the intervals (ns_per_node_layer_ci95,
// efficiency_ci95 as [lo, hi]), efficiency_spread, efficiency_pairs ({floor_ns, label_ns,
// ratio} per sample), stopped_by, samples_taken, and on host backends core_hz, clock_hz
// (per sample), clock_flagged (a count), clock_flagged_samples (indices), cycles_per_byte_core,
// cpu_share (per sample), preempted (a count), preempted_samples (indices).
nlohmann::json measurement_json(const label_bench_result& r);

}  // namespace poreplab
