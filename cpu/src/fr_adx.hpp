#pragma once
// Private to poreplab_cpu: BLS12-381 Fr Montgomery multiply and square (R = 2^256, the
// fr::mont representation) with mulx/adcx/adox. Compilers do not interleave two carry
// chains from intrinsics, so this is inline assembly; the assembler needs no -m flags,
// but the CPU must have BMI2 and ADX (callers check features first).
//
// Preconditions as fr::mont::mul: a * b < r * 2^256 (e.g. both below 2r); the result is
// canonical (< r). r's top word is below 2^62, so the running sum of the interleaved
// (CIOS) form never needs a sixth word.
#include <cstdint>

#include "poreplab/field/fr_mont.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define POREPLAB_FR_ADX 1
#endif

#ifdef POREPLAB_FR_ADX
namespace poreplab::cpu::detail::adx {

using fr::mont::elem;

struct mod_table {
  std::uint64_t r[4];
  std::uint64_t inv;  // -r^-1 mod 2^64
};
inline constexpr mod_table kFr = {{0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                                   0x73eda753299d7d48ull},
                                  0xfffffffeffffffffull};

// One word of Montgomery reduction: m = t0 * inv, t += m * r, the zero word t0 drops
// out and becomes the next t4. CF and OF run two carry chains (low and high halves of the
// products) through the same words.
#define PL_ADX_RED(T0, T1, T2, T3, T4)         \
  "movq %[" T0 "], %%rdx\n\t"                  \
  "imulq %[inv], %%rdx\n\t"                    \
  "xorl %k[z], %k[z]\n\t"                      \
  "mulxq %[r0], %[lo], %[hi]\n\t"              \
  "adcxq %[lo], %[" T0 "]\n\t"                 \
  "adoxq %[hi], %[" T1 "]\n\t"                 \
  "mulxq %[r1], %[lo], %[hi]\n\t"              \
  "adcxq %[lo], %[" T1 "]\n\t"                 \
  "adoxq %[hi], %[" T2 "]\n\t"                 \
  "mulxq %[r2], %[lo], %[hi]\n\t"              \
  "adcxq %[lo], %[" T2 "]\n\t"                 \
  "adoxq %[hi], %[" T3 "]\n\t"                 \
  "mulxq %[r3], %[lo], %[hi]\n\t"              \
  "adcxq %[lo], %[" T3 "]\n\t"                 \
  "adoxq %[hi], %[" T4 "]\n\t"                 \
  "adcxq %[z], %[" T4 "]\n\t"

// t += a * b[i] over five words (T4 is overwritten: it held the dropped zero word).
#define PL_ADX_MULADD(OFF, T0, T1, T2, T3, T4) \
  "movq " OFF "(%[b]), %%rdx\n\t"              \
  "xorl %k[z], %k[z]\n\t"                      \
  "mulxq 0(%[a]), %[lo], %[hi]\n\t"            \
  "adcxq %[lo], %[" T0 "]\n\t"                 \
  "adoxq %[hi], %[" T1 "]\n\t"                 \
  "mulxq 8(%[a]), %[lo], %[hi]\n\t"            \
  "adcxq %[lo], %[" T1 "]\n\t"                 \
  "adoxq %[hi], %[" T2 "]\n\t"                 \
  "mulxq 16(%[a]), %[lo], %[hi]\n\t"           \
  "adcxq %[lo], %[" T2 "]\n\t"                 \
  "adoxq %[hi], %[" T3 "]\n\t"                 \
  "mulxq 24(%[a]), %[lo], %[" T4 "]\n\t"       \
  "adcxq %[lo], %[" T3 "]\n\t"                 \
  "adoxq %[z], %[" T4 "]\n\t"                  \
  "adcxq %[z], %[" T4 "]\n\t"

// x - r kept where it does not borrow: t < 2r becomes canonical.
#define PL_ADX_FINAL(T0, T1, T2, T3)           \
  "movq %[" T0 "], %[lo]\n\t"                  \
  "subq %[r0], %[lo]\n\t"                      \
  "movq %[" T1 "], %[hi]\n\t"                  \
  "sbbq %[r1], %[hi]\n\t"                      \
  "movq %[" T2 "], %[z]\n\t"                   \
  "sbbq %[r2], %[z]\n\t"                       \
  "movq %[" T3 "], %%rdx\n\t"                  \
  "sbbq %[r3], %%rdx\n\t"                      \
  "cmovncq %[lo], %[" T0 "]\n\t"               \
  "cmovncq %[hi], %[" T1 "]\n\t"               \
  "cmovncq %[z], %[" T2 "]\n\t"                \
  "cmovncq %%rdx, %[" T3 "]\n\t"

inline elem mul(const elem& a, const elem& b) {
  std::uint64_t t0, t1, t2, t3, t4, lo, hi, z;
  __asm__(
      // t = a * b[0]: one carry chain suffices, nothing to add to yet.
      "movq 0(%[b]), %%rdx\n\t"
      "mulxq 0(%[a]), %[t0], %[t1]\n\t"
      "mulxq 8(%[a]), %[lo], %[t2]\n\t"
      "addq %[lo], %[t1]\n\t"
      "mulxq 16(%[a]), %[lo], %[t3]\n\t"
      "adcq %[lo], %[t2]\n\t"
      "mulxq 24(%[a]), %[lo], %[t4]\n\t"
      "adcq %[lo], %[t3]\n\t"
      "adcq $0, %[t4]\n\t"
      PL_ADX_RED("t0", "t1", "t2", "t3", "t4")
      PL_ADX_MULADD("8", "t1", "t2", "t3", "t4", "t0")
      PL_ADX_RED("t1", "t2", "t3", "t4", "t0")
      PL_ADX_MULADD("16", "t2", "t3", "t4", "t0", "t1")
      PL_ADX_RED("t2", "t3", "t4", "t0", "t1")
      PL_ADX_MULADD("24", "t3", "t4", "t0", "t1", "t2")
      PL_ADX_RED("t3", "t4", "t0", "t1", "t2")
      PL_ADX_FINAL("t4", "t0", "t1", "t2")
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [lo] "=&r"(lo),
        [hi] "=&r"(hi), [z] "=&r"(z)
      : [a] "r"(a.l), [b] "r"(b.l), [r0] "m"(kFr.r[0]), [r1] "m"(kFr.r[1]), [r2] "m"(kFr.r[2]),
        [r3] "m"(kFr.r[3]), [inv] "m"(kFr.inv), "m"(*reinterpret_cast<const std::uint64_t(*)[4]>(a.l)),
        "m"(*reinterpret_cast<const std::uint64_t(*)[4]>(b.l))
      : "rdx", "cc");
  return elem{{t4, t0, t1, t2}};
}

// a^2: six cross products doubled plus four squares (10 mulx instead of 16), then the low
// half reduced word by word and the high half added: (lo + m r) / R + hi = (a^2 + m r) / R.
inline elem sqr(const elem& a) {
  std::uint64_t w0, w1, w2, w3, w4, w5, w6, w7, lo, hi, z;
  std::uint64_t ap = reinterpret_cast<std::uintptr_t>(a.l);  // the address, then a result word
  __asm__(
      // Cross products a_i a_j (i < j) into w1..w6.
      "movq 0(%[a]), %%rdx\n\t"
      "mulxq 8(%[a]), %[w1], %[w2]\n\t"
      "mulxq 16(%[a]), %[lo], %[w3]\n\t"
      "addq %[lo], %[w2]\n\t"
      "mulxq 24(%[a]), %[lo], %[w4]\n\t"
      "adcq %[lo], %[w3]\n\t"
      "adcq $0, %[w4]\n\t"
      "movq 8(%[a]), %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq 16(%[a]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[w3]\n\t"
      "adoxq %[hi], %[w4]\n\t"
      "mulxq 24(%[a]), %[lo], %[w5]\n\t"
      "adcxq %[lo], %[w4]\n\t"
      "adoxq %[z], %[w5]\n\t"
      "adcxq %[z], %[w5]\n\t"
      "movq 16(%[a]), %%rdx\n\t"
      "mulxq 24(%[a]), %[lo], %[w6]\n\t"
      "addq %[lo], %[w5]\n\t"
      "adcq $0, %[w6]\n\t"
      // Double (OF chain) and add the squares a_i^2 at word 2i (CF chain).
      "xorl %k[z], %k[z]\n\t"
      "movq 0(%[a]), %%rdx\n\t"
      "mulxq %%rdx, %[w0], %[hi]\n\t"
      "adoxq %[w1], %[w1]\n\t"
      "adcxq %[hi], %[w1]\n\t"
      "movq 8(%[a]), %%rdx\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adoxq %[w2], %[w2]\n\t"
      "adcxq %[lo], %[w2]\n\t"
      "adoxq %[w3], %[w3]\n\t"
      "adcxq %[hi], %[w3]\n\t"
      "movq 16(%[a]), %%rdx\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adoxq %[w4], %[w4]\n\t"
      "adcxq %[lo], %[w4]\n\t"
      "adoxq %[w5], %[w5]\n\t"
      "adcxq %[hi], %[w5]\n\t"
      "movq 24(%[a]), %%rdx\n\t"
      "mulxq %%rdx, %[lo], %[w7]\n\t"
      "adoxq %[w6], %[w6]\n\t"
      "adcxq %[lo], %[w6]\n\t"
      "adoxq %[z], %[w7]\n\t"
      "adcxq %[z], %[w7]\n\t"
      // Reduce w0..w3 (the a register is free now and carries the fifth word).
      "xorl %k[a], %k[a]\n\t"
      // Each step leaves its low word exactly zero: it is the next step's fifth word.
      PL_ADX_RED("w0", "w1", "w2", "w3", "a")
      PL_ADX_RED("w1", "w2", "w3", "a", "w0")
      PL_ADX_RED("w2", "w3", "a", "w0", "w1")
      PL_ADX_RED("w3", "a", "w0", "w1", "w2")
      // + the high half: the reduced low half is at most r, the sum below 2^256.
      "addq %[w4], %[a]\n\t"
      "adcq %[w5], %[w0]\n\t"
      "adcq %[w6], %[w1]\n\t"
      "adcq %[w7], %[w2]\n\t"
      PL_ADX_FINAL("a", "w0", "w1", "w2")
      : [w0] "=&r"(w0), [w1] "=&r"(w1), [w2] "=&r"(w2), [w3] "=&r"(w3), [w4] "=&r"(w4), [w5] "=&r"(w5),
        [w6] "=&r"(w6), [w7] "=&r"(w7), [lo] "=&r"(lo), [hi] "=&r"(hi), [z] "=&r"(z), [a] "+&r"(ap)
      : [r0] "m"(kFr.r[0]), [r1] "m"(kFr.r[1]), [r2] "m"(kFr.r[2]), [r3] "m"(kFr.r[3]), [inv] "m"(kFr.inv),
        "m"(*reinterpret_cast<const std::uint64_t(*)[4]>(a.l))
      : "rdx", "cc");
  return elem{{ap, w0, w1, w2}};
}

// t[0..5] += a * w: one word of a product sum, four-word a.
inline void muladd6(std::uint64_t (&t)[6], const std::uint64_t* a, std::uint64_t w) {
  std::uint64_t lo, hi, z;
  __asm__(
      "xorl %k[z], %k[z]\n\t"
      "mulxq 0(%[a]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t0]\n\t"
      "adoxq %[hi], %[t1]\n\t"
      "mulxq 8(%[a]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t1]\n\t"
      "adoxq %[hi], %[t2]\n\t"
      "mulxq 16(%[a]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t2]\n\t"
      "adoxq %[hi], %[t3]\n\t"
      "mulxq 24(%[a]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t3]\n\t"
      "adoxq %[hi], %[t4]\n\t"
      "adcxq %[z], %[t4]\n\t"
      "adoxq %[z], %[t5]\n\t"
      "adcxq %[z], %[t5]\n\t"
      : [t0] "+r"(t[0]), [t1] "+r"(t[1]), [t2] "+r"(t[2]), [t3] "+r"(t[3]), [t4] "+r"(t[4]), [t5] "+r"(t[5]),
        [lo] "=&r"(lo), [hi] "=&r"(hi), [z] "=&r"(z)
      : [a] "r"(a), "d"(w), "m"(*reinterpret_cast<const std::uint64_t(*)[4]>(a))
      : "cc");
}

// t = (t + (t[0] * inv) r) / 2^64 over six words.
inline void red6(std::uint64_t (&t)[6]) {
  std::uint64_t lo, hi, z;
  __asm__(
      "movq %[t0], %%rdx\n\t"
      "imulq %[inv], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[r0], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t0]\n\t"
      "adoxq %[hi], %[t1]\n\t"
      "mulxq %[r1], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t1]\n\t"
      "adoxq %[hi], %[t2]\n\t"
      "mulxq %[r2], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t2]\n\t"
      "adoxq %[hi], %[t3]\n\t"
      "mulxq %[r3], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t3]\n\t"
      "adoxq %[hi], %[t4]\n\t"
      "adcxq %[z], %[t4]\n\t"
      "adoxq %[z], %[t5]\n\t"
      "adcxq %[z], %[t5]\n\t"
      : [t0] "+r"(t[0]), [t1] "+r"(t[1]), [t2] "+r"(t[2]), [t3] "+r"(t[3]), [t4] "+r"(t[4]), [t5] "+r"(t[5]),
        [lo] "=&r"(lo), [hi] "=&r"(hi), [z] "=&r"(z)
      : [r0] "m"(kFr.r[0]), [r1] "m"(kFr.r[1]), [r2] "m"(kFr.r[2]), [r3] "m"(kFr.r[3]), [inv] "m"(kFr.inv)
      : "rdx", "cc");
  t[0] = t[1];
  t[1] = t[2];
  t[2] = t[3];
  t[3] = t[4];
  t[4] = t[5];
  t[5] = 0;
}

// 2^k r for k = 0..4, five words each.
struct shifted_moduli {
  std::uint64_t v[5][5];
};
inline constexpr shifted_moduli make_shifted_moduli() {
  shifted_moduli m{};
  for (int k = 0; k < 5; ++k) {
    m.v[k][0] = kFr.r[0] << k;
    for (int j = 1; j < 4; ++j) m.v[k][j] = k == 0 ? kFr.r[j] : (kFr.r[j] << k) | (kFr.r[j - 1] >> (64 - k));
    m.v[k][4] = k == 0 ? 0 : kFr.r[3] >> (64 - k);
  }
  return m;
}
alignas(64) inline constexpr shifted_moduli kShiftedR = make_shifted_moduli();

// t[0..4] -= s where that does not go below zero.
inline void sub_if_fits(std::uint64_t (&t)[6], const std::uint64_t* s) {
  std::uint64_t d0 = t[0], d1 = t[1], d2 = t[2], d3 = t[3], d4 = t[4];
  __asm__(
      "subq 0(%[s]), %[d0]\n\t"
      "sbbq 8(%[s]), %[d1]\n\t"
      "sbbq 16(%[s]), %[d2]\n\t"
      "sbbq 24(%[s]), %[d3]\n\t"
      "sbbq 32(%[s]), %[d4]\n\t"
      "cmovncq %[d0], %[t0]\n\t"
      "cmovncq %[d1], %[t1]\n\t"
      "cmovncq %[d2], %[t2]\n\t"
      "cmovncq %[d3], %[t3]\n\t"
      "cmovncq %[d4], %[t4]\n\t"
      : [t0] "+r"(t[0]), [t1] "+r"(t[1]), [t2] "+r"(t[2]), [t3] "+r"(t[3]), [t4] "+r"(t[4]), [d0] "+&r"(d0),
        [d1] "+&r"(d1), [d2] "+&r"(d2), [d3] "+&r"(d3), [d4] "+&r"(d4)
      : [s] "r"(s), "m"(*reinterpret_cast<const std::uint64_t(*)[5]>(s))
      : "cc");
}

// sum over k < n of c[k * stride] * s[k] * 2^-256, canonical, with one reduction: the
// interleaved form with all n products added per word of s before that word's reduction
// step. For c[k] < r (any s[k]) the sum stays below (n + 1) r: six words in the steps,
// and conditional subtractions of 2^j r, j = K - 1 .. 0 with n + 1 <= 2^K, make it
// canonical (n < 32).
inline elem dot(const elem* c, std::size_t stride, const elem* s, int n) {
  std::uint64_t t[6] = {};
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < n; ++k) muladd6(t, c[static_cast<std::size_t>(k) * stride].l, s[k].l[i]);
    red6(t);
  }
  int steps = 0;
  while ((1 << steps) < n + 1) ++steps;
  for (int k = steps - 1; k >= 0; --k) sub_if_fits(t, kShiftedR.v[k]);
  return elem{{t[0], t[1], t[2], t[3]}};
}

#undef PL_ADX_RED
#undef PL_ADX_MULADD
#undef PL_ADX_FINAL

}  // namespace poreplab::cpu::detail::adx
#endif
