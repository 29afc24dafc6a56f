#pragma once
// SDR labeling of S sectors with their layers on a disk, as production sealers label
// 32GiB sectors (docs/scaling.md, "Layers on disk"). Each layer is a file of node rows
// (node v's labels of every sector together, 32 x S bytes, the store's layout), so one 4 KiB
// read serves every sector of a node. RAM holds only the current layer's most recent
// `cache_nodes` rows: a base parent that close is read there; every other parent (the
// older base parents and all expander parents) is read from the disk. A reader thread
// issues those reads `lookahead` nodes ahead of the hashing threads (io_uring, else a pool
// of pread threads), with O_DIRECT so the page cache does not answer them, and copies each
// node's parents into the parent ring the hashing threads label from, as the coordinator of
// the in-RAM labeler's team does; a writer thread writes finished rows out in page-aligned
// chunks.
//
// A window (job.window_nodes) labels nodes [first_node, first_node + window_nodes) of the
// last layer of a full-size sector: the pages its parents read before it (the previous
// layer's and the current layer's older rows) are written to the disk first, with the
// deterministic field elements of sdr::fill_window_elements, so every read reaches real
// data on the device. The files hold those pages and the window's own, densely and in
// order, not a sparse file of the whole layer: freeing thousands of scattered blocks
// (with online discard) took longer than the labeling.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "poreplab/sdr/backend.hpp"
#include "poreplab/sdr/sampled_check.hpp"
#include "poreplab/storage/read_queue.hpp"

namespace poreplab::cpu {

struct disk_label_options {
  std::filesystem::path layer_dir;
  std::uint64_t cache_nodes = 1ull << 20;  // current-layer rows kept in RAM (raised to what is in flight)
  std::uint32_t lookahead = 256;           // nodes whose parents are read ahead of the hashing (a power of two)
  std::uint32_t queue_depth = 128;         // reads in flight (1..4096)
  storage::io_engine io = storage::io_engine::automatic;
  bool direct = true;                      // O_DIRECT reads and writes
  std::string engine = "auto";             // the SHA-256 engine
  std::uint32_t hashing_threads = 1;       // sectors split between them, in engine-width groups (one group at least each)
  std::uint64_t write_chunk_bytes = 1ull << 20;  // rows written at once (at least the rows that fill whole pages)
  std::uint64_t fill_seed = 0x6469736b;    // windows: the contents of the layers before the window
};

struct disk_label_stats {
  double seconds = 0;       // labeling every layer (a window's pre-fill excluded)
  double fill_seconds = 0;  // window: writing the pages its parents read
  std::uint64_t node_steps = 0;  // nodes labeled over the layers (each one every sector)
  std::uint64_t labels = 0;      // node_steps x sectors
  std::uint64_t reads = 0;       // read requests (a row's page, or two pages where a row straddles)
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;  // rows written out (window pre-fill excluded)
  std::uint64_t bytes_filled = 0;   // window pre-fill
  std::uint64_t base_cached = 0;    // base parents read from the RAM rows
  std::uint64_t base_read = 0;      // base parents read from the disk
  std::uint64_t expander_read = 0;  // expander parents read from the disk
  std::uint64_t parents_shared = 0; // parents served by a read another parent of the node issued
  double read_wait_s = 0;   // hashing threads waiting for their parents (the reader), summed over the threads
  std::uint64_t cache_nodes = 0;    // as run
  std::uint64_t ram_bytes = 0;      // RAM rows, read buffers and the parent ring
  std::uint32_t lookahead = 0, queue_depth = 0, hashing_threads = 0, lanes = 0;  // threads: those run
  storage::io_engine io = storage::io_engine::pread_pool;
  bool direct = false;
  std::string engine;
};

class disk_labeling {
 public:
  // Checks the job (sdr/sha256, layers from 1 or a window), the options and the space on
  // layer_dir, makes the layer files there (nameless: nothing outlives the object), and
  // for a window writes the pages its parents read. Throws std::invalid_argument for a job
  // or option it cannot run, no_space, insufficient_memory, or std::runtime_error naming
  // the directory.
  disk_labeling(const sdr::label_job& job, const disk_label_options& opt);
  ~disk_labeling();
  disk_labeling(const disk_labeling&) = delete;
  disk_labeling& operator=(const disk_labeling&) = delete;

  // Labels every layer (or the window), from layer 1 again each call (a window over the
  // same pre-filled pages); the counts are this call's.
  disk_label_stats run();
  // After run(): rows [first, first + count) of the last layer, as the disk holds them.
  std::vector<std::uint8_t> read_last_layer_rows(std::uint64_t first, std::uint64_t count) const;
  // After run(): `samples` nodes of the last layer (every sector drawn from seed)
  // re-labeled by the reference single-node code from their parents' labels as the disk
  // holds them.
  sdr::sampled_result verify_samples(std::uint64_t samples, std::uint64_t seed) const;

  struct state;  // the implementation's (disk_labeler.cpp)

 private:
  std::unique_ptr<state> s_;
};

}  // namespace poreplab::cpu
