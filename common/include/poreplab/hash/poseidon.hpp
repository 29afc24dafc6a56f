#pragma once
// Poseidon over BLS12-381 Fr as neptune (the crate rust-fil-proofs 19.1 uses) defines it
// for HashType::MerkleTree at Standard strength: width t = arity + 1, x^5 S-box, 8 full
// rounds around R_P partial ones, Grain-LFSR round constants, a Cauchy MDS matrix, and
// state[0] = 2^arity - 1 as the domain tag. docs/spec/pc2.md has the details.
#include <cstdint>
#include <vector>

#include "poreplab/field/fr_mont.hpp"

namespace poreplab::poseidon {

using fr::mont::elem;

inline constexpr int kMaxWidth = 17;

// Everything both hash forms need for one arity, in Montgomery form; matrices row-major.
struct constants {
  int arity = 0;
  int width = 0;           // t = arity + 1
  int full_rounds = 0;     // R_F
  int partial_rounds = 0;  // R_P
  elem domain_tag{};
  std::vector<elem> round_constants;  // (R_F + R_P) * t, as generated
  std::vector<elem> mds;              // t * t, M[i][j] = 1 / (i + t + j)
  // neptune's optimized form: constants pushed through the linear layers, the partial
  // rounds' dense MDS factored into one pre-sparse matrix and R_P sparse ones.
  std::vector<elem> compressed_round_constants;  // R_F * t + R_P
  std::vector<elem> pre_sparse;                  // t * t
  std::vector<elem> sparse_w_hat;                // R_P rows of t: each sparse matrix's first column
  std::vector<elem> sparse_v_rest;               // R_P rows of t - 1: its first row after [0][0]
};

// Arities 2, 4, 8, 11 and 16. (R_F, R_P) = (8, 55 / 56 / 57 / 57 / 59).
bool supported_arity(int arity);
// Built once per arity at first use (thread-safe), then shared. Throws
// std::invalid_argument for an unsupported arity.
const constants& constants_for(int arity);

// The raw generator, for checks against published parameter files: (R_F + R_P) * t
// elements from the Grain LFSR seeded with (field 1, S-box 1, 255 bits, t, R_F, R_P).
std::vector<elem> generate_round_constants(int t, int full_rounds, int partial_rounds);

// Montgomery-form API: `preimage` holds c.arity elements. The optimized form is what
// neptune runs; the plain form is the textbook permutation, kept as the reference.
elem hash(const constants& c, const elem* preimage);
elem hash_plain(const constants& c, const elem* preimage);

// Byte API: `preimage` holds `arity` canonical 32-byte little-endian elements, `out`
// receives 32 bytes. Throws std::invalid_argument naming the input index when one is
// not canonical (>= r).
void hash_bytes(int arity, const std::uint8_t* preimage, std::uint8_t* out);

}  // namespace poreplab::poseidon
