// The Poseidon engine table and the cpu backend's PC2 hasher. Scalar engines run
// poseidon's optimized rounds (poseidon_perm.hpp) on their own multiply; the IFMA engine's
// constants are converted here, once per arity, to its radix-2^52 form.
#include "poreplab/cpu/poseidon_engines.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "fr_adx.hpp"
#include "poreplab/cpu/engines.hpp"
#include "poreplab/cpu/features.hpp"
#include "poreplab/field/fr_mont.hpp"
#include "poreplab/hash/poseidon.hpp"
#include "poreplab/hash/poseidon_perm.hpp"
#include "poseidon_kernels.hpp"

namespace poreplab::cpu {

namespace {

namespace m = fr::mont;
using m::elem;
using u64 = std::uint64_t;

struct portable_ops {
  static elem mul(const elem& a, const elem& b) { return m::mul(a, b); }
  static elem sqr(const elem& a) { return m::sqr(a); }
  static elem add(const elem& a, const elem& b) { return m::add(a, b); }
};

#ifdef POREPLAB_FR_ADX
struct adx_ops {
  static elem mul(const elem& a, const elem& b) { return detail::adx::mul(a, b); }
  static elem sqr(const elem& a) { return detail::adx::sqr(a); }
  static elem add(const elem& a, const elem& b) { return m::add(a, b); }
  static elem dot(const elem* c, std::size_t stride, const elem* s, int n) { return detail::adx::dot(c, stride, s, n); }
};
#endif

elem load_elem(const std::uint8_t* p) {
  elem x;
  fr::load(p, x.l);
  return x;
}

// One hash at a time; canonical inputs enter Montgomery form by a multiply with R^2.
template <class Ops>
void scalar_hash(int arity, const std::uint8_t* const* in, std::size_t stride, std::size_t n, std::uint8_t* out) {
  const poseidon::constants& c = poseidon::constants_for(arity);
  const elem r2{{m::r2_limb(0), m::r2_limb(1), m::r2_limb(2), m::r2_limb(3)}};
  const elem unit{{1, 0, 0, 0}};
  for (std::size_t i = 0; i < n; ++i) {
    elem x[poseidon::kMaxWidth];
    for (int k = 0; k < arity; ++k) x[k] = Ops::mul(load_elem(in[k] + i * stride), r2);
    const elem h = Ops::mul(poseidon::optimized_rounds<Ops>::hash(c, x), unit);
    fr::store(out + 32 * i, h.l);
  }
}

template <class Ops>
void scalar_mul(const u64* a, const u64* b, u64* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const elem x{{a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3]}};
    const elem p = b == nullptr ? Ops::sqr(x) : Ops::mul(x, elem{{b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]}});
    std::copy_n(p.l, 4, out + 4 * i);
  }
}

// Chains stepped together, each in Montgomery form for its run.
template <class Ops, std::size_t C>
void scalar_chain(u64* x, const u64* y, std::size_t reps) {
  const elem r2{{m::r2_limb(0), m::r2_limb(1), m::r2_limb(2), m::r2_limb(3)}};
  const elem unit{{1, 0, 0, 0}};
  const elem b = Ops::mul(elem{{y[0], y[1], y[2], y[3]}}, r2);
  elem a[C];
  for (std::size_t j = 0; j < C; ++j) a[j] = Ops::mul(elem{{x[4 * j], x[4 * j + 1], x[4 * j + 2], x[4 * j + 3]}}, r2);
  for (std::size_t i = 0; i < reps; ++i)
    for (std::size_t j = 0; j < C; ++j) a[j] = Ops::mul(a[j], b);
  for (std::size_t j = 0; j < C; ++j) std::copy_n(Ops::mul(a[j], unit).l, 4, x + 4 * j);
}
template <class Ops>
void scalar_chains(u64* x, const u64* y, std::size_t chains, std::size_t reps) {
  switch (chains) {
    case 1: return scalar_chain<Ops, 1>(x, y, reps);
    case 2: return scalar_chain<Ops, 2>(x, y, reps);
    case 4: return scalar_chain<Ops, 4>(x, y, reps);
    default: return scalar_chain<Ops, 8>(x, y, reps);
  }
}

// States stepped together through the dense MDS matrix, in Montgomery form for the run.
template <class Ops>
void scalar_matrix_chain(u64* x, int width, std::size_t chains, std::size_t reps) {
  const poseidon::constants& c = poseidon::constants_for(width - 1);
  const elem r2{{m::r2_limb(0), m::r2_limb(1), m::r2_limb(2), m::r2_limb(3)}};
  const elem unit{{1, 0, 0, 0}};
  const auto w = static_cast<std::size_t>(width);
  const std::size_t n = chains * w;
  std::vector<elem> s(n);
  for (std::size_t i = 0; i < n; ++i) s[i] = Ops::mul(elem{{x[4 * i], x[4 * i + 1], x[4 * i + 2], x[4 * i + 3]}}, r2);
  for (std::size_t r = 0; r < reps; ++r)
    for (std::size_t j = 0; j < chains; ++j) poseidon::optimized_rounds<Ops>::mds_dense(c, s.data() + j * w);
  for (std::size_t i = 0; i < n; ++i) std::copy_n(Ops::mul(s[i], unit).l, 4, x + 4 * i);
}

