#include "poreplab/cpu/poseidon_bench.hpp"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <random>
#include <stdexcept>

#include "poreplab/field/fr.hpp"
#include "poreplab/field/fr_mont.hpp"
#include "poreplab/hash/poseidon.hpp"
#include "poreplab/sdr/pc2.hpp"
#include "poreplab/sdr/pc2_build.hpp"

namespace poreplab::cpu {

namespace {

namespace m = fr::mont;
using u64 = std::uint64_t;
using clk = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void random_elements(std::mt19937_64& rng, std::vector<u64>& v, std::size_t n) {
  v.resize(4 * n);
  for (std::size_t i = 0; i < n; ++i)
    for (;;) {
      u64 x[4] = {rng(), rng(), rng(), rng() >> 1};
      if (fr::geq_modulus(x)) continue;
      std::copy_n(x, 4, v.data() + 4 * i);
      break;
    }
}

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Samples of `pass` (doing `ops` operations) each repeated for at least min_time_s:
// median, min and max ns per operation, and the median of this thread's CPU time.
template <class F>
void sample(const poseidon_bench_options& opt, double ops, F&& pass, poseidon_bench_row& row) {
  pass();  // warm: tables built, caches filled
  std::vector<double> ns, cpu_ns;
  for (int s = 0; s < opt.repetitions; ++s) {
    std::uint64_t reps = 0;
    const auto t0 = clk::now();
    const double u0 = thread_cpu_s();
    double el = 0;
    do {
      pass();
      ++reps;
      el = std::chrono::duration<double>(clk::now() - t0).count();
    } while (el < opt.min_time_s);
    const double per = 1e9 / (static_cast<double>(reps) * ops);
    ns.push_back(el * per);
    cpu_ns.push_back((thread_cpu_s() - u0) * per);
  }
  row.ns = median(ns);
  row.min_ns = *std::min_element(ns.begin(), ns.end());
  row.max_ns = *std::max_element(ns.begin(), ns.end());
  row.cpu_ns = median(cpu_ns);
}

// x * y^reps mod r through fr::mont, the portable reference.
void chain_reference(u64* x, const u64* y, std::size_t reps) {
  const m::elem a = m::to_mont(x), b = m::to_mont(y);
  const u64 e[4] = {reps, 0, 0, 0};
  m::from_mont(m::mul(a, m::pow_vartime(b, e)), x);
}

// The engine's fastest products: the dense MDS matrix of the widest column hash (11
// layers: width 12) applied over and over, rows summed as its rounds sum them; ns per
// product, the fastest of 1, 2 and 4 states a lane stepped together.
void bench_products(const poseidon_engine& e, const poseidon_bench_options& opt, std::mt19937_64& rng,
                    std::vector<poseidon_bench_row>& rows) {
  if (e.matrix_chain == nullptr) return;
  constexpr int width = 12;
  constexpr std::size_t reps = 64;
  std::vector<u64> x0, x;
  std::optional<poseidon_bench_row> best;
  for (const std::size_t per_lane : {std::size_t{1}, std::size_t{2}, std::size_t{4}}) {
    const std::size_t chains = per_lane * e.lanes;
    random_elements(rng, x0, chains * width);
    poseidon_bench_row row;
    row.engine = std::string(e.name);
    row.what = poseidon_row::product_throughput;
    row.arity = width - 1;
    row.lanes = chains;
    x = x0;
    sample(opt, static_cast<double>(reps * chains * width * width), [&] { e.matrix_chain(x.data(), width, chains, reps); },
           row);
    x = x0;
    e.matrix_chain(x.data(), width, chains, reps);
    std::vector<u64> want = x0;
    matrix_reference(want, width, reps);
    row.verified = x == want;
    if (!best || (row.verified && (!best->verified || row.ns < best->ns))) best = row;
  }
  rows.push_back(*best);
}

void bench_engine(const poseidon_engine& e, const poseidon_bench_options& opt, std::vector<poseidon_bench_row>& rows) {
  std::mt19937_64 rng(0x5eed);
  const std::size_t lanes = e.lanes;
  const std::size_t reps = 4096;
  std::vector<u64> y, x0, x;
  random_elements(rng, y, lanes);
  // One chain per lane, then enough chains to fill the engine (the fastest of 1, 2, 4, 8
  // per lane counts).
  for (const std::size_t per_lane : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}}) {
    const std::size_t chains = lanes * per_lane;
    random_elements(rng, x0, chains);
    poseidon_bench_row row;
    row.engine = std::string(e.name);
    row.what = per_lane == 1 ? poseidon_row::mul_latency : poseidon_row::mul_throughput;
    row.lanes = chains;
    x = x0;
    sample(opt, static_cast<double>(reps * chains), [&] { e.mul_chain(x.data(), y.data(), chains, reps); }, row);
    // Check one fresh run against fr::mont.
    x = x0;
    e.mul_chain(x.data(), y.data(), chains, reps);
    row.verified = true;
    for (std::size_t j = 0; j < chains; ++j) {
      u64 want[4];
      std::copy_n(x0.data() + 4 * j, 4, want);
      chain_reference(want, y.data() + 4 * (j % lanes), reps);
      row.verified = row.verified && std::equal(want, want + 4, x.data() + 4 * j);
    }
    if (per_lane == 1) {
      // Per lane: a multi-lane engine steps all its lanes' chains in one dependent chain.
      row.ns *= static_cast<double>(chains);
      row.min_ns *= static_cast<double>(chains);
      row.max_ns *= static_cast<double>(chains);
      row.cpu_ns *= static_cast<double>(chains);
      rows.push_back(row);
    } else if (rows.back().what != poseidon_row::mul_throughput) {
      rows.push_back(row);
    } else if (row.ns < rows.back().ns) {
      rows.back() = row;
    }
  }
  bench_products(e, opt, rng, rows);
  const poseidon_engine& portable = poseidon_engine_named("portable");
  for (const int arity : opt.arities) {
    const std::size_t n = arity == 2 ? 2048 : 512;
    std::vector<u64> in;
    random_elements(rng, in, n * static_cast<std::size_t>(arity));
    std::vector<std::uint8_t> bytes(32 * in.size() / 4), out(32 * n), want(32 * n);
    for (std::size_t i = 0; i < in.size() / 4; ++i) fr::store(bytes.data() + 32 * i, in.data() + 4 * i);
    std::vector<const std::uint8_t*> p;
    for (int k = 0; k < arity; ++k) p.push_back(bytes.data() + 32 * k);
    const std::size_t stride = 32 * static_cast<std::size_t>(arity);
    poseidon_bench_row row;
    row.engine = std::string(e.name);
    row.what = poseidon_row::hash;
    row.arity = arity;
    row.lanes = lanes;
    sample(opt, static_cast<double>(n), [&] { e.hash(arity, p.data(), stride, n, out.data()); }, row);
    portable.hash(arity, p.data(), stride, n, want.data());
    row.verified = out == want;
    rows.push_back(row);
  }
}

}  // namespace

