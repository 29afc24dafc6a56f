#!/usr/bin/env python3
"""Worst-case value bounds through poseidon_ifma.cpp's permutation.

The IFMA kernel keeps values below a few r instead of below r. A reduction of T (a sum of
products, R = 2^260) returns T / R + r at most, and only returns a value below 2r when
T < R r; it is also correct only while its inputs fit five 52-bit limbs (below R). This
propagates upper bounds, in units of r, through every step for each width the kernel
runs, with its schedule of lazy sparse rounds (kLazyRounds), and fails when either limit
could be reached. Constants and inputs are canonical (below r). Run: python3 this file.
"""
import sys

R_MOD = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
R = 2**260
Q = R_MOD / R * (1 + 1e-12)  # r / R, rounded up
LAZY_ROUNDS = {3: 12, 5: 5, 9: 2, 12: 1}  # must match kLazyRounds<T>
PARTIAL_ROUNDS = {3: 55, 5: 56, 9: 57, 12: 57}
FULL_ROUNDS = 8


def check(t):
    worst_t = 0.0  # largest T / (R r) reduced
    worst_v = 0.0  # largest value / r

    def reduce(products):  # products: T in units of r^2
        nonlocal worst_t
        worst_t = max(worst_t, products * Q)
        if products * Q >= 1:
            raise AssertionError(f"width {t}: a sum of products reaches r 2^260")
        return value(products * Q + 1)

    def value(v):
        nonlocal worst_v
        worst_v = max(worst_v, v)
        if v * R_MOD >= R:
            raise AssertionError(f"width {t}: a value reaches 2^260")
        return v

    def pow5(x, key):
        x2 = reduce(x * x)
        x4 = reduce(x2 * x2)
        return value(reduce(x4 * x) + (1 if key else 0))

    def matrix(s):
        return [reduce(t * max(s)) for _ in range(t)]

    s = [1.0] + [value(reduce(1.0) + 1) for _ in range(t - 1)]  # tag + key; inputs in
    half = FULL_ROUNDS // 2
    for _ in range(half):
        s = matrix([pow5(x, True) for x in s])
    lazy, rounds = LAZY_ROUNDS[t], PARTIAL_ROUNDS[t]
    for r in range(rounds):
        s[0] = pow5(s[0], True)
        first = reduce(sum(s))
        reducing = r % (lazy + 1) == lazy or r == rounds - 1
        for j in range(1, t):
            s[j] = reduce(s[j] + s[0]) if reducing else value(reduce(s[0]) + s[j])
        s[0] = first
    for _ in range(half - 1):
        s = matrix([pow5(x, True) for x in s])
    reduce(t * max(pow5(x, False) for x in s))
    return worst_t, worst_v


def main():
    for t in sorted(LAZY_ROUNDS):
        worst_t, worst_v = check(t)
        print(f"width {t:2}: largest sum of products {worst_t:.3f} r 2^260, largest value {worst_v:.2f} r")
    return 0


if __name__ == "__main__":
    sys.exit(main())
