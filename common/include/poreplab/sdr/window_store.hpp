#pragma once
// The layer store of a node window (label_job::window_nodes): the previous layer and the
// current one at full size, so that a window's parent reads span the address range of
// a real sector, without labeling (or holding) the rest of it. docs/scaling.md.
#include <array>
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
  aliased,    // each layer's whole span on huge pages whose bytes repeat (window_alias)
};
inline constexpr name_table kWindowBackings{
    "window backing", std::array{named<window_backing>{window_backing::automatic, "auto"}, named<window_backing>{window_backing::ram, "ram"},
                                 named<window_backing>{window_backing::mmap_file, "mmap-file"},
                                 named<window_backing>{window_backing::aliased, "aliased"}}};
inline window_backing parse_window_backing(std::string_view s) { return kWindowBackings.parse(s); }
inline const char* window_backing_name(window_backing b) { return kWindowBackings.name(b).data(); }
// Whether the backing keeps its layers in files of a directory (window_dir).
constexpr bool window_backing_uses_dir(window_backing b) { return b == window_backing::mmap_file; }
// Whether a layer's bytes repeat over its span (its figures say so wherever they are used).
constexpr bool window_backing_repeats(window_backing b) { return b == window_backing::aliased; }

// The aliased backing: every `period` bytes of a layer's span map the same physical
// pages (a memfd), so a parent read costs the translation of a machine holding its
// layers on pages of that size, and the bytes come from DRAM as they would, in `period`
// bytes of memory a layer. The window's own rows (which it writes) lie on pages of their
// own: the pages of the layer's span that hold them, at most 2 MiB each (a hugetlb
// mapping cannot be cut finer than its page, and a 1 GiB page of its own would hold
// 64 MiB of rows).
inline constexpr std::array<std::uint64_t, 3> kAliasPages{4ull << 10, 2ull << 20, 1ull << 30};  // shmem, hugetlb, hugetlb
struct window_alias {
  std::uint64_t period = 4ull << 30;  // rounded up to whole pages; at most the layer
  std::uint64_t page = 2ull << 20;    // one of kAliasPages
};
constexpr bool is_alias_page(std::uint64_t page) {
  for (const std::uint64_t p : kAliasPages)
    if (p == page) return true;
  return false;
}
constexpr std::uint64_t alias_own_page(std::uint64_t page) { return page < (2ull << 20) ? page : 2ull << 20; }
// "4 KiB", "2 MiB", "1 GiB"; and the list of kAliasPages so written.
std::string page_size_text(std::uint64_t page);
std::string alias_pages_text();

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
  // aliased: both layers as window_alias says, filled whole (the window's rows by their
  // offsets, the rest by offset modulo the period); throws naming the huge pages it
  // needs when fewer are free (vm.nr_hugepages).
  window_layer_store(const label_job& job, window_backing how, const std::filesystem::path& dir, std::uint64_t seed,
                     const window_alias& alias = {});
  ~window_layer_store() override;
  window_layer_store(const window_layer_store&) = delete;
  window_layer_store& operator=(const window_layer_store&) = delete;

  std::uint8_t* layer(std::uint32_t l) override;

  window_backing backing() const { return backing_; }
  std::uint64_t alias_period() const { return alias_period_; }  // bytes; 0 unless aliased
  std::uint64_t alias_page() const { return alias_page_; }      // bytes; 0 unless aliased
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
    std::uint64_t map_bytes = 0;
  };
  void map_file(region& r, const std::filesystem::path& dir, const std::vector<std::uint64_t>& pages, std::uint32_t layer,
                std::uint64_t seed);
  void map_aliased(region& r, std::uint32_t layer, std::uint64_t seed, std::uint64_t page, std::uint64_t own_begin,
                   std::uint64_t own_end, const std::vector<std::uint64_t>& touch);
  std::uint32_t layer_ = 0;
  std::uint64_t layer_bytes_ = 0;
  window_backing backing_ = window_backing::ram;
  std::uint64_t alias_period_ = 0, alias_page_ = 0;
  region cur_, prev_;
  std::uint64_t pages_filled_ = 0, bytes_filled_ = 0;
};

// The huge pages an aliased store of `regions` layers of layer_bytes needs, whose window rows
// lie in own_bytes of its span: of the layers' page size, and of the own rows' page size
// (alias_own_page) where that differs; pages 0 where none (4 KiB layers need none).
struct huge_page_need {
  std::uint64_t page_bytes = 0, pages = 0;
};
std::array<huge_page_need, 2> aliased_huge_pages(std::uint64_t layer_bytes, std::uint64_t own_bytes, std::uint32_t regions,
                                                 const window_alias& alias = {});

// Why an aliased store of `regions` layers of layer_bytes, whose window rows lie in
// own_bytes of its span (whole alias.page pages, on alias_own_page pages), cannot have its
// huge pages here (the kernel has fewer free of a size; the text says how to reserve
// them); empty when it can, or when it needs no huge pages.
std::string aliased_shortfall_text(std::uint64_t layer_bytes, std::uint64_t own_bytes, std::uint32_t regions,
                                   const window_alias& alias = {});
// The most bytes of whole alias pages that `rows` bytes of window rows can lie in
// (wherever they start): what a caller that does not know the window's offset reserves.
constexpr std::uint64_t aliased_own_bytes_at_most(std::uint64_t rows, std::uint64_t page) {
  return (rows + page - 1) / page * page + page;
}

// Bytes a window needs filled (4 KiB pages, both layers) in an mmap_file store: what
// the disk must have free and the page cache holds. Reads the job's parent rows.
std::uint64_t window_file_bytes(const label_job& job);

}  // namespace poreplab::sdr
