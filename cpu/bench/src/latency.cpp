// Latency measurement (scalar and SSE2 chains here; the ISA extensions in
// latency_<isa>.cpp) and the per-engine critical-path models (docs/hash-limits.md).
#include "poreplab/cpu/latency.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "poreplab/cpu/features.hpp"

#define PL_LAT_X4(s) s s s s
#define PL_LAT_X16(s) PL_LAT_X4(PL_LAT_X4(s))
#define PL_LAT_X32(s) PL_LAT_X16(s) PL_LAT_X16(s)

namespace poreplab::cpu {

namespace detail {

#if defined(__x86_64__)
namespace {

// rcx-style second operand keeps every chain reg-reg: no immediate folding at rename.
#define PL_LAT_GPR(fname, body, init, operand)                                               \
  std::uint64_t fname(std::uint64_t n) {                                                     \
    std::uint64_t x = 1;                                                                     \
    const std::uint64_t y = operand;                                                         \
    (void)(init);                                                                            \
    const std::uint64_t t0 = rdtsc();                                                        \
    asm volatile("1:\n\t" body "dec %[n]\n\tjnz 1b\n\t"                                      \
                 : [x] "+r"(x), [n] "+r"(n)                                                  \
                 : [y] "r"(y)                                                                \
                 : "cc", "memory");                                                          \
    return rdtsc() - t0;                                                                     \
  }

PL_LAT_GPR(add, PL_LAT_X32("add %[y], %[x]\n\t"), 0, 1)
PL_LAT_GPR(ror, PL_LAT_X32("ror $7, %[x]\n\t"), 0, 0)
PL_LAT_GPR(xor_, PL_LAT_X32("xor %[y], %[x]\n\t"), 0, 0x5a5a)
PL_LAT_GPR(and_, PL_LAT_X32("and %[y], %[x]\n\t"), 0, ~std::uint64_t{0})
PL_LAT_GPR(lea, PL_LAT_X32("lea (%[x],%[y]), %[x]\n\t"), 0, 1)
PL_LAT_GPR(lea3, PL_LAT_X32("lea 8(%[x],%[y],2), %[x]\n\t"), 0, 1)
PL_LAT_GPR(imul, PL_LAT_X32("imul %[y], %[x]\n\t"), 0, 1)

std::uint64_t paddd(std::uint64_t n) {
  const std::uint64_t t0 = rdtsc();
  asm volatile("pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\t"
               "1:\n\t" PL_LAT_X32("paddd %%xmm1, %%xmm0\n\t") "dec %[n]\n\tjnz 1b\n\t"
               : [n] "+r"(n)
               :
               : "xmm0", "xmm1", "cc", "memory");
  return rdtsc() - t0;
}

}  // namespace
#define PL_LAT_FN(f) f
#else
#define PL_LAT_FN(f) nullptr
#endif

std::vector<latency_kernel> scalar_latency_kernels() {
  return {
      {"add", "x86-64", "add r64, r64; checks the calibration (itself 1 cycle by definition)", 32, PL_LAT_FN(add)},
      {"ror", "x86-64", "ror r64, imm", 32, PL_LAT_FN(ror)},
      {"xor", "x86-64", "xor r64, r64", 32, PL_LAT_FN(xor_)},
      {"and", "x86-64", "and r64, r64", 32, PL_LAT_FN(and_)},
      {"lea", "x86-64", "lea r64, [base + index]", 32, PL_LAT_FN(lea)},
      {"lea3", "x86-64", "lea r64, [base + index*2 + disp]", 32, PL_LAT_FN(lea3)},
      {"imul", "x86-64", "imul r64, r64; cross-check, 3 cycles on current x86 cores", 32, PL_LAT_FN(imul)},
      {"paddd", "sse2", "paddd xmm, xmm", 32, PL_LAT_FN(paddd)},
  };
}

}  // namespace detail

// --- the table -------------------------------------------------------------------------

const latency_row* latency_table::find(std::string_view instruction) const {
  for (const auto& r : rows)
    if (r.instruction == instruction) return &r;
  return nullptr;
}

double latency_table::cycles(std::string_view instruction) const {
  const latency_row* r = find(instruction);
  if (r == nullptr) throw std::invalid_argument("no latency row for '" + std::string(instruction) + "'");
  if (!r->measured)
    throw std::runtime_error("'" + std::string(instruction) + "' (" + r->isa + ") was not measured on this CPU");
  return r->cycles;
}

const mix_row* latency_table::find_mix(std::string_view engine) const {
  for (const auto& m : mixes)
    if (m.engine == engine) return &m;
  return nullptr;
}

latency_table& latency_table::set_mix(std::string_view engine, std::size_t group_lanes, double cycles) {
  auto it = std::find_if(mixes.begin(), mixes.end(), [&](const mix_row& m) { return m.engine == engine; });
  if (it == mixes.end()) {
    it = mixes.insert(mixes.end(), mix_row{});
    it->engine = std::string(engine);
  }
  it->measured = true;
  it->group_lanes = group_lanes;
  it->cycles_per_group_block = cycles;
  return *this;
}

latency_table& latency_table::set(std::string_view instruction, double c) {
  for (auto& r : rows)
    if (r.instruction == instruction) {
      r.measured = true;
      r.cycles = c;
      return *this;
    }
  latency_row r;
  r.instruction = std::string(instruction);
  r.measured = true;
  r.cycles = c;
  rows.push_back(std::move(r));
  return *this;
}

namespace {

struct kernel_group {
  std::vector<detail::latency_kernel> kernels;
  std::vector<detail::mix_kernel> mixes;
  bool runnable;
};

template <class T>
std::vector<T> as_vector(std::span<const T> table) {
  return {table.begin(), table.end()};
}

std::vector<kernel_group> all_kernels() {
  const features& f = detect();
  return {{detail::scalar_latency_kernels(), {}, true},
          {as_vector(detail::shani_latency_kernels), as_vector(detail::shani_mix_kernels), f.can_shani()},
          {as_vector(detail::avx2_latency_kernels), as_vector(detail::avx2_mix_kernels), f.can_avx2()},
          {as_vector(detail::avx512_latency_kernels), as_vector(detail::avx512_mix_kernels), f.can_avx512()}};
}

double ticks_per_step(std::uint64_t (*run)(std::uint64_t), std::uint64_t loops, double steps_per_loop) {
  return static_cast<double>(run(loops)) / (static_cast<double>(loops) * steps_per_loop);
}
double ticks_per_step(const detail::latency_kernel& k, std::uint64_t loops) {
  return ticks_per_step(k.run, loops, k.steps_per_loop);
}

}  // namespace

std::vector<std::string> latency_instructions() {
  std::vector<std::string> v;
  for (const auto& g : all_kernels())
    for (const auto& k : g.kernels) v.emplace_back(k.instruction);
  return v;
}

latency_table measure_latencies(const latency_options& opt) {
  // Upper limits keep a mistyped count from running for hours (2^32 steps: seconds each).
  if (opt.iterations == 0 || opt.iterations > (std::uint64_t{1} << 32))
    throw std::invalid_argument("latency: iterations must be 1 .. 2^32 (4294967296)");
  if (opt.repetitions < 1 || opt.repetitions > 1000)
    throw std::invalid_argument("latency: repetitions must be 1 .. 1000");
  const auto groups = all_kernels();
  const detail::latency_kernel& add = groups[0].kernels[0];
  if (add.run == nullptr) throw std::runtime_error("latency: no x86-64 chain kernels in this build");

  latency_table t;
  t.tsc_hz = tsc_hz();
  double best_add = std::numeric_limits<double>::infinity();
  const std::uint64_t add_loops = (opt.iterations + add.steps_per_loop - 1) / add.steps_per_loop;
  for (const auto& g : groups)
    for (const auto& k : g.kernels) {
      latency_row r;
      r.instruction = k.instruction;
      r.isa = k.isa;
      r.note = k.note;
      const std::uint64_t loops = (opt.iterations + k.steps_per_loop - 1) / k.steps_per_loop;
      r.iterations = loops * k.steps_per_loop;
      if (g.runnable && k.run != nullptr) {
        // Each X sample sits next to an add sample so that both see the same clock; the
        // minima are the samples least disturbed by other work.
        ticks_per_step(add, add_loops / 16 + 1);  // warm-up: wake the core's clock
        double x_min = std::numeric_limits<double>::infinity(), a_min = x_min, i_min = x_min;
        const std::uint64_t ind_loops =
            k.independent_per_loop == 0 ? 0 : (opt.iterations + k.independent_per_loop - 1) / k.independent_per_loop;
        for (int rep = 0; rep < opt.repetitions; ++rep) {
          a_min = std::min(a_min, ticks_per_step(add, add_loops));
          x_min = std::min(x_min, ticks_per_step(k, loops));
          if (k.run_independent != nullptr)
            i_min = std::min(i_min, ticks_per_step(k.run_independent, ind_loops, k.independent_per_loop));
        }
        best_add = std::min(best_add, a_min);
        r.measured = true;
        r.cycles = x_min / a_min;
        if (k.run_independent != nullptr) r.recip_throughput = i_min / a_min;
      }
      t.rows.push_back(std::move(r));
    }
  // Engine mixes: loops sized so that a sample holds about `iterations` instructions' worth.
  for (const auto& g : groups)
    for (const auto& m : g.mixes) {
      mix_row r;
      r.engine = m.engine;
      r.isa = m.isa;
      r.mix = m.mix;
      r.group_lanes = m.group_lanes;
      if (g.runnable && m.run != nullptr) {
        const std::uint64_t loops = opt.iterations / 32 + 1;
        double x_min = std::numeric_limits<double>::infinity(), a_min = x_min;
        for (int rep = 0; rep < opt.repetitions; ++rep) {
          a_min = std::min(a_min, ticks_per_step(add, add_loops));
          x_min = std::min(x_min, ticks_per_step(m.run, loops, m.groups_per_loop));
        }
        best_add = std::min(best_add, a_min);
        r.measured = true;
        r.cycles_per_group_block = x_min / a_min;
      }
      t.mixes.push_back(std::move(r));
    }
  t.tsc_ticks_per_cycle = best_add;
  t.core_hz = t.tsc_hz / best_add;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "TSC %.3f GHz, %.4f ticks per core cycle (min of %d dependent add r64,r64 chains beside each "
                "instruction, 1 cycle per add) -> core ~%.3f GHz",
                t.tsc_hz / 1e9, best_add, opt.repetitions, t.core_hz / 1e9);
  t.calibration = buf;
  return t;
}

