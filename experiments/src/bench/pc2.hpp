#pragma once
// Timed PC2 (tree_c, tree_r_last, comm_r) on one backend's Poseidon, through build_pc2's
// pipeline, over generated labels held in memory, over the layer files and replica a seal
// wrote, or over a node window's generated labels written to files first (both read from
// the disk each sample, beside the disk's sequential read rate on the same files); each
// sample checked by sampled recomputation with the plain permutation (a window from files:
// also equal to the same window from memory); its multiplies/s set against one core's
// multiply rate on the same engine, its pace against the pipeline's feed and hashing.
// Shared by `poreplab bench pc2` and the runner's `pc2` kind.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/backends.hpp"
#include "poreplab/sdr/pc2_build.hpp"
#include "poreplab/name_table.hpp"
#include "records/payload_keys.hpp"

namespace poreplab {

// Files: a sealed directory's, or a window's generated labels written to files first.
using records::kPc2Sources;
using records::pc2_source;

// The record keys of PC2 read from files that this bench and the pc2 kind share.
namespace pc2_key {
using records::axis::source;  // the kind's axis too
inline constexpr const char* feed_how = "feed_how";
inline constexpr const char* feed_cpu_s = "feed_cpu_s";
inline constexpr const char* feed_queued_s = "feed_queued_s";
inline constexpr const char* feed_alone_gib_per_s = "feed_alone_gib_per_s";
inline constexpr const char* feed_alone_over_disk = "feed_alone_over_disk";
inline constexpr const char* layer_dir = "layer_dir";
inline constexpr const char* scratch_bytes = "scratch_bytes";
inline constexpr const char* scratch_write_s = "scratch_write_s";
inline constexpr const char* page_cache_share_before_read = "page_cache_share_before_read";
inline constexpr const char* disk_seq_read_gib_per_s = "disk_seq_read_gib_per_s";
inline constexpr const char* disk_seq_read_samples_gib_per_s = "disk_seq_read_samples_gib_per_s";
inline constexpr const char* disk_seq_read_how = "disk_seq_read_how";
inline constexpr const char* feed_over_disk = "feed_over_disk";
inline constexpr const char* digest_s = "digest_s";
}  // namespace pc2_key

struct pc2_bench_options {
  const backend_entry* backend = backend_entry_of(device_class::host_cpu);
  backend_settings knobs;               // threads, ...
  std::uint64_t sector_size = 8 << 20;  // a size with a rust-fil-proofs tree shape
  std::uint32_t layers = 2;             // 2 or 11
  // > 0: hash a window of this many nodes (a power of 8): its columns and one tree over
  // them, standing for the sector's per-node work (docs/pc2-cpu.md); 0: the whole sector.
  std::uint64_t window_nodes = 0;
  std::uint32_t warmup = 0;
  std::uint32_t samples = 3;
  std::uint64_t verify_samples = 256;  // leaves and internal nodes recomputed per sample
  pc2_source source = pc2_source::memory;
  // files: the sealed directory (seal.json gives the sector size and layers; whole sector).
  std::string from;
  // files with a window: the directory its scratch files are written in; "" =
  // default_layer_dir() ($POREPLAB_LAYER_DIR, else /var/tmp).
  std::string layer_dir;
  // files with a window: called once its files are written and dropped from the page cache,
  // before any is read (tests damage them here).
  std::function<void(const std::vector<std::filesystem::path>&)> after_window_written;
  std::uint32_t buffers = 3;  // build_pc2's chunk buffers; 1 serializes reading and hashing
  std::uint32_t readers = 2;  // build_pc2's reader threads
  std::uint64_t chunk_nodes = 0;  // build_pc2's chunk; 0: the hasher's or the builder's
};

struct pc2_bench_result {
  pc2_bench_options options;
  std::uint64_t nodes_hashed = 0;   // per sample: the sector's nodes or the window
  std::uint64_t sector_nodes = 0;
  std::vector<double> samples_ns_per_node;  // PC2 wall time per node hashed
  double median_ns_per_node = 0;
  double sector_seconds = 0;        // median x the sector's nodes: measured for a whole sector, extrapolated from a window
  double multiplies_per_node = 0;   // Fr multiplies of PC2 per sector node (neptune's optimized form)
  double fr_mul_per_s = 0;          // multiplies done per second, all threads
  std::string mul_engine;           // whose multiply is the bound: a Poseidon engine, fr32 on the host, the device
  double fr_mul_ns_bound = 0;       // host: one core's fastest Fr product on it (measured here)
  std::string mul_form;             // host: the form that product was measured in
  int threads = 0;                  // host threads; 0 on a device
  double bound_mul_per_s = 0;       // host: threads / fr_mul_ns_bound; cuda: the device modeled (pc2_model)
  std::string bound_basis;          // how the bound was had, "measured: ..." or "modeled: ..."
  double vs_bound = 0;              // fr_mul_per_s / bound_mul_per_s
  double kernel_ns_per_node = -1;   // device kernels alone (events), per node; < 0: not timed apart
  // The pipeline, each the median over the samples (measured): the reader's time reading
  // and checking, the hashing thread's, the whole, and the feed rate they give.
  double feed_s = 0, hash_s = 0, end_to_end_s = 0;
  double feed_gib_per_s = 0;        // bytes read and checked / feed_s
  std::uint64_t bytes_read = 0;     // per sample
  std::uint64_t chunks = 0;
  std::uint64_t chunk_nodes = 0;    // leaves per chunk, as build_pc2 chose
  std::uint32_t buffers = 0;        // chunk buffers build_pc2 used: those asked, at most one a chunk
  std::uint64_t overlapped_reads = 0;  // the median sample's
  sdr::pc2_pace pace = sdr::pc2_pace::host;  // set by the medians (sdr::pace_of)
  // From files: the disk beside the feed. Each sample's inputs are dropped from the page
  // cache first; the largest share of a file still cached then (0: read from the disk; -1:
  // not known). The disk's sequential read of the same files, probed once a sample
  // (alternately before and after its build): the median, each, and how it read.
  double page_cache_share_before_read = -1;
  std::string feed_how;             // how the reader read the files (O_DIRECT or buffered)
  double disk_seq_read_gib_per_s = 0;
  std::vector<double> disk_seq_read_samples_gib_per_s;
  std::string disk_seq_read_how;
  double feed_over_disk = 0;        // feed_gib_per_s / disk_seq_read_gib_per_s
  // The feed alone (build_pc2's reader with hashing that does nothing: the cores its own),
  // once a sample beside the probe: the median rate and its ratio to the disk's.
  double feed_alone_gib_per_s = 0;
  double feed_alone_over_disk = 0;
  // Of feed_s (medians): the readers on a CPU, and runnable waiting for one; -1: not kept.
  double feed_cpu_s = -1, feed_queued_s = -1;
  // A sealed directory: the digest thread's time on the files' SHA-256 beside the rest (median).
  double digest_s = 0;
  // A window from files: where its files were written, their bytes and the seconds the
  // write and sync took (before any timing).
  std::string layer_dir;
  std::uint64_t scratch_bytes = 0;
  double scratch_write_s = 0;
  std::string hasher;
  std::string digest;               // comm_r of the last sample (hex)
  bool verified = false;
  std::string verified_against;
};

// std::invalid_argument for bad options (a size without a tree shape, a window that is
// not a power of 8 or exceeds the sector, layers not 2 or 11, files with neither a
// directory nor a window, or with both); std::runtime_error naming the file for a sealed
// directory's bad input (as `poreplab pc2`'s, digests included), for a window's scratch
// file already there, cut short or holding a value >= r (and the node); no_space when the
// window's files do not fit; unavailable_error when the backend has no PC2 path. The
// window's files are gone when it returns or throws.
pc2_bench_result run_pc2_bench(const pc2_bench_options& opt);

// ns per Fr product of the device code's 32-bit words as cuda-emu runs them on one host
// core, in the form its rounds use (the dense MDS matrix of width 12, rows summed); 0 when
// the result disagrees with fr::mont. The cuda-emu bound of `vs_mul_bound`.
double fr32_matrix_product_ns();

// The record fields of a result (the runner's context and `bench pc2 --json`).
nlohmann::json pc2_bench_json(const pc2_bench_result& r);

}  // namespace poreplab
