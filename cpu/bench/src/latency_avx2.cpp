// Dependent-chain kernels for AVX2 (ymm) and BMI1's andn (see latency.hpp); every chain
// runs through ymm0 (or the named general register).
#include "poreplab/cpu/features.hpp"
#include "poreplab/cpu/latency.hpp"

#include "latency_asm.hpp"

#define PL_LAT_X4(s) s s s s
#define PL_LAT_X16(s) PL_LAT_X4(PL_LAT_X4(s))
#define PL_LAT_X32(s) PL_LAT_X16(s) PL_LAT_X16(s)
#define PL_EIGHT(op) op(1) op(2) op(3) op(4) op(5) op(6) op(7) op(8)
#define PL_SIX(op) op(2) op(4) op(6) op(8) op(10) op(12)

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

// Independent chains through ymm1..12, ymm13/14 read-only sources.
#define PL_ZERO(r) "vpxor %%xmm" #r ", %%xmm" #r ", %%xmm" #r "\n\t"
#define PL_IND(fname, body)                                                                                \
  PL_IND_KERNEL(fname, PL_ALL12(PL_ZERO) "vpcmpeqd %%ymm13, %%ymm13, %%ymm13\n\t" PL_ZERO(14), body, \
                "vzeroupper\n\t")
#define PL_YADD(r) "vpaddd %%ymm13, %%ymm" #r ", %%ymm" #r "\n\t"
#define PL_YXOR(r) "vpxor %%ymm13, %%ymm" #r ", %%ymm" #r "\n\t"
#define PL_YAND(r) "vpand %%ymm13, %%ymm" #r ", %%ymm" #r "\n\t"
#define PL_YSHUFB(r) "vpshufb %%ymm14, %%ymm" #r ", %%ymm" #r "\n\t"
#define PL_YSHUFD(r) "vpshufd $0x39, %%ymm" #r ", %%ymm" #r "\n\t"
#define PL_YSRL(r) "vpsrld $7, %%ymm" #r ", %%ymm" #r "\n\t"
#define PL_YSLL(r) "vpslld $25, %%ymm" #r ", %%ymm" #r "\n\t"

PL_IND(vpaddd_ind, PL_ALL12(PL_YADD))
PL_IND(vpxor_ind, PL_ALL12(PL_YXOR))
PL_IND(vpshufb_ind, PL_ALL12(PL_YSHUFB))
PL_IND(vpshufd_ind, PL_ALL12(PL_YSHUFD))
PL_IND(vpsrld_ind, PL_ALL12(PL_YSRL))

// avx2-x8 (sha256_avx2.cpp), per block of the group: 64 rounds of 12 shifts and 10 vpxor
// (two rotr triples), 2 vpxor + 1 vpand each for Ch and Maj, 7 vpaddd; 48 schedule steps
// of 10 shifts, 8 vpxor, 3 vpaddd: 672 vpsrld, 576 vpslld, 1280 vpxor, 128 vpand, 592
// vpaddd. One loop is 1/16 of that: 42, 36, 80, 8, 37.
PL_IND(mix_x8, PL_ALL12(PL_YSRL) PL_ALL12(PL_YXOR) PL_ALL12(PL_YSLL) PL_ALL12(PL_YXOR) PL_ALL12(PL_YADD)
                   PL_ALL12(PL_YSRL) PL_ALL12(PL_YXOR) PL_ALL12(PL_YSLL) PL_ALL12(PL_YXOR) PL_EIGHT(PL_YAND)
                       PL_ALL12(PL_YADD) PL_ALL12(PL_YSRL) PL_ALL12(PL_YXOR) PL_ALL12(PL_YSLL) PL_ALL12(PL_YXOR)
                           PL_SIX(PL_YSRL) PL_EIGHT(PL_YXOR) PL_ALL12(PL_YADD) PL_YADD(12))

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

namespace {
constexpr latency_kernel kLatency[] = {
    {"andn", "avx2", "BMI1 (present with AVX2/BMI2)", 32, PL_LAT_FN(andn)},
    {"vpaddd ymm", "avx2", "", 32, PL_LAT_FN(vpaddd), PL_LAT_FN(vpaddd_ind), 12},
    {"vpxor ymm", "avx2", "", 32, PL_LAT_FN(vpxor), PL_LAT_FN(vpxor_ind), 12},
    {"vpshufb ymm", "avx2", "", 32, PL_LAT_FN(vpshufb), PL_LAT_FN(vpshufb_ind), 12},
    {"vpshufb xmm", "avx2", "VEX 128-bit form (row-vectorised BLAKE2s)", 32, PL_LAT_FN(vpshufb_x)},
    {"vpshufd ymm", "avx2", "", 32, PL_LAT_FN(vpshufd), PL_LAT_FN(vpshufd_ind), 12},
    {"vpsrld ymm", "avx2", "", 32, PL_LAT_FN(vpsrld), PL_LAT_FN(vpsrld_ind), 12},
    {"rotate ymm", "avx2", "one 32-bit rotate: vpsrld || vpslld, then vpor", 16, PL_LAT_FN(rotate)},
};

constexpr mix_kernel kMixes[] = {
    {"avx2-x8", "avx2", "672 vpsrld + 576 vpslld + 1280 vpxor + 128 vpand + 592 vpaddd", 8, 1.0 / 16, PL_LAT_FN(mix_x8)},
};
}  // namespace

constinit const std::span<const latency_kernel> avx2_latency_kernels = kLatency;
constinit const std::span<const mix_kernel> avx2_mix_kernels = kMixes;

}  // namespace poreplab::cpu::detail
