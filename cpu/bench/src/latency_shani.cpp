// Dependent-chain kernels for the SHA extensions (see latency.hpp). Inline asm pins the
// exact instruction and register dependency; xmm0 is sha256rnds2's implicit operand.
#include "poreplab/cpu/features.hpp"
#include "poreplab/cpu/latency.hpp"

#include "latency_asm.hpp"

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

// Legacy-encoded zeroing: a CPU may have SHA-NI without AVX.
#define PL_ZERO(r) "pxor %%xmm" #r ", %%xmm" #r "\n\t"
// Independent chains through xmm1..12 (xmm15 a read-only source, xmm0 rnds2's W+K).
#define PL_IND(fname, body) \
  PL_IND_KERNEL(fname, PL_ALL12(PL_ZERO) PL_ZERO(0) PL_ZERO(13) PL_ZERO(14) PL_ZERO(15), body, "")
#define PL_RNDS2(r) "sha256rnds2 %%xmm15, %%xmm" #r "\n\t"
#define PL_MSG1(r) "sha256msg1 %%xmm15, %%xmm" #r "\n\t"
#define PL_MSG2(r) "sha256msg2 %%xmm15, %%xmm" #r "\n\t"
#define PL_PADDD(r) "paddd %%xmm15, %%xmm" #r "\n\t"
#define PL_PSHUFD(r) "pshufd $0x0e, %%xmm15, %%xmm" #r "\n\t"
#define PL_PALIGNR(r) "palignr $4, %%xmm15, %%xmm" #r "\n\t"
#define PL_PSHUFB(r) "pshufb %%xmm14, %%xmm" #r "\n\t"

PL_IND(rnds2_ind, PL_ALL12(PL_RNDS2))
PL_IND(msg1_ind, PL_ALL12(PL_MSG1))
PL_IND(msg2_ind, PL_ALL12(PL_MSG2))

// shani engines (sha256_shani.cpp), per block of one chain: 32 sha256rnds2, 12
// sha256msg1, 12 sha256msg2, 12 palignr, 28 paddd (16 W+K, 12 in the schedule), 16
// pshufd (the second rnds2's W+K) and 4 pshufb (byte order of the loads). One loop is a
// quarter: 8, 3, 3, 3, 7, 4, 1. (Register moves are left out: renaming absorbs them.)
PL_IND(mix_shani, PL_RNDS2(1) PL_MSG1(9) PL_RNDS2(2) PL_PADDD(9) PL_MSG2(12) PL_RNDS2(3) PL_PALIGNR(10)
                      PL_PSHUFD(11) PL_RNDS2(4) PL_PADDD(10) PL_MSG1(13) PL_RNDS2(5) PL_PSHUFB(11) PL_MSG2(9)
                          PL_RNDS2(6) PL_PADDD(12) PL_PALIGNR(13) PL_RNDS2(7) PL_PSHUFD(10) PL_MSG1(11) PL_RNDS2(8)
                              PL_PADDD(13) PL_MSG2(10) PL_PALIGNR(12) PL_PADDD(11) PL_PSHUFD(9) PL_PADDD(12)
                                  PL_PADDD(13) PL_PSHUFD(12))

}  // namespace
#define PL_LAT_FN(f) f
#else
#define PL_LAT_FN(f) nullptr
#endif

namespace {
constexpr latency_kernel kLatency[] = {
    {"sha256rnds2", "sha-ni", "2 rounds; alternating state halves as in a block", 32, PL_LAT_FN(rnds2),
     PL_LAT_FN(rnds2_ind), 12},
    {"sha256msg1", "sha-ni", "", 32, PL_LAT_FN(msg1), PL_LAT_FN(msg1_ind), 12},
    {"sha256msg2", "sha-ni", "", 32, PL_LAT_FN(msg2), PL_LAT_FN(msg2_ind), 12},
};

// One mix for every width: the instructions per block per chain do not change with the
// number of chains interleaved.
constexpr const char* kMixText =
    "32 sha256rnds2 + 12 sha256msg1 + 12 sha256msg2 + 12 palignr + 28 paddd + 16 pshufd + 4 pshufb";
constexpr mix_kernel kMixes[] = {
    {"shani", "sha-ni", kMixText, 1, 0.25, PL_LAT_FN(mix_shani)},
};
}  // namespace

constinit const std::span<const latency_kernel> shani_latency_kernels = kLatency;
constinit const std::span<const mix_kernel> shani_mix_kernels = kMixes;

}  // namespace poreplab::cpu::detail
