// Latency chains and critical-path limits. Timing assertions use wide bands and minima
// over repetitions, since the test machine may be shared and noisy.
#include <algorithm>
#include <catch2/catch.hpp>
#include <iterator>
#include <stdexcept>
#include <utility>

#include "poreplab/cpu/features.hpp"
#include "poreplab/cpu/latency.hpp"
#include "poreplab/cpu/reference.hpp"

using namespace poreplab::cpu;
using poreplab::hash_families;
using poreplab::hash_family_name;
using poreplab::hash_family;

namespace {

// Short chains keep the whole file well under a second.
const latency_table& quick_table() {
  static const latency_table t = [] {
    latency_options o;
    o.iterations = 1u << 16;
    o.repetitions = 5;
    return measure_latencies(o);
  }();
  return t;
}

// The fewest cycles `name` took in up to three quick tables, measuring another only while it
// reads at or above `bound`: a preemption or a slower clock during a chain only adds cycles,
// so a later table clears it, while a wrong calibration reads high in every table.
double fewest_cycles(const char* name, double bound) {
  double c = quick_table().cycles(name);
  for (int i = 0; i < 2 && c >= bound; ++i) {
    latency_options o;
    o.iterations = 1u << 16;
    o.repetitions = 5;
    c = std::min(c, measure_latencies(o).cycles(name));
  }
  return c;
}

// Nominal modern-x86 latencies: simple ops 1 cycle, shift-rotate 2, sha256rnds2 4 (an
// arbitrary stand-in: the tests check the arithmetic, not this CPU).
latency_table nominal() {
  latency_table t;
  for (const auto& n : latency_instructions()) t.set(n, 1.0);
  t.set("rotate ymm", 2.0).set("sha256rnds2", 4.0).set("imul", 3.0);
  return t;
}

}  // namespace

TEST_CASE("latency: scalar add calibrates to about one cycle", "[latency]") {
  const latency_table& t = quick_table();
  REQUIRE(t.tsc_ticks_per_cycle > 0);
  CHECK(t.cycles("add") > 0.5);
  CHECK(fewest_cycles("add", 2.0) < 2.0);
  // The add chain as a clock: a plausible core frequency for any current x86 part.
  CHECK(t.core_hz > 0.5e9);
  CHECK(t.core_hz < 7e9);
  // Independent cross-check of the calibration: imul is 3 cycles on current cores.
  CHECK(t.cycles("imul") > 2.0);
  CHECK(fewest_cycles("imul", 4.5) < 4.5);
  for (const char* n : {"xor", "and", "ror"}) {
    INFO(n);
    CHECK(t.cycles(n) > 0.5);
    CHECK(fewest_cycles(n, 2.5) < 2.5);
  }
}

TEST_CASE("latency: rows follow the CPU's features", "[latency]") {
  const latency_table& t = quick_table();
  const auto& f = detect();
  REQUIRE(t.find("sha256rnds2") != nullptr);
  REQUIRE(t.find("vprord zmm") != nullptr);
#if defined(POREPLAB_HAVE_SHANI)
  CHECK(t.find("sha256rnds2")->measured == f.can_shani());
#endif
#if defined(POREPLAB_HAVE_AVX512)
  CHECK(t.find("vprord zmm")->measured == f.can_avx512());
#endif
  if (!f.can_avx512()) CHECK_THROWS_AS(t.cycles("vprord zmm"), std::runtime_error);
  CHECK_THROWS_AS(t.cycles("no-such-op"), std::invalid_argument);
  for (const auto& r : t.rows) {
    INFO(r.instruction);
    CHECK(r.iterations >= (1u << 16));
    if (r.measured) CHECK(r.cycles > 0.2);
  }
  CHECK_THROWS_AS(measure_latencies({0, 1}), std::invalid_argument);
  CHECK_THROWS_AS(measure_latencies({(std::uint64_t{1} << 32) + 1, 1}), std::invalid_argument);
  CHECK_THROWS_AS(measure_latencies({1024, 0}), std::invalid_argument);
  CHECK_THROWS_AS(measure_latencies({1024, 1001}), std::invalid_argument);
}

