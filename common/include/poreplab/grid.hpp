#pragma once
// A launch shape (blocks x threads) and emulate_grid(): runs a kernel functor over
// the same block x thread indices on the host that a CUDA launch would run on the
// device, so index arithmetic, bounds checks and kernel bodies are tested without a GPU.
// Plain host code: no CUDA headers.
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace poreplab {

// Most blocks a launch may have along x (CUDA's gridDim.x limit, 2^31 - 1).
inline constexpr std::uint64_t kMaxGridBlocks = (1ull << 31) - 1;

struct grid_dims {
  std::uint32_t blocks = 1;
  std::uint32_t threads = 1;  // per block
  std::uint64_t total() const { return static_cast<std::uint64_t>(blocks) * threads; }
};

// Enough blocks of `threads_per_block` to cover `work` items (at least one block);
// throws std::length_error past kMaxGridBlocks.
// A block never gets more threads than `work` rounded up to a warp (32), so a launch
// for one sector does not start a 256-thread block of idle threads.
inline grid_dims cover(std::uint64_t work, std::uint32_t threads_per_block) {
  if (threads_per_block == 0) threads_per_block = 1;
  const std::uint64_t warp_rounded = (work + 31) / 32 * 32;
  const std::uint64_t threads = warp_rounded != 0 && warp_rounded < threads_per_block ? warp_rounded : threads_per_block;
  const std::uint64_t blocks = work == 0 ? 1 : (work + threads - 1) / threads;
  if (blocks > kMaxGridBlocks)
    throw std::length_error("launch of " + std::to_string(work) + " threads in blocks of " + std::to_string(threads) +
                            " needs " + std::to_string(blocks) + " blocks, more than a grid holds (2^31 - 1)");
  return {static_cast<std::uint32_t>(blocks), static_cast<std::uint32_t>(threads)};
}

// A block functor: the threads of a block cooperate through shared memory, in steps of
// kPhases phases with a block-wide barrier after each phase. F provides
//   static constexpr std::uint32_t kBlockThreads, kPhases;
//   shared_state   trivially constructible, one per block (__shared__ on the device)
//   thread_state   one per thread, kept across phases and steps (registers on the device)
//   std::uint64_t steps() const;
//   void phase(std::uint32_t p, std::uint64_t block, std::uint64_t step, std::uint32_t tid,
//              shared_state&, thread_state&) const;
// A phase may read what other threads wrote in earlier phases only; that is what makes
// running the threads of a phase one after another (emulate_grid) equal to a device run.
template <class F>
concept block_functor = requires { F::kBlockThreads; F::kPhases; typename F::shared_state; typename F::thread_state; };

// Calls f(gid) for gid = block * threads + thread over the whole grid, including the
// threads past the end of the work that a device launch would also start: functors
// bound-check gid themselves, as they must on a GPU. Blocks run on OpenMP threads,
// threads of a block in order on one host thread. A block functor runs phase by phase,
// every thread of the block through a phase before any starts the next. A
// single-block grid stays on the calling thread: a parallel region per launch costs
// more than a small launch on a loaded machine.
template <class F>
void emulate_grid(grid_dims dims, const F& f) {
  const auto blocks = static_cast<std::int64_t>(dims.blocks);
  const std::uint64_t threads = dims.threads;
  if constexpr (block_functor<F>) {
    if (threads != F::kBlockThreads)
      throw std::invalid_argument("a block kernel of " + std::to_string(F::kBlockThreads) +
                                  " threads launched with " + std::to_string(threads) + " threads per block");
  }
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic, 1) if (blocks > 1)
#endif
  for (std::int64_t b = 0; b < blocks; ++b) {
    if constexpr (block_functor<F>) {
      // Poisoned, as device shared memory starts undefined: a read before a write shows.
      auto shared = std::make_unique_for_overwrite<typename F::shared_state>();
      std::memset(static_cast<void*>(shared.get()), 0xA5, sizeof(typename F::shared_state));
      std::vector<typename F::thread_state> regs(F::kBlockThreads);
      const std::uint64_t steps = f.steps();
      for (std::uint64_t s = 0; s < steps; ++s)
        for (std::uint32_t p = 0; p < F::kPhases; ++p)
          for (std::uint32_t t = 0; t < F::kBlockThreads; ++t)
            f.phase(p, static_cast<std::uint64_t>(b), s, t, *shared, regs[t]);
    } else {
      for (std::uint64_t t = 0; t < threads; ++t) f(static_cast<std::uint64_t>(b) * threads + t);
    }
  }
}

}  // namespace poreplab