bool always() { return true; }
[[maybe_unused]] bool has_adx() { return detect().can_adx(); }
[[maybe_unused]] bool has_ifma() { return detect().can_ifma(); }

#if defined(POREPLAB_HAVE_IFMA)
// One arity's constants for the IFMA kernel: x R mod r (R = 2^256, as stored) times 16 is
// x 2^260 mod r, split into 52-bit limbs.
class ifma_table {
 public:
  explicit ifma_table(int arity) {
    const poseidon::constants& c = poseidon::constants_for(arity);
    const int t = c.width;
    const auto& rc = c.compressed_round_constants;
    put(state0_, m::add(c.domain_tag, rc[0]));
    for (int i = 0; i < t; ++i) put(first_, rc[static_cast<std::size_t>(i)]);
    for (std::size_t i = static_cast<std::size_t>(t); i < rc.size(); ++i) put(keys_, rc[i]);
    for (const elem& e : c.mds) put(mds_, e);
    for (int j = 0; j < t; ++j)  // transposed: the kernel takes rows
      for (int i = 0; i < t; ++i) put(pre_, c.pre_sparse[static_cast<std::size_t>(i * t + j)]);
    for (const elem& e : c.sparse_w_hat) put(w_, e);
    for (const elem& e : c.sparse_v_rest) put(v_, e);
    view_ = {c.arity,       c.width,      c.full_rounds, c.partial_rounds, state0_.data(), first_.data(),
             keys_.data(),  mds_.data(),  pre_.data(),   w_.data(),        v_.data()};
  }
  const kernels::ifma_poseidon_constants& view() const { return view_; }

 private:
  static void put(std::vector<u64>& v, elem e) {
    for (int i = 0; i < 4; ++i) e = m::add(e, e);
    constexpr u64 mask = (u64{1} << 52) - 1;
    const u64* x = e.l;
    v.insert(v.end(), {x[0] & mask, ((x[0] >> 52) | (x[1] << 12)) & mask, ((x[1] >> 40) | (x[2] << 24)) & mask,
                       ((x[2] >> 28) | (x[3] << 36)) & mask, x[3] >> 16});
  }
  std::vector<u64> state0_, first_, keys_, mds_, pre_, w_, v_;
  kernels::ifma_poseidon_constants view_;
};

template <int Arity>
const kernels::ifma_poseidon_constants& ifma_constants() {
  static const ifma_table t(Arity);
  return t.view();
}

// The kernel's constants of an arity it has bounds for; null otherwise.
const kernels::ifma_poseidon_constants* ifma_constants_of(int arity) {
  switch (arity) {
    case 2: return &ifma_constants<2>();
    case 4: return &ifma_constants<4>();
    case 8: return &ifma_constants<8>();
    case 11: return &ifma_constants<11>();
    default: return nullptr;
  }
}

void ifma_hash(int arity, const std::uint8_t* const* in, std::size_t stride, std::size_t n, std::uint8_t* out) {
  if (const auto* c = ifma_constants_of(arity)) return kernels::poseidon_ifma(*c, in, stride, n, out);
  // Other widths are outside the kernel's worked-out bounds (poseidon_kernels.hpp): scalar.
#ifdef POREPLAB_FR_ADX
  if (has_adx()) return scalar_hash<adx_ops>(arity, in, stride, n, out);
#endif
  scalar_hash<portable_ops>(arity, in, stride, n, out);
}

void ifma_matrix_chain(u64* x, int width, std::size_t chains, std::size_t reps) {
  if (const auto* c = ifma_constants_of(width - 1)) return kernels::fr_matrix_chain_ifma(*c, x, chains, reps);
  scalar_matrix_chain<portable_ops>(x, width, chains, reps);
}
#endif

std::vector<poseidon_engine> make_engines() {
  std::vector<poseidon_engine> v;
#if defined(POREPLAB_HAVE_IFMA)
  v.push_back({"ifma",
               "AVX-512 IFMA: 8 hashes in the lanes of zmm registers, two such groups in step; radix 2^52, "
               "lazy reductions",
               kernels::kIfmaLanes, "avx512f avx512vl avx512bw avx512ifma", has_ifma, ifma_hash, kernels::fr_mul_ifma,
               kernels::fr_mul_chain_ifma, ifma_matrix_chain});
#endif
#ifdef POREPLAB_FR_ADX
  v.push_back({"adx",
               "scalar 4x64 Montgomery, mulx with adcx/adox carry chains (inline assembly), matrix rows reduced once",
               1, "bmi2 adx", has_adx, scalar_hash<adx_ops>, scalar_mul<adx_ops>, scalar_chains<adx_ops>,
               scalar_matrix_chain<adx_ops>});
#endif
  v.push_back({"portable", "scalar 4x64 Montgomery in C++ (128-bit products)", 1, "", always, scalar_hash<portable_ops>,
               scalar_mul<portable_ops>, scalar_chains<portable_ops>, scalar_matrix_chain<portable_ops>});
  return v;
}

