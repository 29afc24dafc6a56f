#pragma once
// The launch sequence of a labeling job on a device, written once for the CUDA backend
// and for cuda-emu: which buffer each layer goes to, how the parent table is uploaded
// or streamed in node chunks, when a finished layer is copied back into the store.
// The executor supplies memory, copies and launches; on the host (cuda-emu) every step
// runs synchronously, so tests cover the sequence and its index arithmetic.
//
// Executor interface:
//   std::uint8_t* layer_buffer(int i)       two device layer buffers (i = 0, 1), each
//                                           nodes * sectors * 32 bytes
//   const std::uint8_t* upload_replica_ids(const std::uint8_t* ids, std::uint64_t bytes)
//   void upload_layer(int i, const std::uint8_t* host, std::uint64_t bytes)
//                                           host data into layer buffer i (zigzag input;
//                                           a window's previous layer and current prefix)
//   const std::uint32_t* upload_parents(const std::uint32_t* table, std::uint64_t rows)
//   const std::uint32_t* stage_parents(int slot, const std::uint32_t* rows, std::uint64_t count)
//                                           copies rows into chunk slot 0 or 1 once the
//                                           launches that read that slot have finished
//   void release_parents(int slot)          the launches issued so far are the last to
//                                           read this slot's current contents
//   void load(const K&)                     makes kernel K ready to launch (module load,
//                                           JIT) before anything is timed; called once
//                                           per kernel type before the first launch
//   void launch(const label_layer_kernel<V, H, K>&, grid_dims)   (any scheme and variant)
//   void launch(const relayout_kernel&, grid_dims)
//   void layer_written(int buf)             the work issued so far completes buffer buf
//   void download(std::uint8_t* host, int buf, std::uint64_t offset, std::uint64_t bytes)
//                                           bytes [offset, offset + bytes) of buffer buf
//                                           into host + offset; returns once there; may
//                                           overlap launches issued before it
//   void finish()                           waits for all work, reports errors
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "poreplab/grid.hpp"
#include "poreplab/sdr/backend.hpp"
#include "poreplab/sdr/label_kernel.hpp"