TEST_CASE("latency: BLAKE2 arithmetic reproduces the 2019 Supranational PoRep report's G figures", "[latency]") {
  CHECK(blake2_limit_cycles_per_byte(14, 10, 64) == Approx(4.375));
  CHECK(blake2_limit_cycles_per_byte(12, 10, 64) == Approx(3.75));
  const latency_table t = nominal();
  // Pre-AVX-512: two rotations are vpshufb (1), two are shift+or (2): G = 14.
  CHECK(critical_path_limit(hash_family::blake2s, "avx2", t).cycles_per_byte == Approx(4.375));
  // One-op rotations (folded into vpternlogd here): G = 12.
  CHECK(critical_path_limit(hash_family::blake2s, "avx512", t).cycles_per_byte == Approx(3.75));
  CHECK(critical_path_limit(hash_family::blake2s, "portable", t).cycles_per_byte == Approx(3.75));
  // BLAKE2b: 12 rounds x 2 G / 128 B.
  CHECK(critical_path_limit(hash_family::blake2b, "portable", t).cycles_per_byte == Approx(12 * 2 * 12 / 128.0));
  CHECK(critical_path_limit(hash_family::blake2b, "avx2", t).cycles_per_byte == Approx(12 * 2 * 13 / 128.0));
}

TEST_CASE("latency: SHA-256 limits from nominal latencies", "[latency]") {
  const latency_table t = nominal();
  const auto shani = critical_path_limit(hash_family::sha256, "shani", t);
  CHECK(shani.lane_cycles_per_block == Approx(32 * 4 + 1));
  CHECK(shani.cycles_per_byte == Approx(129 / 64.0));
  const auto x2 = critical_path_limit(hash_family::sha256, "shani-x2", t);
  CHECK(x2.lane_cycles_per_byte == Approx(shani.lane_cycles_per_byte));
  CHECK(x2.cycles_per_byte == Approx(shani.cycles_per_byte / 2));
  const auto portable = critical_path_limit(hash_family::sha256, "portable", t);
  CHECK(portable.lane_cycles_per_block == Approx(64 * 5 + 1));
  const auto avx2_1 = critical_path_limit(hash_family::sha256, "avx2-1", t);  // scalar rounds
  CHECK(avx2_1.lanes == 1);
  CHECK(avx2_1.lane_cycles_per_block == Approx(portable.lane_cycles_per_block));
  const auto avx2 = critical_path_limit(hash_family::sha256, "avx2-x8", t);
  CHECK(avx2.lanes == 8);
  CHECK(avx2.cycles_per_byte == Approx((64 * 6 + 1) / 64.0 / 8));
  const auto avx512 = critical_path_limit(hash_family::sha256, "avx512-x16", t);
  CHECK(avx512.cycles_per_byte == Approx((64 * 4 + 1) / 64.0 / 16));
  CHECK_FALSE(shani.formula.empty());
}

TEST_CASE("latency: measured limits are positive and ordered", "[latency]") {
  const latency_table& t = quick_table();
  for (const hash_family a : hash_families())
    for (const engine* e : available_engines(a)) {
      const auto c = critical_path_limit(a, e->name, t);
      INFO(c.algo << " " << c.engine);
      CHECK(c.cycles_per_byte > 0);
      CHECK(c.lane_cycles_per_byte == Approx(c.cycles_per_byte * static_cast<double>(c.lanes)));
    }
  const double portable = critical_path_limit(hash_family::sha256, "portable", t).cycles_per_byte;
  if (detect().can_shani()) {
    const double shani = critical_path_limit(hash_family::sha256, "shani", t).cycles_per_byte;
    CHECK(shani < portable);
    CHECK(critical_path_limit(hash_family::sha256, "shani-x2", t).cycles_per_byte < shani);
  }
  if (detect().can_avx2())
    CHECK(critical_path_limit(hash_family::sha256, "avx2-x8", t).cycles_per_byte < portable);
}

TEST_CASE("latency: unknown engines are rejected", "[latency]") {
  const latency_table t = nominal();
  CHECK_THROWS_AS(critical_path_limit(hash_family::sha256, "no-such-engine", t), std::invalid_argument);
  CHECK_THROWS_AS(critical_path_limit(hash_family::blake2s, "shani", t), std::invalid_argument);
  CHECK_FALSE(critical_path_cycles_per_byte_tsc(hash_family::sha256, kOpenssl).has_value());
  // A table without the needed rows cannot price an engine.
  CHECK_THROWS_AS(critical_path_limit(hash_family::sha256, "shani", latency_table{}), std::invalid_argument);
}

