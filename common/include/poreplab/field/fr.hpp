#pragma once
// BLS12-381 scalar field Fr in normal (not Montgomery) form, 32-byte little-endian
// elements: just what replica encoding needs (add, subtract, range check).
#include <cstdint>

#include "poreplab/hash/bytes.hpp"
#include "poreplab/hd.hpp"

namespace poreplab::fr {

// r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001, LE limbs.
POREPLAB_HD std::uint64_t modulus_limb(int i) {
  constexpr std::uint64_t r[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                                  0x73eda753299d7d48ull};
  return r[i];
}

POREPLAB_HD void load(const std::uint8_t* p, std::uint64_t x[4]) {
  POREPLAB_UNROLL
  for (int i = 0; i < 4; ++i) x[i] = load_le64(p + 8 * i);
}

POREPLAB_HD void store(std::uint8_t* p, const std::uint64_t x[4]) {
  POREPLAB_UNROLL
  for (int i = 0; i < 4; ++i) store_le64(p + 8 * i, x[i]);
}

// x >= r ?
POREPLAB_HD bool geq_modulus(const std::uint64_t x[4]) {
  for (int i = 3; i >= 0; --i) {
    if (x[i] != modulus_limb(i)) return x[i] > modulus_limb(i);
  }
  return true;
}

POREPLAB_HD bool is_canonical(const std::uint8_t* p) {
  std::uint64_t x[4];
  load(p, x);
  return !geq_modulus(x);
}

// x -= y over 4 limbs; returns the borrow out.
POREPLAB_HD std::uint64_t sub_limbs(std::uint64_t x[4], const std::uint64_t y[4]) {
  std::uint64_t borrow = 0;
  POREPLAB_UNROLL
  for (int i = 0; i < 4; ++i) {
    const std::uint64_t yi = y[i] + borrow;
    const std::uint64_t carry_in = yi < borrow;  // y[i] + borrow wrapped
    const std::uint64_t out = x[i] - yi;
    borrow = carry_in | (x[i] < yi);
    x[i] = out;
  }
  return borrow;
}

// x += y over 4 limbs; returns the carry out.
POREPLAB_HD std::uint64_t add_limbs(std::uint64_t x[4], const std::uint64_t y[4]) {
  std::uint64_t carry = 0;
  POREPLAB_UNROLL
  for (int i = 0; i < 4; ++i) {
    const std::uint64_t s = x[i] + y[i];
    const std::uint64_t c1 = s < x[i];
    const std::uint64_t s2 = s + carry;
    carry = c1 | (s2 < s);
    x[i] = s2;
  }
  return carry;
}

// out = (a + b) mod r for canonical a, b (2r < 2^256, so the sum never overflows).
POREPLAB_HD void add(const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* out) {
  std::uint64_t x[4], y[4], r[4];
  load(a, x);
  load(b, y);
  add_limbs(x, y);
  if (geq_modulus(x)) {
    POREPLAB_UNROLL
    for (int i = 0; i < 4; ++i) r[i] = modulus_limb(i);
    sub_limbs(x, r);
  }
  store(out, x);
}

// out = (a - b) mod r for canonical a, b.
POREPLAB_HD void sub(const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* out) {
  std::uint64_t x[4], y[4], r[4];
  load(a, x);
  load(b, y);
  if (sub_limbs(x, y) != 0) {
    POREPLAB_UNROLL
    for (int i = 0; i < 4; ++i) r[i] = modulus_limb(i);
    add_limbs(x, r);
  }
  store(out, x);
}

}  // namespace poreplab::fr
