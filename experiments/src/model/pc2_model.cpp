#include "model/pc2_model.hpp"

#include <stdexcept>

#include "util/text.hpp"

namespace poreplab::gpu_model {

namespace {

double pipe_cycles(const arch_params& a, const std::string& opcode) {
  const auto it = a.opcode_pipe.find(opcode);
  if (it == a.opcode_pipe.end() || it->second >= a.pipes.size())
    throw std::runtime_error("the latency table's " + a.arch + " has no pipe for " + opcode);
  return a.pipes[it->second].cycles;
}

}  // namespace

pc2_gpu_estimate model_pc2(const arch_params& a, double multiplies, bool hi_full_rate) {
  const double lo = pipe_cycles(a, "IMAD");
  const double hi = hi_full_rate ? lo : pipe_cycles(a, "IMAD.HI");
  // Cycles one scheduler's pipe is busy per warp-wide multiply; a warp is 32 multiplies.
  const double warp_cycles = kFrMulLoSlots * lo + kFrMulHiSlots * hi;
  pc2_gpu_estimate e;
  e.slots_per_mul = warp_cycles / lo;
  e.fr_mul_per_s = a.sm_count * a.schedulers_per_sm * 32.0 / warp_cycles * a.clock_mhz * 1e6;
  e.sector_seconds = multiplies / e.fr_mul_per_s;
  e.basis = a.device + " (" + a.arch + "): " + format_number(a.sm_count, 3) + " SMs x " +
            format_number(a.schedulers_per_sm, 3) + " schedulers at " + format_number(a.clock_mhz, 4) +
            " MHz; one Fr multiply = " + format_number(kFrMulLoSlots, 3) + " IMAD + " + format_number(kFrMulHiSlots, 3) +
            " IMAD.HI on the FMA pipe (" + format_number(lo, 2) + " cycles per warp instruction" +
            (hi_full_rate ? ", IMAD.HI the same" : ", IMAD.HI " + format_number(hi, 2)) + "): " +
            format_number(e.fr_mul_per_s / 1e9, 3) + " G multiplies/s, PC2's adds, loads and file I/O left out";
  return e;
}

}  // namespace poreplab::gpu_model
