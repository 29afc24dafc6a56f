#pragma once
// Timed SDR labeling of S sectors on one backend, verified against the portable
// reference. Shared by `poreplab bench label` and the experiment runner.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/backends.hpp"

namespace poreplab {

struct label_bench_options {
  std::string backend = "cpu";     // a name of backends()
  std::string variant = "sdr";     // sdr | zigzag
  std::string hash = "sha256";     // sha256 | blake2s | blake2b-256
  backend_settings knobs;           // engine, threads, layout, threads_per_block, kernel...
  std::uint64_t sector_size = 2048;     // bytes, power of two >= 64
  std::uint32_t sectors = 1;
  std::uint32_t layers = 2;
  std::uint32_t warmup = 1;
  std::uint32_t samples = 3;
};

struct label_bench_result {
  label_bench_options options;
  std::string scheme;              // "sdr/sha256", "zigzag/blake2s", ...
  std::string scheme_status;       // "filecoin" or "what-if"
  std::uint64_t hashed_bytes_per_node = 0;  // message bytes per regular node (1248 or 448)
  double cycles_per_byte = 0;      // TSC cycles per hashed byte at the median (0: no TSC)
  std::string engine;              // the engine actually used
  std::string device;              // CPU model or GPU name
  int device_sm_count = 0;         // cuda only
  int device_clock_mhz = 0;        // cuda only: SM clock
  std::uint64_t nodes = 0;
  std::vector<double> samples_ns_per_node_layer;  // one per sample
  double ns_per_node_layer = 0;    // median of samples
  double labels_per_s = 0;         // sectors * nodes * layers / median time
  double floor_ns_per_node_layer = 0;  // same number of chained compressions, same engine
  double efficiency = 0;           // floor / actual
  bool verified = false;           // output digest equals the portable reference
  std::string digest;              // SHA-256 over all sectors' last layers
  double rss_bytes_per_node = 0;   // peak resident set growth / (sectors * nodes)
  // cuda only, from CUDA events: label kernels alone (samples_ns_per_node_layer is then
  // end to end: uploads, kernels and every layer copied back).
  std::vector<double> kernel_samples_ns_per_node_layer;
  double kernel_ns_per_node_layer = 0;
  // cuda only: where the rest of the end-to-end time went (median sample, seconds), and
  // how the layers were launched.
  double kernel_load_s = 0;        // kernels loaded (or JIT-compiled), outside every sample
  double upload_s = 0;
  double transpose_s = 0;
  double copy_s = 0;
  std::uint64_t label_launches = 0;
  std::uint64_t launch_nodes = 0;
  std::string parent_placement;    // resident | streamed
};

// Throws std::invalid_argument for bad options, std::runtime_error when the backend
// cannot run here (e.g. no GPU), with the reason in the message.
label_bench_result bench_label(const label_bench_options& opt);

// The stable row schema shared by `bench label --json` and experiment records.
nlohmann::json to_json(const label_bench_result& r);

}  // namespace poreplab
