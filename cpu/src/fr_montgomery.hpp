#pragma once
// Private to poreplab_cpu: the encoding ablation's "montgomery" path. The 2019 r2 code
// added key and node in the field by converting both into Montgomery form (a multiply
// by R^2 mod r each), adding, and converting back (a multiply by 1); the 2019
// Supranational report removed that round trip for a plain add with a conditional
// subtract (fr::add). Same result, kept only to measure what the removal gained.
#include <cstdint>

#include "poreplab/field/fr.hpp"

namespace poreplab::cpu::detail {

// -r^-1 mod 2^64 and R^2 mod r for R = 2^256 (little-endian limbs).
inline constexpr std::uint64_t kFrInv = 0xfffffffeffffffffull;
inline constexpr std::uint64_t kFrR2[4] = {0xc999e990f3f29c6dull, 0x2b6cedcb87925c23ull, 0x05d314967254398full,
                                           0x0748d9d99f59ff11ull};

// out = a * b * R^-1 mod r (CIOS), for a, b < r.
inline void fr_mont_mul(const std::uint64_t a[4], const std::uint64_t b[4], std::uint64_t out[4]) {
  __extension__ typedef unsigned __int128 u128;  // GCC/Clang; -Wpedantic knows no 128-bit type
  std::uint64_t t[6] = {};
  for (int i = 0; i < 4; ++i) {
    std::uint64_t carry = 0;
    for (int j = 0; j < 4; ++j) {
      const u128 s = static_cast<u128>(a[j]) * b[i] + t[j] + carry;
      t[j] = static_cast<std::uint64_t>(s);
      carry = static_cast<std::uint64_t>(s >> 64);
    }
    u128 s = static_cast<u128>(t[4]) + carry;
    t[4] = static_cast<std::uint64_t>(s);
    t[5] = static_cast<std::uint64_t>(s >> 64);
    const std::uint64_t m = t[0] * kFrInv;
    s = static_cast<u128>(m) * fr::modulus_limb(0) + t[0];
    carry = static_cast<std::uint64_t>(s >> 64);
    for (int j = 1; j < 4; ++j) {
      s = static_cast<u128>(m) * fr::modulus_limb(j) + t[j] + carry;
      t[j - 1] = static_cast<std::uint64_t>(s);
      carry = static_cast<std::uint64_t>(s >> 64);
    }
    s = static_cast<u128>(t[4]) + carry;
    t[3] = static_cast<std::uint64_t>(s);
    t[4] = t[5] + static_cast<std::uint64_t>(s >> 64);
  }
  std::uint64_t x[4] = {t[0], t[1], t[2], t[3]};
  if (t[4] != 0 || fr::geq_modulus(x)) {
    std::uint64_t r[4];
    for (int i = 0; i < 4; ++i) r[i] = fr::modulus_limb(i);
    fr::sub_limbs(x, r);
  }
  for (int i = 0; i < 4; ++i) out[i] = x[i];
}

// out = (a + b) mod r through Montgomery form, as the 2019 r2 encoder did.
inline void fr_add_montgomery(const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* out) {
  std::uint64_t x[4], y[4], r[4];
  fr::load(a, x);
  fr::load(b, y);
  fr_mont_mul(x, kFrR2, x);  // into Montgomery form: x R
  fr_mont_mul(y, kFrR2, y);
  fr::add_limbs(x, y);
  if (fr::geq_modulus(x)) {
    for (int i = 0; i < 4; ++i) r[i] = fr::modulus_limb(i);
    fr::sub_limbs(x, r);
  }
  const std::uint64_t one[4] = {1, 0, 0, 0};
  fr_mont_mul(x, one, x);  // out of Montgomery form
  fr::store(out, x);
}

}  // namespace poreplab::cpu::detail
