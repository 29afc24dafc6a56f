#pragma once
// Private to poreplab_cpu: what the per-ISA kernels of every family share. Each family's
// kernels are declared in <family>_kernels.hpp; each is defined in the one file compiled
// with its ISA's flags, and only when the build keeps that ISA (POREPLAB_HAVE_<ISA>).
#include <cstddef>
#include <cstdint>

namespace poreplab::cpu::kernels {

// Read in place of a missing lane's chunk or state by partly filled multi-buffer groups,
// so that they never touch the caller's pointers past `lanes`.
alignas(64) inline constexpr std::uint8_t kZeroChunk[64] = {};

}  // namespace poreplab::cpu::kernels
