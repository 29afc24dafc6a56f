#pragma once
// BLS12-381 Fr in Montgomery form (x stored as x * 2^256 mod r, four little-endian
// 64-bit limbs), for Poseidon. Canonical 32-byte little-endian elements (fr.hpp) enter
// and leave through from_bytes / to_bytes.
#include <cstdint>

#include "poreplab/field/fr.hpp"
#include "poreplab/hd.hpp"

namespace poreplab::fr::mont {

struct elem {
  std::uint64_t l[4];
};

// -r^-1 mod 2^64, and R mod r, R^2 mod r for R = 2^256.
inline constexpr std::uint64_t kInv = 0xfffffffeffffffffull;
POREPLAB_HD std::uint64_t r_mod_limb(int i) {
  constexpr std::uint64_t v[4] = {0x00000001fffffffeull, 0x5884b7fa00034802ull, 0x998c4fefecbc4ff5ull,
                                  0x1824b159acc5056full};
  return v[i];
}
POREPLAB_HD std::uint64_t r2_limb(int i) {
  constexpr std::uint64_t v[4] = {0xc999e990f3f29c6dull, 0x2b6cedcb87925c23ull, 0x05d314967254398full,
                                  0x0748d9d99f59ff11ull};
  return v[i];
}

// (hi, lo) = a * b + c + d; never overflows 128 bits.
POREPLAB_HD void mul_add2(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d, std::uint64_t& hi,
                          std::uint64_t& lo) {
#if defined(__CUDA_ARCH__)
  std::uint64_t l = a * b;
  std::uint64_t h = __umul64hi(a, b);
  l += c;
  h += l < c;
  l += d;
  h += l < d;
  hi = h;
  lo = l;
#else
  __extension__ typedef unsigned __int128 u128;  // -Wpedantic has no 128-bit type
  const u128 t = static_cast<u128>(a) * b + c + d;
  hi = static_cast<std::uint64_t>(t >> 64);
  lo = static_cast<std::uint64_t>(t);
#endif
}

POREPLAB_HD elem zero() { return elem{{0, 0, 0, 0}}; }
POREPLAB_HD elem one() { return elem{{r_mod_limb(0), r_mod_limb(1), r_mod_limb(2), r_mod_limb(3)}}; }

POREPLAB_HD bool eq(const elem& a, const elem& b) {
  return a.l[0] == b.l[0] && a.l[1] == b.l[1] && a.l[2] == b.l[2] && a.l[3] == b.l[3];
}
POREPLAB_HD bool is_zero(const elem& a) { return (a.l[0] | a.l[1] | a.l[2] | a.l[3]) == 0; }

// (hi:x) mod r for (hi:x) < 2r, without branches: a data-dependent branch here would
// be mispredicted half the time.
POREPLAB_HD void reduce_once(std::uint64_t x[4], std::uint64_t hi = 0) {
  std::uint64_t y[4], r[4];
  POREPLAB_UNROLL
  for (int i = 0; i < 4; ++i) {
    y[i] = x[i];
    r[i] = modulus_limb(i);
  }
  const std::uint64_t borrow = sub_limbs(y, r);
  const std::uint64_t keep = 0 - (borrow & (hi ^ 1));  // all ones: x < r
  POREPLAB_UNROLL
  for (int i = 0; i < 4; ++i) x[i] = (x[i] & keep) | (y[i] & ~keep);
}

// 2r < 2^256, so the sum of two reduced elements never carries out of four limbs.
POREPLAB_HD elem add(const elem& a, const elem& b) {
  elem c = a;
  add_limbs(c.l, b.l);
  reduce_once(c.l);
  return c;
}

POREPLAB_HD elem sub(const elem& a, const elem& b) {
  elem c = a;
  const std::uint64_t mask = 0 - sub_limbs(c.l, b.l);  // all ones: went below zero, add r back
  std::uint64_t r[4];
  POREPLAB_UNROLL
  for (int i = 0; i < 4; ++i) r[i] = modulus_limb(i) & mask;
  add_limbs(c.l, r);
  return c;
}

POREPLAB_HD elem neg(const elem& a) { return sub(zero(), a); }

// a * b * R^-1 mod r by coarsely integrated operand scanning: per word b[i], add a * b[i]
// and reduce one word at once. r's top word is below 2^63 - 1, so the running sum never
// needs a fifth word (the "no-carry" CIOS of gnark-crypto).
POREPLAB_HD elem mul(const elem& a, const elem& b) {
  std::uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;
  POREPLAB_UNROLL
  for (int i = 0; i < 4; ++i) {
    const std::uint64_t bi = b.l[i];
    std::uint64_t A, C, lo;
    mul_add2(a.l[0], bi, t0, 0, A, t0);
    const std::uint64_t mq = t0 * kInv;  // makes the low word vanish
    mul_add2(mq, modulus_limb(0), t0, 0, C, lo);
    mul_add2(a.l[1], bi, t1, A, A, t1);
    mul_add2(mq, modulus_limb(1), t1, C, C, t0);
    mul_add2(a.l[2], bi, t2, A, A, t2);
    mul_add2(mq, modulus_limb(2), t2, C, C, t1);
    mul_add2(a.l[3], bi, t3, A, A, t3);
    mul_add2(mq, modulus_limb(3), t3, C, C, t2);
    t3 = C + A;
  }
  // t < 2r: at most one subtraction.
  elem c{{t0, t1, t2, t3}};
  reduce_once(c.l);
  return c;
}

POREPLAB_HD elem sqr(const elem& a) { return mul(a, a); }

// The Poseidon S-box.
POREPLAB_HD elem pow5(const elem& a) {
  const elem a2 = sqr(a);
  return mul(sqr(a2), a);
}

// a^e for a little-endian 256-bit exponent (square and multiply; not constant time).
POREPLAB_HD elem pow_vartime(const elem& a, const std::uint64_t e[4]) {
  elem acc = one();
  for (int i = 3; i >= 0; --i) {
    for (int bit = 63; bit >= 0; --bit) {
      acc = sqr(acc);
      if ((e[i] >> bit) & 1) acc = mul(acc, a);
    }
  }
  return acc;
}

// a^(r-2) = a^-1 for a != 0 (Fermat); 0 maps to 0.
POREPLAB_HD elem inverse(const elem& a) {
  std::uint64_t e[4];
  POREPLAB_UNROLL
  for (int i = 0; i < 4; ++i) e[i] = modulus_limb(i);
  e[0] -= 2;  // the low limb of r is 1 mod 2^32, so no borrow
  return pow_vartime(a, e);
}

// Canonical limbs (x < r) into Montgomery form: x * R^2 * R^-1.
POREPLAB_HD elem to_mont(const std::uint64_t x[4]) {
  const elem a{{x[0], x[1], x[2], x[3]}};
  const elem r2{{r2_limb(0), r2_limb(1), r2_limb(2), r2_limb(3)}};
  return mul(a, r2);
}

POREPLAB_HD void from_mont(const elem& a, std::uint64_t x[4]) {
  const elem c = mul(a, elem{{1, 0, 0, 0}});
  POREPLAB_UNROLL
  for (int i = 0; i < 4; ++i) x[i] = c.l[i];
}

POREPLAB_HD elem from_u64(std::uint64_t v) {
  const std::uint64_t x[4] = {v, 0, 0, 0};
  return to_mont(x);
}

// false (and `out` untouched) when the 32 bytes are not a canonical element (>= r).
POREPLAB_HD bool from_bytes(const std::uint8_t* p, elem& out) {
  std::uint64_t x[4];
  load(p, x);
  if (geq_modulus(x)) return false;
  out = to_mont(x);
  return true;
}

POREPLAB_HD void to_bytes(const elem& a, std::uint8_t* p) {
  std::uint64_t x[4];
  from_mont(a, x);
  store(p, x);
}

}  // namespace poreplab::fr::mont
