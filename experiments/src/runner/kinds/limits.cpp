// The `limits` kind: one hash engine's critical-path limit against its measured
// single-stream speed. The limit comes from instruction latencies measured on this CPU
// with dependent chains (cpu/latency.hpp, as `poreplab bench latency`); the speed from
// bench_hash in chain mode (one dependent chain per lane, as `poreplab bench hash --mode
// chain`). Both are in core cycles per byte of one chain, the unit of docs/hash-limits.md.
// SHA-256 engines also get their port bound (the larger of that limit and the measured
// throughput of their instruction mix): chains side by side can fill a port before they
// reach their latency.
#include <algorithm>
#include <cmath>

#include "poreplab/cpu/bench.hpp"
#include "poreplab/cpu/engines.hpp"
#include "poreplab/cpu/latency.hpp"
#include "poreplab/hash/algo.hpp"
#include "poreplab/hex.hpp"
#include "records/schema.hpp"
#include "runner/kinds.hpp"

namespace poreplab::runner {

namespace axis = records::axis;
namespace ctx = records::ctx;


using nlohmann::json;

namespace {

// Message bytes per chain in one bench_hash pass: long enough that the per-pass set-up
// is noise, short enough to stay in L1/L2.
constexpr std::size_t kChainBytesPerLane = 16 * 1024;

// The latencies the engine's limit depends on: every measured row of the table is made one
// cycle slower in turn and kept when the limit moves. The model itself stays in latency.cpp.
json latencies_used(hash_family a, const std::string& engine, const cpu::latency_table& t, double base) {
  json out = json::object();
  for (const auto& r : t.rows) {
    if (!r.measured) continue;
    cpu::latency_table probe = t;
    probe.set(r.instruction, r.cycles + 1);
    try {
      if (std::abs(cpu::critical_path_limit(a, engine, probe).lane_cycles_per_block - base) > 1e-9)
        out[r.instruction] = r.cycles;
    } catch (const std::exception&) {
      // not part of this engine's model
    }
  }
  return out;
}

measurement run(const json& axes, std::uint32_t warmup, std::uint32_t samples) {
  const hash_family a = algo_of(axes);
  const std::string name = axes[axis::engine];
  const cpu::engine& e = cpu::find_engine(a, name);

  // Latencies first, then the chain: both see the same (warm) core.
  const cpu::latency_table t = cpu::measure_latencies();
  const cpu::critical_path lim = cpu::critical_path_limit(a, name, t);

  cpu::hash_bench_options o;
  o.bytes_per_lane = kChainBytesPerLane;
  o.repetitions = static_cast<int>(warmup + samples);
  o.modes = {hash_bench_mode::chain};
  o.openssl = false;
  const auto rows = cpu::bench_hash(a, name, o);
  const auto row = std::find_if(rows.begin(), rows.end(),
                                [&](const cpu::hash_bench_row& r) { return r.engine == name && r.mode == hash_bench_mode::chain; });
  if (row == rows.end()) throw std::runtime_error("bench_hash returned no chain row for engine " + name);
  if (!(t.tsc_hz > 0) || !(t.tsc_ticks_per_cycle > 0)) throw std::runtime_error("latency calibration failed");

  measurement m;
  m.metric = "measured_cycles_per_byte";
  // Each sample: ns per block of any lane -> ns per block of one chain -> TSC ticks per
  // byte of one chain -> core cycles per byte of one chain (the add-chain calibration).
  const double to_core_cpb = static_cast<double>(row->lanes) / static_cast<double>(row->block_bytes) *
                             (t.tsc_hz / 1e9) / t.tsc_ticks_per_cycle;
  const auto skip = std::min<std::size_t>(warmup, row->samples.size() > 1 ? row->samples.size() - 1 : 0);
  for (std::size_t i = skip; i < row->samples.size(); ++i) m.samples.push_back(row->samples[i] * to_core_cpb);

  const known_answer k = engine_known_answer(a, std::string(e.name));
  m.digest = k.digest;
  m.verified = row->verified && k.matches;
  m.verified_against = k.against + (row->verified ? "" : "; bench_hash found the engine's output wrong");
  m.context = {{ctx::engine, row->engine},
               {"lanes", row->lanes},
               {"block_bytes", row->block_bytes},
               {"mode", hash_bench_mode_name(hash_bench_mode::chain)},
               {"bytes_per_lane", kChainBytesPerLane},
               {"limit_cycles_per_byte", lim.lane_cycles_per_byte},
               {"limit_cycles_per_byte_all_lanes", lim.cycles_per_byte},
               {"limit_cycles_per_block", lim.lane_cycles_per_block},
               {"formula", lim.formula},
               {"latencies", latencies_used(a, name, t, lim.lane_cycles_per_block)},
               {"tsc_hz", t.tsc_hz},
               {ctx::core_hz, t.core_hz},
               {"tsc_ticks_per_cycle", t.tsc_ticks_per_cycle},
               {"calibration", t.calibration},
               {"lane_ns_per_block", row->lane_ns_per_block},
               {"measured_cycles_per_byte", row->lane_ns_per_block / static_cast<double>(row->block_bytes) *
                                                (t.tsc_hz / 1e9) / t.tsc_ticks_per_cycle}};
  if (cpu::has_port_model(a)) {
    const cpu::port_bound b = cpu::port_bound_of(a, name, t);
    // Per block of any lane -> per byte of one chain.
    m.context["bound_cycles_per_byte"] =
        b.cycles_per_block * static_cast<double>(b.lanes) / static_cast<double>(lim.block_bytes);
    m.context["limited_by"] = b.limited_by;
    m.context["bound_formula"] = b.formula;
  }
  // perf_event_open's count, where the machine allows it: all lanes, per byte.
  if (row->cycles_per_byte_core) m.context["cycles_per_byte_core_all_lanes"] = *row->cycles_per_byte_core;
  return m;
}

json rates(const json&, const json& ctx, double median) {
  json r = {{"measured_cycles_per_byte", median}};
  const double limit = ctx.value("limit_cycles_per_byte", 0.0);
  if (limit > 0) {
    r["limit_cycles_per_byte"] = limit;
    if (median > 0) r["ratio"] = median / limit;
  }
  const double bound = ctx.value("bound_cycles_per_byte", 0.0);
  if (bound > 0) {
    r["bound_cycles_per_byte"] = bound;
    if (median > 0) r["bound_ratio"] = median / bound;
  }
  const double core_hz = ctx.value(ctx::core_hz, 0.0);
  // Bytes of one chain per second at the measured core clock.
  if (median > 0 && core_hz > 0) r["single_stream_gb_per_s"] = core_hz / median / 1e9;
  return r;
}

}  // namespace

kind_spec limits_kind() {
  kind_spec k;
  k.name = records::kind_name(records::record_kind::limits);
  k.help = "one hash engine's critical-path limit (instruction latencies measured here) against its measured "
           "single-stream cycles per byte";
  auto algo = algo_axis();
  auto engine = text_param(
      axis::engine, "all", all_engine_names,
      "engine name, or all = every compiled engine of the algo (those this CPU lacks are skipped)");
  engine.all = [](const json& axes) { return engine_names(algo_of(axes)); };
  k.axes = {algo, engine};
  k.unavailable = engine_unavailable_reason;
  k.run = run;
  k.rates = rates;
  return k;
}

}  // namespace poreplab::runner
