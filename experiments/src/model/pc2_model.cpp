#include "model/pc2_model.hpp"

#include <algorithm>
#include <map>
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

std::optional<pc2_sass_counts> fr32_mul_counts(const arch_params& a) {
  for (const auto& e : embedded_sass()) {
    if (e.arch != a.arch || e.text.find("poreplab_fr32_mul") == std::string::npos) continue;
    for (const auto& f : parse_sass(e.text, e.arch)) {
      if (f.mangled != "poreplab_fr32_mul" || f.code.empty()) continue;
      pc2_sass_counts c;
      c.instructions = f.code.size();
      c.issue_cycles = double(c.instructions) / std::max(1e-9, a.issue_per_scheduler);
      std::map<std::ptrdiff_t, double> busy;
      for (const auto& in : f.code) {
        const pipe_use u = pipe_use_of(in, a);
        if (u.pipe >= 0) busy[u.pipe] += u.cycles;
      }
      for (const auto& [pipe, cycles] : busy)
        if (cycles > c.pipe_cycles) {
          c.pipe_cycles = cycles;
          c.busiest_pipe = a.pipes[static_cast<std::size_t>(pipe)].name;
        }
      return c;
    }
  }
  return std::nullopt;
}

std::optional<pc2_gpu_estimate> model_pc2_sass(const arch_params& a, double multiplies) {
  const auto c = fr32_mul_counts(a);
  if (!c) return std::nullopt;
  const double warp_cycles = std::max(c->issue_cycles, c->pipe_cycles);
  pc2_gpu_estimate e;
  e.slots_per_mul = warp_cycles;
  e.fr_mul_per_s = a.sm_count * a.schedulers_per_sm * 32.0 / warp_cycles * a.clock_mhz * 1e6;
  e.sector_seconds = multiplies / e.fr_mul_per_s;
  e.basis = a.device + " (" + a.arch + "): " + format_number(a.sm_count, 3) + " SMs x " +
            format_number(a.schedulers_per_sm, 3) + " schedulers at " + format_number(a.clock_mhz, 4) +
            " MHz; this build's Fr multiply (fr32::mul's SASS) is " + std::to_string(c->instructions) +
            " instructions: " + format_number(c->issue_cycles, 4) + " issue cycles, its busiest pipe (" +
            c->busiest_pipe + ") " + format_number(c->pipe_cycles, 4) + " cycles per warp: " +
            format_number(e.fr_mul_per_s / 1e9, 3) + " G multiplies/s, PC2's adds, loads and file I/O left out";
  return e;
}

pc2_gpu_estimate best_pc2_model(const arch_params& a, double multiplies) {
  if (auto e = model_pc2_sass(a, multiplies)) return *e;
  return model_pc2(a, multiplies, true);
}

}  // namespace poreplab::gpu_model
