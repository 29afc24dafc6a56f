// Chained-compression timing on the device: the hashbench functors of common/
// launched through run_functor and timed with CUDA events; a few chains are
// recomputed on the host by the same functors.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "launch.cuh"
#include "poreplab/cuda/bench.hpp"
#include "poreplab/hash/chain_kernel.hpp"
#include "require_device.hpp"

namespace poreplab::cuda {

namespace {

using detail::device_memory;
using detail::event;

template <class K>
void run_chains(hash_bench_result& r) {
  auto& o = r.options;
  const bool latency = o.mode == hash_bench_mode::chain;
  // Load the kernel (module load or PTX JIT) outside every timed launch, and size the
  // launch from its own limits rather than the device's.
  const auto t0 = std::chrono::steady_clock::now();
  cudaFuncAttributes a{};
  POREPLAB_CUDA_CHECK(cudaFuncGetAttributes(&a, run_functor<K>));
  r.load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.registers = a.numRegs;
  r.max_threads_per_block = a.maxThreadsPerBlock;
  if (!latency && o.threads_per_block > static_cast<std::uint32_t>(a.maxThreadsPerBlock))
    throw std::invalid_argument("cuda hash benchmark: the " + std::string(hash_family_name(r.options.algo)) + " kernel (" + std::to_string(a.numRegs) +
                                " registers a thread) launches at most " + std::to_string(a.maxThreadsPerBlock) +
                                " threads per block, not " + std::to_string(o.threads_per_block));
  if (!latency) {
    POREPLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.blocks_per_sm, run_functor<K>,
                                                                      static_cast<int>(o.threads_per_block), 0));
    // One chain per resident thread slot: exactly one wave, no partly filled second one.
    if (o.chains == 0)
      o.chains = static_cast<std::uint64_t>(r.blocks_per_sm) * o.threads_per_block *
                 static_cast<std::uint64_t>(r.device.multiprocessors);
    if (o.chains == 0) throw std::runtime_error("cuda hash benchmark: the " + std::string(hash_family_name(r.options.algo)) + " kernel cannot launch");
  }
  const grid_dims dims = latency ? grid_dims{1, 1} : cover(o.chains, o.threads_per_block);
  r.blocks = dims.blocks;
  r.threads = dims.threads;
  r.block_bytes = K::kBlockBytes;
  r.compressions = o.chains * o.chain_length;

  device_memory out(o.chains * K::kStateBytes);
  const K k{o.chains, o.chain_length, out.get()};
  detail::stream s;
  event start(true), stop(true);
  for (std::uint32_t i = 0; i < o.warmup; ++i) launch(k, dims, o.chains, s.get());
  s.synchronize();
  for (std::uint32_t i = 0; i < o.samples; ++i) {
    start.record(s.get());
    launch(k, dims, o.chains, s.get());
    stop.record(s.get());
    stop.synchronize();
    r.samples_s.push_back(detail::elapsed_s(start, stop));
  }

  std::vector<std::uint8_t> dev(o.chains * K::kStateBytes), host(o.chains * K::kStateBytes);
  POREPLAB_CUDA_CHECK(cudaMemcpy(dev.data(), out.get(), dev.size(), cudaMemcpyDeviceToHost));
  const K hk{o.chains, o.chain_length, host.data()};
  r.verified = true;
  for (const std::uint64_t gid : {std::uint64_t{0}, o.chains / 2, o.chains - 1}) {
    hk(gid);
    r.verified = r.verified && std::equal(host.begin() + gid * K::kStateBytes,
                                          host.begin() + (gid + 1) * K::kStateBytes,
                                          dev.begin() + gid * K::kStateBytes);
  }
}

}  // namespace

hash_bench_result bench_hash_gpu(const hash_bench_options& opt) {
  hash_bench_result r;
  r.options = opt;
  r.device = detail::require_device(opt.device, "cuda hash benchmark");
  auto& o = r.options;
  const bool latency = o.mode == hash_bench_mode::chain;
  if (o.threads_per_block == 0 || o.threads_per_block > 1024)
    throw std::invalid_argument("cuda hash benchmark: threads per block must be 1..1024");
  if (o.samples == 0) throw std::invalid_argument("cuda hash benchmark: zero samples");
  if (o.chain_length == 0) o.chain_length = latency ? 65536 : 4096;
  if (latency) o.chains = 1;

  with_family(o.algo, [&](auto f) { run_chains<typename hashbench::chain_kernel_for<decltype(f)::value>::type>(r); });

  std::vector<double> sorted = r.samples_s;
  std::sort(sorted.begin(), sorted.end());
  r.median_s = sorted[sorted.size() / 2];
  const double total = static_cast<double>(r.compressions);
  const double clock_hz = static_cast<double>(r.device.clock_khz) * 1e3;
  r.compressions_per_s = r.median_s > 0 ? total / r.median_s : 0;
  r.ns_per_compression = r.median_s * 1e9 / total;
  r.cycles_per_compression = latency ? r.median_s * clock_hz / total
                                     : r.median_s * clock_hz * r.device.multiprocessors / total;
  r.bytes_per_s = r.compressions_per_s * r.block_bytes;
  return r;
}

}  // namespace poreplab::cuda
