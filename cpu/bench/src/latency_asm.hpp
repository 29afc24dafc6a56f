#pragma once
// Private to the latency_<isa>.cpp files: the loop around an inline-asm body that every
// throughput and mix kernel shares. Independent chains live in vector registers 1..12;
// 13..15 (and 0) are set up by `init` as read-only sources.
#include <cstdint>

#include "poreplab/cpu/features.hpp"

#define PL_ALL12(op) op(1) op(2) op(3) op(4) op(5) op(6) op(7) op(8) op(9) op(10) op(11) op(12)

#define PL_VEC_CLOBBERS                                                                                          \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", \
      "xmm13", "xmm14", "xmm15", "cc", "memory"

// fname(loops): `loops` passes over `body`, TSC ticks taken. `tail` runs after the loop
// (vzeroupper for VEX/EVEX bodies).
#define PL_IND_KERNEL(fname, init, body, tail)                                  \
  std::uint64_t fname(std::uint64_t n) {                                        \
    const std::uint64_t t0 = rdtsc();                                           \
    asm volatile(init "1:\n\t" body "dec %[n]\n\tjnz 1b\n\t" tail               \
                 : [n] "+r"(n)                                                  \
                 :                                                              \
                 : PL_VEC_CLOBBERS);                                            \
    return rdtsc() - t0;                                                        \
  }