double measure_core_hz(std::uint64_t iterations, int repetitions) {
  const detail::latency_kernel add = detail::scalar_latency_kernels()[0];
  if (add.run == nullptr || iterations == 0 || repetitions < 1) return 0;
  const std::uint64_t loops = (iterations + add.steps_per_loop - 1) / add.steps_per_loop;
  double best = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep < repetitions; ++rep) best = std::min(best, ticks_per_step(add, loops));
  return best > 0 ? tsc_hz() / best : 0;
}

const latency_table& measured_latencies() {
  static const latency_table t = measure_latencies();
  return t;
}

// --- critical-path models -------------------------------------------------------------

double blake2_limit_cycles_per_byte(double g_cycles, int rounds, std::size_t block_bytes) {
  return static_cast<double>(rounds) * 2.0 * g_cycles / static_cast<double>(block_bytes);
}

namespace {

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

// "name=value" for the formula text.
std::string lat(const latency_table& t, std::string_view name) { return std::string(name) + "=" + fmt(t.cycles(name)); }

// The engine a name denotes: the one place a name becomes traits here.
const engine& named_engine(hash_family algo, std::string_view name) {
  if (const engine* e = compiled_engine(algo, name)) return *e;
  std::string valid;
  for (const auto& e : compiled_engines(algo)) valid += (valid.empty() ? "" : ", ") + std::string(e.name);
  throw std::invalid_argument("unknown " + std::string(hash_family_name(algo)) + " engine '" + std::string(name) +
                              "' (valid: " + valid + ")");
}

[[noreturn]] void no_model(const critical_path& c) {
  throw std::invalid_argument(c.algo + " engine '" + c.engine + "' has no critical-path model");
}

// SHA-256: one chain's path through a block, by the engine's shape and ISA.
void sha256_path(const engine& e, const latency_table& t, critical_path& c) {
  const auto L = [&](std::string_view n) { return t.cycles(n); };
  c.block_bytes = 64;
  switch (e.shape) {
    case engine_shape::scalar: {
      // (avx2-1 runs the same scalar rounds, its schedule in xmm beside them.)
      // a' = T1 + T2, T2 = Sigma0(a) + Maj(a,b,c), Sigma0 = ror ^ ror ^ ror: the three
      // rotates run side by side, then xor, xor, add (Maj is ready earlier), add T1.
      // The e chain (Sigma1, Ch, + d) is no longer. Then one feed-forward add per block.
      const double round = L("ror") + 2 * L("xor") + 2 * L("add");
      c.lane_cycles_per_block = 64 * round + L("add");
      c.formula = "(64 rounds x (ror + 2 xor + 2 add) + add) / 64 B; " + lat(t, "ror") + " " + lat(t, "xor") +
                  " " + lat(t, "add");
      break;
    }
    case engine_shape::sha_ni_chains:
      // Two rounds per sha256rnds2, each waiting for the previous; message schedule
      // (msg1/msg2) runs beside the chain. The x2 form interleaves independent chains:
      // same path per chain, twice the bytes.
      c.lane_cycles_per_block = 32 * L("sha256rnds2") + L("paddd");
      c.formula = "(32 x sha256rnds2 + paddd) / 64 B per chain";
      if (c.lanes > 1) c.formula += " / " + std::to_string(c.lanes) + " chains";
      c.formula += "; " + lat(t, "sha256rnds2") + " " + lat(t, "paddd");
      break;
    case engine_shape::multi_buffer:
      switch (e.isa) {
        case engine_isa::avx2: {
          // No vector rotate: Sigma0 = 3 right + 3 left shifts side by side, then a
          // depth-3 xor tree (sha256_avx2.cpp); + Maj, + T1.
          const double round = L("vpsrld ymm") + 3 * L("vpxor ymm") + 2 * L("vpaddd ymm");
          c.lane_cycles_per_block = 64 * round + L("vpaddd ymm");
          c.formula = "(64 rounds x (vpsrld + 3 vpxor + 2 vpaddd) + vpaddd) / 64 B / " + std::to_string(c.lanes) +
                      " lanes; " + lat(t, "vpsrld ymm") + " " + lat(t, "vpxor ymm") + " " + lat(t, "vpaddd ymm");
          break;
        }
        case engine_isa::avx512: {
          // Sigma0 = vpternlogd(xor3) of three vprord side by side; + Maj, + T1. zmm
          // latencies stand for the ymm form (avx512-x8) too.
          const double round = L("vprord zmm") + L("vpternlogd zmm") + 2 * L("vpaddd zmm");
          c.lane_cycles_per_block = 64 * round + L("vpaddd zmm");
          c.formula = "(64 rounds x (vprord + vpternlogd + 2 vpaddd) + vpaddd) / 64 B / " +
                      std::to_string(c.lanes) + " lanes; " + lat(t, "vprord zmm") + " " +
                      lat(t, "vpternlogd zmm") + " " + lat(t, "vpaddd zmm");
          break;
        }
        case engine_isa::portable:
        case engine_isa::sha_ni: no_model(c);
      }
      break;
    case engine_shape::row_vector: no_model(c);
  }
}

// One BLAKE2 G's critical path in cycles, and its formula text.
struct g_path {
  double cycles = 0;
  std::string text;
};

g_path blake2_g_path(bool b2s, const engine& e, const latency_table& t, const critical_path& c) {
  const auto L = [&](std::string_view n) { return t.cycles(n); };
  double g = 0;
  std::string gtext;
  // G (both halves): a += b (+m off the path); d = ror(d ^ a); c += d; b = ror(b ^ c); twice.
  switch (e.shape) {
    case engine_shape::scalar:
      g = 4 * L("add") + 4 * L("xor") + 4 * L("ror");
      gtext = "G = 4 add + 4 xor + 4 ror; " + lat(t, "add") + " " + lat(t, "xor") + " " + lat(t, "ror");
      break;
    case engine_shape::multi_buffer:
      switch (e.isa) {
        case engine_isa::avx512:
          // Multi-buffer (blake2_lanes.hpp): a message per lane, every rotation one vpror.
          g = 4 * L("vpaddd zmm") + 4 * L("vpxor ymm") + 4 * L("vprord zmm");
          gtext = "G = 4 vpadd + 4 vpxor + 4 vpror, per lane of " + std::to_string(c.lanes) + "; " +
                  lat(t, "vpaddd zmm") + " " + lat(t, "vpxor ymm") + " " + lat(t, "vprord zmm");
          break;
        case engine_isa::avx2: {
          // Multi-buffer: byte-multiple rotations one vpshufb (or vpshufd for 32), the
          // rest two shifts + or.
          const int shuffles = b2s ? 2 : 3, shifted = 4 - shuffles;
          g = 4 * L("vpaddd ymm") + 4 * L("vpxor ymm") + shuffles * L("vpshufb ymm") + shifted * L("rotate ymm");
          gtext = "G = 4 vpadd + 4 vpxor + " + std::to_string(shuffles) + " byte-shuffle + " +
                  std::to_string(shifted) + " shift-rotate, per lane of " + std::to_string(c.lanes) + "; " +
                  lat(t, "vpaddd ymm") + " " + lat(t, "vpxor ymm") + " " + lat(t, "vpshufb ymm") + " " +
                  lat(t, "rotate ymm");
          break;
        }
        case engine_isa::portable:
        case engine_isa::sha_ni: no_model(c);
      }
      break;
    case engine_shape::row_vector:
      switch (e.isa) {
        case engine_isa::avx2:
          if (b2s) {
            // Rotations by 16 and 8 are one vpshufb (xmm rows); by 12 and 7, two shifts + or.
            g = 4 * L("vpaddd ymm") + 4 * L("vpxor ymm") + 2 * L("vpshufb xmm") + 2 * L("rotate ymm");
            gtext = "G = 4 vpaddd + 4 vpxor + 2 vpshufb (ror 16, 8) + 2 shift-rotate (ror 12, 7); " +
                    lat(t, "vpaddd ymm") + " " + lat(t, "vpxor ymm") + " " + lat(t, "vpshufb xmm") + " " +
                    lat(t, "rotate ymm");
          } else {
            // ror 32: vpshufd, ror 24 and 16: vpshufb; ror 63 = (x >> 63) ^ (x + x): shift
            // and add side by side, then the xor, which is the rotate's or ("rotate ymm").
            g = 4 * L("vpaddd ymm") + 4 * L("vpxor ymm") + L("vpshufd ymm") + 2 * L("vpshufb ymm") +
                L("rotate ymm");
            gtext = "G = 4 vpaddq + 4 vpxor + vpshufd (ror 32) + 2 vpshufb (ror 24, 16) + 1 shift-rotate (ror 63); " +
                    lat(t, "vpaddd ymm") + " " + lat(t, "vpxor ymm") + " " + lat(t, "vpshufd ymm") + " " +
                    lat(t, "vpshufb ymm") + " " + lat(t, "rotate ymm");
          }
          break;
        case engine_isa::avx512:
          if (b2s) {
            // As implemented (blake2s_avx512.cpp): ror(x) is formed early, then
            // ror(x ^ y) = ror(x) ^ (y >> n) ^ (y << 32-n): a shift and one vpternlogd after y.
            g = 4 * L("vpaddd zmm") + 4 * (L("vpsrld ymm") + L("vpternlogd zmm"));
            gtext = "G = 4 vpaddd + 4 (shift + vpternlogd), the xor folded into each rotate; " +
                    lat(t, "vpaddd zmm") + " " + lat(t, "vpsrld ymm") + " " + lat(t, "vpternlogd zmm");
          } else {
            // blake2b_avx512.cpp: ror 32 stays xor + vpshufd; ror 24, 16, 63 fold the xor.
            g = 4 * L("vpaddd zmm") + L("vpxor ymm") + L("vpshufd ymm") +
                3 * (L("vpsrld ymm") + L("vpternlogd zmm"));
            gtext = "G = 4 vpaddq + (vpxor + vpshufd) (ror 32) + 3 (shift + vpternlogq) (ror 24, 16, 63); " +
                    lat(t, "vpaddd zmm") + " " + lat(t, "vpxor ymm") + " " + lat(t, "vpshufd ymm") + " " +
                    lat(t, "vpsrld ymm") + " " + lat(t, "vpternlogd zmm");
          }
          break;
        case engine_isa::portable:
        case engine_isa::sha_ni: no_model(c);
      }
      break;
    case engine_shape::sha_ni_chains: no_model(c);
  }
  return {g, gtext};
}

}  // namespace

