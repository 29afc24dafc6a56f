#pragma once
// cuda-emu: the CUDA backend's kernels and launch sequence run on the host through
// emulate_grid, with host buffers standing in for device memory. Present in every
// build (with or without CUDA), so the kernel code is tested on machines without a GPU.
#include <cstdint>
#include <memory>

#include "poreplab/sdr/backend.hpp"
#include "poreplab/sdr/label_kernel.hpp"

namespace poreplab::sdr {

struct emulation_options {
  sector_layout layout = sector_layout::sector_minor;
  std::uint32_t threads_per_block = 32;
  // 0: the whole parent table is "resident"; otherwise it is streamed in chunks of this
  // many nodes, one launch per chunk, as the CUDA backend does when the table does not fit.
  std::uint64_t chunk_nodes = 0;
  // Most nodes per label launch (0: no limit), as the CUDA backend bounds its launches.
  std::uint64_t launch_nodes = 0;
  kernel_variant kernel = kernel_variant::automatic;  // resolve_kernel picks per job
  int threads = 0;  // host threads running blocks; 0 = the OpenMP default
};

// Backend name "cuda-emu".
std::unique_ptr<backend> make_emulated_backend(const emulation_options& opt = {});

}  // namespace poreplab::sdr
