#pragma once
// PC2's inputs read from files: a sealed directory's layer files and replica.dat, or any
// named ones (a node window's scratch files), as build_pc2's reader reads them.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "poreplab/sdr/pc2_build.hpp"
#include "poreplab/seal/seal.hpp"

namespace poreplab::seal {

// Layer files and a replica named one by one (a node window's scratch files, not a seal's):
// each `bytes` long, with no digest to check.
struct pc2_input_files {
  std::vector<std::filesystem::path> layers;  // layer 1 first
  std::filesystem::path replica;
  std::uint64_t bytes = 0;
  std::string of_what = "this window";  // what errors say a wrong size is not that of
};

// Layer files and a replica as build_pc2's inputs: a sealed directory's (its layer files and
// replica.dat) or any named ones. Each present, regular and of its size before any work
// (else std::runtime_error naming it, and the node where a short one ends), read by the
// pipeline's reader threads, its SHA-256 taken front to back on the pipeline's digest
// thread where seal.json records one. A column chunk's layers are read together: with
// O_DIRECT and several reads
// in flight where the filesystem takes it and the chunk is 4096-byte aligned, else by
// buffered preads whose pages are dropped once read; either way a second build reads from
// the disk again. One build per object.
class pc2_file_inputs {
 public:
  pc2_file_inputs(const std::filesystem::path& dir, const seal_manifest& sm);
  explicit pc2_file_inputs(const pc2_input_files& files);
  ~pc2_file_inputs();
  pc2_file_inputs(const pc2_file_inputs&) = delete;
  pc2_file_inputs& operator=(const pc2_file_inputs&) = delete;
  // Sets job's read_label, read_columns, read_replica, digest (where a digest is recorded)
  // and input_names (the files' paths).
  void feed(sdr::pc2_job& job);
  // Once build_pc2 has read everything: std::runtime_error naming the first file whose
  // digest is not the one `manifest` records; false when it records none.
  bool check_digests(const std::filesystem::path& manifest);
  // One node of layer `layer` (1-based; 0: the replica), read apart from the build.
  void read_node(std::uint32_t layer, std::uint64_t node, std::uint8_t* out) const;
  const std::filesystem::path& replica_path() const;
  // The layers' paths, then the replica's.
  std::vector<std::filesystem::path> paths() const;
  // How the reads so far went: "O_DIRECT, 4 MiB reads, 16 in flight (io_uring)", buffered, or both.
  std::string how_read() const;

 private:
  struct files;
  std::unique_ptr<files> in_;
};

}  // namespace poreplab::seal
