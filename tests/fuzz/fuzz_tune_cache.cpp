// libFuzzer target: the engine calibration cache reader (cpu/src/tune.cpp), as `auto`
// loads it: parse_tuning, then the check of its rates against this build and CPU.
// Anything but std::runtime_error escaping is a bug; a cache both accept must hold only
// this build's engines, once each, at plausible rates.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "poreplab/cpu/tune.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto t = poreplab::cpu::parse_tuning(text, "engines.json");
    if (poreplab::cpu::tuning_rates_problem(t).empty())
      for (const auto& r : t.rates)
        if (t.find(r.algo, r.engine) != &r || !(r.ns_per_lane_block >= 0.05 && r.ns_per_lane_block <= 1e6))
          std::abort();
  } catch (const std::runtime_error&) {
  }
  return 0;
}
