#pragma once
// Timed SDR labeling of S sectors with their layers on a disk (cpu::disk_labeling): whole
// sectors verified against the reference labeler, node windows of a full-size sector
// by sampled re-labeling from the parents as the disk holds them. Beside the time: the
// reads it issued, how the parents split between the node cache and the disk, the time
// the hashing waited for reads, and the disk's own random-read rate at the same queue
// depth, from which the IOPS bound of this point follows. Shared by `poreplab bench
// disk-label` and the runner's `disk_label` kind.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/verification.hpp"
#include "poreplab/cpu/disk_labeler.hpp"
#include "poreplab/sampling.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/storage/disk_probe.hpp"

namespace poreplab {

struct disk_label_bench_options {
  std::uint64_t sector_size = 2048;
  const sdr::registered_proof* proof = nullptr;  // a registered proof: its size, porep_id and api version
  std::uint32_t sectors = 1;
  std::uint32_t layers = 2;
  std::uint64_t window_nodes = 0;  // > 0: a window of layer `layers` of a full-size sector
  std::int64_t window_offset = -1;  // its first node; < 0: drawn at random (recorded)
  cpu::disk_label_options disk;     // directory, cache, lookahead, queue depth, engine, threads
  std::uint32_t warmup = 0;
  std::uint32_t samples = 3;
  double max_seconds = 0;         // > 0: no sample that would end past this (stopping_rule)
  std::uint64_t verify_samples = 4096;
  double probe_seconds = 1;       // the disk's random-read rate at the queue depth; 0: not measured
};

struct disk_label_bench_result {
  disk_label_bench_options options;
  std::uint64_t nodes = 0;             // of the sector
  std::uint64_t first_node = 0;        // windows
  std::string porep_id_source;
  std::string device;                  // the CPU
  std::vector<double> samples_ns_per_node_layer;
  double ns_per_node_layer = 0;        // median
  double labels_per_s = 0;             // at the median
  cpu::disk_label_stats stats;         // the median sample's
  storage::disk_description disk;
  storage::read_probe_result probe;    // probe.reads == 0: not measured
  stop_reason stopped_by = stop_reason::samples;
  bool verified = false;
  verification verified_by;            // full or sampled(K)
  std::string verify_failure;
  std::string digest;                  // SHA-256 of the last layer's labeled rows, every sector
};

// Throws std::invalid_argument for bad options; what disk_labeling throws.
disk_label_bench_result bench_disk_label(const disk_label_bench_options& opt);

// The row `bench disk-label --json` prints and records carry: the rates, the reads and
// their split, the disk and its probe, and the IOPS bound (the probe's reads per second
// over this point's reads per label).
nlohmann::json to_json(const disk_label_bench_result& r);
nlohmann::json to_json(const storage::disk_description& d);
nlohmann::json to_json(const storage::read_probe_result& r);

}  // namespace poreplab