critical_path critical_path_limit(hash_family algo, std::string_view name, const latency_table& t) {
  const engine& e = named_engine(algo, name);
  critical_path c;
  c.algo = std::string(hash_family_name(algo));
  c.engine = std::string(e.name);
  c.lanes = e.lanes;
  switch (algo) {
    case hash_family::sha256: sha256_path(e, t, c); break;
    case hash_family::blake2s:
    case hash_family::blake2b: {
      const bool b2s = state_word_bytes(algo) == 4;  // of the two BLAKE2s, the 32-bit one
      const int rounds = b2s ? 10 : 12;
      c.block_bytes = compression_block_bytes(algo);
      const g_path g = blake2_g_path(b2s, e, t, c);
      c.lane_cycles_per_block = static_cast<double>(rounds) * 2 * g.cycles;
      c.formula = std::to_string(rounds) + " rounds x 2 G / " + std::to_string(c.block_bytes) +
                  " B, G = " + fmt(g.cycles) + " cycles: " + g.text;
      break;
    }
  }
  c.lane_cycles_per_byte = c.lane_cycles_per_block / static_cast<double>(c.block_bytes);
  c.cycles_per_byte = c.lane_cycles_per_byte / static_cast<double>(c.lanes);
  return c;
}

std::optional<double> critical_path_cycles_per_byte_tsc(hash_family algo, std::string_view name) {
  // A reference implementation or another build's engine: no model, and no reason to measure.
  if (compiled_engine(algo, name) == nullptr) return std::nullopt;
  try {
    const latency_table& t = measured_latencies();
    return critical_path_limit(algo, name, t).cycles_per_byte * t.tsc_ticks_per_cycle;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool has_port_model(hash_family algo) {
  switch (algo) {
    case hash_family::sha256: return true;
    case hash_family::blake2s:
    case hash_family::blake2b: return false;
  }
  return false;
}

port_bound port_bound_of(hash_family algo, std::string_view name, const latency_table& t) {
  if (!has_port_model(algo))
    throw std::runtime_error(std::string(hash_family_name(algo)) + " engines have no port-bound model");
  const critical_path c = critical_path_limit(algo, name, t);
  const engine& e = named_engine(algo, name);
  port_bound b;
  b.algo = c.algo;
  b.engine = c.engine;
  b.lanes = c.lanes;
  b.latency_cycles_per_block = c.lane_cycles_per_block / static_cast<double>(c.lanes);
  // Every SHA-NI width issues the same instructions per block: the one-chain engine's
  // mix serves them all.
  const engine* mixed = &e;
  if (e.shape == engine_shape::sha_ni_chains)
    for (const auto& x : compiled_engines(algo))
      if (x.shape == e.shape && x.lanes == 1) mixed = &x;
  const mix_row* m = t.find_mix(mixed->name);
  b.formula = "latency: " + fmt(c.lane_cycles_per_block) + " cycles per lane-block / " + std::to_string(c.lanes) +
              " lanes";
  if (m != nullptr && m->measured) {
    b.mix_cycles_per_block = m->cycles_per_group_block / static_cast<double>(m->group_lanes);
    b.formula += "; ports: " + fmt(m->cycles_per_group_block) + " cycles per " + std::to_string(m->group_lanes) +
                 "-lane block of the measured mix";
    if (!m->mix.empty()) b.formula += " (" + m->mix + ")";
  } else {
    b.formula += "; no measured instruction mix (scalar rounds): latency bound only";
  }
  b.cycles_per_block = std::max(b.latency_cycles_per_block, b.mix_cycles_per_block.value_or(0));
  b.limited_by = b.mix_cycles_per_block && *b.mix_cycles_per_block > b.latency_cycles_per_block ? "ports" : "latency";
  return b;
}

std::optional<double> port_bound_cycles_per_block(hash_family algo, std::string_view name) {
  if (!has_port_model(algo) || compiled_engine(algo, name) == nullptr) return std::nullopt;
  try {
    return port_bound_of(algo, name, measured_latencies()).cycles_per_block;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// --- JSON ------------------------------------------------------------------------------

nlohmann::json to_json(const latency_row& r) {
  return {{"kind", "latency"},
          {"instruction", r.instruction},
          {"isa", r.isa},
          {"note", r.note},
          {"measured", r.measured},
          {"cycles", r.measured ? nlohmann::json(r.cycles) : nlohmann::json(nullptr)},
          {"recip_throughput", r.recip_throughput ? nlohmann::json(*r.recip_throughput) : nlohmann::json(nullptr)},
          {"iterations", r.iterations}};
}

nlohmann::json calibration_json(const latency_table& t) {
  return {{"kind", "latency_calibration"},
          {"tsc_ticks_per_cycle", t.tsc_ticks_per_cycle},
          {"tsc_hz", t.tsc_hz},
          {"core_hz", t.core_hz},
          {"calibration", t.calibration}};
}

nlohmann::json to_json(const critical_path& c) {
  return {{"kind", "limit"},
          {"algo", c.algo},
          {"engine", c.engine},
          {"lanes", c.lanes},
          {"block_bytes", c.block_bytes},
          {"limit_cycles_per_byte", c.cycles_per_byte},
          {"lane_cycles_per_byte", c.lane_cycles_per_byte},
          {"lane_cycles_per_block", c.lane_cycles_per_block},
          {"formula", c.formula}};
}

nlohmann::json to_json(const mix_row& m) {
  return {{"kind", "mix"},
          {"engine", m.engine},
          {"isa", m.isa},
          {"mix", m.mix},
          {"measured", m.measured},
          {"cycles_per_group_block", m.measured ? nlohmann::json(m.cycles_per_group_block) : nlohmann::json(nullptr)},
          {"group_lanes", m.group_lanes}};
}

nlohmann::json to_json(const port_bound& b) {
  return {{"kind", "port_bound"},
          {"algo", b.algo},
          {"engine", b.engine},
          {"lanes", b.lanes},
          {"latency_cycles_per_block", b.latency_cycles_per_block},
          {"mix_cycles_per_block", b.mix_cycles_per_block ? nlohmann::json(*b.mix_cycles_per_block) : nlohmann::json()},
          {"bound_cycles_per_block", b.cycles_per_block},
          {"limited_by", b.limited_by},
          {"formula", b.formula}};
}

}  // namespace poreplab::cpu
