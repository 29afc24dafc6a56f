// The "cuda" backend: run_label_job (common/, shared with cuda-emu) driven by an
// executor that owns device memory, two streams and the events that order them.
//   compute stream: uploads, label launches, transposes;
//   copy stream:    parent chunks in, finished layers out, overlapping the launches.
#include <cuda_runtime.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "launch.cuh"
#include "pc2_hasher.hpp"
#include "poreplab/cuda/backend.hpp"
#include "poreplab/cuda/bench.hpp"
#include "poreplab/cuda/memory_plan.hpp"
#include "poreplab/sdr/label_driver.hpp"
#include "require_device.hpp"

namespace poreplab::cuda {

namespace {

using detail::device_memory;
using detail::event;
using detail::pinned_memory;
using detail::stream;

// Start/stop events around one launch, kept until the end of the job so that timing
// never makes the host wait mid-job.
struct timed_launch {
  event start{true}, stop{true};
  std::uint32_t layer = 0;  // 0: a relayout
  bool transpose = false;   // relayout between layouts (else a same-layout copy)
};

class device_executor {
 public:
  device_executor(const sdr::label_job& job, const memory_plan& plan, bool timing)
      : layer_bytes_(plan.layer_bytes),
        layers_{device_memory(layer_bytes_), device_memory(layer_bytes_)},
        ids_(plan.replica_id_bytes),
        table_(plan.parents == parent_placement::resident ? plan.parent_table_bytes : 0),
        chunk_dev_{device_memory(plan.chunk_bytes), device_memory(plan.chunk_bytes)},
        chunk_host_{pinned_memory(plan.chunk_bytes), pinned_memory(plan.chunk_bytes)},
        timing_(timing) {
    if (timing_) {
      upload_start_.emplace(true);
      upload_stop_.emplace(true);
      layer_kernel_s_.assign(job.layers, 0.0);
    }
  }

  // Work still queued when an exception unwinds must finish before its memory goes.
  ~device_executor() {
    cudaStreamSynchronize(compute_.get());
    cudaStreamSynchronize(copy_.get());
  }
  device_executor(const device_executor&) = delete;
  device_executor& operator=(const device_executor&) = delete;

  std::uint8_t* layer_buffer(int i) { return layers_[i].get(); }

  const std::uint8_t* upload_replica_ids(const std::uint8_t* ids, std::uint64_t bytes) {
    if (timing_) upload_start_->record(compute_.get());
    POREPLAB_CUDA_CHECK(cudaMemcpyAsync(ids_.get(), ids, bytes, cudaMemcpyHostToDevice, compute_.get()));
    if (timing_) upload_stop_->record(compute_.get());
    return ids_.get();
  }

  void upload_layer(int i, const std::uint8_t* host, std::uint64_t bytes) {
    POREPLAB_CUDA_CHECK(cudaMemcpyAsync(layers_[i].get(), host, bytes, cudaMemcpyHostToDevice, compute_.get()));
  }

  const std::uint32_t* upload_parents(const std::uint32_t* table, std::uint64_t rows) {
    POREPLAB_CUDA_CHECK(cudaMemcpyAsync(table_.get(), table, rows * sdr::kParents * 4, cudaMemcpyHostToDevice,
                                        compute_.get()));
    if (timing_) upload_stop_->record(compute_.get());
    return table_.get<std::uint32_t>();
  }

  const std::uint32_t* stage_parents(int slot, const std::uint32_t* rows, std::uint64_t count) {
    const std::uint64_t bytes = count * sdr::kParents * 4;
    copied_[slot].synchronize();  // the previous copy out of this pinned buffer is done
    std::memcpy(chunk_host_[slot].get(), rows, bytes);
    POREPLAB_CUDA_CHECK(cudaStreamWaitEvent(copy_.get(), consumed_[slot].get(), 0));
    POREPLAB_CUDA_CHECK(cudaMemcpyAsync(chunk_dev_[slot].get(), chunk_host_[slot].get(), bytes,
                                        cudaMemcpyHostToDevice, copy_.get()));
    copied_[slot].record(copy_.get());
    POREPLAB_CUDA_CHECK(cudaStreamWaitEvent(compute_.get(), copied_[slot].get(), 0));
    return chunk_dev_[slot].get<std::uint32_t>();
  }

  void release_parents(int slot) { consumed_[slot].record(compute_.get()); }

  // Kernels are loaded by prepare_kernels before anything is allocated or timed.
  template <class K>
  void load(const K& /*k*/) {}

  template <sdr::porep_variant V, hash_family H, sdr::kernel_variant K>
  void launch(const sdr::label_layer_kernel<V, H, K>& k, grid_dims dims) {
    timed(k, dims, k.sectors, k.layer);
  }

