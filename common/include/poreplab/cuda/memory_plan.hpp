#pragma once
// Device memory planning for labeling S sectors at once: pure host arithmetic, no CUDA.
//
// The device holds two layers (the one being labeled and the previous one) of all S
// sectors, the replica ids, and the parent table (nodes x 14 u32 = nodes * 56 bytes).
// The number of layers does not change the device footprint: finished layers go back
// to the host. When the two layers fit but the table does not, the table is streamed:
// each layer is labeled in node chunks, one launch per chunk, with the chunk's parent
// rows copied in from pinned host memory into one of two device chunk buffers.
#include <cstdint>
#include <string>

#include "poreplab/name_table.hpp"

namespace poreplab::cuda {

enum class parent_placement { resident, streamed, refused };
inline constexpr name_table kParentPlacements{
    "parent placement", std::array{named<parent_placement>{parent_placement::resident, "resident"}, named<parent_placement>{parent_placement::streamed, "streamed"},
                                   named<parent_placement>{parent_placement::refused, "refused"}}};
inline const char* parent_placement_name(parent_placement p) { return kParentPlacements.name(p).data(); }

struct memory_request {
  std::uint64_t sector_bytes = 0;  // power of two >= 64
  std::uint32_t sectors = 1;
  std::uint32_t layers = 11;
  std::uint64_t free_bytes = 0;    // free device memory (cudaMemGetInfo)
  // Left unallocated for the runtime, allocation granularity and other users.
  std::uint64_t reserve_bytes = 256ull << 20;
  // Force streaming with chunks of this many nodes (0: planner's choice).
  std::uint64_t chunk_nodes = 0;
  // Table rows per graph node: 1 for SDR, 2 for ZigZag (one row per direction).
  std::uint32_t table_rows_per_node = 1;
};

struct memory_plan {
  parent_placement parents = parent_placement::refused;
  std::uint64_t nodes = 0;
  std::uint64_t layer_bytes = 0;         // S * sector_bytes, one layer of all sectors
  std::uint64_t parent_table_bytes = 0;  // nodes * rows per node * 56
  std::uint64_t replica_id_bytes = 0;    // S * 32
  std::uint64_t resident_bytes = 0;      // 2 layers + table + ids
  std::uint64_t chunk_nodes = 0;         // streamed: nodes per chunk (0 when resident)
  std::uint64_t chunk_bytes = 0;         // streamed: one chunk buffer, chunk_nodes * 56
  std::uint64_t device_bytes = 0;        // what the plan allocates on the device
  std::uint64_t pinned_host_bytes = 0;   // streamed: two pinned staging buffers
  std::uint64_t host_store_bytes = 0;    // all layers in host memory: layers * layer_bytes
  std::uint64_t available_bytes = 0;     // free - reserve
  std::uint32_t max_sectors = 0;         // most sectors of this size that fit (either placement)
  std::uint32_t max_resident_sectors = 0;  // most sectors of this size with the table resident
  std::uint64_t max_sector_bytes = 0;    // largest power-of-two sector size for S sectors (0: none)
  std::string message;                   // one-line summary, or why the request was refused
  bool fits() const { return parents != parent_placement::refused; }
};

// Streamed chunks never exceed this many nodes (224 MiB per chunk buffer): the copies
// overlap launches, so larger chunks only cost memory.
inline constexpr std::uint64_t kMaxChunkNodes = 1ull << 22;
// Nor go below this many, to keep launches long against their overhead.
inline constexpr std::uint64_t kMinChunkNodes = 1ull << 12;

// Throws std::invalid_argument for a sector size that is not a power of two >= 64 or
// zero sectors; a request that does not fit is not an error (parents == refused).
memory_plan plan_memory(const memory_request& req);

// "32 GiB", "1.5 GiB", "2 KiB", "100 B".
std::string format_bytes(std::uint64_t bytes);

}  // namespace poreplab::cuda

namespace poreplab::cuda {

// Node steps one label launch takes per thread when every sector has a thread slot:
// with the latency model's per-node time of one GPU thread, a launch of this many nodes
// stays well under a second (docs/cuda-backend.md).
inline constexpr std::uint64_t kLaunchNodeSteps = 4096;
inline constexpr std::uint64_t kMinLaunchNodes = 64;

// Nodes per label launch for `sectors` sectors on a device that runs `thread_slots`
// label threads at once: sectors beyond the slots run in further waves inside one
// launch, so the launch gets proportionally fewer nodes. thread_slots 0 counts as 1.
std::uint64_t launch_nodes_for(std::uint64_t sectors, std::uint64_t thread_slots);

}  // namespace poreplab::cuda

