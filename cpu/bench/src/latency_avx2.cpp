// Dependent-chain kernels for AVX2 (ymm) and BMI1's andn (see latency.hpp); every chain
// runs through ymm0 (or the named general register).
#include "poreplab/cpu/features.hpp"
#include "poreplab/cpu/latency.hpp"

#define PL_LAT_X4(s) s s s s
#define PL_LAT_X16(s) PL_LAT_X4(PL_LAT_X4(s))
#define PL_LAT_X32(s) PL_LAT_X16(s) PL_LAT_X16(s)

namespace poreplab::cpu::detail {

#if defined(POREPLAB_HAVE_AVX2) && defined(__x86_64__)
namespace {

#define PL_LAT_YMM(fname, body)                                                                   \
  std::uint64_t fname(std::uint64_t n) {                                                          \
    const std::uint64_t t0 = rdtsc();                                                             \
    asm volatile("vpxor %%xmm0, %%xmm0, %%xmm0\n\tvpcmpeqd %%ymm1, %%ymm1, %%ymm1\n\t"            \
                 "vpxor %%xmm2, %%xmm2, %%xmm2\n\t"                                               \
                 "1:\n\t" body "dec %[n]\n\tjnz 1b\n\tvzeroupper\n\t"                             \
                 : [n] "+r"(n)                                                                    \
                 :                                                                                \
                 : "xmm0", "xmm1", "xmm2", "cc", "memory");                                       \
    return rdtsc() - t0;                                                                          \
  }

PL_LAT_YMM(vpaddd, PL_LAT_X32("vpaddd %%ymm1, %%ymm0, %%ymm0\n\t"))
PL_LAT_YMM(vpxor, PL_LAT_X32("vpxor %%ymm1, %%ymm0, %%ymm0\n\t"))
// ymm2 = 0: every byte selects byte 0 of its lane; the data still flows through ymm0.
PL_LAT_YMM(vpshufb, PL_LAT_X32("vpshufb %%ymm2, %%ymm0, %%ymm0\n\t"))
PL_LAT_YMM(vpshufb_x, PL_LAT_X32("vpshufb %%xmm2, %%xmm0, %%xmm0\n\t"))
PL_LAT_YMM(vpshufd, PL_LAT_X32("vpshufd $0x39, %%ymm0, %%ymm0\n\t"))
PL_LAT_YMM(vpsrld, PL_LAT_X32("vpsrld $7, %%ymm0, %%ymm0\n\t"))
// Both shifts read ymm0 and run side by side; the or waits for both.
PL_LAT_YMM(rotate, PL_LAT_X16("vpsrld $7, %%ymm0, %%ymm2\n\tvpslld $25, %%ymm0, %%ymm0\n\tvpor %%ymm2, %%ymm0, %%ymm0\n\t"))

std::uint64_t andn(std::uint64_t n) {
  std::uint64_t x = 1;
  const std::uint64_t zero = 0;
  const std::uint64_t t0 = rdtsc();
  asm volatile("1:\n\t" PL_LAT_X32("andn %[x], %[z], %[x]\n\t") "dec %[n]\n\tjnz 1b\n\t"
               : [x] "+r"(x), [n] "+r"(n)
               : [z] "r"(zero)
               : "cc", "memory");
  return rdtsc() - t0;
}

}  // namespace
#define PL_LAT_FN(f) f
#else
#define PL_LAT_FN(f) nullptr
#endif

std::vector<latency_kernel> avx2_latency_kernels() {
  return {
      {"andn", "avx2", "BMI1 (present with AVX2/BMI2)", 32, PL_LAT_FN(andn)},
      {"vpaddd ymm", "avx2", "", 32, PL_LAT_FN(vpaddd)},
      {"vpxor ymm", "avx2", "", 32, PL_LAT_FN(vpxor)},
      {"vpshufb ymm", "avx2", "", 32, PL_LAT_FN(vpshufb)},
      {"vpshufb xmm", "avx2", "VEX 128-bit form (row-vectorised BLAKE2s)", 32, PL_LAT_FN(vpshufb_x)},
      {"vpshufd ymm", "avx2", "", 32, PL_LAT_FN(vpshufd)},
      {"vpsrld ymm", "avx2", "", 32, PL_LAT_FN(vpsrld)},
      {"rotate ymm", "avx2", "one 32-bit rotate: vpsrld || vpslld, then vpor", 16, PL_LAT_FN(rotate)},
  };
}

}  // namespace poreplab::cpu::detail
