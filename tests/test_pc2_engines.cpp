// The cpu backend's Poseidon engines (poseidon_engines.hpp): every engine's multiply and
// square against fr::mont's, its hashes against the plain permutation, and the PC2
// hasher built on it against the reference hasher and the 2KiB vector.
#include <array>
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "poreplab/cpu/engines.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/cpu/poseidon_engines.hpp"
#include "poreplab/field/fr.hpp"
#include "poreplab/field/fr_mont.hpp"
#include "poreplab/hash/poseidon.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/sdr/pc2_build.hpp"
#include "poreplab/seal/vector_file.hpp"
#include "support.hpp"

using namespace poreplab;
namespace m = poreplab::fr::mont;

namespace {

using limbs = std::array<std::uint64_t, 4>;

limbs r_limbs() { return {fr::modulus_limb(0), fr::modulus_limb(1), fr::modulus_limb(2), fr::modulus_limb(3)}; }

limbs random_below(std::mt19937_64& rng, const limbs& bound) {
  for (;;) {
    limbs x{rng(), rng(), rng(), rng() >> 1};
    for (int i = 3; i >= 0; --i) {
      const auto k = static_cast<std::size_t>(i);
      if (x[k] != bound[k]) {
        if (x[k] < bound[k]) return x;
        break;
      }
    }
  }
}

// a * b < r 2^256, what a Montgomery multiply with R = 2^256 needs for a result below
// 2r (one subtraction from canonical): the high half of the product is below r.
bool product_in_range(const limbs& a, const limbs& b) {
  __extension__ typedef unsigned __int128 u128;
  std::uint64_t w[8] = {};
  for (std::size_t i = 0; i < 4; ++i) {
    std::uint64_t carry = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const u128 t = static_cast<u128>(a[i]) * b[j] + w[i + j] + carry;
      w[i + j] = static_cast<std::uint64_t>(t);
      carry = static_cast<std::uint64_t>(t >> 64);
    }
    w[i + 4] = carry;
  }
  return !fr::geq_modulus(w + 4);
}

// Engines this CPU runs; the others are reported, not silently dropped.
std::vector<const cpu::poseidon_engine*> runnable_engines() {
  std::vector<const cpu::poseidon_engine*> v;
  for (const auto& e : cpu::poseidon_engines()) {
    if (e.available())
      v.push_back(&e);
    else
      WARN("Poseidon engine '" << e.name << "' not checked: this CPU lacks " << e.required);
  }
  return v;
}

// Values where carries and the final subtraction turn: 0, 1, r - 1, and past r (the
// engines take inputs below 2r), around 2^255 and just below 2r.
std::vector<limbs> edge_values() {
  const limbs r = r_limbs();
  limbs r_minus_1 = r, r_minus_2 = r, r_plus_1 = r, two_r = r, two_r_minus_1;
  r_minus_1[0] -= 1;
  r_minus_2[0] -= 2;
  r_plus_1[0] += 1;
  fr::add_limbs(two_r.data(), r.data());
  two_r_minus_1 = two_r;
  const limbs one{1, 0, 0, 0};
  fr::sub_limbs(two_r_minus_1.data(), one.data());
  const std::uint64_t all = ~std::uint64_t{0};
  return {{0, 0, 0, 0},
          {1, 0, 0, 0},
          {2, 0, 0, 0},
          r_minus_1,
          r_minus_2,
          r,
          r_plus_1,
          two_r_minus_1,
          {all, all, all, (std::uint64_t{1} << 63) - 1},  // 2^255 - 1
          {0, 0, 0, std::uint64_t{1} << 63},              // 2^255
          {1, 0, 0, std::uint64_t{1} << 63},
          {all, all, all, 0},
          {0, 0, 0, std::uint64_t{1} << 62},
          {m::r_mod_limb(0), m::r_mod_limb(1), m::r_mod_limb(2), m::r_mod_limb(3)}};  // one, in Montgomery form
}

using node_bytes = std::array<std::uint8_t, 32>;

std::string hex_of(const limbs& x) {
  node_bytes b;
  fr::store(b.data(), x.data());
  return to_hex(b);
}

node_bytes plain_hash(const std::uint8_t* const* in, std::size_t stride, std::size_t i, int arity) {
  m::elem x[poseidon::kMaxWidth];
  for (int k = 0; k < arity; ++k) REQUIRE(m::from_bytes(in[k] + i * stride, x[k]));
  node_bytes out;
  m::to_bytes(poseidon::hash_plain(poseidon::constants_for(arity), x), out.data());
  return out;
}

