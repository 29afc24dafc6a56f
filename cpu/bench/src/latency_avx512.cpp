// Dependent-chain, independent (throughput) and engine-mix kernels for AVX-512 (see
// latency.hpp). Dependent chains run through zmm0; independent ones through zmm1..12,
// each its own chain, with zmm13/14 as read-only sources.
#include "poreplab/cpu/features.hpp"
#include "poreplab/cpu/latency.hpp"

#include "latency_asm.hpp"

#define PL_LAT_X4(s) s s s s
#define PL_LAT_X16(s) PL_LAT_X4(PL_LAT_X4(s))
#define PL_LAT_X32(s) PL_LAT_X16(s) PL_LAT_X16(s)
// One operation on each of registers 1..10, on the six even ones (PL_ALL12: 1..12).
#define PL_TEN(op) op(1) op(2) op(3) op(4) op(5) op(6) op(7) op(8) op(9) op(10)
#define PL_SIX(op) op(2) op(4) op(6) op(8) op(10) op(12)

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

// Independent chains: every register 1..14 starts at a defined value.
#define PL_ZERO(r) "vpxor %%xmm" #r ", %%xmm" #r ", %%xmm" #r "\n\t"
#define PL_IND(fname, body)                                                                      \
  PL_IND_KERNEL(fname,                                                                           \
                PL_ALL12(PL_ZERO) "vpternlogd $0xff, %%zmm13, %%zmm13, %%zmm13\n\t" PL_ZERO(14), \
                body, "vzeroupper\n\t")

PL_LAT_ZMM(vprord, PL_LAT_X32("vprord $7, %%zmm0, %%zmm0\n\t"))
// 0x96: three-way xor, the Sigma combine; zmm0 is both a source and the destination.
PL_LAT_ZMM(vpternlogd, PL_LAT_X32("vpternlogd $0x96, %%zmm2, %%zmm1, %%zmm0\n\t"))
PL_LAT_ZMM(vpaddd, PL_LAT_X32("vpaddd %%zmm1, %%zmm0, %%zmm0\n\t"))
PL_LAT_ZMM(vprorq, PL_LAT_X32("vprorq $7, %%zmm0, %%zmm0\n\t"))

#define PL_ZROR(r) "vprord $7, %%zmm" #r ", %%zmm" #r "\n\t"
#define PL_ZSHR(r) "vpsrld $3, %%zmm" #r ", %%zmm" #r "\n\t"
#define PL_ZTERN(r) "vpternlogd $0x96, %%zmm13, %%zmm14, %%zmm" #r "\n\t"
#define PL_ZADD(r) "vpaddd %%zmm13, %%zmm" #r ", %%zmm" #r "\n\t"
#define PL_ZRORQ(r) "vprorq $7, %%zmm" #r ", %%zmm" #r "\n\t"
#define PL_YROR(r) "vprord $7, %%ymm" #r ", %%ymm" #r "\n\t"
#define PL_YSHR(r) "vpsrld $3, %%ymm" #r ", %%ymm" #r "\n\t"
#define PL_YTERN(r) "vpternlogd $0x96, %%ymm13, %%ymm14, %%ymm" #r "\n\t"
#define PL_YADD(r) "vpaddd %%ymm13, %%ymm" #r ", %%ymm" #r "\n\t"

PL_IND(vprord_ind, PL_ALL12(PL_ZROR))
PL_IND(vpternlogd_ind, PL_ALL12(PL_ZTERN))
PL_IND(vpaddd_ind, PL_ALL12(PL_ZADD))
PL_IND(vprorq_ind, PL_ALL12(PL_ZRORQ))

// avx512-x16/x8 (sha256_avx512.cpp), per block of the group: 64 rounds of 6 vprord
// (Sigma0, Sigma1), 4 vpternlogd (their combines, Ch, Maj) and 7 vpaddd, and 48 schedule
// steps of 4 vprord + 2 vpsrld (sigma0, sigma1), 2 vpternlogd and 3 vpaddd: 576 vprord,
// 96 vpsrld, 352 vpternlogd, 592 vpaddd. One loop is 1/16 of that: 36, 6, 22, 37.
#define PL_SHA256_AVX512_MIX(ROR, SHR, TERN, ADD)                                                            \
  PL_ALL12(ROR) PL_ALL12(ADD) PL_ALL12(TERN) PL_ALL12(ROR) PL_ALL12(ADD) PL_TEN(TERN) PL_SIX(SHR) PL_ALL12(ROR) \
      PL_ALL12(ADD) ADD(12)
PL_IND(mix_x16, PL_SHA256_AVX512_MIX(PL_ZROR, PL_ZSHR, PL_ZTERN, PL_ZADD))
PL_IND(mix_x8, PL_SHA256_AVX512_MIX(PL_YROR, PL_YSHR, PL_YTERN, PL_YADD))

}  // namespace
#define PL_LAT_FN(f) f
#else
#define PL_LAT_FN(f) nullptr
#endif

namespace {
constexpr latency_kernel kLatency[] = {
    {"vprord zmm", "avx512", "", 32, PL_LAT_FN(vprord), PL_LAT_FN(vprord_ind), 12},
    {"vpternlogd zmm", "avx512", "", 32, PL_LAT_FN(vpternlogd), PL_LAT_FN(vpternlogd_ind), 12},
    {"vpaddd zmm", "avx512", "", 32, PL_LAT_FN(vpaddd), PL_LAT_FN(vpaddd_ind), 12},
    {"vprorq zmm", "avx512", "", 32, PL_LAT_FN(vprorq), PL_LAT_FN(vprorq_ind), 12},
};

constexpr const char* kMixText = "576 vprord + 96 vpsrld + 352 vpternlogd + 592 vpaddd";
constexpr mix_kernel kMixes[] = {
    {"avx512-x16", "avx512", kMixText, 16, 1.0 / 16, PL_LAT_FN(mix_x16)},
    {"avx512-x8", "avx512", kMixText, 8, 1.0 / 16, PL_LAT_FN(mix_x8)},
};
}  // namespace

constinit const std::span<const latency_kernel> avx512_latency_kernels = kLatency;
constinit const std::span<const mix_kernel> avx512_mix_kernels = kMixes;

}  // namespace poreplab::cpu::detail
