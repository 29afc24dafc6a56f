#pragma once
// The one __global__ function: every kernel is a common/ functor launched through it,
// the same functor that emulate_grid runs on the host.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.cuh"
#include "poreplab/grid.hpp"

namespace poreplab::cuda {

template <class F>
__global__ void run_functor(F f, std::uint64_t total) {
  const std::uint64_t gid = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (gid < total) f(gid);
}

// A block functor (grid.hpp): its steps, each phase followed by a block barrier.
template <class F>
__global__ void __launch_bounds__(F::kBlockThreads) run_block_functor(F f) {
  __shared__ typename F::shared_state shared;
  typename F::thread_state regs{};
  const std::uint64_t steps = f.steps();
  for (std::uint64_t s = 0; s < steps; ++s) {
#pragma unroll
    for (std::uint32_t p = 0; p < F::kPhases; ++p) {
      f.phase(p, blockIdx.x, s, threadIdx.x, shared, regs);
      __syncthreads();
    }
  }
}

// The __global__ function that runs F.
template <class F>
constexpr auto kernel_entry() {
  if constexpr (block_functor<F>)
    return &run_block_functor<F>;
  else
    return &run_functor<F>;
}

// Launches f over `dims` on stream s; gids >= total return at once (a block functor
// takes dims as its blocks, one per unit of work). Reports a launch error (bad
// configuration, too many resources) here; faults inside the kernel surface at the
// next synchronizing call.
template <class F>
void launch(const F& f, grid_dims dims, std::uint64_t total, cudaStream_t s) {
  if constexpr (block_functor<F>)
    run_block_functor<F><<<dims.blocks, dims.threads, 0, s>>>(f);
  else
    run_functor<F><<<dims.blocks, dims.threads, 0, s>>>(f, total);
  POREPLAB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace poreplab::cuda
