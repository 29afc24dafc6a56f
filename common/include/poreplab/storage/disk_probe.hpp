#pragma once
// What a directory's disk is and how many random 4 KiB reads a second it serves: the
// figure that bounds labeling with layers on disk (each parent not in the node cache is
// one such read). The probe writes a scratch file in the directory, unlinked at once (or
// made with O_TMPFILE), so nothing is left behind on any exit. And how fast given files
// read front to back: the rate a reader of whole layer files (PC2's feed) is set against.
#include <cstdint>
#include <filesystem>
#include <span>
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

// The share (0 to 1) of a regular file's pages in the page cache now (mincore over a
// read-only mapping); -1 when it cannot be asked. An empty file: 0.
double cached_share(const std::filesystem::path& path);
// Drops a file's clean pages from the page cache (POSIX_FADV_DONTNEED; dirty pages stay:
// fsync first) and returns cached_share afterwards, which says whether the drop took.
double drop_cached_pages(const std::filesystem::path& path);

struct sequential_probe_options {
  std::uint32_t block_bytes = 4u << 20;  // each read; a multiple of 4096
  std::uint32_t queue_depth = 4;         // reads in flight
  io_engine engine = io_engine::automatic;
  // O_DIRECT where the files' filesystem takes it; else (or false) buffered reads of files
  // whose pages were dropped first.
  bool direct = true;
};

struct sequential_probe_result {
  double gib_per_s = 0;
  double seconds = 0;  // first read issued to last completed
  std::uint64_t bytes = 0;
  std::uint32_t block_bytes = 0;
  std::uint32_t queue_depth = 0;
  io_engine engine = io_engine::pread_pool;
  bool direct = false;
  // The largest share of any file's pages cached when the reads began (after the drop).
  double cached_share_before = 0;
};

// Reads `files` (regular files) one after another, each front to back in block_bytes reads
// with queue_depth in flight, after dropping their pages; the bytes are not looked at.
// Throws std::invalid_argument for a bad block or depth, std::runtime_error naming the
// file for one that cannot be opened or read whole.
sequential_probe_result probe_sequential_reads(std::span<const std::filesystem::path> files,
                                               const sequential_probe_options& opt);

}  // namespace poreplab::storage
