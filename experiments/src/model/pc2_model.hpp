#pragma once
// A GPU's PC2 time, modeled: PC2 is Fr multiplies (pc2_multiplies), each an 8 x 32-bit-limb
// Montgomery multiply whose integer multiply-adds all go to the SM's FMA pipe; the device
// cannot finish them faster than that pipe issues them. A lower bound on time (adds,
// loads and the tree files' I/O are left out), checked against published PC2 times.
#include <string>

#include "model/gpu_model.hpp"

namespace poreplab::gpu_model {

// FMA-pipe issue slots of one Fr multiply, 8 limbs, CIOS: 64 + 64 product words (lo, hi),
// 8 reduction factors, 64 + 64 reduction words.
inline constexpr double kFrMulLoSlots = 64 + 8 + 64;
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

}  // namespace poreplab::gpu_model
