#pragma once
// What sealing S sectors of one size asks of a machine (graph, layers, memory, disk),
// taken from the planners that exist: memory_plan.hpp and seal.hpp.
#include <cstdint>
#include <string>

#include "poreplab/cuda/memory_plan.hpp"
#include "poreplab/graph/graph_params.hpp"

namespace poreplab::doctor {

struct seal_plan {
  std::uint64_t sector_bytes = 0;
  std::uint64_t nodes = 0;
  std::uint32_t sectors = 1;
  std::uint32_t layers = 0;
  std::string proof;               // the registered api 1.1.0 proof of the size; "" for a custom size
  graph::graph_params graph{};     // the parent table's graph
  cuda::memory_plan memory;        // plan_memory for the sectors (its host figures)
  std::uint64_t label_bytes = 0;   // RAM to label in memory: two layers of every sector + the table
  std::uint64_t kept_bytes = 0;    // every layer of every sector kept in RAM + the table
  std::uint64_t resident_bytes = 0;  // a bounded seal keeping the previous layer in memory (seal.hpp)
  std::uint64_t disk_bytes = 0;    // what the sectors' seals write beside their layers (seal.hpp)
};

// The plan for `sectors` sectors of `sector_bytes`: the graph of the api 1.1.0 proof of that
// size, else of the benchmarks' porep_id (sdr::benchmark_porep_id), with that proof's
// layers. Throws std::invalid_argument for a size no graph has or zero sectors.
seal_plan make_plan(std::uint64_t sector_bytes, std::uint32_t sectors);

}  // namespace poreplab::doctor
