#pragma once
// A sector the runner seals itself, for the kinds that need one on a disk (`seal` times the
// seal; `pc2` with source files reads its layers): the inputs it seals with, its staged
// data, and a scratch directory removed with everything in it when the point ends.
#include <cstdint>
#include <filesystem>
#include <string>

#include "poreplab/interrupt.hpp"
#include "poreplab/seal/seal.hpp"

namespace poreplab::runner {

// A fresh directory "<prefix>-<pid>-<n>" in `parent`, removed with everything in it when
// the object goes; registered for removal too, for a process that must end before the
// point unwinds.
class scratch_dir {
 public:
  scratch_dir(const std::filesystem::path& parent, const std::string& prefix);
  ~scratch_dir();
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  registered_path registered_;
};

// The registered V1_1 proof of this sector size, or the 2KiB one's id for other sizes (the
// graph only depends on porep_id, api version and node count), with `layers` layers.
seal::seal_inputs runner_seal_inputs(std::uint64_t sector_size, std::uint32_t layers);

// `size` bytes of deterministic staged data (field elements) at `p`.
void write_runner_sector_data(const std::filesystem::path& p, std::uint64_t size);

}  // namespace poreplab::runner
