#pragma once
// The interface every labeling backend implements (reference, CPU engines, CUDA,
// host-emulated CUDA): label S sectors that share one graph, layer by layer.
// Layers hold the S sectors node-major, sector-minor: node i of sectors 0..S-1 are
// adjacent, so one parent lookup serves every sector.
#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "poreplab/huge_buffer.hpp"
#include "poreplab/sdr/encoding.hpp"
#include "poreplab/sdr/label.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "poreplab/sdr/tree_d.hpp"

namespace poreplab::sdr {

class layer_store {
 public:
  virtual ~layer_store() = default;
  // Layer l (1-based): nodes * sectors * 32 writable bytes. While layer l is labeled,
  // layer l-1 must stay readable.
  virtual std::uint8_t* layer(std::uint32_t l) = 0;
  // Layer l is final (a store may flush, digest or release it).
  virtual void layer_done(std::uint32_t /*l*/) {}
};

// Every layer in memory.
class memory_layer_store final : public layer_store {
 public:
  memory_layer_store(std::uint64_t layer_bytes, std::uint32_t layers);
  std::uint8_t* layer(std::uint32_t l) override;
  const std::uint8_t* layer(std::uint32_t l) const;
  std::uint64_t layer_bytes() const { return layer_bytes_; }

 private:
  std::uint64_t layer_bytes_;
  std::vector<huge_buffer> layers_;
};

// Two buffers reused alternately: only the last layer survives (for benchmarks and
// sectors where only the replica is wanted).
class rolling_layer_store final : public layer_store {
 public:
  explicit rolling_layer_store(std::uint64_t layer_bytes);
  std::uint8_t* layer(std::uint32_t l) override;

 private:
  huge_buffer buf_[2];
};

// Most layers a job (a seal, a vector, a benchmark) may have: Filecoin's SDR uses 2 or
// 11, ZigZag 10. A bound, so that a layer count of 2^32 - 1 (or -1 read as unsigned) is
// an error instead of a labeling that never ends.
inline constexpr std::uint32_t kMaxLayers = 64;

// Where a labeling stands, for a progress display on another thread: the layer being
// labeled and how many of its nodes are done (updated every few thousand nodes).
struct label_progress {
  std::atomic<std::uint32_t> layer{0};
  std::atomic<std::uint64_t> nodes_done{0};
};

struct label_job {
  std::uint64_t nodes = 0;
  // sdr: nodes x 14 (6 base, 8 expander); zigzag: the 2n x 14 zigzag table.
  const std::uint32_t* parents = nullptr;
  std::uint32_t layers = 0;
  std::uint32_t sectors = 1;
  const std::uint8_t* replica_ids = nullptr;  // sectors x 32
  label_scheme scheme = kFilecoinScheme;
  // zigzag only: the data encoded in place, node-major like the layers; every element a
  // canonical field element. Layer l of the store receives the replica after l layers.
  const std::uint8_t* data = nullptr;
  // A node window (sdr only): window_nodes > 0 labels only nodes [first_node, first_node +
  // window_nodes) of layer `layers`, and `parents` holds those rows only. Layer layers - 1
  // and the current layer before first_node must already be in the store as valid field
  // elements: a full-size sector is timed without labeling (or holding) all of it.
  std::uint64_t first_node = 0;
  std::uint64_t window_nodes = 0;
  // sdr only: the first layer to label; the store already holds layer first_layer - 1
  // (a resumed seal). Backends that cannot start past layer 1 refuse any other value.
  std::uint32_t first_layer = 1;
  label_progress* progress = nullptr;  // optional

