// Dependent-chain kernels for AVX-512 (zmm) (see latency.hpp); every chain runs through zmm0.
#include "poreplab/cpu/features.hpp"
#include "poreplab/cpu/latency.hpp"

#define PL_LAT_X4(s) s s s s
#define PL_LAT_X16(s) PL_LAT_X4(PL_LAT_X4(s))
#define PL_LAT_X32(s) PL_LAT_X16(s) PL_LAT_X16(s)

namespace poreplab::cpu::detail {

#if defined(POREPLAB_HAVE_AVX512) && defined(__x86_64__)
namespace {

#define PL_LAT_ZMM(fname, body)                                                                   \
  std::uint64_t fname(std::uint64_t n) {                                                          \
    const std::uint64_t t0 = rdtsc();                                                             \
    asm volatile("vpxor %%xmm0, %%xmm0, %%xmm0\n\tvpternlogd $0xff, %%zmm1, %%zmm1, %%zmm1\n\t"   \
                 "vpxor %%xmm2, %%xmm2, %%xmm2\n\t"                                               \
                 "1:\n\t" body "dec %[n]\n\tjnz 1b\n\tvzeroupper\n\t"                             \
                 : [n] "+r"(n)                                                                    \
                 :                                                                                \
                 : "xmm0", "xmm1", "xmm2", "cc", "memory");                                       \
    return rdtsc() - t0;                                                                          \
  }

PL_LAT_ZMM(vprord, PL_LAT_X32("vprord $7, %%zmm0, %%zmm0\n\t"))
// 0x96: three-way xor, the Sigma combine; zmm0 is both a source and the destination.
PL_LAT_ZMM(vpternlogd, PL_LAT_X32("vpternlogd $0x96, %%zmm2, %%zmm1, %%zmm0\n\t"))
PL_LAT_ZMM(vpaddd, PL_LAT_X32("vpaddd %%zmm1, %%zmm0, %%zmm0\n\t"))
PL_LAT_ZMM(vprorq, PL_LAT_X32("vprorq $7, %%zmm0, %%zmm0\n\t"))

}  // namespace
#define PL_LAT_FN(f) f
#else
#define PL_LAT_FN(f) nullptr
#endif

std::vector<latency_kernel> avx512_latency_kernels() {
  return {
      {"vprord zmm", "avx512", "", 32, PL_LAT_FN(vprord)},
      {"vpternlogd zmm", "avx512", "", 32, PL_LAT_FN(vpternlogd)},
      {"vpaddd zmm", "avx512", "", 32, PL_LAT_FN(vpaddd)},
      {"vprorq zmm", "avx512", "", 32, PL_LAT_FN(vprorq)},
  };
}

}  // namespace poreplab::cpu::detail
