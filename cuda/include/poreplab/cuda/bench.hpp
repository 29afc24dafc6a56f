#pragma once
// GPU measurements returned as plain structs (printing is the caller's): chained hash
// compressions (latency and throughput) and SDR labeling timed with CUDA events.
// Every function throws unavailable_error (poreplab/unavailable.hpp) when no CUDA device is usable.
#include <cstdint>
#include <string>
#include <vector>

#include "poreplab/cuda/backend.hpp"
#include "poreplab/cuda/devices.hpp"
#include "poreplab/cuda/memory_plan.hpp"
#include "poreplab/hash/bench_mode.hpp"
#include "poreplab/hash/family.hpp"
#include "poreplab/sdr/backend.hpp"

namespace poreplab::cuda {

struct hash_bench_options {
  hash_family algo = hash_family::sha256;
  // chain: one thread runs one chain of dependent compressions (time per compression is
  // its latency on one SM lane); throughput: many threads, each its own chain
  // (compressions per second of the whole device).
  hash_bench_mode mode = hash_bench_mode::throughput;
  std::uint64_t chain_length = 0;      // compressions per chain; 0: 65536 (latency), 4096 (throughput)
  std::uint64_t chains = 0;            // throughput only; 0: one per resident thread slot (occupancy API)
  std::uint32_t threads_per_block = 128;  // throughput; 0 or above the kernel's limit is refused
  int device = 0;
  std::uint32_t warmup = 1;
  std::uint32_t samples = 5;
};

struct hash_bench_result {
  hash_bench_options options;          // as run (defaults resolved)
  device_info device;
  std::uint32_t block_bytes = 0;       // message bytes per compression
  std::uint32_t blocks = 0, threads = 0;  // launch shape
  int registers = 0;                   // per thread, of the timed kernel
  int max_threads_per_block = 0;       // the kernel's launch limit
  int blocks_per_sm = 0;               // resident blocks per SM (occupancy API)
  double load_s = 0;                   // host clock: kernel loaded before timing
  std::uint64_t compressions = 0;      // per sample: chains * chain_length
  std::vector<double> samples_s;       // kernel time per sample (CUDA events)
  double median_s = 0;
  double compressions_per_s = 0;
  double ns_per_compression = 0;       // latency: per dependent step; throughput: median_s / compressions
  // latency: SM clock cycles per dependent step; throughput: SM-cycles (time x clock x
  // SMs) per compression. Uses the SM clock the device reports, not the boost clock reached.
  double cycles_per_compression = 0;
  double bytes_per_s = 0;              // block bytes compressed per second
  bool verified = false;               // first, middle and last chains recomputed on the host
};

hash_bench_result bench_hash_gpu(const hash_bench_options& opt);

struct label_timing {
  device_info device;
  memory_plan plan;
  double load_s = 0;                   // host clock: kernels loaded (or JIT-compiled) before timing
  double upload_s = 0;                 // parent table (when resident) and replica ids (events)
  double kernel_s = 0;                 // label launches only, all layers (events)
  std::vector<double> layer_kernel_s;  // per layer
  double transpose_s = 0;              // relayouts between sector layouts
  double copy_s = 0;                   // same-layout layer copies (zigzag, sector-minor)
  double end_to_end_s = 0;             // host clock: uploads, launches, every layer in the store
  std::uint64_t label_launches = 0;    // label kernel launches, all layers
  std::uint64_t launch_nodes = 0;      // most nodes per label launch
  std::uint64_t thread_slots = 0;      // sectors labeled at once (occupancy x SMs)
  std::string kernel;                  // the label kernel variant run ("auto" resolved)
};

// Labels `job` into `store` like make_cuda_backend(opt)->label() and reports where the
// time went. Device allocation is outside every figure.
label_timing time_label(const sdr::label_job& job, sdr::layer_store& store, const backend_options& opt = {});

}  // namespace poreplab::cuda