  void launch(const sdr::relayout_kernel& k, grid_dims dims) {
    timed(k, dims, k.nodes * k.sectors, 0, k.from != k.to);
  }

  void layer_written(int buf) { written_[buf].record(compute_.get()); }

  void download(std::uint8_t* host, int buf, std::uint64_t offset, std::uint64_t bytes) {
    POREPLAB_CUDA_CHECK(cudaStreamWaitEvent(copy_.get(), written_[buf].get(), 0));
    POREPLAB_CUDA_CHECK(cudaMemcpyAsync(host + offset, layers_[buf].get() + offset, bytes, cudaMemcpyDeviceToHost,
                                        copy_.get()));
    copy_.synchronize();
  }

  void finish() {
    compute_.synchronize();
    copy_.synchronize();
  }

  // After finish(): fills the event-timed fields.
  void report(label_timing& t) const {
    if (!timing_) return;
    t.upload_s = detail::elapsed_s(*upload_start_, *upload_stop_);
    t.layer_kernel_s = layer_kernel_s_;
    t.kernel_s = 0;
    t.transpose_s = 0;
    t.copy_s = 0;
    t.label_launches = 0;
    for (const auto& l : launches_) {
      const double s = detail::elapsed_s(l.start, l.stop);
      if (l.layer == 0) {
        (l.transpose ? t.transpose_s : t.copy_s) += s;
      } else {
        ++t.label_launches;
        t.layer_kernel_s[l.layer - 1] += s;
        t.kernel_s += s;
      }
    }
  }

 private:
  template <class K>
  void timed(const K& k, grid_dims dims, std::uint64_t total, std::uint32_t layer, bool transpose = false) {
    if (!timing_) {
      cuda::launch(k, dims, total, compute_.get());
      return;
    }
    launches_.emplace_back();
    launches_.back().layer = layer;
    launches_.back().transpose = transpose;
    launches_.back().start.record(compute_.get());
    cuda::launch(k, dims, total, compute_.get());
    launches_.back().stop.record(compute_.get());
  }

  std::uint64_t layer_bytes_;
  device_memory layers_[2];
  device_memory ids_;
  device_memory table_;
  device_memory chunk_dev_[2];
  pinned_memory chunk_host_[2];
  stream compute_, copy_;
  event copied_[2], consumed_[2], written_[2];
  bool timing_;
  std::optional<event> upload_start_, upload_stop_;
  std::vector<timed_launch> launches_;
  std::vector<double> layer_kernel_s_;
};

void check_options(const backend_options& opt) {
  if (opt.threads_per_block == 0 || opt.threads_per_block > 1024)
    throw std::invalid_argument("cuda backend: threads per block must be 1..1024, not " +
                                std::to_string(opt.threads_per_block));
}

memory_plan plan_for(const sdr::label_job& job, const backend_options& opt) {
  std::size_t free_b = 0, total_b = 0;
  POREPLAB_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  memory_request req;
  req.sector_bytes = job.nodes * 32;
  req.sectors = job.sectors;
  req.layers = job.layers;
  req.free_bytes = opt.memory_limit != 0 && opt.memory_limit < free_b ? opt.memory_limit : free_b;
  req.chunk_nodes = opt.chunk_nodes;
  req.table_rows_per_node = static_cast<std::uint32_t>(job.parent_rows() / job.nodes);
  memory_plan plan = plan_memory(req);
  if (!plan.fits()) throw std::runtime_error("cuda backend: " + plan.message);
  return plan;
}

// What loading the job's kernels found: launch limits and how long loading took.
struct kernel_setup {
  double load_s = 0;                 // module load (or PTX JIT) of the label and relayout kernels
  std::uint64_t thread_slots = 0;    // label threads the device runs at once
};

template <class K>
cudaFuncAttributes load_kernel() {
  cudaFuncAttributes a{};
  POREPLAB_CUDA_CHECK(cudaFuncGetAttributes(&a, kernel_entry<K>()));
  return a;
}

// Loads the job's kernels (lazy loading would otherwise do it, or JIT from PTX, inside
// the first timed launch) and checks the block size against the label kernel's limit,
// all before any allocation.
kernel_setup prepare_kernels(const sdr::label_job& job, const backend_options& opt, sdr::kernel_variant kernel,
                             int multiprocessors) {
  kernel_setup ks;
  const auto t0 = std::chrono::steady_clock::now();
  sdr::with_kernel(job.scheme, kernel, [&](auto v, auto h, auto kv) {
    using label_k = sdr::label_layer_kernel<decltype(v)::value, decltype(h)::value, decltype(kv)::value>;
    const cudaFuncAttributes a = load_kernel<label_k>();
    load_kernel<sdr::relayout_kernel>();
    // The block the job's launches use: a block-per-sector kernel's own size, else
    // threads_per_block cut to the job's sectors rounded up to a warp.
    const std::uint32_t block_threads = sdr::label_grid<label_k>(job.sectors, opt.threads_per_block).threads;
    if (block_threads > static_cast<std::uint32_t>(a.maxThreadsPerBlock))
      throw std::invalid_argument("cuda backend: the " + std::string(sdr::scheme_name(job.scheme)) +
                                  " label kernel (" + std::to_string(a.numRegs) + " registers a thread) launches at most " +
                                  std::to_string(a.maxThreadsPerBlock) + " threads per block, not " +
                                  std::to_string(block_threads));
    int blocks = 0;
    POREPLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel_entry<label_k>(),
                                                                      static_cast<int>(block_threads), 0));
    // Sectors the device runs at once: a thread each, or a block each.
    const std::uint64_t per_block = block_functor<label_k> ? 1 : block_threads;
    ks.thread_slots = static_cast<std::uint64_t>(blocks) * per_block * static_cast<std::uint64_t>(multiprocessors);
  });
  ks.load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return ks;
}

