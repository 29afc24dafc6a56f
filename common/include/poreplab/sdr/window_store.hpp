#pragma once
// The layer store of a node window (label_job::window_nodes): the previous layer and the
// current one at full size, so that a window's parent reads span the address range of
// a real sector, without labeling (or holding) the rest of it. docs/scaling.md.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "poreplab/huge_buffer.hpp"
#include "poreplab/name_table.hpp"
#include "poreplab/sdr/backend.hpp"

namespace poreplab::sdr {

enum class window_backing {
  automatic,  // ram when both layers fit in the memory available, else mmap_file
  ram,        // anonymous memory, every byte filled
  mmap_file,  // a sparse file per layer, only the pages the window reads filled
};
inline constexpr name_table kWindowBackings{
    "window backing", std::array{named<window_backing>{window_backing::automatic, "auto"}, named<window_backing>{window_backing::ram, "ram"},
                                 named<window_backing>{window_backing::mmap_file, "mmap-file"}}};
inline window_backing parse_window_backing(std::string_view s) { return kWindowBackings.parse(s); }
inline const char* window_backing_name(window_backing b) { return kWindowBackings.name(b).data(); }

// Deterministic valid field elements (top two bits clear) for bytes [begin, end) of layer
// l (multiples of 32), written to dst: the element at byte offset o is a function of
// (seed, l, o / 32) alone, so a ram store and a file store hold the same values wherever
// both are filled.
void fill_window_elements(std::uint8_t* dst, std::uint32_t layer, std::uint64_t seed, std::uint64_t begin,
                          std::uint64_t end);

class window_layer_store final : public layer_store {
 public:
  // For `job` (windowed, sdr; its parent rows read here): layers job.layers - 1 (when >= 1)
  // and job.layers. ram: both filled whole; mmap_file: each a file in dir (created, mapped,
  // unlinked at once, so nothing is left behind) where only the 4 KiB pages holding the
  // window's parents are written (pwrite: a full disk is an error here, not SIGBUS),
  // then mapped and touched before anything is timed. Throws
  // insufficient_memory / std::runtime_error naming what does not fit.
  window_layer_store(const label_job& job, window_backing how, const std::filesystem::path& dir, std::uint64_t seed);
  ~window_layer_store() override;
  window_layer_store(const window_layer_store&) = delete;
  window_layer_store& operator=(const window_layer_store&) = delete;

  std::uint8_t* layer(std::uint32_t l) override;

  window_backing backing() const { return backing_; }
  std::uint64_t pages_filled() const { return pages_filled_; }  // 4 KiB pages, both layers
  std::uint64_t bytes_filled() const { return bytes_filled_; }  // bytes written before timing
  std::uint64_t layer_bytes() const { return layer_bytes_; }
  // Bytes of the two layers the process has resident now (mincore over each mapping).
  std::uint64_t resident_bytes() const;

 private:
  struct region {
    std::uint8_t* data = nullptr;
    huge_buffer ram;
    void* map = nullptr;
  };
  void map_file(region& r, const std::filesystem::path& dir, const std::vector<std::uint64_t>& pages, std::uint32_t layer,
                std::uint64_t seed);
  std::uint32_t layer_ = 0;
  std::uint64_t layer_bytes_ = 0;
  window_backing backing_ = window_backing::ram;
  region cur_, prev_;
  std::uint64_t pages_filled_ = 0, bytes_filled_ = 0;
};

// Bytes a window needs filled (4 KiB pages, both layers) in an mmap_file store: what
// the disk must have free and the page cache holds. Reads the job's parent rows.
std::uint64_t window_file_bytes(const label_job& job);

}  // namespace poreplab::sdr
