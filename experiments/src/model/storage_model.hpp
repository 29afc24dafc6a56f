#pragma once
// PC1 throughput at real sector sizes, MODELED from measured parts (docs/scaling.md, "The
// storage model"): labels/s is the smallest of
//   - the hash bound: a core's measured labels/s with k sectors (the 32GiB node window)
//     times the hashing cores, the other cores running the readers, writer, orchestrator
//     and one coordinator per CCX as supraseal's topology does;
//   - the IOPS bound (layers on disk): the array's random 4 KiB reads/s over the reads
//     per label counted on the graph (sdr/parent_reads.hpp);
//   - capacity: 11 layers x sector x batch on disk; node cache and buffers in RAM (or two
//     layers per sector and the parent table when the layers are kept in RAM);
//   - for a GPU: its own measured many-sector rate, its memory, and the PCIe bound (bytes
//     crossing the link per label, from host RAM or from NVMe by GPU-initiated reads).
// Every input keeps its provenance; every output is modeled.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/figure.hpp"

namespace poreplab::storage_model {

// The batches the production batch sealer takes (supra_seal pc1/README.md: "1-32, 64, and
// 128 32GB CC sectors"; Curio documentation/en/supraseal.md: "up to 128").
inline constexpr std::uint32_t kMaxBatch = 128;
std::vector<std::uint32_t> batch_sizes();
// Supraseal's node cache: "a small cache of recent nodes, say 1M" (pc1/README.md).
inline constexpr std::uint64_t kNodeCacheNodes = std::uint64_t{1} << 20;
// Cores of supraseal's PC1 besides hashers and coordinators: writer, reader, orchestrator
// (demos/rust/supra_seal.cfg).
inline constexpr std::uint32_t kIoCores = 3;

// A GPU's host link, per direction.
struct link_spec {
  std::string_view name;
  double bytes_per_s;
  std::string_view source;
};
std::span<const link_spec> links();
const link_spec* find_link(std::string_view name);  // nullptr when unknown
std::vector<std::string> link_names();

struct sizing {
  std::uint64_t sector_size = 0;
  std::uint32_t layers = 11;
  std::uint64_t nodes() const { return sector_size / 32; }
  double labels_per_sector() const { return static_cast<double>(nodes()) * layers; }
};

// One core labeling `sectors` sectors at once at `clock_hz`, and one sector alone.
// A core's labels/s with `sectors` sectors in its lanes, at clock_hz (0: unknown), and the
// hashers one coordinator fed at their floor there (0: not measured with coordinators).
struct lane_rate {
  std::uint32_t sectors = 1;
  double labels_per_s = 0;
  double clock_hz = 0;
  provenance from;
  std::uint32_t hashers_per_coordinator = 0;
};

struct hash_rate {
  double labels_per_s = 0;
  std::uint32_t sectors = 1;
  double clock_hz = 0;  // 0: unknown
  provenance from;
  double single_labels_per_s = 0;  // one sector on one core; 0: unknown (then labels_per_s / sectors)
  provenance single_from;
  // Measured with coordinators: the hashing cores one coordinator fed at their floor (k_max);
  // 0: not measured (supraseal's topology, a coordinator per CCX).
  std::uint32_t hashers_per_coordinator = 0;
  // Rates measured at other sector counts a core: a batch takes the count that labels most
  // with the cores it has.
  std::vector<lane_rate> other_lanes;
  double cycles_per_label() const { return clock_hz / labels_per_s; }
};

struct disk_array {
  std::uint32_t count = 0;
  double iops_each = 0;      // random 4 KiB reads/s
  double capacity_each = 0;  // bytes
  std::string model;
  provenance from;
};

struct cpu_machine {
  std::string name;
  std::uint32_t cores = 0, threads = 0;
  double clock_hz = 0;  // all-core clock; 0: unknown
  provenance clock_from;
  std::uint32_t ccx_cores = 8;
  double ram_bytes = 0;
  provenance ram_from;
  std::vector<disk_array> disks;  // empty: no layer disks described
  double iops() const;
  double disk_bytes() const;
};

// Random reads per node (the L-layer mean) of `sectors` sectors with a node cache of
// `cache_nodes`, in pages of `page_bytes`; counted on the graph or given by a test.
using reads_fn = std::function<figure(std::uint32_t sectors, std::uint64_t cache_nodes, std::uint32_t page_bytes)>;
// Counts on sampled runs of the size's real graph (16 runs of 4096 nodes), once per
// geometry per process.
reads_fn counted_reads(const sizing& s);

struct bound {
  std::string name;  // hash | IOPS | PCIe | GPU rate | GPU-initiated IOPS
  double labels_per_s = 0;
  std::string why;
};

struct plan {
  bool feasible = false;
  std::string design;  // "layers on disk" | "layers in RAM" | "layers in host RAM" | "layers on NVMe, GPU-initiated reads"
  std::uint32_t batch = 0;  // sectors labeled together (per GPU for a GPU design)
  std::uint32_t hashing_cores = 0, other_cores = 0;
  std::uint32_t sectors_per_core = 0;  // the measured lane count the hash bound chose
  std::uint64_t cache_nodes = 0;
  std::vector<bound> bounds;  // at this batch
  std::string binding;        // the bound that sets the rate, or what no batch fits
  std::string batch_limit;    // what stops the next larger batch
  figure labels_per_s, sectors_per_hour, batch_seconds;
  figure reads_per_node, iops_needed, ram_bytes, disk_bytes, device_bytes;
  double bytes_per_label = 0;  // GPU: across its link
  std::uint32_t huge_pages_1g = 0;
  std::string text() const;     // "18.6 sectors/hour (MODELED), layers on disk, 64 sectors at once, hash-bound: ..."
  std::string summary() const;  // "hash-bound, 64 sectors (128: cores ...)" or "no batch fits: ..."
};

// The better of layers on disk (where disks are described) and layers in RAM.
plan plan_cpu(const cpu_machine& m, const hash_rate& h, const sizing& s, const reads_fn& reads);

struct gpu_part {
  std::string name;
  std::uint32_t count = 1;
  double memory_bytes = 0;
  std::string link;  // a link_spec name; "" unknown
  double node_ns = 0;            // one sector's time per node
  double peak_labels_per_s = 0;  // the most it labels with many sectors
  provenance rate_from;
};

// Per GPU of the part: the best batch of host-RAM and GPU-initiated NVMe designs; the
// host's RAM, disks and IOPS are shared by all `count` GPUs. labels_per_s is all of them.
plan plan_gpu(const cpu_machine& host, const gpu_part& g, const sizing& s, const reads_fn& reads);

// GPU-initiated storage reads demonstrated: BaM (Qureshi et al., "GPU-Initiated On-Demand
// High-Throughput Storage Access in the BaM System Architecture", ASPLOS 2023).
inline constexpr double kGpuInitiatedIops = 45.8e6;
inline constexpr const char* kGpuInitiatedSource =
    "BaM (Qureshi et al., ASPLOS 2023, arXiv 2203.04910): 45.8M IOPS from 10 SSDs on one A100";

}  // namespace poreplab::storage_model
