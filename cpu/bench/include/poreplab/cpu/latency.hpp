#pragma once
// Instruction latencies measured on dependent chains, and the critical-path limit they
// set for each hash engine: a chained compression cannot finish faster than the sum of
// the latencies of the instructions on its longest dependency chain (docs/hash-limits.md).
//
// Latency: a loop of `iterations` instructions, each reading the previous one's output,
// timed with the TSC. The TSC need not tick at the core clock, so every sample set is
// paired with a chain of scalar `add reg, reg` (1 cycle on every x86-64 core in use):
//   cycles(X) = min(TSC ticks per X) / min(TSC ticks per add).
// Minima over repetitions: a noisy, shared machine only ever makes a sample slower.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "poreplab/cpu/engines.hpp"

namespace poreplab::cpu {

struct latency_row {
  std::string instruction;       // "add", "sha256rnds2", "vprord zmm", ...
  std::string isa;               // "x86-64", "sse2", "sha-ni", "avx2", "avx512"
  std::string note;              // what one chain step is, when not one plain instruction
  bool measured = false;         // false: this CPU (or this build) lacks the ISA
  double cycles = 0;             // core cycles per chain step
  std::uint64_t iterations = 0;  // chain steps per sample
  // Reciprocal throughput: core cycles per instruction with twelve independent chains in
  // flight (how often the core can start one). Empty where not measured (composite rows,
  // or the ISA is missing).
  std::optional<double> recip_throughput;
};

// One engine's instruction mix issued without dependencies: the rate its execution ports
// allow, whatever the order of the real code. Measured as a loop of the engine's
// per-block instruction counts (scaled to one loop) over independent registers.
struct mix_row {
  std::string engine;  // the SHA-256 engine whose mix this is
  std::string isa;
  std::string mix;     // the instructions of one block, all lanes of the group
  bool measured = false;
  double cycles_per_group_block = 0;  // core cycles for one block of each of the group's lanes
  std::size_t group_lanes = 1;        // lanes whose blocks that is
};

struct latency_options {
  std::uint64_t iterations = std::uint64_t{1} << 21;  // chain steps per sample (rounded up to the unroll)
  int repetitions = 7;                                // samples per instruction (and per paired add chain)
};

struct latency_table {
  std::vector<latency_row> rows;
  std::vector<mix_row> mixes;
  double tsc_ticks_per_cycle = 1;  // best (lowest) over all add-chain samples
  double tsc_hz = 0;
  double core_hz = 0;  // tsc_hz / tsc_ticks_per_cycle
  std::string calibration;  // one line: how cycles were obtained

