#pragma once
// Layers backed by files and mapped into memory, as rust-fil-proofs keeps its layer
// files: sectors larger than RAM label with only the page cache holding what is hot.
// Only the layer being written and the one before it are mapped at any time.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "poreplab/sdr/backend.hpp"

namespace poreplab::sdr {

class mmap_layer_store final : public layer_store {
 public:
  // Layer l lives in dir / file_name(l), created (or truncated) and allocated at
  // layer_bytes when the layer is first asked for (posix_fallocate: a full disk is an
  // error here, not SIGBUS while labeling). Throws std::runtime_error naming the file
  // (no_space when the disk is full).
  mmap_layer_store(std::filesystem::path dir, std::uint64_t layer_bytes,
                   std::function<std::string(std::uint32_t)> file_name);
  ~mmap_layer_store() override;
  mmap_layer_store(const mmap_layer_store&) = delete;
  mmap_layer_store& operator=(const mmap_layer_store&) = delete;

  std::uint8_t* layer(std::uint32_t l) override;
  // Flushes layer l to its file and unmaps layer l-1, which is no longer needed.
  void layer_done(std::uint32_t l) override;
  std::filesystem::path path(std::uint32_t l) const { return dir_ / file_name_(l); }

 private:
  struct mapping {
    std::uint32_t layer = 0;
    std::uint8_t* data = nullptr;
  };
  void unmap(mapping& m);
  std::filesystem::path dir_;
  std::uint64_t bytes_;
  std::function<std::string(std::uint32_t)> file_name_;
  std::vector<mapping> maps_;
};

}  // namespace poreplab::sdr