namespace poreplab::sdr {

struct device_plan {
  sector_layout layout = sector_layout::sector_minor;
  std::uint32_t threads_per_block = 32;
  std::uint64_t chunk_nodes = 0;  // 0 (or >= nodes): parent table resident; else streamed rows per chunk
  // Most nodes one label launch walks (0: a whole chunk or layer). One launch labels
  // this many nodes in sequence per thread, so it bounds how long a launch runs: a GPU
  // that drives a display kills long kernels, and a launch cannot be interrupted.
  std::uint64_t launch_nodes = 0;
  // Polled before every label launch; true stops the job with label_interrupted.
  std::function<bool()> stop_requested = nullptr;
  // How sdr/sha256 label kernels read their parents (other schemes: standard only);
  // automatic is resolved per job by resolve_kernel.
  kernel_variant kernel = kernel_variant::standard;
  // automatic: jobs of at most this many sectors get the latency design (the device's
  // multiprocessor count: every sector's block then has an SM to itself).
  std::uint32_t latency_sectors = kDefaultLatencySectors;
};

// Calls f(V, H, K) (integral constants) for the scheme and kernel variant: one kernel
// instantiation per scheme, plus the variants of sdr/sha256. Throws
// std::invalid_argument for a variant other than standard on another scheme; K must
// not be automatic (resolve_kernel first).
template <class F>
void with_kernel(label_scheme scheme, kernel_variant kernel, F&& f) {
  with_scheme(scheme, [&](auto v, auto h) {
    constexpr porep_variant V = decltype(v)::value;
    constexpr hash_family H = decltype(h)::value;
    using std_k = std::integral_constant<kernel_variant, kernel_variant::standard>;
    if constexpr (V == porep_variant::sdr && H == hash_family::sha256) {
      switch (kernel) {
        case kernel_variant::vec16: return f(v, h, std::integral_constant<kernel_variant, kernel_variant::vec16>{});
        case kernel_variant::rolled: return f(v, h, std::integral_constant<kernel_variant, kernel_variant::rolled>{});
        case kernel_variant::staged: return f(v, h, std::integral_constant<kernel_variant, kernel_variant::staged>{});
        case kernel_variant::split: return f(v, h, std::integral_constant<kernel_variant, kernel_variant::split>{});
        case kernel_variant::automatic: throw std::logic_error("with_kernel: kernel 'auto' was not resolved");
        case kernel_variant::standard: break;
      }
      return f(v, h, std_k{});
    } else {
      if (kernel != kernel_variant::standard)
        throw std::invalid_argument(std::string("kernel variant ") + kernel_variant_name(kernel) + " exists for sdr/sha256 only, not " +
                                    scheme_name(scheme));
      return f(v, h, std_k{});
    }
  });
}

// The job was stopped between launches at the caller's request (device_plan::stop_requested).
struct label_interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Threads per block for the transpose, which has one thread per label.
inline constexpr std::uint32_t kTransposeThreads = 256;

namespace detail {

// Refusals of a job this launch sequence cannot run, before anything reaches the device.
inline void check_device_label_job(const label_job& job, const device_plan& plan) {
  if (job.first_layer != 1)
    throw std::invalid_argument("label job: this backend labels from layer 1 only; starting at layer " +
                                std::to_string(job.first_layer) + " (a resumed seal) needs the cpu or reference backend");
  // A window starts from store contents uploaded as they are (node-major).
  if (job.windowed() && plan.layout == sector_layout::sector_major)
    throw std::invalid_argument("a node window runs in the sector_minor layout only (the store's own)");
}

// The first labeled layer's inputs on the device. Zigzag: buffer 0 holds the sectors being
// encoded in place, in the plan's layout. A window reads the whole previous layer and the
// current one before it.
template <porep_variant V, class Exec, class Relayout>
inline void upload_label_inputs(Exec& ex, const label_job& job, layer_store& store, const device_plan& plan,
                                Relayout&& relayout) {
  const std::uint64_t layer_bytes = job.nodes * job.sectors * 32;
  if constexpr (V == porep_variant::zigzag) {
    if (plan.layout == sector_layout::sector_major) {
      ex.upload_layer(1, job.data, layer_bytes);
      relayout(1, 0, sector_layout::sector_minor, sector_layout::sector_major);
    } else {
      ex.upload_layer(0, job.data, layer_bytes);
    }
  } else if (job.windowed()) {
    const std::uint32_t l = job.layers;
    if (l > 1) ex.upload_layer(static_cast<int>(l % 2), store.layer(l - 1), layer_bytes);
    ex.upload_layer(static_cast<int>((l - 1) % 2), store.layer(l), 32ull * job.sectors * job.first_node);
  }
}

// A finished layer waiting to be copied into the store. It is copied while the next
// layer's first launch runs; the buffer it sits in is overwritten only after that.
template <class Exec>
struct pending_layer {
  Exec& ex;
  layer_store& store;
  std::uint64_t offset = 0;  // the job's rows within a store layer, in bytes
  std::uint64_t bytes = 0;
  std::uint32_t layer = 0;  // 0: none
  int buf = 0;

