#pragma once
// Private to poreplab_cpu: the per-ISA Poseidon kernels behind poseidon_engines.cpp. Each
// is defined in the one file compiled with its ISA's flags; the interface holds only
// plain pointers, so no inline library code is instantiated under those flags for others.
#include <cstddef>
#include <cstdint>

namespace poreplab::cpu::kernels {

// One arity's constants for the AVX-512 IFMA engine: elements in radix 2^52 (five words,
// least significant first), Montgomery form with R = 2^260, each canonical (< r).
struct ifma_poseidon_constants {
  int arity = 0;
  int width = 0;  // t = arity + 1, at most kIfmaMaxWidth
  int full_rounds = 0;
  int partial_rounds = 0;
  const std::uint64_t* state0 = nullptr;      // the domain tag plus the first round key
  const std::uint64_t* first_keys = nullptr;  // t: the first round keys (element 0 unused)
  const std::uint64_t* round_keys = nullptr;  // compressed round constants after the first t
  const std::uint64_t* mds = nullptr;         // t * t
  const std::uint64_t* pre_sparse = nullptr;  // t * t
  const std::uint64_t* w_hat = nullptr;       // R_P * t
  const std::uint64_t* v_rest = nullptr;      // R_P * (t - 1)
};

// The kernel's lazy bounds (sums of t products reduced once, values of a few r; checked by
// poseidon_ifma_bounds.py) are worked out for widths 3, 5, 9 and 12 (arities 2, 4, 8, 11).
inline constexpr int kIfmaMaxWidth = 12;
inline constexpr std::size_t kIfmaLanes = 8;

// out[32 i] = Poseidon(in[0] + i * stride, .., in[arity - 1] + i * stride) for i < n: 32-byte
// little-endian canonical elements in and out, any n (a short last group is padded).
void poseidon_ifma(const ifma_poseidon_constants& c, const std::uint8_t* const* in, std::size_t stride, std::size_t n,
                   std::uint8_t* out);

// For tests and benchmarks: out[i] = a[i] * b[i] * 2^-256 mod r (fr::mont::mul's result,
// canonical), or a[i]^2 * 2^-256 when b is null; four words each, a[i] * b[i] < r 2^260.
void fr_mul_ifma(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* out, std::size_t n);
// x[j] = x[j] * y[j % 8]^reps mod r (plain residues, canonical) for j < chains: chains / 8
// (1, 2, 4 or 8) independent zmm chains of `reps` dependent Montgomery multiplies.
void fr_mul_chain_ifma(std::uint64_t* x, const std::uint64_t* y, std::size_t chains, std::size_t reps);
// States x (`chains` of c.width elements, plain canonical residues) = M^reps x, M the dense
// MDS matrix as the rounds apply it (each row's sum of products reduced once); eight states
// a group, up to four groups in step.
void fr_matrix_chain_ifma(const ifma_poseidon_constants& c, std::uint64_t* x, std::size_t chains, std::size_t reps);

}  // namespace poreplab::cpu::kernels