TEST_CASE("latency: reciprocal throughputs and engine mixes are measured beside the latencies", "[latency]") {
  const latency_table& t = quick_table();
  const auto& f = detect();
  // Every SHA-256 instruction an engine issues has a throughput row where it runs.
  for (const char* n : {"sha256rnds2", "sha256msg1", "sha256msg2"}) {
    INFO(n);
    const latency_row* r = t.find(n);
    REQUIRE(r != nullptr);
    CHECK(r->recip_throughput.has_value() == (r->measured && f.can_shani()));
  }
  for (const auto& r : t.rows) {
    INFO(r.instruction);
    if (!r.recip_throughput) continue;
    CHECK(r.measured);
    // Twelve independent chains never issue slower than one dependent chain (with room
    // for a noisy machine); no x86 core starts more than eight vector operations a cycle.
    CHECK(*r.recip_throughput > 0.1);
    CHECK(*r.recip_throughput < r.cycles * 1.5);
    CHECK(to_json(r)["recip_throughput"].is_number());
  }
  for (const char* e : {"shani", "avx2-x8", "avx512-x16", "avx512-x8"}) {
    INFO(e);
    const mix_row* m = t.find_mix(e);
    REQUIRE(m != nullptr);
    CHECK_FALSE(m->mix.empty());
    if (!m->measured) continue;
    CHECK(m->cycles_per_group_block > 0);
    CHECK(to_json(*m)["kind"] == "mix");
  }
  if (f.can_shani()) {
    // 32 sha256rnds2 per block: the mix cannot beat the instruction's own throughput.
    CHECK(t.find_mix("shani")->cycles_per_group_block >= 32 * *t.find("sha256rnds2")->recip_throughput * 0.8);
  }
  for (const engine* e : available_engines(hash_family::sha256)) {
    INFO(e->name);
    const port_bound b = port_bound_of(hash_family::sha256, e->name, t);
    CHECK(b.cycles_per_block >= b.latency_cycles_per_block);
    CHECK(b.cycles_per_block > 0);
    CHECK(to_json(b)["bound_cycles_per_block"] == b.cycles_per_block);
  }
}

TEST_CASE("latency: port bounds are the larger of latency per lane and the measured mix", "[latency]") {
  latency_table t = nominal();
  t.set_mix("shani", 1, 46.0).set_mix("avx512-x16", 16, 800.0);
  const auto x4 = port_bound_of(hash_family::sha256, "shani-x4", t);
  CHECK(x4.latency_cycles_per_block == Approx(129.0 / 4));
  REQUIRE(x4.mix_cycles_per_block);
  CHECK(*x4.mix_cycles_per_block == Approx(46.0));  // one mix for every shani width
  CHECK(x4.cycles_per_block == Approx(46.0));
  CHECK(x4.limited_by == "ports");
  const auto x2 = port_bound_of(hash_family::sha256, "shani-x2", t);
  CHECK(x2.cycles_per_block == Approx(129.0 / 2));
  CHECK(x2.limited_by == "latency");
  const auto x16 = port_bound_of(hash_family::sha256, "avx512-x16", t);
  CHECK(x16.cycles_per_block == Approx(800.0 / 16));  // per block hashed, not per group
  CHECK(x16.limited_by == "ports");
  // No mix measured: the latency bound alone, and the formula says so.
  const auto x8 = port_bound_of(hash_family::sha256, "avx512-x8", t);
  CHECK_FALSE(x8.mix_cycles_per_block);
  CHECK(x8.cycles_per_block == Approx((64 * 4 + 1) / 8.0));
  CHECK(x8.formula.find("latency bound only") != std::string::npos);
  CHECK(t.set_mix("avx512-x16", 16, 960.0).find_mix("avx512-x16")->cycles_per_group_block == 960.0);
  CHECK_THROWS_AS(port_bound_of(hash_family::blake2s, "portable", t), std::runtime_error);
  CHECK_THROWS_AS(port_bound_of(hash_family::sha256, "no-such-engine", t), std::invalid_argument);
  CHECK_FALSE(port_bound_cycles_per_block(hash_family::sha256, kOpenssl));
  CHECK_FALSE(port_bound_cycles_per_block(hash_family::blake2b, "portable"));
}

