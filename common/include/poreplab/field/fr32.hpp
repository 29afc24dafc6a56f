#pragma once
// BLS12-381 Fr in Montgomery form as a GPU computes it: eight little-endian 32-bit words.
// R = 2^256 as in fr_mont.hpp, so an element has the same bits in both forms. The
// multiply is built from one row operation, acc += x * y for a 32-bit y, which the
// device runs as two PTX multiply-add carry chains and the host as the same sum in
// 64-bit arithmetic: cuda-emu runs every other instruction of the device code as is.
#include <cstdint>

#include "poreplab/field/fr.hpp"
#include "poreplab/field/fr_mont.hpp"
#include "poreplab/hd.hpp"

// A device call rather than an inline copy: the multiply is ~300 instructions and a
// Poseidon permutation makes hundreds of calls, which inlined would bloat the kernels
// (and their compile) past any gain.
#if defined(__CUDACC__)
#define POREPLAB_FR32_CALL __host__ __device__ __noinline__ inline
#else
#define POREPLAB_FR32_CALL inline
#endif

namespace poreplab::fr32 {

struct elem {
  std::uint32_t w[8];
};

POREPLAB_HD std::uint32_t modulus_word(int i) {
  return static_cast<std::uint32_t>(fr::modulus_limb(i / 2) >> (32 * (i % 2)));
}

// The device code of mad_row, reduce_once and add as PTX text: operand %n is the n-th of
// the asm statement's outputs then inputs. Macros, so that a host test can run the same
// text through a PTX interpreter: cuda-emu runs the host branches, not these.
//
// acc[0..9] += x[0..7] * y in two carry chains: the even words' products, then the odd
// words', each product's low and high halves adjacent (acc[j] and acc[j + 1]), which
// ptxas fuses into one wide multiply-add with carry instead of a multiply and a separate
// carry add per half.
#define POREPLAB_FR32_MAD_ROW_PTX          \
  "mad.lo.cc.u32 %0, %10, %18, %0;\n\t"   \
  "madc.hi.cc.u32 %1, %10, %18, %1;\n\t"  \
  "madc.lo.cc.u32 %2, %12, %18, %2;\n\t"  \
  "madc.hi.cc.u32 %3, %12, %18, %3;\n\t"  \
  "madc.lo.cc.u32 %4, %14, %18, %4;\n\t"  \
  "madc.hi.cc.u32 %5, %14, %18, %5;\n\t"  \
  "madc.lo.cc.u32 %6, %16, %18, %6;\n\t"  \
  "madc.hi.cc.u32 %7, %16, %18, %7;\n\t"  \
  "addc.cc.u32 %8, %8, 0;\n\t"            \
  "addc.u32 %9, %9, 0;\n\t"               \
  "mad.lo.cc.u32 %1, %11, %18, %1;\n\t"   \
  "madc.hi.cc.u32 %2, %11, %18, %2;\n\t"  \
  "madc.lo.cc.u32 %3, %13, %18, %3;\n\t"  \
  "madc.hi.cc.u32 %4, %13, %18, %4;\n\t"  \
  "madc.lo.cc.u32 %5, %15, %18, %5;\n\t"  \
  "madc.hi.cc.u32 %6, %15, %18, %6;\n\t"  \
  "madc.lo.cc.u32 %7, %17, %18, %7;\n\t"  \
  "madc.hi.cc.u32 %8, %17, %18, %8;\n\t"  \
  "addc.u32 %9, %9, 0;"

// y = x - r over eight words (%0..%7 from x %9..%16 and r %17..%24), %8 all ones on a borrow.
#define POREPLAB_FR32_SUB_MODULUS_PTX \
  "sub.cc.u32 %0, %9, %17;\n\t"     \
  "subc.cc.u32 %1, %10, %18;\n\t"   \
  "subc.cc.u32 %2, %11, %19;\n\t"   \
  "subc.cc.u32 %3, %12, %20;\n\t"   \
  "subc.cc.u32 %4, %13, %21;\n\t"   \
  "subc.cc.u32 %5, %14, %22;\n\t"   \
  "subc.cc.u32 %6, %15, %23;\n\t"   \
  "subc.cc.u32 %7, %16, %24;\n\t"   \
  "subc.u32 %8, 0, 0;"

// c (%0..%7) = a (%8..%15) + b (%16..%23) over eight words, the carry out dropped.
#define POREPLAB_FR32_ADD_PTX     \
  "add.cc.u32 %0, %8, %16;\n\t"  \
  "addc.cc.u32 %1, %9, %17;\n\t" \
  "addc.cc.u32 %2, %10, %18;\n\t" \
  "addc.cc.u32 %3, %11, %19;\n\t" \
  "addc.cc.u32 %4, %12, %20;\n\t" \
  "addc.cc.u32 %5, %13, %21;\n\t" \
  "addc.cc.u32 %6, %14, %22;\n\t" \
  "addc.u32 %7, %15, %23;"

// acc[0..9] += x[0..7] * y, as one 320-bit sum; the caller keeps it below 2^320.
POREPLAB_HD void mad_row(std::uint32_t acc[10], const std::uint32_t x[8], std::uint32_t y) {
#if defined(__CUDA_ARCH__)
  // One asm statement: the carry flag never crosses a statement the compiler could reorder.
  asm(POREPLAB_FR32_MAD_ROW_PTX
      : "+r"(acc[0]), "+r"(acc[1]), "+r"(acc[2]), "+r"(acc[3]), "+r"(acc[4]), "+r"(acc[5]), "+r"(acc[6]),
        "+r"(acc[7]), "+r"(acc[8]), "+r"(acc[9])
      : "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(x[4]), "r"(x[5]), "r"(x[6]), "r"(x[7]), "r"(y));
#else
  std::uint64_t carry = 0;
  for (int j = 0; j < 8; ++j) {
    // (2^32 - 1)^2 + 2 (2^32 - 1) = 2^64 - 1: never wraps.
    const std::uint64_t t = static_cast<std::uint64_t>(x[j]) * y + acc[j] + carry;
    acc[j] = static_cast<std::uint32_t>(t);
    carry = t >> 32;
  }
  const std::uint64_t t8 = acc[8] + carry;
  acc[8] = static_cast<std::uint32_t>(t8);
  acc[9] += static_cast<std::uint32_t>(t8 >> 32);
#endif
}

// x mod r for x < 2r, without branches (a warp would diverge on them).
POREPLAB_HD void reduce_once(std::uint32_t x[8]) {
  std::uint32_t y[8];
  std::uint32_t keep;  // all ones: x < r, keep x
#if defined(__CUDA_ARCH__)
  asm(POREPLAB_FR32_SUB_MODULUS_PTX
      : "=r"(y[0]), "=r"(y[1]), "=r"(y[2]), "=r"(y[3]), "=r"(y[4]), "=r"(y[5]), "=r"(y[6]), "=r"(y[7]), "=r"(keep)
      : "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(x[4]), "r"(x[5]), "r"(x[6]), "r"(x[7]), "n"(0x00000001u),
        "n"(0xffffffffu), "n"(0xfffe5bfeu), "n"(0x53bda402u), "n"(0x09a1d805u), "n"(0x3339d808u), "n"(0x299d7d48u),
        "n"(0x73eda753u));
#else
  std::uint32_t borrow = 0;
  for (int i = 0; i < 8; ++i) {
    const std::uint64_t d = static_cast<std::uint64_t>(x[i]) - modulus_word(i) - borrow;
    y[i] = static_cast<std::uint32_t>(d);
    borrow = static_cast<std::uint32_t>(d >> 63);
  }
  keep = 0u - borrow;
#endif
  POREPLAB_UNROLL
  for (int i = 0; i < 8; ++i) x[i] = (x[i] & keep) | (y[i] & ~keep);
}

// 2r < 2^256: the sum of two reduced elements never carries out of eight words.
POREPLAB_HD elem add(const elem& a, const elem& b) {
  elem c;
#if defined(__CUDA_ARCH__)
  asm(POREPLAB_FR32_ADD_PTX
      : "=r"(c.w[0]), "=r"(c.w[1]), "=r"(c.w[2]), "=r"(c.w[3]), "=r"(c.w[4]), "=r"(c.w[5]), "=r"(c.w[6]), "=r"(c.w[7])
      : "r"(a.w[0]), "r"(a.w[1]), "r"(a.w[2]), "r"(a.w[3]), "r"(a.w[4]), "r"(a.w[5]), "r"(a.w[6]), "r"(a.w[7]),
        "r"(b.w[0]), "r"(b.w[1]), "r"(b.w[2]), "r"(b.w[3]), "r"(b.w[4]), "r"(b.w[5]), "r"(b.w[6]), "r"(b.w[7]));
#else
  std::uint32_t carry = 0;
  for (int i = 0; i < 8; ++i) {
    const std::uint64_t s = static_cast<std::uint64_t>(a.w[i]) + b.w[i] + carry;
    c.w[i] = static_cast<std::uint32_t>(s);
    carry = static_cast<std::uint32_t>(s >> 32);
  }
#endif
  reduce_once(c.w);
  return c;
}

// a * b * 2^-256 mod r by coarsely integrated operand scanning over 32-bit words: per
// word of b, add a * b[i], then m * r with m making the low word vanish, and drop that
// word. The running sum stays below 2r + 2^33 r < 2^290, inside the ten words.
POREPLAB_FR32_CALL elem mul(elem a, elem b) {
  std::uint32_t r[8];
  POREPLAB_UNROLL
  for (int i = 0; i < 8; ++i) r[i] = modulus_word(i);
  std::uint32_t acc[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  POREPLAB_UNROLL
  for (int i = 0; i < 8; ++i) {
    mad_row(acc, a.w, b.w[i]);
    // -r^-1 mod 2^32 is 2^32 - 1 (r's low word is 1): m = -acc[0].
    const std::uint32_t m = 0u - acc[0];
    mad_row(acc, r, m);
    POREPLAB_UNROLL
    for (int j = 0; j < 9; ++j) acc[j] = acc[j + 1];
    acc[9] = 0;
  }
  // The result is below 2r < 2^256: acc[8] is zero.
  elem c;
  POREPLAB_UNROLL
  for (int i = 0; i < 8; ++i) c.w[i] = acc[i];
  reduce_once(c.w);
  return c;
}

POREPLAB_HD elem sqr(const elem& a) { return mul(a, a); }

// The same bits as a four-limb element.
POREPLAB_HD elem from_limbs(const fr::mont::elem& a) {
  elem c;
  POREPLAB_UNROLL
  for (int i = 0; i < 4; ++i) {
    c.w[2 * i] = static_cast<std::uint32_t>(a.l[i]);
    c.w[2 * i + 1] = static_cast<std::uint32_t>(a.l[i] >> 32);
  }
  return c;
}
POREPLAB_HD fr::mont::elem to_limbs(const elem& a) {
  fr::mont::elem c;
  POREPLAB_UNROLL
  for (int i = 0; i < 4; ++i) c.l[i] = a.w[2 * i] | static_cast<std::uint64_t>(a.w[2 * i + 1]) << 32;
  return c;
}

// A canonical 32-byte little-endian element (the caller checked it is below r) into
// Montgomery form: x * R^2 * R^-1.
POREPLAB_HD elem from_bytes(const std::uint8_t* p) {
  elem x, r2;
  POREPLAB_UNROLL
  for (int i = 0; i < 8; ++i) {
    x.w[i] = load_le32(p + 4 * i);
    r2.w[i] = static_cast<std::uint32_t>(fr::mont::r2_limb(i / 2) >> (32 * (i % 2)));
  }
  return mul(x, r2);
}

POREPLAB_HD void to_bytes(const elem& a, std::uint8_t* p) {
  const elem one_word{{1, 0, 0, 0, 0, 0, 0, 0}};
  const elem c = mul(a, one_word);
  POREPLAB_UNROLL
  for (int i = 0; i < 8; ++i) store_le32(p + 4 * i, c.w[i]);
}

// The operations poseidon::optimized_rounds runs on.
struct ops {
  using elem = fr32::elem;
  POREPLAB_HD static elem mul(const elem& a, const elem& b) { return fr32::mul(a, b); }
  POREPLAB_HD static elem sqr(const elem& a) { return fr32::mul(a, a); }
  POREPLAB_HD static elem add(const elem& a, const elem& b) { return fr32::add(a, b); }
};

}  // namespace poreplab::fr32