std::string names_of(bool available_only) {
  std::string s;
  for (const auto& e : poseidon_engines()) {
    if (available_only && !e.available()) continue;
    if (!s.empty()) s += ", ";
    s += e.name;
  }
  return s;
}

class cpu_hasher final : public sdr::pc2_hasher {
 public:
  cpu_hasher(int threads, const poseidon_engine& e) : threads_(threads), e_(e) {}
  std::string name() const override { return "cpu Poseidon (" + std::string(e_.name) + ")"; }

  void hash_columns(std::span<const std::uint8_t* const> layers, std::uint64_t count, std::uint8_t* out) override {
    const int arity = static_cast<int>(layers.size());
    run(arity, count, [&](std::size_t first, std::size_t n) {
      std::array<const std::uint8_t*, poseidon::kMaxWidth> p{};
      for (int k = 0; k < arity; ++k) p[static_cast<std::size_t>(k)] = layers[static_cast<std::size_t>(k)] + 32 * first;
      e_.hash(arity, p.data(), 32, n, out + 32 * first);
    });
  }

  void hash_level(const std::uint8_t* in, std::uint64_t count, std::uint32_t arity, std::uint8_t* out) override {
    const int a = static_cast<int>(arity);
    run(a, count, [&](std::size_t first, std::size_t n) {
      std::array<const std::uint8_t*, poseidon::kMaxWidth> p{};
      for (int k = 0; k < a; ++k)
        p[static_cast<std::size_t>(k)] = in + 32 * (arity * first + static_cast<std::size_t>(k));
      e_.hash(a, p.data(), 32 * std::size_t{arity}, n, out + 32 * first);
    });
  }

 private:
  // Hashes in batches of kBatch (a multiple of every engine's lanes), OpenMP over batches.
  static constexpr std::size_t kBatch = 256;
  template <class F>
  void run(int arity, std::uint64_t count, F&& f) {
    // Unsupported arities throw here, and every table is built, before any thread starts.
    poseidon::constants_for(arity);
    const std::uint8_t* none[poseidon::kMaxWidth] = {};
    e_.hash(arity, none, 0, 0, nullptr);
    const auto batches = static_cast<std::int64_t>((count + kBatch - 1) / kBatch);
    const auto batch = [&](std::int64_t b) {
      const std::size_t first = static_cast<std::size_t>(b) * kBatch;
      f(first, std::min<std::size_t>(kBatch, count - first));
    };
    const int threads = threads_ > 0 ? threads_ : omp_get_max_threads();
    if (threads == 1 || batches < 2) {
      for (std::int64_t b = 0; b < batches; ++b) batch(b);
      return;
    }
#pragma omp parallel for num_threads(threads) schedule(dynamic)
    for (std::int64_t b = 0; b < batches; ++b) batch(b);
  }
  int threads_;
  const poseidon_engine& e_;
};

}  // namespace

const std::vector<poseidon_engine>& poseidon_engines() {
  static const std::vector<poseidon_engine> v = make_engines();
  return v;
}

std::vector<const poseidon_engine*> available_poseidon_engines() {
  std::vector<const poseidon_engine*> v;
  for (const auto& e : poseidon_engines())
    if (e.available()) v.push_back(&e);
  return v;
}

const poseidon_engine& poseidon_engine_named(std::string_view name) {
  for (const auto& e : poseidon_engines()) {
    if (e.name != name) continue;
    if (!e.available())
      throw engine_unavailable("Poseidon engine '" + std::string(name) +
                               "' needs CPU features this machine (or its OS) lacks: " + std::string(e.required) +
                               " (available: " + names_of(true) + ")");
    return e;
  }
  throw std::invalid_argument("unknown Poseidon engine '" + std::string(name) + "' (valid: auto, " + names_of(false) +
                              ")");
}

const poseidon_engine& default_poseidon_engine() {
  const char* env = std::getenv(kPc2EngineEnv);
  if (env != nullptr && *env != '\0' && std::string_view(env) != "auto") return poseidon_engine_named(env);
  return *available_poseidon_engines().front();
}

std::unique_ptr<sdr::pc2_hasher> make_cpu_pc2_hasher(int threads, const poseidon_engine* engine) {
  return std::make_unique<cpu_hasher>(threads, engine != nullptr ? *engine : default_poseidon_engine());
}

}  // namespace poreplab::cpu
