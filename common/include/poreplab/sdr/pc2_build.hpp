#pragma once
// PC2 as a sealer runs it: tree_c and tree_r_last built chunk by chunk from inputs read
// on demand, their files written as each chunk's rows are known, on any backend's Poseidon
// (pc2_hasher). Memory is a few chunks whatever the sector; the result is byte for byte
// what pc2_reference gives (docs/spec/pc2.md).
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "poreplab/name_table.hpp"
#include "poreplab/sdr/pc2.hpp"

namespace poreplab::sdr {

// The Poseidon work of PC2, as a backend runs it. Inputs are canonical field elements
// (the builder checks them first), 32-byte little-endian like the outputs.
class pc2_hasher {
 public:
  virtual ~pc2_hasher() = default;
  virtual std::string name() const = 0;
  // out[i] = Poseidon_L(layers[0][i], .., layers[L-1][i]) for i < count; L = 2 or 11.
  virtual void hash_columns(std::span<const std::uint8_t* const> layers, std::uint64_t count, std::uint8_t* out) = 0;
  // out[i] = Poseidon_arity(in[arity * i], .., in[arity * i + arity - 1]) for i < count.
  virtual void hash_level(const std::uint8_t* in, std::uint64_t count, std::uint32_t arity, std::uint8_t* out) = 0;
  // One chunk's rows in one call. With 2 or 11 layers, row 0 is their columns' hashes;
  // with one, layers[0] is row 0 itself (it may be copied into `rows`). Rows 1..levels
  // are the tree above row 0 up to the chunk's root, leaves / 8^r nodes each, all written
  // into `rows` one after another (row r at chunk_row_offset(leaves, r) nodes). The
  // default runs hash_columns and hash_level a row at a time; a device keeps the rows on
  // the device and copies them back once.
  virtual void hash_chunk(std::span<const std::uint8_t* const> layers, std::uint64_t leaves, std::uint32_t levels,
                          std::uint8_t* rows);
  // Leaves per build step this hasher runs best with (a power of 8); 0: the builder's
  // default. A device wants large batches; the host, chunks that stay in cache.
  virtual std::uint64_t preferred_chunk_nodes() const { return 0; }
  // Seconds its kernels ran so far (device events); < 0: not timed apart.
  virtual double kernel_seconds() const { return -1; }
};

// Where row r of a chunk of `leaves` leaves starts in hash_chunk's rows, in nodes (row
// levels + 1's offset is the rows' total).
constexpr std::uint64_t chunk_row_offset(std::uint64_t leaves, std::uint32_t r) {
  std::uint64_t at = 0;
  for (std::uint32_t i = 0; i < r; ++i) at += leaves >> (3 * i);
  return at;
}

// The textbook permutation (poseidon::hash_plain) on `threads` OpenMP threads (0 = the
// OpenMP default): obviously correct, slow.
std::unique_ptr<pc2_hasher> make_reference_pc2_hasher(int threads = 1);
// neptune's optimized form on `threads` OpenMP threads (0 = the OpenMP default).
std::unique_ptr<pc2_hasher> make_host_pc2_hasher(int threads = 0);

struct pc2_job {
  std::uint64_t nodes = 0;
  std::uint32_t layers = 0;  // 2 or 11
  tree_shape shape;
  // Reads `count` nodes from `first` of layer `layer` (1-based) into out.
  std::function<void(std::uint32_t layer, std::uint64_t first, std::uint64_t count, std::uint8_t* out)> read_label;
  // Reads `count` replica nodes from `first` into out.
  std::function<void(std::uint64_t first, std::uint64_t count, std::uint8_t* out)> read_replica;
  // Optional, for a reader that keeps several reads in flight: every layer's `count` nodes
  // from `first` at once, layer l's into outs[l - 1], calling arrived(l, i, n) as nodes
  // first + i .. first + i + n - 1 of layer l are in (the builder checks those then, while
  // the rest are still being read); every node of every layer arrives once. When set,
  // column chunks are read through it instead of read_label. The buffers handed to the
  // reads start on a 4096-byte boundary (an O_DIRECT read may land in them).
  std::function<void(std::uint64_t first, std::uint64_t count, std::span<std::uint8_t* const> outs,
                     const std::function<void(std::uint32_t layer, std::uint64_t at, std::uint64_t n)>& arrived)>
      read_columns;
  // Receives `n` bytes for file `file` (pc2_tree_files order: tree_c files, then
  // tree_r_last files) at `offset`; empty: no files written (only the commitments).
  std::function<void(std::uint32_t file, std::uint64_t offset, const std::uint8_t* bytes, std::uint64_t n)> write;
  // Leaves hashed per step, a power of 8; 0: the hasher's preferred size, else 2^18.
  std::uint64_t chunk_nodes = 0;
  // Called between chunks (an interrupt check may throw from it); may be empty.
  std::function<void(std::uint64_t columns_done, std::uint64_t replica_nodes_done)> progress;
  // Chunk buffers between the reader threads (reads, canonical check) and the hashing
  // thread: 2 or more let the next chunks be read while one is hashed; 1 serializes them.
  // No more are made than the job has chunks.
  std::uint32_t buffers = 3;
  // Reader threads (1 to 16; no more than buffers run): with 2, one chunk's reads begin
  // while the other's last ones are still in flight. The read functions above are then
  // called from both at once, for different chunks, in no set order.
  std::uint32_t readers = 2;
  // Optional: every chunk as read, in order, on a thread of its own beside the hashing:
  // `inputs` are its layers' slices (or, for a replica chunk, the replica's) of `count`
  // nodes from `first`. Its buffer is not refilled before this returns. For a running
  // digest of the input files, checked once the build is done.
  std::function<void(bool replica, std::uint64_t first, std::uint64_t count, std::span<const std::uint8_t* const> inputs)>
      digest;
  // What errors call the inputs: layers 1..L at 0..L-1, the replica at L (a file's path);
  // empty: "layer l" and "replica".
  std::vector<std::string> input_names;
};

// How the pipeline's two stages spent a build_pc2 call.
struct pc2_pipeline_stats {
  std::uint32_t buffers = 0;
  std::uint64_t chunk_nodes = 0;       // leaves per chunk
  std::uint64_t chunks = 0;            // chunks fed (column chunks and replica chunks)
  std::uint64_t bytes_read = 0;        // layers' and replica's bytes read and checked
  double feed_s = 0;                   // at least one reader busy reading and checking
  // The readers' time on a CPU and runnable but waiting for one (the cores busy elsewhere)
  // while busy, summed, from the kernel's schedstat; the rest they slept on their reads.
  // < 0: not kept.
  double feed_cpu_s = -1;
  double feed_queued_s = -1;
  double feed_wait_s = 0;              // the readers waiting for a free buffer, summed
  double digest_s = 0;                 // the digest thread busy (job.digest), beside the rest
  double hash_s = 0;                   // the hashing thread busy: hashing, tree rows written, progress
  double hash_wait_s = 0;              // the hashing thread waiting for a chunk
  double end_to_end_s = 0;             // the whole call
  // Chunks whose read began before the hashing thread was done with the chunk before
  // them: 0 when reading and hashing take turns.
  std::uint64_t overlapped_reads = 0;
};

// What set a pipelined PC2's pace: the reader (disk, reads and checks), the hashing thread
// (Poseidon on the host cores or the device's kernels, tree rows written), or neither
// alone: the whole took over kHostPaceMargin x the busier stage, the time going to what
// both share (the host's cores, the hand-offs).
enum class pc2_pace { feed, hashing, host };
inline constexpr name_table<pc2_pace, 3> kPc2Paces{"pc2 pace",
                                                   {named<pc2_pace>{pc2_pace::feed, "feed"},
                                                    named<pc2_pace>{pc2_pace::hashing, "hashing"},
                                                    named<pc2_pace>{pc2_pace::host, "host"}}};
inline constexpr double kHostPaceMargin = 1.15;
pc2_pace pace_of(const pc2_pipeline_stats& s);

struct pc2_result {
  bytes32 comm_c{};
  bytes32 comm_r_last{};
  bytes32 comm_r{};
  double columns_s = 0;  // the hashing thread on column chunks: columns and tree_c's rows
  double tree_r_s = 0;   // tree_r_last's rows
  pc2_pipeline_stats pipeline;
};

// Builds both trees: job.readers reader threads read and check the next chunks into
// job.buffers buffers while this thread hashes one. std::invalid_argument for a bad shape, layer count,
// chunk size or buffer count; std::runtime_error naming the layer (or replica) and node of
// a value >= r. An error in either stage (a read, the check, the hasher, job.progress)
// stops both and is rethrown here once the readers have ended.
pc2_result build_pc2(const pc2_job& job, pc2_hasher& h);

// The whole computation with every input in memory (labels: one pointer per layer).
pc2_result build_pc2_in_memory(std::span<const std::uint8_t* const> labels, const std::uint8_t* replica,
                               std::uint64_t nodes, const tree_shape& shape, pc2_hasher& h);

// Fr multiplications of one Poseidon hash of `arity` inputs in neptune's optimized form
// (S-boxes 3 each, full rounds' dense t x t matrices, partial rounds' sparse 2t - 1), and
// of a sector's whole PC2: what an engine's multiplies/s bound is set against.
std::uint64_t poseidon_multiplies(std::uint32_t arity);
double pc2_multiplies(std::uint64_t nodes, std::uint32_t layers, const tree_shape& shape);

}  // namespace poreplab::sdr