// Labels job into store on the current device; fills *timing when given.
void label_on_device(const sdr::label_job& job, sdr::layer_store& store, const backend_options& opt,
                     const device_info& device, label_timing* timing) {
  sdr::validate(job);
  const sdr::kernel_variant kernel =
      sdr::resolve_kernel(opt.kernel, job.scheme, job.sectors, static_cast<std::uint32_t>(device.multiprocessors));
  const kernel_setup ks = prepare_kernels(job, opt, kernel, device.multiprocessors);
  const memory_plan plan = plan_for(job, opt);
  const std::uint64_t launch_nodes =
      opt.launch_nodes != 0 ? opt.launch_nodes : launch_nodes_for(job.sectors, ks.thread_slots);
  device_executor ex(job, plan, timing != nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  sdr::run_label_job(ex, job, store,
                     sdr::device_plan{opt.layout, opt.threads_per_block, plan.chunk_nodes, launch_nodes, opt.stop_requested, kernel});
  const auto t1 = std::chrono::steady_clock::now();
  if (timing != nullptr) {
    timing->plan = plan;
    timing->load_s = ks.load_s;
    timing->launch_nodes = launch_nodes;
    timing->thread_slots = ks.thread_slots;
    timing->kernel = sdr::kernel_variant_name(kernel);
    timing->end_to_end_s = std::chrono::duration<double>(t1 - t0).count();
    ex.report(*timing);
  }
}

class cuda_backend final : public sdr::backend {
 public:
  // Throws when the device cannot be used; its SM count sizes the launches.
  explicit cuda_backend(const backend_options& opt)
      : opt_((check_options(opt), opt)), device_(detail::require_device(opt_.device, "cuda backend")) {}

  std::string name() const override { return "cuda"; }

  std::unique_ptr<sdr::pc2_hasher> make_pc2_hasher() override { return make_cuda_pc2_hasher(opt_, device_); }

  void label(const sdr::label_job& job, sdr::layer_store& store) override {
    POREPLAB_CUDA_CHECK(cudaSetDevice(opt_.device));
    label_on_device(job, store, opt_, device_, nullptr);
  }

  sdr::label_run_times timed_label(const sdr::label_job& job, sdr::layer_store& store) override {
    POREPLAB_CUDA_CHECK(cudaSetDevice(opt_.device));
    label_timing t;
    t.device = device_;
    label_on_device(job, store, opt_, device_, &t);
    sdr::label_run_times r;
    r.end_to_end_s = t.end_to_end_s;
    r.kernel_s = t.kernel_s;
    r.load_s = t.load_s;
    r.upload_s = t.upload_s;
    r.transpose_s = t.transpose_s;
    r.copy_s = t.copy_s;
    r.label_launches = t.label_launches;
    r.launch_nodes = t.launch_nodes;
    r.parent_placement = parent_placement_name(t.plan.parents);
    r.kernel = t.kernel;
    r.device = t.device.name;
    r.device_multiprocessors = t.device.multiprocessors;
    r.device_clock_mhz = t.device.clock_khz / 1000;
    return r;
  }

 private:
  backend_options opt_;
  device_info device_;
};

}  // namespace

std::unique_ptr<sdr::backend> make_cuda_backend(const backend_options& opt) {
  return std::make_unique<cuda_backend>(opt);
}

label_timing time_label(const sdr::label_job& job, sdr::layer_store& store, const backend_options& opt) {
  check_options(opt);
  label_timing t;
  t.device = detail::require_device(opt.device, "cuda label timing");
  label_on_device(job, store, opt, t.device, &t);
  return t;
}

}  // namespace poreplab::cuda
