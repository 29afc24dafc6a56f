#pragma once
// Poseidon engines for PC2 (neptune's optimized form, bit-exact with poseidon::hash):
// every implementation behind one signature, listed best first and picked at run time
// from the CPU's features, or by name (POREPLAB_PC2_ENGINE). docs/pc2-cpu.md has the
// techniques and measurements.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "poreplab/sdr/pc2_build.hpp"

namespace poreplab::cpu {

// out + 32 i = Poseidon_arity(in[0] + i * stride, .., in[arity - 1] + i * stride) for
// i < n, 32-byte little-endian canonical elements in and out. Any arity poseidon
// supports, any n.
using poseidon_hash_fn = void (*)(int arity, const std::uint8_t* const* in, std::size_t stride, std::size_t n,
                                  std::uint8_t* out);
// For tests and benchmarks: out[i] = a[i] * b[i] * 2^-256 mod r (fr::mont::mul's result,
// canonical), or a[i]^2 * 2^-256 where b is null: four little-endian words per element,
// a[i] * b[i] < r 2^256 as fr::mont::mul needs (e.g. one below 2r, the other below r).
using fr_mul_fn = void (*)(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* out, std::size_t n);
// For benchmarks: x[j] = x[j] * y[j % lanes]^reps mod r for j < chains (plain residues,
// canonical, four words each): `chains` (lanes times 1, 2, 4 or 8) independent chains of
// `reps` dependent Montgomery multiplies, stepped together.
using fr_chain_fn = void (*)(std::uint64_t* x, const std::uint64_t* y, std::size_t chains, std::size_t reps);
// For benchmarks: x = M^reps x for `chains` independent states of `width` elements each
// (plain residues, canonical, four words; state j at x + 4 width j), M the dense MDS
// matrix of Poseidon of that width, each row summed as the engine's rounds sum it (one
// reduction a row where the engine reduces sums of products once): the engine's fastest
// products. Null where the engine has none measured.
using fr_matrix_chain_fn = void (*)(std::uint64_t* x, int width, std::size_t chains, std::size_t reps);

struct poseidon_engine {
  std::string_view name;         // "ifma", "adx", "portable"
  std::string_view description;  // one line: technique
  std::size_t lanes;             // hashes in flight per call at full width
  std::string_view required;     // features it needs, as features::names() spells them
  bool (*available)();           // this CPU and OS can run it
  poseidon_hash_fn hash;
  fr_mul_fn mul;
  fr_chain_fn mul_chain;
  fr_matrix_chain_fn matrix_chain;
};

// The engines compiled in, best first, runnable here or not.
const std::vector<poseidon_engine>& poseidon_engines();
std::vector<const poseidon_engine*> available_poseidon_engines();
// By name: std::invalid_argument for an unknown name, engine_unavailable (engines.hpp)
// for one this CPU cannot run.
const poseidon_engine& poseidon_engine_named(std::string_view name);
// The engine POREPLAB_PC2_ENGINE names if set and not "auto", else the best available.
const poseidon_engine& default_poseidon_engine();
inline constexpr const char* kPc2EngineEnv = "POREPLAB_PC2_ENGINE";

// PC2's hasher on `engine` (null: default_poseidon_engine()) over `threads` OpenMP
// threads (0: the OpenMP default), each taking whole batches of hashes.
std::unique_ptr<sdr::pc2_hasher> make_cpu_pc2_hasher(int threads = 0, const poseidon_engine* engine = nullptr);

}  // namespace poreplab::cpu
