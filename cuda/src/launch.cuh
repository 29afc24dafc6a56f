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

// Launches f over `dims` on stream s; gids >= total return at once. Reports a launch
// error (bad configuration, too many resources) here; faults inside the kernel surface
// at the next synchronizing call.
template <class F>
void launch(const F& f, grid_dims dims, std::uint64_t total, cudaStream_t s) {
  run_functor<F><<<dims.blocks, dims.threads, 0, s>>>(f, total);
  POREPLAB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace poreplab::cuda