void matrix_reference(std::vector<std::uint64_t>& x, int width, std::size_t reps) {
  const poseidon::constants& c = poseidon::constants_for(width - 1);
  const auto w = static_cast<std::size_t>(width);
  for (std::size_t j = 0; j < x.size() / (4 * w); ++j) {
    std::vector<m::elem> s(w), next(w);
    for (std::size_t k = 0; k < w; ++k) s[k] = m::to_mont(x.data() + 4 * (j * w + k));
    for (std::size_t r = 0; r < reps; ++r) {
      for (std::size_t i = 0; i < w; ++i) {
        m::elem acc = m::mul(c.mds[i * w], s[0]);
        for (std::size_t k = 1; k < w; ++k) acc = m::add(acc, m::mul(c.mds[i * w + k], s[k]));
        next[i] = acc;
      }
      s.swap(next);
    }
    for (std::size_t k = 0; k < w; ++k) m::from_mont(s[k], x.data() + 4 * (j * w + k));
  }
}

std::vector<poseidon_bench_row> bench_poseidon(std::string_view engine, const poseidon_bench_options& opt) {
  if (opt.repetitions < 1 || opt.min_time_s < 0) throw std::invalid_argument("bench_poseidon: bad options");
  std::vector<poseidon_bench_row> rows;
  if (engine == "all") {
    for (const poseidon_engine* e : available_poseidon_engines()) bench_engine(*e, opt, rows);
  } else {
    bench_engine(poseidon_engine_named(engine), opt, rows);
  }
  return rows;
}