  bool windowed() const { return window_nodes != 0; }
  std::uint64_t parent_rows() const { return scheme.variant == porep_variant::zigzag ? 2 * nodes : nodes; }
  // Rows `parents` holds, and where node v's row is.
  std::uint64_t table_rows() const { return windowed() ? window_nodes : parent_rows(); }
  const std::uint32_t* row(std::uint64_t v) const { return parents + kParents * (v - first_node); }
  // Nodes labeled per layer, the first and the end.
  std::uint64_t node_begin() const { return windowed() ? first_node : 0; }
  std::uint64_t node_end() const { return windowed() ? first_node + window_nodes : nodes; }
  // The layer labeling starts at: the window's layer, else first_layer.
  std::uint32_t start_layer() const { return windowed() ? layers : first_layer; }
};

// What the coordinator threads of a host labeling did (threads that gather parents for a
// team of hashing threads; cpu: labeler_options::producer), over every layer: none = 0.
struct coordination_account {
  std::uint32_t coordinators = 0, hashers = 0;
  std::uint64_t coordinator_ticks = 0;       // TSC ticks the coordinators ran, in all
  std::uint64_t coordinator_wait_ticks = 0;  // of which waiting for a hasher to free a slot
  std::uint64_t parent_rows_copied = 0;      // a row: one parent's labels of a team's sectors
  // The share of their time the coordinators worked (0: none ran).
  double busy_share() const {
    return coordinator_ticks == 0 ? 0 : 1.0 - static_cast<double>(coordinator_wait_ticks) / static_cast<double>(coordinator_ticks);
  }
};

// One labeling as timed by the backend. Host backends give the wall time; device backends
// add their label kernels' own time and where the rest went.
struct label_run_times {
  double end_to_end_s = 0;  // host clock: the whole call, every layer in the store
  double kernel_s = -1;     // label kernels alone (device events); < 0: not timed apart
  double load_s = 0;        // kernels loaded (or JIT-compiled), outside end_to_end_s
  double upload_s = 0;      // parent table and replica ids to the device
  double transpose_s = 0;   // relayouts between sector layouts
  double copy_s = 0;        // same-layout layer copies
  std::uint64_t label_launches = 0;
  std::uint64_t launch_nodes = 0;  // most nodes per label launch
  std::string parent_placement;    // resident | streamed; empty on the host
  std::string kernel;              // device backends: the label kernel variant run ("auto" resolved)
  std::string device;              // the device's name; empty: the host CPU
  int device_multiprocessors = 0;
  int device_clock_mhz = 0;
  coordination_account coordination;  // host backends with coordinators
};

class pc2_hasher;  // pc2_build.hpp

class backend {
 public:
  virtual ~backend() = default;
  virtual std::string name() const = 0;
  virtual void label(const label_job& job, layer_store& store) = 0;
  // This backend's Poseidon for PC2; throws unavailable_error when it has none.
  virtual std::unique_ptr<pc2_hasher> make_pc2_hasher();
  // This backend's tree_d row hasher; empty: the portable one (tree_d.hpp).
  virtual tree_d_row_hasher tree_d_rows() { return {}; }
  // label(), timed; the default reads the host clock around it.
  virtual label_run_times timed_label(const label_job& job, layer_store& store);
};

// Calls f(std::integral_constant<porep_variant, V>{}, std::integral_constant<hash_family, H>{})
// for the scheme's compile-time pair: one instantiation of a kernel per scheme.
template <class F>
decltype(auto) with_scheme(label_scheme s, F&& f) {
  auto on_hash = [&](auto v) -> decltype(auto) { return with_family(s.hash, [&](auto h) -> decltype(auto) { return f(v, h); }); };
  if (s.variant == porep_variant::zigzag) return on_hash(std::integral_constant<porep_variant, porep_variant::zigzag>{});
  return on_hash(std::integral_constant<porep_variant, porep_variant::sdr>{});
}

// Copies a zigzag job's starting point into layer l of the store: the data for layer 1,
// else layer l-1 (when the store gives the layers separate buffers).
void zigzag_begin_layer(const label_job& job, layer_store& store, std::uint32_t l);

// What labeling layer l reads and writes. sdr: cur = layer l, prev = layer l-1 (null for
// layer 1), rows = the table. zigzag: cur = layer l after zigzag_begin_layer, rows = the
// layer's first row (zigzag_first_row), prev = null.
struct layer_inputs {
  std::uint8_t* cur;
  std::uint8_t* prev;
  const std::uint32_t* rows;
};
layer_inputs begin_layer(const label_job& job, layer_store& store, std::uint32_t l);

// Portable code of common/ only: one OpenMP thread per sector (at most `threads`; 0 =
// the OpenMP default), node loop in order.
std::unique_ptr<backend> make_reference_backend(int threads = 0);

// How often a node loop reports to label_job::progress (a power of two).
inline constexpr std::uint64_t kProgressNodes = 1 << 14;

inline void report_layer_start(const label_job& job, std::uint32_t l) {
  if (job.progress == nullptr) return;
  job.progress->nodes_done.store(0, std::memory_order_relaxed);
  job.progress->layer.store(l, std::memory_order_relaxed);
}
inline void report_nodes(const label_job& job, std::uint64_t done) {
  if (job.progress != nullptr) job.progress->nodes_done.store(done, std::memory_order_relaxed);
}

// Checks a label_job's invariants; throws std::invalid_argument naming the problem.
void validate(const label_job& job);

}  // namespace poreplab::sdr