  void hold(std::uint32_t l, int b) {
    layer = l;
    buf = b;
  }
  void flush() {
    if (layer == 0) return;
    ex.download(store.layer(layer), buf, offset, bytes);
    store.layer_done(layer);
    layer = 0;
  }
};

}  // namespace detail

template <porep_variant V, hash_family H, kernel_variant K, class Exec>
void run_label_job_as(Exec& ex, const label_job& job, layer_store& store, const device_plan& plan) {
  detail::check_device_label_job(job, plan);
  const std::uint64_t node_bytes = 32ull * job.sectors;
  // Rows labeled per layer: the whole layer, or a window of it.
  const std::uint64_t rows_per_layer = job.windowed() ? job.window_nodes : job.nodes;
  const bool streamed = plan.chunk_nodes != 0 && plan.chunk_nodes < rows_per_layer;
  const bool major = plan.layout == sector_layout::sector_major;
  const std::uint8_t* ids = ex.upload_replica_ids(job.replica_ids, 32ull * job.sectors);
  ex.load(label_layer_kernel<V, H, K>{});
  ex.load(relayout_kernel{});
  const std::uint32_t* resident = streamed ? nullptr : ex.upload_parents(job.parents, job.table_rows());
  const grid_dims kernel_grid = label_grid<label_layer_kernel<V, H, K>>(job.sectors, plan.threads_per_block);
  const grid_dims transpose_grid = cover(job.nodes * job.sectors, kTransposeThreads);
  auto relayout = [&](int from, int to, sector_layout from_layout, sector_layout to_layout) {
    ex.launch(relayout_kernel{ex.layer_buffer(from), ex.layer_buffer(to), job.nodes, job.sectors, from_layout, to_layout},
              transpose_grid);
  };
  detail::pending_layer<Exec> pending{ex, store, node_bytes * job.node_begin(), node_bytes * rows_per_layer};

  // Runs rows_per_layer rows starting at table row first_row through kernel k: parent
  // rows resident or staged chunk by chunk, each chunk in launches of at most
  // launch_nodes nodes. One thread walks its sector's rows in order, so consecutive
  // launches over consecutive row ranges compute exactly what one launch would. Node
  // numbers start at the window's first node.
  const std::uint64_t span = streamed ? plan.chunk_nodes : rows_per_layer;
  const std::uint64_t base = job.node_begin();
  std::uint64_t chunks_issued = 0;
  auto run_rows = [&](label_layer_kernel<V, H, K> k, std::uint64_t first_row) {
    for (std::uint64_t b = 0; b < rows_per_layer; b += span) {
      const std::uint64_t count = rows_per_layer - b < span ? rows_per_layer - b : span;
      const int slot = static_cast<int>(chunks_issued % 2);
      const std::uint32_t* rows = streamed ? ex.stage_parents(slot, job.parents + kParents * (first_row + b), count)
                                           : resident + kParents * (first_row + b);
      chunks_issued += streamed ? 1 : 0;
      const std::uint64_t step = plan.launch_nodes != 0 && plan.launch_nodes < count ? plan.launch_nodes : count;
      for (std::uint64_t c = 0; c < count; c += step) {
        if (plan.stop_requested && plan.stop_requested())
          throw label_interrupted("labeling stopped at layer " + std::to_string(k.layer) + ", node " +
                                  std::to_string(base + b + c) + " of " + std::to_string(job.nodes));
        k.parents = rows + kParents * c;
        k.node_begin = base + b + c;
        k.node_end = base + b + c + (count - c < step ? count - c : step);
        ex.launch(k, kernel_grid);
        report_nodes(job, k.node_end);
        if (b == 0 && c == 0) pending.flush();
      }
      if (streamed) ex.release_parents(slot);
    }
  };

  detail::upload_label_inputs<V>(ex, job, store, plan, relayout);
  if constexpr (V == porep_variant::zigzag) {
    // Buffer 1 takes each finished layer node-major for the store.
    for (std::uint32_t l = 1; l <= job.layers; ++l) {
      run_rows(label_layer_kernel<V, H, K>{nullptr, job.nodes, l, job.sectors, ids, ex.layer_buffer(0), nullptr,
                                           plan.layout},
               zigzag_first_row(l, job.nodes));
      relayout(0, 1, plan.layout, sector_layout::sector_minor);
      ex.layer_written(1);
      pending.hold(l, 1);
    }
  } else {
    for (std::uint32_t l = job.start_layer(); l <= job.layers; ++l) {
      report_layer_start(job, l);
      const int cur = static_cast<int>((l - 1) % 2), prev = static_cast<int>(l % 2);
      std::uint8_t* prev_layer = l > 1 ? ex.layer_buffer(prev) : nullptr;
      run_rows(label_layer_kernel<V, H, K>{nullptr, job.nodes, l, job.sectors, ids, ex.layer_buffer(cur), prev_layer,
                                           plan.layout},
               0);
      if (major) {
        // Layer l-1's buffer is free once this layer's launches have run (stream order);
        // it takes the node-major copy, which must leave before layer l+1 overwrites it.
        relayout(cur, prev, sector_layout::sector_major, sector_layout::sector_minor);
        ex.layer_written(prev);
        pending.hold(l, prev);
        pending.flush();
      } else {
        ex.layer_written(cur);
        pending.hold(l, cur);
      }
    }
  }
  pending.flush();
  ex.finish();
}

// The whole job.
template <class Exec>
void run_label_job(Exec& ex, const label_job& job, layer_store& store, const device_plan& plan) {
  with_kernel(job.scheme, resolve_kernel(plan.kernel, job.scheme, job.sectors, plan.latency_sectors), [&](auto v, auto h, auto k) {
    run_label_job_as<decltype(v)::value, decltype(h)::value, decltype(k)::value>(ex, job, store, plan);
  });
}

}  // namespace poreplab::sdr
