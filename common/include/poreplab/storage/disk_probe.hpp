#pragma once
// What a directory's disk is and how many random 4 KiB reads a second it serves: the
// figure that bounds labeling with layers on disk (each parent not in the node cache is
// one such read). The probe writes a scratch file in the directory, unlinked at once (or
// made with O_TMPFILE), so nothing is left behind on any exit.
#include <cstdint>
#include <filesystem>
#include <string>

#include "poreplab/storage/read_queue.hpp"

namespace poreplab::storage {

struct disk_description {
  std::string device;      // the block device below the directory's filesystem ("nvme0n1", "vda"); "" when unknown
  std::string model;       // its model from sysfs; "" when it has none (a virtual disk)
  std::uint64_t size_bytes = 0;
  bool rotational = false;  // as the kernel reports it (virtual disks often say 1)
  std::string filesystem;  // "ext4", "xfs", "tmpfs"...
};

// The disk holding `dir` (an existing directory), read from /proc/self/mountinfo and
// `sys_root` (normally /sys). Fields it cannot find stay empty.
disk_description describe_disk(const std::filesystem::path& dir, const std::filesystem::path& sys_root = "/sys");

// Whether files in `dir` can be opened with O_DIRECT; `why` says why not (tmpfs, say).
bool direct_io_supported(const std::filesystem::path& dir, std::string* why = nullptr);

struct read_probe_options {
  std::uint64_t file_bytes = 256ull << 20;  // the scratch file; reads fall anywhere in it
  std::uint32_t block_bytes = 4096;
  std::uint32_t queue_depth = 32;
  double seconds = 2;
  io_engine engine = io_engine::automatic;
  bool direct = true;  // O_DIRECT: the page cache does not answer the reads
};

struct read_probe_result {
  double reads_per_s = 0;
  double mib_per_s = 0;
  double mean_latency_us = 0;  // submit to completion, averaged
  std::uint64_t reads = 0;
  double seconds = 0;
  std::uint32_t queue_depth = 0;
  std::uint32_t block_bytes = 0;
  std::uint64_t file_bytes = 0;
  io_engine engine = io_engine::pread_pool;
  bool direct = false;
};

// Writes the scratch file (checking free space first), then keeps queue_depth random
// block-aligned reads in flight for `seconds`. Throws no_space, or std::runtime_error
// naming the directory and the reason (not a directory, not writable, O_DIRECT refused).
read_probe_result probe_random_reads(const std::filesystem::path& dir, const read_probe_options& opt);

}  // namespace poreplab::storage
