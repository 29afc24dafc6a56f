#pragma once
// CPU identification and feature detection (cpuid + xgetbv), detected once and cached.
#include <cstdint>
#include <string>
#include <vector>

namespace poreplab::cpu {

struct cache_level {
  int level = 0;
  std::string type;  // "data", "instruction", "unified"
  std::uint64_t bytes = 0;
  int line_bytes = 0;
  int shared_by_threads = 0;
};

struct features {
  std::string vendor;
  std::string model;
  // CPUID leaf 1's display family, model and stepping (the extended fields folded in as
  // the vendors define them), and the microarchitecture they name (microarchitecture()).
  int family = 0, model_number = 0, stepping = 0;
  std::string microarchitecture;  // "Zen 3", "Emerald Rapids"...; "" when the table does not know it
  int logical_cores = 0;
  bool sse41 = false, ssse3 = false;
  bool sha_ni = false;
  bool avx2 = false, bmi2 = false, adx = false;
  bool avx512f = false, avx512vl = false, avx512bw = false, avx512ifma = false;
  bool os_avx = false, os_avx512 = false;  // XCR0: the OS saves the wide registers
  bool invariant_tsc = false;
  std::vector<cache_level> caches;

  // Usable now: the instruction set is present and the OS enables its state.
  bool can_shani() const { return sha_ni && sse41 && ssse3; }
  bool can_avx2() const { return avx2 && bmi2 && os_avx; }
  bool can_avx512() const { return avx512f && avx512vl && avx512bw && os_avx512 && can_avx2(); }
  bool can_adx() const { return adx && bmi2; }  // mulx, adcx, adox: general registers only
  bool can_ifma() const { return avx512ifma && can_avx512(); }
  std::vector<std::string> names() const;  // present features, e.g. {"sha_ni", "avx2", ...}
};

const features& detect();

// The microarchitecture a vendor's display family and model name, from a small table
// (the Linux kernel's arch/x86/kernel/cpu/amd.c Zen generations and
// arch/x86/include/asm/intel-family.h); "" when it holds none.
std::string microarchitecture(const std::string& vendor, int family, int model);

// TSC ticks per second, measured once against the steady clock (about 20 ms).
double tsc_hz();
std::uint64_t rdtsc();

}  // namespace poreplab::cpu