std::vector<std::uint8_t> random_nodes(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::uint8_t> v(32 * n);
  const limbs r = r_limbs();
  for (std::size_t i = 0; i < n; ++i) {
    limbs x = random_below(rng, r);
    if (i % 17 == 3) x = {0, 0, 0, 0};
    if (i % 19 == 5) x = {r[0] - 1, r[1], r[2], r[3]};
    fr::store(v.data() + 32 * i, x.data());
  }
  return v;
}

}  // namespace

TEST_CASE("Poseidon engines: multiply and square equal fr::mont's on random and edge values", "[pc2]") {
  std::mt19937_64 rng(0xf1);
  const limbs r = r_limbs();
  limbs two_r = r;
  fr::add_limbs(two_r.data(), r.data());
  std::vector<limbs> a, b;
  const auto edges = edge_values();
  for (const limbs& x : edges)
    for (const limbs& y : edges)
      if (product_in_range(x, y) && product_in_range(x, x)) {
        a.push_back(x);
        b.push_back(y);
      }
  const std::size_t edge_pairs = a.size();
  CHECK(edge_pairs > 100);
  for (int i = 0; i < 2000; ++i) {
    // One factor below 2r, the other below r; squares of values below r.
    a.push_back(random_below(rng, i % 2 ? two_r : r));
    b.push_back(random_below(rng, r));
    if (i % 4 == 1) std::swap(a.back(), b.back());
    if (i % 2 == 1 && !product_in_range(a.back(), a.back())) a.back()[3] >>= 1;
  }
  const std::size_t n = a.size();
  std::vector<limbs> want_mul(n), want_sqr(n);
  for (std::size_t i = 0; i < n; ++i) {
    const m::elem x{{a[i][0], a[i][1], a[i][2], a[i][3]}}, y{{b[i][0], b[i][1], b[i][2], b[i][3]}};
    const m::elem p = m::mul(x, y), q = m::mul(x, x);
    std::copy_n(p.l, 4, want_mul[i].begin());
    std::copy_n(q.l, 4, want_sqr[i].begin());
  }
  // fr::mont itself on some: (a b 2^-256) 2^512 2^-256 = (a 2^512 2^-256) b 2^-256.
  for (std::size_t i = 0; i < edge_pairs; i += 5) {
    m::elem x{{a[i][0], a[i][1], a[i][2], a[i][3]}}, y{{b[i][0], b[i][1], b[i][2], b[i][3]}};
    const m::elem p{{want_mul[i][0], want_mul[i][1], want_mul[i][2], want_mul[i][3]}};
    const m::elem r2{{m::r2_limb(0), m::r2_limb(1), m::r2_limb(2), m::r2_limb(3)}};
    x = m::mul(x, r2);  // x 2^256 (reduced)
    CHECK(m::eq(m::mul(p, r2), m::mul(x, y)));
  }
  for (const cpu::poseidon_engine* e : runnable_engines()) {
    INFO("engine " << e->name);
    std::vector<limbs> got(n);
    e->mul(a.front().data(), b.front().data(), got.front().data(), n);
    for (std::size_t i = 0; i < n; ++i) {
      INFO("case " << i << ": " << hex_of(a[i]) << " * " << hex_of(b[i]));
      CHECK(got[i] == want_mul[i]);
    }
    e->mul(a.front().data(), nullptr, got.front().data(), n);
    for (std::size_t i = 0; i < n; ++i) {
      INFO("square, case " << i);
      CHECK(got[i] == want_sqr[i]);
    }
    // The benchmarks' chains: x y^reps mod r on plain residues.
    for (const std::size_t per_lane : {std::size_t{1}, std::size_t{2}, std::size_t{8}}) {
      const std::size_t chains = e->lanes * per_lane, reps = 7;
      std::vector<limbs> x(chains), y(e->lanes);
      for (auto& v : x) v = random_below(rng, r);
      for (auto& v : y) v = random_below(rng, r);
      y[0] = {1, 0, 0, 0};
      std::vector<limbs> out = x;
      e->mul_chain(out.front().data(), y.front().data(), chains, reps);
      for (std::size_t j = 0; j < chains; ++j) {
        m::elem acc = m::to_mont(x[j].data());
        const m::elem f = m::to_mont(y[j % e->lanes].data());
        for (std::size_t k = 0; k < reps; ++k) acc = m::mul(acc, f);
        limbs want;
        m::from_mont(acc, want.data());
        INFO("chain " << j << " of " << chains);
        CHECK(out[j] == want);
      }
    }
    // Counts that leave a multi-lane engine a short group.
    for (const std::size_t k : {std::size_t{1}, std::size_t{7}, std::size_t{9}}) {
      std::vector<limbs> part(k);
      e->mul(a[40].data(), b[40].data(), part.front().data(), k);
      for (std::size_t i = 0; i < k; ++i) CHECK(part[i] == want_mul[40 + i]);
    }
  }
}

