#pragma once
// The CUDA labeling backend behind sdr::backend. Host-callable; no CUDA headers.
#include <cstdint>
#include <functional>
#include <memory>

#include "poreplab/sdr/backend.hpp"
#include "poreplab/sdr/emulated_backend.hpp"
#include "poreplab/sdr/label_kernel.hpp"

namespace poreplab::cuda {

struct backend_options {
  sdr::sector_layout layout = sdr::sector_layout::sector_minor;
  // One thread per sector: small blocks spread few sectors over many SMs.
  std::uint32_t threads_per_block = 32;
  int device = 0;
  // Stream the parent table in chunks of this many nodes even when it would fit
  // (0: the memory planner decides).
  std::uint64_t chunk_nodes = 0;
  // Plan against at most this many bytes of device memory (0: the free memory).
  std::uint64_t memory_limit = 0;
  // Most nodes per label launch (0: launch_nodes_for the device's occupancy), so no
  // launch runs long enough to hit a display watchdog or outlive a time budget.
  std::uint64_t launch_nodes = 0;
  // Polled between launches; true stops label() with sdr::label_interrupted.
  std::function<bool()> stop_requested = nullptr;
  // sdr/sha256: which label kernel design (the GPU study compares them); automatic:
  // the latency design up to one sector per SM, one thread per sector beyond.
  sdr::kernel_variant kernel = sdr::kernel_variant::automatic;
};

// Backend "cuda". Throws std::runtime_error when no CUDA driver or device is usable
// ("cuda backend unavailable: no CUDA driver is installed (libcuda not found)") or the
// device index does not exist, std::invalid_argument for bad options. label() throws
// std::runtime_error when the job does not fit in device memory (the message names the
// largest sector count and size that would) or a CUDA call fails (file:line and CUDA's
// error string).
std::unique_ptr<sdr::backend> make_cuda_backend(const backend_options& opt = {});

// Backend "cuda-emu" with the same options (device and memory_limit do not apply):
// the same kernels and launch sequence on the host.
inline std::unique_ptr<sdr::backend> make_cuda_emu_backend(const backend_options& opt = {}) {
  return sdr::make_emulated_backend({opt.layout, opt.threads_per_block, opt.chunk_nodes, opt.launch_nodes, opt.kernel});
}

}  // namespace poreplab::cuda