pc2_bench_row bench_pc2(const poseidon_engine& e, int threads, std::uint64_t nodes, std::uint32_t layers,
                        std::uint64_t target_nodes, int repetitions) {
  const sdr::tree_shape shape{8, 0, 0};
  std::mt19937_64 rng(0x9c2);
  const auto random_nodes = [&] {
    std::vector<std::uint8_t> v(nodes * 32);
    for (auto& b : v) b = static_cast<std::uint8_t>(rng());
    for (std::uint64_t i = 0; i < nodes; ++i) v[32 * i + 31] &= 0x3f;  // below 2^254 < r
    return v;
  };
  std::vector<std::vector<std::uint8_t>> labels;
  std::vector<const std::uint8_t*> ptr;
  for (std::uint32_t l = 0; l < layers; ++l) labels.push_back(random_nodes());
  for (const auto& v : labels) ptr.push_back(v.data());
  const auto replica = random_nodes();
  auto h = make_cpu_pc2_hasher(threads, &e);
  pc2_bench_row row;
  row.engine = std::string(e.name);
  row.threads = threads;
  row.nodes = nodes;
  row.layers = layers;
  std::vector<double> s, c, t;
  for (int i = 0; i < std::max(1, repetitions); ++i) {
    const auto t0 = clk::now();
    const sdr::pc2_result r = sdr::build_pc2_in_memory(ptr, replica.data(), nodes, shape, *h);
    s.push_back(std::chrono::duration<double>(clk::now() - t0).count());
    c.push_back(r.columns_s);
    t.push_back(r.tree_r_s);
  }
  row.seconds = median(s);
  row.columns_s = median(c);
  row.tree_r_s = median(t);
  row.multiplies = sdr::pc2_multiplies(nodes, layers, shape);
  row.ns_per_multiply_per_thread = row.seconds * 1e9 * threads / row.multiplies;
  row.target_nodes = target_nodes;
  row.target_seconds =
      row.seconds * sdr::pc2_multiplies(target_nodes, layers, sdr::tree_shape_for_sector_size(32 * target_nodes)) /
      row.multiplies;
  return row;
}

nlohmann::json to_json(const poseidon_bench_row& r) {
  return {{"kind", "poseidon"}, {"engine", r.engine}, {"what", kPoseidonRows.name(r.what)},         {"arity", r.arity},
          {"lanes", r.lanes},   {"median_ns", r.ns},  {"min_ns", r.min_ns},     {"max_ns", r.max_ns},
          {"cpu_ns", r.cpu_ns},     {"verified", r.verified}};
}

nlohmann::json to_json(const pc2_bench_row& r) {
  return {{"kind", "pc2"},
          {"engine", r.engine},
          {"threads", r.threads},
          {"nodes", r.nodes},
          {"layers", r.layers},
          {"median_s", r.seconds},
          {"columns_s", r.columns_s},
          {"tree_r_s", r.tree_r_s},
          {"multiplies", r.multiplies},
          {"ns_per_multiply_per_thread", r.ns_per_multiply_per_thread},
          {"target_nodes", r.target_nodes},
          {"target_s", r.target_seconds}};
}

}  // namespace poreplab::cpu
