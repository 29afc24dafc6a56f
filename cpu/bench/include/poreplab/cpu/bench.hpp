#pragma once
// Hash engine benchmark: every engine (and OpenSSL's EVP as the reference) timed on the
// same data, in two patterns. Library code: returns rows, prints nothing; `poreplab bench
// hash` and the experiment runner format them.
//   throughput: independent messages (bytes_per_lane each, one per lane), standard
//               padding included in the time but not in the block count.
//   chain:      one dependent chain per lane, the SDR pattern. SHA-256: labels of 20
//               compressions over a 1,248-byte message (64-byte header, 37 parent labels)
//               read in place, the previous label always among the parents, so every
//               label waits for the one before. BLAKE2: one-block messages, each holding
//               the previous digest.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "poreplab/cpu/engines.hpp"
#include "poreplab/cpu/topology.hpp"
#include "poreplab/hash/bench_mode.hpp"
#include "poreplab/hash/family.hpp"
#include "poreplab/name_table.hpp"

namespace poreplab::cpu {

struct hash_bench_options {
  std::size_t bytes_per_lane = 16 * 1024;  // message bytes per lane in one measured pass
  double min_time_s = 0.02;                // each sample repeats the pass at least this long
  int repetitions = 7;                     // samples per row
  std::vector<hash_bench_mode> modes = {hash_bench_mode::throughput, hash_bench_mode::chain};
  bool openssl = true;                     // add the OpenSSL EVP reference row per mode
  // Threads hashing side by side, each on its own copy of the workload, pinned by
  // `placement` over this process's CPUs (topology.hpp). With more than one, every row's
  // figures are per block of all threads together, and each engine sample is paired with
  // a one-thread sample of the same engine (vs_one_thread): what the other threads add.
  int threads = 1;
  thread_placement placement = thread_placement::compact;
};

struct hash_bench_row {
  hash_family algo = hash_family::sha256;
  std::string engine;  // engine name, or kOpenssl (reference.hpp)
  hash_bench_mode mode = hash_bench_mode::throughput;
  std::size_t lanes = 1;           // chains hashed side by side (the engine's width)
  std::size_t block_bytes = 0;     // 64, or 128 for BLAKE2b
  std::string chain;               // chain mode: what one chain hashes
  std::uint64_t blocks_per_pass = 0;  // all lanes together
  std::uint64_t passes_per_sample = 0;
  // Per block of any lane: sample wall time / (blocks_per_pass * passes_per_sample).
  double ns_per_block = 0;  // median sample
  double min_ns_per_block = 0, max_ns_per_block = 0;
  double lane_ns_per_block = 0;  // median per block of one chain: ns_per_block * lanes
  // Median of this thread's CPU time per block: well below ns_per_block when the
  // thread was descheduled (a busy machine) during the samples.
  double cpu_ns_per_block = 0;
  double gbps = 0;               // hashed bytes (all lanes) per ns, median sample
  double cycles_per_byte_tsc = 0;                 // TSC ticks per byte, median sample
  std::optional<double> cycles_per_byte_core;     // core cycles (perf_event_open), if countable
  std::vector<double> samples;                    // ns_per_block of each sample
  bool verified = false;  // this engine's output on the measured data equals the portable code's
  // Rate over OpenSSL's (same algo, mode and bytes), from interleaved pairs: each engine
  // sample is followed by an OpenSSL sample, and each pair gives OpenSSL's ns / this
  // engine's ns. Median, its bootstrap 95% interval, and the pairs; empty without an
  // OpenSSL row (and on the OpenSSL row itself).
  std::vector<double> vs_openssl_pairs;
  std::optional<double> vs_openssl;
  double vs_openssl_lo = 0, vs_openssl_hi = 0;
  // The engine's port bound (latency.hpp port_bound_of, SHA-256 engines only) in ns per
  // block at the core clock measured right after the samples, and bound / ns_per_block
  // (1 = at the bound). Empty for OpenSSL, BLAKE2, rows of several threads and where the
  // clock could not be read.
  std::optional<double> bound_ns_per_block, vs_bound;
  double core_hz = 0;  // add-chain core clock after the samples (0: not measured)
  // hash_bench_options::threads and placement, and the CPUs the threads were pinned to
  // (thread t on cpus[t]; empty: not pinned).
  int threads = 1;
  std::string placement = "compact";
  std::vector<int> cpus;
  // With threads > 1: the rate over one thread's of the same engine, from interleaved
  // pairs (one-thread ns / all-threads ns per block); ~threads on separate cores, less
  // where threads share a core's ports (SMT siblings). Median, bootstrap 95% interval, pairs.
  std::vector<double> vs_one_thread_pairs;
  std::optional<double> vs_one_thread;
  double vs_one_thread_lo = 0, vs_one_thread_hi = 0;
};

// Rows for `engine` ("all": every available engine, best first; kOpenssl: the reference
// only; a name: that engine, through find_engine() and its errors) and, with
// opt.openssl, the OpenSSL row, for each of opt.modes in turn. With OpenSSL, every engine
// sample is paired with an OpenSSL sample taken right after it (vs_openssl); the OpenSSL
// row holds all of those samples.
// Throws std::invalid_argument for bad options, unavailable_error for a placement this
// machine cannot give (siblings without SMT).
std::vector<hash_bench_row> bench_hash(hash_family algo, std::string_view engine = "all",
                                       const hash_bench_options& opt = {});

// Whether perf_event_open can count this thread's core cycles here (often not in VMs).
bool core_cycle_counter_available();

// One JSON object: kind "hash", every field above; cycles_per_byte is the TSC figure and
// cycles_per_byte_core is null when not countable.
nlohmann::json to_json(const hash_bench_row& r);

}  // namespace poreplab::cpu