// The products the PC2 bench's multiply bound is measured on: each engine's dense-matrix
// chain equals M^reps x worked out with fr::mont, for every width the rounds use.
TEST_CASE("Poseidon engines: the MDS matrix chain equals fr::mont's", "[pc2]") {
  std::mt19937_64 rng(0xd07);
  const limbs r = r_limbs();
  for (const cpu::poseidon_engine* e : runnable_engines()) {
    if (e->matrix_chain == nullptr) continue;
    for (const int width : {3, 9, 12}) {
      const poseidon::constants& c = poseidon::constants_for(width - 1);
      const auto w = static_cast<std::size_t>(width);
      // 19: two full groups of eight lanes and a short third (the ifma engine's)
      for (const std::size_t chains : {std::size_t{1}, std::size_t{3}, std::size_t{19}}) {
        INFO("engine " << e->name << ", width " << width << ", " << chains << " states");
        const std::size_t reps = 5;
        std::vector<limbs> x(chains * w);
        for (auto& v : x) v = random_below(rng, r);
        x[0] = {r[0] - 1, r[1], r[2], r[3]};  // r - 1: the largest canonical input
        std::vector<limbs> out = x;
        e->matrix_chain(out.front().data(), width, chains, reps);
        for (std::size_t j = 0; j < chains; ++j) {
          std::vector<m::elem> s(w), next(w);
          for (std::size_t k = 0; k < w; ++k) s[k] = m::to_mont(x[j * w + k].data());
          for (std::size_t rep = 0; rep < reps; ++rep) {
            for (std::size_t i = 0; i < w; ++i) {
              next[i] = m::mul(c.mds[i * w], s[0]);
              for (std::size_t k = 1; k < w; ++k) next[i] = m::add(next[i], m::mul(c.mds[i * w + k], s[k]));
            }
            s.swap(next);
          }
          for (std::size_t k = 0; k < w; ++k) {
            limbs want;
            m::from_mont(s[k], want.data());
            CHECK(out[j * w + k] == want);
          }
        }
      }
    }
  }
}

TEST_CASE("Poseidon engines equal the plain permutation for every arity", "[pc2]") {
  std::mt19937_64 rng(0xf2);
  for (const cpu::poseidon_engine* e : runnable_engines())
    for (const int arity : {2, 4, 8, 11, 16}) {
      INFO("engine " << e->name << ", arity " << arity);
      const std::size_t n = 37;
      const auto in = random_nodes(rng, n * static_cast<std::size_t>(arity));
      std::array<const std::uint8_t*, poseidon::kMaxWidth> p{};
      for (int k = 0; k < arity; ++k) p[static_cast<std::size_t>(k)] = in.data() + 32 * k;
      const std::size_t stride = 32 * static_cast<std::size_t>(arity);
      std::vector<std::uint8_t> out(32 * n, 0xee);
      e->hash(arity, p.data(), stride, n, out.data());
      for (std::size_t i = 0; i < n; ++i) {
        INFO("hash " << i);
        node_bytes got;
        std::memcpy(got.data(), out.data() + 32 * i, 32);
        CHECK(got == plain_hash(p.data(), stride, i, arity));
      }
      // Short runs: nothing written past the count.
      for (const std::size_t k : {std::size_t{1}, std::size_t{7}, std::size_t{9}}) {
        std::vector<std::uint8_t> o(32 * (k + 1), 0xee);
        e->hash(arity, p.data(), stride, k, o.data());
        CHECK(std::memcmp(o.data(), out.data(), 32 * k) == 0);
        CHECK(o[32 * k] == 0xee);
      }
    }
}

TEST_CASE("Poseidon engines: neptune's known answer for arity 2", "[pc2]") {
  // Poseidon_2(0, 1) as neptune computes it (test_pc2.cpp has its origin).
  const limbs want{0x2e203c369a02e7ffull, 0xa6fba9339d05a69dull, 0x739e0fd902efe161ull, 0x396508d75e76a56bull};
  std::array<std::uint8_t, 64> in{};
  in[32] = 1;
  const std::uint8_t* p[2] = {in.data(), in.data() + 32};
  for (const cpu::poseidon_engine* e : runnable_engines()) {
    INFO("engine " << e->name);
    std::array<std::uint8_t, 32> out{};
    e->hash(2, p, 64, 1, out.data());
    limbs got;
    fr::load(out.data(), got.data());
    CHECK(got == want);
  }
}

