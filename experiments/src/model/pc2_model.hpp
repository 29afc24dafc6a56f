#pragma once
// A GPU's PC2 time, modeled: PC2 is Fr multiplies (pc2_multiplies), each an 8 x 32-bit-limb
// Montgomery multiply whose integer multiply-adds all go to the SM's FMA pipe; the device
// cannot finish them faster than that pipe issues them. A lower bound on time (adds,
// loads and the tree files' I/O are left out), checked against published PC2 times.
#include <optional>
#include <string>

#include "model/gpu_model.hpp"

namespace poreplab::gpu_model {

// FMA-pipe issue slots of one Fr multiply, 8 limbs, CIOS: 64 + 64 product words (lo, hi)
// and 64 + 64 reduction words. The 8 reduction factors take none: r's -r^-1 mod 2^32 is
// 2^32 - 1, so each is a negation on the integer pipe.
inline constexpr double kFrMulLoSlots = 64 + 64;
inline constexpr double kFrMulHiSlots = 64 + 64;

struct pc2_gpu_estimate {
  double fr_mul_per_s = 0;       // the device, FMA pipe saturated
  double slots_per_mul = 0;      // warp-lane slots per multiply on that pipe
  double sector_seconds = 0;     // multiplies / fr_mul_per_s
  std::string basis;             // how, with the table's figures
};

// `hi_full_rate`: IMAD.HI at IMAD's rate (one pass), else at the latency table's rate for
// IMAD.HI (its fma_wide pipe: two passes, an assumption of the table).
pc2_gpu_estimate model_pc2(const arch_params& a, double multiplies, bool hi_full_rate);

// The build's own multiply: fr32::mul as compiled for a.arch (cut out of the PC2 kernel's
// SASS at build time, embedded as "poreplab_fr32_mul"). Every instruction takes an issue
// slot of its scheduler and each its pipe's cycles; a warp's multiply takes at least the
// larger of the two. nullopt when the build has no such SASS (no CUDA, or not that arch).
struct pc2_sass_counts {
  std::size_t instructions = 0;
  double issue_cycles = 0;   // per warp-wide multiply: instructions / issue rate
  double pipe_cycles = 0;    // the busiest pipe's cycles
  std::string busiest_pipe;
};
std::optional<pc2_sass_counts> fr32_mul_counts(const arch_params& a);
std::optional<pc2_gpu_estimate> model_pc2_sass(const arch_params& a, double multiplies);

// The SASS estimate where the build has it, else the FMA-pipe bound (IMAD.HI at full rate).
pc2_gpu_estimate best_pc2_model(const arch_params& a, double multiplies);

}  // namespace poreplab::gpu_model
