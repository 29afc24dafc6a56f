#pragma once
// Layers backed by files and mapped into memory, as rust-fil-proofs keeps its layer
// files: sectors larger than RAM label with only the page cache holding what is hot.
// Only the layer being written and the one before it are mapped at any time.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "poreplab/huge_buffer.hpp"
#include "poreplab/sdr/backend.hpp"

namespace poreplab::sdr {

struct mmap_layer_options {
  // Layers below it exist already (a resumed seal): opened as they are, never truncated.
  std::uint32_t first_new_layer = 1;
  // The layer before the one being written, which expander parents read at random, is
  // read into anonymous memory rather than left to the page cache: a memory cgroup may
  // evict page cache, and a layer that is evicted and read back 4 KiB at a time makes
  // labeling disk-bound. Costs one layer of memory.
  bool resident_previous = false;
};

class mmap_layer_store final : public layer_store {
 public:
  // Layer l lives in dir / file_name(l), created (or truncated) and allocated at
  // layer_bytes when the layer is first asked for (posix_fallocate: a full disk is an
  // error here, not SIGBUS while labeling). Throws std::runtime_error naming the file
  // (no_space when the disk is full).
  mmap_layer_store(std::filesystem::path dir, std::uint64_t layer_bytes,
                   std::function<std::string(std::uint32_t)> file_name, mmap_layer_options opt = {});
  ~mmap_layer_store() override;
  mmap_layer_store(const mmap_layer_store&) = delete;
  mmap_layer_store& operator=(const mmap_layer_store&) = delete;

  std::uint8_t* layer(std::uint32_t l) override;
  // Flushes layer l to its file and unmaps layer l-1, which is no longer needed.
  void layer_done(std::uint32_t l) override;
  std::filesystem::path path(std::uint32_t l) const { return dir_ / file_name_(l); }
  // Starts writing back what the layer being written has dirtied (any thread): dirty
  // pages are not reclaimable, clean ones are.
  void start_writeback();

 private:
  struct mapping {
    std::uint32_t layer = 0;
    std::uint8_t* data = nullptr;
    int fd = -1;  // open while the layer is being written
  };
  void unmap(mapping& m);
  std::uint8_t* load_resident(std::uint32_t l);
  std::filesystem::path dir_;
  std::uint64_t bytes_;
  std::function<std::string(std::uint32_t)> file_name_;
  mmap_layer_options opt_;
  std::vector<mapping> maps_;
  huge_buffer resident_;
  std::uint32_t resident_layer_ = 0;
  std::mutex mu_;  // maps_' file descriptors, against start_writeback()
};

}  // namespace poreplab::sdr
