#pragma once
// The scratch files of PC2 of a node window from files: the window's layers and replica
// written as files in a directory on a disk, synced and their pages dropped, so that the
// timed runs read them from the disk through the reader a sealed directory's files go
// through (seal::pc2_file_inputs). They are removed when the object goes, an error on the
// way included, and by remove_registered_paths() when the process must end first. A file
// already at one of their names is never written over: it is refused before anything is
// written (and the create itself is exclusive).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "poreplab/seal/pc2_seal.hpp"

namespace poreplab {

class registered_path;

class pc2_window_files {
 public:
  // The names of `layers` layer files and a replica of `nodes` nodes each in `dir`.
  // Throws std::runtime_error naming the directory when it is not one, or the first file
  // already there; no_space when they do not fit on its filesystem. Writes nothing.
  pc2_window_files(const std::filesystem::path& dir, std::uint32_t layers, std::uint64_t nodes);
  ~pc2_window_files();
  pc2_window_files(const pc2_window_files&) = delete;
  pc2_window_files& operator=(const pc2_window_files&) = delete;

  // Creates input `input` (0 .. layers-1: the layers, then the replica) and writes
  // nodes * 32 bytes to it, its space reserved first; writeback starts at once.
  void write(std::uint32_t input, const std::uint8_t* bytes);
  // Every file written: fsynced, then its pages dropped. Returns the largest share of a
  // file still cached after the drop (0: each timed read starts from the disk; -1: not known).
  double sync_and_drop();

  const std::vector<std::filesystem::path>& paths() const { return paths_; }
  seal::pc2_input_files inputs() const;
  std::uint64_t bytes() const { return std::uint64_t{paths_.size()} * file_bytes_; }

  // The names, for a directory: layer l (1-based) and the replica.
  static std::string layer_name(std::uint32_t l);
  static std::string replica_name();

 private:
  std::vector<std::filesystem::path> paths_;
  std::vector<bool> created_;
  std::vector<std::unique_ptr<registered_path>> registered_;
  std::uint64_t file_bytes_ = 0;
};

}  // namespace poreplab