// Every engine's critical path and port bound from one synthetic table in which each
// instruction has its own latency (half-cycles: every sum is exact), pinned to the
// figures the models gave when they chose an engine's model by its name. Choosing by
// traits must price every engine as before; a new engine needs a row here.
TEST_CASE("latency: every compiled engine keeps its pinned critical path and port bound", "[latency]") {
  latency_table t;
  const std::pair<const char*, double> lat[] = {
      {"add", 0.5},         {"ror", 1},           {"xor", 1.5},          {"and", 2},           {"lea", 2.5},
      {"lea3", 3},          {"imul", 3.5},        {"paddd", 4},          {"sha256rnds2", 4.5}, {"sha256msg1", 5},
      {"sha256msg2", 5.5},  {"andn", 6},          {"vpaddd ymm", 6.5},   {"vpxor ymm", 7},     {"vpshufb ymm", 7.5},
      {"vpshufb xmm", 8},   {"vpshufd ymm", 8.5}, {"vpsrld ymm", 9},     {"rotate ymm", 9.5},  {"vprord zmm", 10},
      {"vpternlogd zmm", 10.5}, {"vpaddd zmm", 11}, {"vprorq zmm", 11.5}};
  for (const auto& [n, c] : lat) t.set(n, c);
  t.set_mix("shani", 1, 46.0).set_mix("avx2-x8", 8, 700.0).set_mix("avx512-x16", 16, 800.0);
  struct limit {
    const char* algo;
    const char* engine;
    std::size_t lanes, block_bytes;
    double lane_cycles_per_block, cycles_per_byte;
    const char* formula;
  };
  const limit limits[] = {
      {"sha256", "shani-x4", 4, 64, 148, 0.578125,
       "(32 x sha256rnds2 + paddd) / 64 B per chain / 4 chains; sha256rnds2=4.5 paddd=4"},
      {"sha256", "shani-x3", 3, 64, 148, 0.77083333333333337,
       "(32 x sha256rnds2 + paddd) / 64 B per chain / 3 chains; sha256rnds2=4.5 paddd=4"},
      {"sha256", "shani-x2", 2, 64, 148, 1.15625,
       "(32 x sha256rnds2 + paddd) / 64 B per chain / 2 chains; sha256rnds2=4.5 paddd=4"},
      {"sha256", "avx512-x16", 16, 64, 2731, 2.6669921875,
       "(64 rounds x (vprord + vpternlogd + 2 vpaddd) + vpaddd) / 64 B / 16 lanes; vprord zmm=10 "
       "vpternlogd zmm=10.5 vpaddd zmm=11"},
      {"sha256", "avx512-x8", 8, 64, 2731, 5.333984375,
       "(64 rounds x (vprord + vpternlogd + 2 vpaddd) + vpaddd) / 64 B / 8 lanes; vprord zmm=10 "
       "vpternlogd zmm=10.5 vpaddd zmm=11"},
      {"sha256", "shani", 1, 64, 148, 2.3125, "(32 x sha256rnds2 + paddd) / 64 B per chain; sha256rnds2=4.5 paddd=4"},
      {"sha256", "avx2-x8", 8, 64, 2758.5, 5.3876953125,
       "(64 rounds x (vpsrld + 3 vpxor + 2 vpaddd) + vpaddd) / 64 B / 8 lanes; vpsrld ymm=9 vpxor ymm=7 "
       "vpaddd ymm=6.5"},
      {"sha256", "avx2-1", 1, 64, 320.5, 5.0078125,
       "(64 rounds x (ror + 2 xor + 2 add) + add) / 64 B; ror=1 xor=1.5 add=0.5"},
      {"sha256", "portable", 1, 64, 320.5, 5.0078125,
       "(64 rounds x (ror + 2 xor + 2 add) + add) / 64 B; ror=1 xor=1.5 add=0.5"},
      {"blake2s", "avx512-x16", 16, 64, 2240, 2.1875,
       "10 rounds x 2 G / 64 B, G = 112 cycles: G = 4 vpadd + 4 vpxor + 4 vpror, per lane of 16; vpaddd "
       "zmm=11 vpxor ymm=7 vprord zmm=10"},
      {"blake2s", "avx2-x8", 8, 64, 1760, 3.4375,
       "10 rounds x 2 G / 64 B, G = 88 cycles: G = 4 vpadd + 4 vpxor + 2 byte-shuffle + 2 shift-rotate, "
       "per lane of 8; vpaddd ymm=6.5 vpxor ymm=7 vpshufb ymm=7.5 rotate ymm=9.5"},
      {"blake2s", "avx512", 1, 64, 2440, 38.125,
       "10 rounds x 2 G / 64 B, G = 122 cycles: G = 4 vpaddd + 4 (shift + vpternlogd), the xor folded "
       "into each rotate; vpaddd zmm=11 vpsrld ymm=9 vpternlogd zmm=10.5"},
      {"blake2s", "avx2", 1, 64, 1780, 27.8125,
       "10 rounds x 2 G / 64 B, G = 89 cycles: G = 4 vpaddd + 4 vpxor + 2 vpshufb (ror 16, 8) + 2 "
       "shift-rotate (ror 12, 7); vpaddd ymm=6.5 vpxor ymm=7 vpshufb xmm=8 rotate ymm=9.5"},
      {"blake2s", "portable", 1, 64, 240, 3.75,
       "10 rounds x 2 G / 64 B, G = 12 cycles: G = 4 add + 4 xor + 4 ror; add=0.5 xor=1.5 ror=1"},
      {"blake2b", "avx512-x8", 8, 128, 2688, 2.625,
       "12 rounds x 2 G / 128 B, G = 112 cycles: G = 4 vpadd + 4 vpxor + 4 vpror, per lane of 8; vpaddd "
       "zmm=11 vpxor ymm=7 vprord zmm=10"},
      {"blake2b", "avx2-x4", 4, 128, 2064, 4.03125,
       "12 rounds x 2 G / 128 B, G = 86 cycles: G = 4 vpadd + 4 vpxor + 3 byte-shuffle + 1 shift-rotate, "
       "per lane of 4; vpaddd ymm=6.5 vpxor ymm=7 vpshufb ymm=7.5 rotate ymm=9.5"},
      {"blake2b", "avx512", 1, 128, 2832, 22.125,
       "12 rounds x 2 G / 128 B, G = 118 cycles: G = 4 vpaddq + (vpxor + vpshufd) (ror 32) + 3 (shift + "
       "vpternlogq) (ror 24, 16, 63); vpaddd zmm=11 vpxor ymm=7 vpshufd ymm=8.5 vpsrld ymm=9 vpternlogd "
       "zmm=10.5"},
      {"blake2b", "avx2", 1, 128, 2088, 16.3125,
       "12 rounds x 2 G / 128 B, G = 87 cycles: G = 4 vpaddq + 4 vpxor + vpshufd (ror 32) + 2 vpshufb "
       "(ror 24, 16) + 1 shift-rotate (ror 63); vpaddd ymm=6.5 vpxor ymm=7 vpshufd ymm=8.5 vpshufb "
       "ymm=7.5 rotate ymm=9.5"},
      {"blake2b", "portable", 1, 128, 288, 2.25,
       "12 rounds x 2 G / 128 B, G = 12 cycles: G = 4 add + 4 xor + 4 ror; add=0.5 xor=1.5 ror=1"},
  };
  struct bound {
    const char* engine;
    double latency_cycles_per_block, mix_cycles_per_block;  // -1: no mix
    double cycles_per_block;
    const char* limited_by;
    const char* formula;
  };
  const bound bounds[] = {
      {"shani-x4", 37, 46, 46, "ports",
       "latency: 148 cycles per lane-block / 4 lanes; ports: 46 cycles per 1-lane block of the measured "
       "mix"},
      {"shani-x3", 49.333333333333336, 46, 49.333333333333336, "latency",
       "latency: 148 cycles per lane-block / 3 lanes; ports: 46 cycles per 1-lane block of the measured "
       "mix"},
      {"shani-x2", 74, 46, 74, "latency",
       "latency: 148 cycles per lane-block / 2 lanes; ports: 46 cycles per 1-lane block of the measured "
       "mix"},
      {"avx512-x16", 170.6875, 50, 170.6875, "latency",
       "latency: 2.73e+03 cycles per lane-block / 16 lanes; ports: 800 cycles per 16-lane block of the "
       "measured mix"},
      {"avx512-x8", 341.375, -1, 341.375, "latency",
       "latency: 2.73e+03 cycles per lane-block / 8 lanes; no measured instruction mix (scalar rounds): "
       "latency bound only"},
      {"shani", 148, 46, 148, "latency",
       "latency: 148 cycles per lane-block / 1 lanes; ports: 46 cycles per 1-lane block of the measured "
       "mix"},
      {"avx2-x8", 344.8125, 87.5, 344.8125, "latency",
       "latency: 2.76e+03 cycles per lane-block / 8 lanes; ports: 700 cycles per 8-lane block of the "
       "measured mix"},
      {"avx2-1", 320.5, -1, 320.5, "latency",
       "latency: 320 cycles per lane-block / 1 lanes; no measured instruction mix (scalar rounds): "
       "latency bound only"},
      {"portable", 320.5, -1, 320.5, "latency",
       "latency: 320 cycles per lane-block / 1 lanes; no measured instruction mix (scalar rounds): "
       "latency bound only"},
  };
  std::size_t priced = 0;
  for (const hash_family a : hash_families())
    for (const engine& e : compiled_engines(a)) {
      INFO(hash_family_name(a) << " " << e.name);
      const auto want = std::find_if(std::begin(limits), std::end(limits), [&](const limit& l) {
        return l.algo == hash_family_name(a) && l.engine == e.name;
      });
      REQUIRE(want != std::end(limits));
      const critical_path c = critical_path_limit(a, e.name, t);
      CHECK(c.algo == want->algo);
      CHECK(c.engine == want->engine);
      CHECK(c.lanes == want->lanes);
      CHECK(c.block_bytes == want->block_bytes);
      CHECK(c.lane_cycles_per_block == Approx(want->lane_cycles_per_block).epsilon(1e-12));
      CHECK(c.cycles_per_byte == Approx(want->cycles_per_byte).epsilon(1e-12));
      CHECK(c.formula == want->formula);
      ++priced;
      if (a != hash_family::sha256) continue;
      const auto pin = std::find_if(std::begin(bounds), std::end(bounds),
                                    [&](const bound& b) { return b.engine == e.name; });
      REQUIRE(pin != std::end(bounds));
      const port_bound b = port_bound_of(a, e.name, t);
      CHECK(b.latency_cycles_per_block == Approx(pin->latency_cycles_per_block).epsilon(1e-12));
      CHECK(b.mix_cycles_per_block.value_or(-1) == Approx(pin->mix_cycles_per_block).epsilon(1e-12));
      CHECK(b.cycles_per_block == Approx(pin->cycles_per_block).epsilon(1e-12));
      CHECK(b.limited_by == pin->limited_by);
      CHECK(b.formula == pin->formula);
    }
  CHECK(priced >= 3);  // portable, at least, of each family
  // Names this build has no engine for: no model, as before.
  for (const hash_family a : hash_families())
    for (const std::string_view name : {kReferences[0].name, kReferences[1].name, std::string_view("no-such-engine"),
                                        std::string_view("shani-x9")}) {
      INFO(name);
      CHECK_THROWS_AS(critical_path_limit(a, name, t), std::invalid_argument);
      CHECK_FALSE(critical_path_cycles_per_byte_tsc(a, name));
      CHECK_FALSE(port_bound_cycles_per_block(a, name));
    }
}

TEST_CASE("latency: every instruction mix belongs to a compiled SHA-256 engine whose shape it fits", "[latency]") {
  std::size_t mixes = 0;
  for (const auto& list : {detail::shani_mix_kernels, detail::avx2_mix_kernels, detail::avx512_mix_kernels})
    for (const auto& m : list) {
      INFO(m.engine);
      ++mixes;
      const engine* e = compiled_engine(hash_family::sha256, m.engine);
      REQUIRE(e != nullptr);
      switch (e->shape) {
        case engine_shape::sha_ni_chains:  // one mix for every width: the one-chain engine's
          CHECK(e->lanes == 1);
          CHECK(m.group_lanes == 1);
          break;
        case engine_shape::multi_buffer: CHECK(m.group_lanes == e->lanes); break;
        case engine_shape::scalar:
        case engine_shape::row_vector: FAIL("no port model reads a mix for this shape"); break;
      }
    }
#if defined(POREPLAB_HAVE_SHANI)
  CHECK(mixes > 0);
#endif
}
