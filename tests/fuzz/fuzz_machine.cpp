// libFuzzer target: the machine file reader (experiments/machines/*.json, read by
// `report verdict --machine`, `plan --machine` and the storage model through
// load_machine). Anything but machine_error escaping is a bug; a machine it accepts must
// have a name, cores, memory and positive, finite figures for every part it counts.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "report/machines.hpp"

namespace {

bool positive(double v) { return v > 0 && std::isfinite(v); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto m = poreplab::verdict::parse_machine(text, "machine.json");
    if (m.name.empty() || m.cores == 0 || !positive(m.ram_bytes)) std::abort();
    for (const auto& g : m.gpus)
      if (g.count < 1 || g.count > 1024 || !positive(g.memory_bytes) || g.arch.empty()) std::abort();
    for (const auto& d : m.disks)
      if (d.count < 1 || d.count > 1024 || !positive(d.random_read_iops) || !positive(d.capacity_bytes)) std::abort();
    if (m.hashing && !positive(m.hashing->cycles_per_node)) std::abort();
    if (m.pc1_record && (!positive(m.pc1_record->seconds) || m.pc1_record->sectors == 0)) std::abort();
  } catch (const poreplab::verdict::machine_error&) {
  }
  return 0;
}
