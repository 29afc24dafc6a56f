#pragma once
// The OpenMP CPU backend: labeling of S sectors (sharing one graph) for every scheme
// (sdr | zigzag) x (sha256 | blake2s | blake2b-256), on an engine of the scheme's hash.
// SHA-256: sectors in groups of the engine's lane width, chunks read in place (no
// gather). BLAKE2 (single-stream engines): one sector at a time per thread, each node's
// message gathered into an aligned buffer. Each thread drives whole groups (sectors)
// through the node loop of a layer, prefetching parents ahead. ZigZag layers are
// encoded in place (node + key mod r), after sdr::zigzag_begin_layer.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "poreplab/cpu/engines.hpp"
#include "poreplab/sdr/backend.hpp"

namespace poreplab::cpu {

struct labeler_options {
  // Engine name, looked up per job among the engines of the job's hash (sha256 ->
  // engine_algo::sha256, blake2s -> blake2s, blake2b-256 -> blake2b); "auto" = the best
  // available (for SHA-256: for the sector count, pick_label_engine).
  std::string engine = "auto";
  int threads = 0;              // 0 = OpenMP default
  bool pin_threads = true;      // pin thread i to the i-th CPU of the affinity mask
  std::size_t prefetch_distance = 4;  // nodes ahead whose parents are prefetched
};

// Throws std::invalid_argument (an engine name no algo knows) or engine_unavailable (no
// algo that knows the name can run it here). A name the job's hash algo lacks (e.g.
// "shani" for a blake2s job) makes label() throw std::invalid_argument naming the algo.
std::unique_ptr<sdr::backend> make_cpu_backend(const labeler_options& opt);

// The engine `auto` picks for S sectors: fastest_engine(sha256, S) (tune.hpp): measured
// on this CPU, one stream -> the fastest 1-lane engine, several -> the lowest cost for S
// chains; without measurements the widest engine S fills.
const engine& pick_label_engine(std::size_t sectors);

// The engine algorithm of a labeling hash (blake2b-256 runs on the BLAKE2b engines).
engine_algo label_engine_algo(sdr::label_hash h);

// The engine the cpu backend uses for a scheme: `name` of the scheme's hash algo, or for
// "auto" pick_label_engine (SHA-256) / the best engine of the algo (BLAKE2, one stream).
// Throws std::invalid_argument naming the algo for an unknown name, engine_unavailable.
const engine& pick_label_engine(sdr::label_scheme s, std::size_t sectors, std::string_view name = "auto");

}  // namespace poreplab::cpu
