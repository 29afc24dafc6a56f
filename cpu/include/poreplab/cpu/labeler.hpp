#pragma once
// The OpenMP CPU backend: SDR labeling of S sectors (sharing one graph) with a
// SHA-256 engine. Sectors are processed in groups of the engine's lane width; each
// thread drives whole groups through the node loop, prefetching parents ahead.
#include <cstddef>
#include <memory>
#include <string>

#include "poreplab/cpu/engines.hpp"
#include "poreplab/sdr/backend.hpp"

namespace poreplab::cpu {

struct labeler_options {
  std::string engine = "auto";  // SHA-256 engine name, or "auto" (best for the sector count)
  int threads = 0;              // 0 = OpenMP default
  bool pin_threads = true;      // pin thread i to the i-th CPU of the affinity mask
  std::size_t prefetch_distance = 4;  // nodes ahead whose parents are prefetched
};

// Throws std::invalid_argument (unknown engine) or engine_unavailable.
std::unique_ptr<sdr::backend> make_cpu_backend(const labeler_options& opt);

// The engine `auto` picks for S sectors: one stream -> the best 1-lane engine
// (latency), several -> the best lane engine no wider than S, else the widest.
const engine& pick_label_engine(std::size_t sectors);

// The time floor of labeling: `chains` dependent chains of 20 compressions each on
// `engine` with L1-resident inputs, run by `threads` threads the way the labeler
// groups them. Returns seconds for that work.
double measure_floor_seconds(const engine& e, std::size_t sectors, std::uint64_t nodes_times_layers, int threads);

}  // namespace poreplab::cpu