TEST_CASE("cpu PC2 hasher equals the reference hasher for columns and tree levels", "[pc2]") {
  std::mt19937_64 rng(0xf3);
  auto ref = sdr::make_reference_pc2_hasher(2);
  for (const cpu::poseidon_engine* e : runnable_engines())
    for (const int threads : {1, 2}) {
      auto h = cpu::make_cpu_pc2_hasher(threads, e);
      INFO(h->name() << ", " << threads << " threads");
      CHECK(h->name().find(std::string(e->name)) != std::string::npos);
      for (const std::uint64_t count : {1ull, 7ull, 9ull, 100ull, 600ull}) {
        if (test::kSanitized && count > 100) continue;
        INFO(count << " hashes");
        for (const std::size_t layers : {std::size_t{2}, std::size_t{11}}) {
          std::vector<std::vector<std::uint8_t>> lab;
          std::vector<const std::uint8_t*> ptr;
          for (std::size_t l = 0; l < layers; ++l) lab.push_back(random_nodes(rng, count));
          for (const auto& x : lab) ptr.push_back(x.data());
          std::vector<std::uint8_t> got(32 * count + 32, 0xee), want(32 * count);
          h->hash_columns(ptr, count, got.data());
          ref->hash_columns(ptr, count, want.data());
          CHECK(std::memcmp(got.data(), want.data(), want.size()) == 0);
          CHECK(got[32 * count] == 0xee);
        }
        for (const std::uint32_t arity : {2u, 8u, 16u}) {
          if (arity == 16 && count > 100) continue;
          const auto in = random_nodes(rng, count * arity);
          std::vector<std::uint8_t> got(32 * count + 32, 0xee), want(32 * count);
          h->hash_level(in.data(), count, arity, got.data());
          ref->hash_level(in.data(), count, arity, want.data());
          INFO("arity " << arity);
          CHECK(std::memcmp(got.data(), want.data(), want.size()) == 0);
          CHECK(got[32 * count] == 0xee);
        }
      }
      CHECK_THROWS_AS(h->hash_level(nullptr, 1, 3, nullptr), std::invalid_argument);
    }
}

TEST_CASE("cpu PC2 hasher builds the 2KiB vector's commitments", "[pc2]") {
  const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  std::vector<std::vector<std::uint8_t>> layers;
  for (const auto& hex : v.json.at("labels_hex")) layers.push_back(from_hex(hex.get<std::string>(), 64 * 32, "labels"));
  const auto replica = from_hex(v.json.at("replica_hex").get<std::string>(), 64 * 32, "replica");
  const std::uint8_t* ptr[2] = {layers[0].data(), layers[1].data()};
  for (const cpu::poseidon_engine* e : runnable_engines()) {
    auto h = cpu::make_cpu_pc2_hasher(0, e);
    INFO(h->name());
    const sdr::pc2_result r =
        sdr::build_pc2_in_memory(ptr, replica.data(), 64, sdr::tree_shape_for_sector_size(2048), *h);
    CHECK(to_hex(r.comm_c) == v.json.at("comm_c").get<std::string>());
    CHECK(to_hex(r.comm_r_last) == v.json.at("comm_r_last").get<std::string>());
    CHECK(to_hex(r.comm_r) == v.json.at("comm_r").get<std::string>());
  }
}

TEST_CASE("The cpu backend's PC2 hasher runs the best Poseidon engine", "[pc2]") {
  test::scoped_env env(cpu::kPc2EngineEnv, nullptr);
  cpu::labeler_options opt;
  opt.threads = 1;
  const auto h = cpu::make_cpu_backend(opt)->make_pc2_hasher();
  CHECK(h->name() == "cpu Poseidon (" + std::string(cpu::available_poseidon_engines().front()->name) + ")");
}

TEST_CASE("POREPLAB_PC2_ENGINE picks the Poseidon engine", "[pc2]") {
  const auto avail = cpu::available_poseidon_engines();
  REQUIRE(!avail.empty());
  CHECK(avail.back()->name == "portable");
  {
    test::scoped_env env(cpu::kPc2EngineEnv, nullptr);
    CHECK(&cpu::default_poseidon_engine() == avail.front());
  }
  {
    test::scoped_env env(cpu::kPc2EngineEnv, "auto");
    CHECK(&cpu::default_poseidon_engine() == avail.front());
  }
  for (const cpu::poseidon_engine* e : avail) {
    test::scoped_env env(cpu::kPc2EngineEnv, std::string(e->name).c_str());
    CHECK(&cpu::default_poseidon_engine() == e);
    CHECK(cpu::make_cpu_pc2_hasher(1)->name().find(std::string(e->name)) != std::string::npos);
  }
  {
    test::scoped_env env(cpu::kPc2EngineEnv, "nonesuch");
    CHECK_THROWS_WITH(cpu::default_poseidon_engine(), Catch::Contains("unknown Poseidon engine 'nonesuch'"));
  }
  for (const auto& e : cpu::poseidon_engines())
    if (!e.available()) {
      CHECK_THROWS_AS(cpu::poseidon_engine_named(e.name), cpu::engine_unavailable);
    }
}
