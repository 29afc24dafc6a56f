#pragma once
// Replication profile: where the time of labeling goes, per phase, the way the 2019
// Supranational PoRep report profiled r2's ZigZag replication (there with gprof), but measured in place with
// the TSC. The job runs one sector at a time on the calling thread; every node's message
// is gathered into an aligned buffer and then hashed, so the phases separate:
//   fetch   gathering the node's parent chunks (and header) into the message buffer:
//           the loads that touch parent memory, and issuing the prefetches ahead
//   hash    the compressions on the gathered buffer (engine calls, digest, mask)
//   encode  zigzag: the field add node + key mod r of every node; sdr: the replica =
//           data + last layer mod r, once after the last layer
//   io      layer hand-off: sdr::zigzag_begin_layer's copy, layer_store::layer_done
//   other   the rest (node loop, bookkeeping, timer reads not inside a phase):
//           total - the four above
// The same code runs with the timers compiled out; overhead = timed / untimed - 1. The
// production cpu backend (make_cpu_backend, same engine, one thread) runs the same job
// for comparison: the profile runs the backend's own loop (cpu/src/layer_loop.hpp), but
// with assembly gather and one sector at a time, where the backend reads SHA-256 chunks
// in place and runs sectors in engine lanes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "poreplab/cpu/engines.hpp"
#include "poreplab/sdr/backend.hpp"
#include "poreplab/sdr/scheme.hpp"

namespace poreplab::cpu {

struct profile_options {
  std::uint32_t warmup = 0;   // untimed rounds first
  std::uint32_t samples = 1;  // rounds: each runs the timed code, the untimed code, the backend
  bool fenced = true;         // lfence around every rdtsc: exact phase boundaries, more overhead
  bool compare_backend = true;
  bool verify = true;         // check every run's last layer (and sdr replica) against the reference
  std::size_t prefetch_distance = 4;  // as labeler_options
};

struct profile_phases {
  double fetch = 0, hash = 0, encode = 0, io = 0, other = 0;
  double sum() const { return fetch + hash + encode + io + other; }
};

// One group of layers (sdr: "layer 1" / "layers 2+"; zigzag: "forward" / "reverse",
// sdr/layer_clock.hpp): the timed runs' share of the group's layer time in fetch (every
// load of parent memory: the memory-bound share as the TSC sees it) and in hash, its time
// per node, and, where the PMU counts them, last-level-cache misses per node in the
// untimed runs.
struct profile_direction {
  std::string group;
  std::uint32_t layers = 0;          // layers of the group in one run
  double fetch_share = 0, hash_share = 0;
  double ns_per_node = 0;            // per node, layer and sector (TSC, timed runs)
  double llc_misses_per_node = -1;   // < 0: not counted
};

struct profile_result {
  sdr::label_scheme scheme;
  std::string engine;
  std::uint64_t nodes = 0;
  std::uint32_t layers = 0, sectors = 0, samples = 0;
  double tsc_hz = 0;
  std::string timer;  // "lfence+rdtsc" or "rdtsc"
  // Per round, seconds of the whole job (steady clock).
  std::vector<double> timed_s, untimed_s, backend_s;
  double total_s = 0;     // median of timed_s
  double untimed_total_s = 0, backend_total_s = 0;  // medians
  profile_phases seconds;  // mean seconds per timed run (TSC)
  profile_phases share;    // of the timed runs' TSC total: each in [0, 1], sum 1
  double overhead = 0;     // median timed / median untimed - 1
  // ns per node, layer and sector (medians); timed and untimed include sdr's final
  // encode pass, the backend labels only.
  double timed_ns_per_node_layer = 0, untimed_ns_per_node_layer = 0, backend_ns_per_node_layer = 0;
  // The 2019 Supranational PoRep report's figure: TSC ticks over the labeling (all layers, untimed code) /
  // (nodes x layers x sectors x message_bytes(variant)); and the same for the backend.
  std::uint64_t hashed_bytes = 0;
  double cycles_per_byte = 0, backend_cycles_per_byte = 0;
  std::vector<profile_direction> directions;
  // "PERF_COUNT_HW_CACHE_MISSES" when LLC misses were counted, else why not.
  std::string llc_counter;
  bool verified = false;          // every run's output equals the reference
  std::string digest;             // SHA-256 of the last layer (all sectors)
  std::string reference_digest;   // the same from the portable reference backend
  std::string replica_digest;     // sdr: of data + last layer
  std::string verified_against;
};

// Throws std::invalid_argument when the engine is not one of the scheme's hash algo, or
// the job is invalid. `store` receives every run's layers (as any backend's store).
profile_result profile_labeling(const sdr::label_job& job, sdr::layer_store& store, const engine& e,
                                const profile_options& opt = {});

}  // namespace poreplab::cpu
