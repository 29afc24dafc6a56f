// Dependent-chain kernels for the SHA extensions (see latency.hpp). Inline asm pins the
// exact instruction and register dependency; xmm0 is sha256rnds2's implicit operand.
#include "poreplab/cpu/features.hpp"
#include "poreplab/cpu/latency.hpp"

#define PL_LAT_X4(s) s s s s
#define PL_LAT_X16(s) PL_LAT_X4(PL_LAT_X4(s))

namespace poreplab::cpu::detail {

#if defined(POREPLAB_HAVE_SHANI) && defined(__x86_64__)
namespace {

// Alternating destinations as in a real block: each rnds2 reads the other state half,
// which the previous rnds2 just wrote.
std::uint64_t rnds2(std::uint64_t n) {
  const std::uint64_t t0 = rdtsc();
  asm volatile(
      "pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\tpxor %%xmm2, %%xmm2\n\t"
      "1:\n\t" PL_LAT_X16("sha256rnds2 %%xmm0, %%xmm1, %%xmm2\n\tsha256rnds2 %%xmm0, %%xmm2, %%xmm1\n\t")
      "dec %[n]\n\tjnz 1b\n\t"
      : [n] "+r"(n)
      :
      : "xmm0", "xmm1", "xmm2", "cc", "memory");
  return rdtsc() - t0;
}

std::uint64_t msg1(std::uint64_t n) {
  const std::uint64_t t0 = rdtsc();
  asm volatile(
      "pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\t"
      "1:\n\t" PL_LAT_X16("sha256msg1 %%xmm1, %%xmm0\n\tsha256msg1 %%xmm1, %%xmm0\n\t")
      "dec %[n]\n\tjnz 1b\n\t"
      : [n] "+r"(n)
      :
      : "xmm0", "xmm1", "cc", "memory");
  return rdtsc() - t0;
}

std::uint64_t msg2(std::uint64_t n) {
  const std::uint64_t t0 = rdtsc();
  asm volatile(
      "pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\t"
      "1:\n\t" PL_LAT_X16("sha256msg2 %%xmm1, %%xmm0\n\tsha256msg2 %%xmm1, %%xmm0\n\t")
      "dec %[n]\n\tjnz 1b\n\t"
      : [n] "+r"(n)
      :
      : "xmm0", "xmm1", "cc", "memory");
  return rdtsc() - t0;
}

}  // namespace
#define PL_LAT_FN(f) f
#else
#define PL_LAT_FN(f) nullptr
#endif

std::vector<latency_kernel> shani_latency_kernels() {
  return {
      {"sha256rnds2", "sha-ni", "2 rounds; alternating state halves as in a block", 32, PL_LAT_FN(rnds2)},
      {"sha256msg1", "sha-ni", "", 32, PL_LAT_FN(msg1)},
      {"sha256msg2", "sha-ni", "", 32, PL_LAT_FN(msg2)},
  };
}

}  // namespace poreplab::cpu::detail
