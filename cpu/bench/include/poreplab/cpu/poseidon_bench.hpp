#pragma once
// PC2's Poseidon on the cpu engines (poseidon_engines.hpp), measured on one thread: Fr
// multiplies (one dependent chain, and independent ones for throughput) and whole hashes
// per arity, each result checked against the portable code; and PC2 itself built on a
// small sector with the engine's hasher, scaled to a larger one. Library code: returns
// rows, prints nothing (poreplab_pc2_bench formats them).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "poreplab/cpu/poseidon_engines.hpp"
#include "poreplab/name_table.hpp"

namespace poreplab::cpu {

struct poseidon_bench_options {
  double min_time_s = 0.05;  // each sample repeats its pass at least this long
  int repetitions = 5;       // samples per row; rows report the median
  std::vector<int> arities = {2, 8, 11};
};

// What a row measures. mul_latency: ns per multiply of one dependent chain (per lane of a
// multi-lane engine, all lanes stepping together); mul_throughput: ns per multiply with
// enough independent chains to fill the engine; product_throughput: ns per product of the
// dense MDS matrix of width arity + 1 applied over and over, rows summed as the engine's
// rounds sum them (engines with a matrix_chain); hash: ns per Poseidon hash of `arity`
// inputs, bytes in and out.
enum class poseidon_row { mul_latency, mul_throughput, product_throughput, hash };
inline constexpr name_table<poseidon_row, 4> kPoseidonRows{
    "poseidon bench row",
    {named<poseidon_row>{poseidon_row::mul_latency, "mul_latency"},
     named<poseidon_row>{poseidon_row::mul_throughput, "mul_throughput"},
     named<poseidon_row>{poseidon_row::product_throughput, "product_throughput"},
     named<poseidon_row>{poseidon_row::hash, "hash"}}};

struct poseidon_bench_row {
  std::string engine;
  poseidon_row what = poseidon_row::mul_latency;
  int arity = 0;          // hash rows
  std::size_t lanes = 1;  // elements (or hashes) in flight per call
  double ns = 0;          // median sample, per multiply or hash, one thread
  double min_ns = 0, max_ns = 0;
  // Median of this thread's CPU time per operation: well below ns when the thread was
  // descheduled (a busy machine) during the samples.
  double cpu_ns = 0;
  bool verified = false;  // the measured results equal the portable code's
};

// Rows for `engine` ("all": every available engine, best first; a name: that engine,
// through poseidon_engine_named() and its errors).
std::vector<poseidon_bench_row> bench_poseidon(std::string_view engine = "all", const poseidon_bench_options& opt = {});

// x = M^reps x through fr::mont, M the dense MDS matrix of `width`: x holds whole states of
// `width` elements, 4 canonical limbs each. What every matrix form is checked against.
void matrix_reference(std::vector<std::uint64_t>& x, int width, std::size_t reps);

// PC2 of a `nodes`-node sector with `layers` layers (single tree of base arity 8, random
// labels), built in memory by build_pc2 on the engine's hasher over `threads` threads,
// and that time scaled by Fr multiplies (sdr::pc2_multiplies) to `target_nodes`.
struct pc2_bench_row {
  std::string engine;
  int threads = 0;
  std::uint64_t nodes = 0;
  std::uint32_t layers = 0;
  double seconds = 0;  // median build
  double columns_s = 0, tree_r_s = 0;
  double multiplies = 0;  // Fr multiplies of the measured build
  double ns_per_multiply_per_thread = 0;
  std::uint64_t target_nodes = 0;
  double target_seconds = 0;  // seconds * multiplies(target) / multiplies
};
pc2_bench_row bench_pc2(const poseidon_engine& e, int threads, std::uint64_t nodes, std::uint32_t layers,
                        std::uint64_t target_nodes, int repetitions = 3);

nlohmann::json to_json(const poseidon_bench_row& r);
nlohmann::json to_json(const pc2_bench_row& r);

}  // namespace poreplab::cpu