  // nullptr when the table has no such row.
  const latency_row* find(std::string_view instruction) const;
  // Throws std::invalid_argument for an unknown instruction and std::runtime_error for
  // one that was not measured here.
  double cycles(std::string_view instruction) const;
  // Adds or replaces a measured row (synthetic tables for what-if arithmetic and tests).
  latency_table& set(std::string_view instruction, double cycles);
  // nullptr when no mix was measured for `engine`.
  const mix_row* find_mix(std::string_view engine) const;
  // Adds or replaces a measured mix (synthetic tables and tests).
  latency_table& set_mix(std::string_view engine, std::size_t group_lanes, double cycles_per_group_block);
};

// Measures every instruction this CPU can run (the others are rows with measured=false).
// Throws std::invalid_argument for bad options.
latency_table measure_latencies(const latency_options& opt = {});
// measure_latencies() with default options, run once per process.
const latency_table& measured_latencies();

// The effective core clock now (Hz): TSC Hz / the fewest TSC ticks per add over
// `repetitions` dependent chains of `iterations` adds (about 0.15 ms at 3.5 GHz with the
// defaults). Many short chains rather than a few long ones: an interrupt or a preemption
// only lengthens the chain it lands in, and the minimum skips it. The calling thread's
// core only; run it between samples to see the clock each one ran at. 0 without the
// x86-64 chain kernel.
double measure_core_hz(std::uint64_t iterations = std::uint64_t{1} << 16, int repetitions = 8);

// Every instruction name measure_latencies() reports, in table order.
std::vector<std::string> latency_instructions();

struct critical_path {
  std::string algo, engine;
  std::size_t lanes = 1;          // independent chains the engine runs side by side
  std::size_t block_bytes = 64;
  double lane_cycles_per_block = 0;  // one chain's critical path through one block
  // lane_cycles_per_block / block_bytes: cycles per byte of one chain.
  double lane_cycles_per_byte = 0;
  // lane_cycles_per_byte / lanes: cycles per byte hashed over all lanes, the unit of
  // bench_hash's cycles_per_byte (the engine's best case with every lane busy).
  double cycles_per_byte = 0;
  std::string formula;  // the arithmetic, with the latencies used
};

// The critical-path limit of a compiled engine from the latencies in `t`: the model is
// chosen by the engine's shape and ISA (engines.hpp), never by its name.
// Unknown engine (or one without a model): std::invalid_argument; an instruction the
// model needs but `t` did not measure: std::runtime_error.
critical_path critical_path_limit(hash_family algo, std::string_view engine, const latency_table& t);

// BLAKE2 from one G's critical path: rounds x 2 G (column step, diagonal step) / block.
// BLAKE2s: rounds 10, 64 bytes; BLAKE2b: rounds 12, 128 bytes.
double blake2_limit_cycles_per_byte(double g_cycles, int rounds, std::size_t block_bytes);

// For hash records (experiment runner): the limit in the unit of bench_hash's
// cycles_per_byte (TSC ticks per byte, all lanes), from measured_latencies(). Empty for
// a name this build has no engine for (a reference implementation, another build's
// engine), an engine without a model, or one whose instructions this CPU lacks.
// Records carry it as rates["critical_path_cycles_per_byte"] (experiments/plots/plot.py).
std::optional<double> critical_path_cycles_per_byte_tsc(hash_family algo, std::string_view engine);

// The port bound of a SHA-256 engine: the fastest it can run on this core, the larger of
// its critical path per lane (latency: dependent rounds) and its instruction mix's
// measured throughput (ports). Engines without a measured mix (the scalar ones) are
// bounded by their critical path alone, and say so.
struct port_bound {
  std::string algo, engine;
  std::size_t lanes = 1;
  double latency_cycles_per_block = 0;  // critical path of one lane's block / lanes
  std::optional<double> mix_cycles_per_block;  // measured mix per block hashed (any lane)
  double cycles_per_block = 0;  // the bound: max of the two, per block hashed (any lane)
  std::string limited_by;       // "latency" or "ports"
  std::string formula;
};

// Unknown engine: std::invalid_argument; one without a model or whose instructions `t`
// lacks: std::runtime_error (as critical_path_limit).
port_bound port_bound_of(hash_family algo, std::string_view engine, const latency_table& t);
// Whether the family's engines have a port model (measured instruction mixes): SHA-256's.
bool has_port_model(hash_family algo);
// From measured_latencies(), in core cycles per block hashed; empty for OpenSSL, BLAKE2
// engines, or an engine this CPU cannot run.
std::optional<double> port_bound_cycles_per_block(hash_family algo, std::string_view engine);

// kind "latency": instruction, isa, note, measured, cycles (null if not measured), iterations.
nlohmann::json to_json(const latency_row& r);
// kind "latency_calibration": tsc_ticks_per_cycle, tsc_hz, core_hz, calibration.
nlohmann::json calibration_json(const latency_table& t);
// kind "limit": algo, engine, lanes, block_bytes, limit_cycles_per_byte,
// lane_cycles_per_byte, lane_cycles_per_block, formula.
nlohmann::json to_json(const critical_path& c);
// kind "mix": engine, isa, mix, measured, cycles_per_group_block, group_lanes.
nlohmann::json to_json(const mix_row& m);
// kind "port_bound": algo, engine, lanes, latency_cycles_per_block,
// mix_cycles_per_block, bound_cycles_per_block, limited_by, formula.
nlohmann::json to_json(const port_bound& b);

namespace detail {
// One chain kernel: runs `loops` iterations of its unrolled body (steps_per_loop
// dependent steps) and returns the TSC ticks taken. Defined in latency_<isa>.cpp, each
// compiled with its ISA's flags; a list is empty when the build lacks the ISA.
struct latency_kernel {
  const char* instruction;
  const char* isa;
  const char* note;
  unsigned steps_per_loop;
  std::uint64_t (*run)(std::uint64_t loops);
  // The same instruction on twelve independent registers (reciprocal throughput);
  // nullptr where the row has none.
  std::uint64_t (*run_independent)(std::uint64_t loops) = nullptr;
  unsigned independent_per_loop = 0;
};
// An engine's instruction mix (mix_row): one loop runs `groups_per_loop` of a group
// block's instructions.
struct mix_kernel {
  const char* engine;
  const char* isa;
  const char* mix;
  std::size_t group_lanes;
  double groups_per_loop;
  std::uint64_t (*run)(std::uint64_t loops);
};
std::vector<latency_kernel> scalar_latency_kernels();  // latency.cpp: x86-64 + sse2
// Each ISA's kernels and mixes as constant tables (defined in latency_<isa>.cpp): listing
// them runs no code of a file built with the ISA's flags, which may use the ISA's
// instructions (a list built there ran AVX-512 code on a CPU without it: SIGILL).
extern const std::span<const latency_kernel> shani_latency_kernels, avx2_latency_kernels, avx512_latency_kernels;
extern const std::span<const mix_kernel> shani_mix_kernels, avx2_mix_kernels, avx512_mix_kernels;
}  // namespace detail

}  // namespace poreplab::cpu
