#pragma once
// The disk test: a few seconds of sequential writes and reads and random 4 KiB reads (one
// at a time, then many in flight) in a file inside one directory. The file has no name
// there (storage::open_scratch_file), so nothing is left behind however the process ends.
#include <cstdint>
#include <filesystem>
#include <string>

namespace poreplab::doctor {

struct disk_result {
  bool ran = false;
  std::string error;             // why it did not run, or what stopped it
  bool o_direct = false;         // the file was read and written with O_DIRECT
  std::string o_direct_error;    // why O_DIRECT was refused ("" when it was not)
  std::uint64_t file_bytes = 0;  // what was written and then read
  double write_bytes_per_s = 0;  // sequential 1 MiB writes, the final fdatasync included
  double read_bytes_per_s = 0;   // sequential 1 MiB reads
  double random_reads_per_s = 0; // 4 KiB reads at random aligned offsets, one at a time
  double random_reads_per_s_at_depth = 0;  // the same with queue_depth in flight (the labeler's case)
  std::uint32_t queue_depth = 0;
  double seconds = 0;
};

// At most `seconds` (spread over the three phases) and at most `max_bytes` of file, never
// more than a quarter of `free_bytes`. Never throws: failures end up in `error`.
disk_result measure_disk(const std::filesystem::path& dir, double seconds, std::uint64_t free_bytes,
                         std::uint64_t max_bytes = std::uint64_t{256} << 20);

}  // namespace poreplab::doctor
