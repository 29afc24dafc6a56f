// Every hash engine this CPU can run against the portable engine and the known answers;
// engine lookup, its errors, and POREPLAB_FORCE_ENGINE.
#include <algorithm>
#include <array>
#include <bit>
#include <catch2/catch.hpp>

#include "poreplab/cpu/features.hpp"
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "poreplab/cpu/bench.hpp"
#include "poreplab/cpu/engines.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/cpu/reference.hpp"
#include "poreplab/cpu/tune.hpp"
#include "poreplab/cpu/tree_d.hpp"
#include "poreplab/sdr/label.hpp"
#include "poreplab/sdr/tree_d.hpp"
#include "poreplab/hash/algo.hpp"
#include "poreplab/hash/blake2b.hpp"
#include "poreplab/hash/blake2s.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/hex.hpp"
#include "support.hpp"

using namespace poreplab;
using cpu::engine;

namespace {

// Engines compiled in but not runnable here are reported, not failed.
std::vector<const engine*> engines_under_test(hash_family algo) {
  for (const auto& e : cpu::compiled_engines(algo))
    if (!e.available())
      WARN("skipping " << hash_family_name(algo) << " engine '" << e.name << "': this CPU lacks " << e.required);
  return cpu::available_engines(algo);
}

std::vector<std::uint8_t> pattern(std::size_t len) {  // hash-vectors.json: byte i = (i*37+11) mod 256
  std::vector<std::uint8_t> v(len);
  for (std::size_t i = 0; i < len; ++i) v[i] = static_cast<std::uint8_t>((i * 37 + 11) % 256);
  return v;
}

// Bytes with no period (pattern's repeats every 256 bytes, so rows 256 bytes apart would
// hold the same labels and a kernel reading the wrong one would pass).
std::vector<std::uint8_t> random_bytes(std::size_t len, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> v(len);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

std::vector<std::size_t> lane_counts(std::size_t L) {
  std::set<std::size_t> s = {1, L, L + 1, 2 * L + 1};
  if (L > 1) s.insert(L - 1);
  return {s.begin(), s.end()};
}

// Sets or clears POREPLAB_FORCE_ENGINE for one scope, restoring what was there.
struct force_engine_env : test::scoped_env {
  explicit force_engine_env(const char* value) : scoped_env(cpu::kForceEngineEnv, value) {}
};

}  // namespace

TEST_CASE("engine tables: names, order, features", "[engines]") {
  for (hash_family algo : hash_families()) {
    const auto& all = cpu::compiled_engines(algo);
    REQUIRE(!all.empty());
    CHECK(all.back().name == "portable");
    std::set<std::string_view> names;
    for (const auto& e : all) {
      INFO(e.name);
      CHECK(names.insert(e.name).second);
      CHECK(e.algo == algo);
      CHECK(e.lanes >= 1);
      CHECK(!e.description.empty());
      CHECK(int(e.sha256 != nullptr) + int(e.blake2s != nullptr) + int(e.blake2b != nullptr) == 1);
      CHECK((algo == hash_family::sha256) == (e.sha256 != nullptr));
      CHECK((algo == hash_family::blake2s) == (e.blake2s != nullptr));
      CHECK((algo == hash_family::blake2b) == (e.blake2b != nullptr));
    }
    const auto avail = cpu::available_engines(algo);
    REQUIRE(!avail.empty());
    CHECK(avail.back()->name == "portable");
    CHECK(parse_hash_family(hash_family_name(algo)) == algo);
  }
  CHECK(cpu::find_engine(hash_family::sha256, "portable").lanes == 1);
}

TEST_CASE("engine traits: ISA, shape and features agree, names begin with their ISA", "[engines]") {
  for (hash_family algo : hash_families())
    for (const auto& e : cpu::compiled_engines(algo)) {
      INFO(hash_family_name(algo) << " " << e.name);
      const std::string_view isa = cpu::kEngineIsas.name(e.isa);
      REQUIRE(!isa.empty());
      CHECK(!cpu::kEngineShapes.name(e.shape).empty());
      CHECK(e.name.starts_with(isa));
      CHECK(cpu::engine_isa_of(algo, e.name) == e.isa);
      CHECK(cpu::compiled_engine(algo, e.name) == &e);
      const auto needs = [&](std::string_view f) { return e.required.find(f) != std::string_view::npos; };
      switch (e.isa) {
        case cpu::engine_isa::portable: CHECK(e.required.empty()); break;
        case cpu::engine_isa::sha_ni: CHECK(needs("sha_ni")); break;
        case cpu::engine_isa::avx2: CHECK((needs("avx2") && !needs("sha_ni") && !needs("avx512"))); break;
        case cpu::engine_isa::avx512: CHECK((needs("avx512f") && !needs("sha_ni"))); break;
      }
      CHECK(e.uses_sha_ni() == needs("sha_ni"));
      if (algo == hash_family::sha256) CHECK(cpu::sha256_engine_uses_sha_ni(e.name) == e.uses_sha_ni());
      // Only the many-lane shapes run more than one message, the one-message shapes one.
      switch (e.shape) {
        case cpu::engine_shape::scalar:
        case cpu::engine_shape::row_vector: CHECK(e.lanes == 1); break;
        case cpu::engine_shape::sha_ni_chains: CHECK(e.isa == cpu::engine_isa::sha_ni); break;
        case cpu::engine_shape::multi_buffer: CHECK(e.lanes > 1); break;
      }
    }
  // Names from records of another build, and the reference implementations.
  CHECK(cpu::sha256_engine_uses_sha_ni("shani-x9"));
  CHECK_FALSE(cpu::sha256_engine_uses_sha_ni("avx2-x99"));
  CHECK_FALSE(cpu::sha256_engine_uses_sha_ni("no-such-engine"));
  CHECK(cpu::engine_isa_of(hash_family::sha256, "avx512-x32") == cpu::engine_isa::avx512);
  CHECK_FALSE(cpu::engine_isa_of(hash_family::sha256, "no-such-engine"));
  for (const auto& r : cpu::kReferences) {
    INFO(r.name);
    CHECK(cpu::find_reference(r.name) == &r);
    CHECK(&cpu::reference_of(r.id) == &r);
    CHECK(cpu::sha256_engine_uses_sha_ni(r.name) == r.uses_sha_ni);
    CHECK(r.ia32cap.empty() == r.uses_sha_ni);  // the one masked reference is the one without SHA-NI
    CHECK(cpu::reference_covers(r, hash_family::sha256));
    for (hash_family algo : hash_families()) CHECK(cpu::compiled_engine(algo, r.name) == nullptr);
    CHECK_FALSE(cpu::engine_isa_of(hash_family::sha256, r.name));
  }
  CHECK(cpu::find_reference("portable") == nullptr);
  CHECK(cpu::find_reference(cpu::kOpenssl)->id == cpu::reference_impl::openssl);
}

TEST_CASE("OpenSSL's digest of each family through the one EVP mapping equals the library's", "[engines]") {
  const auto msg = pattern(1000);
  for (hash_family algo : hash_families()) {
    INFO(hash_family_name(algo));
    const hash_algo full = full_digest(algo);
    CHECK(cpu::openssl_digest(algo, msg.data(), msg.size()) == hash_bytes(full, msg.data(), msg.size()));
    CHECK(cpu::openssl_digest(algo, nullptr, 0) == hash_bytes(full, nullptr, 0));
  }
}

TEST_CASE("find_engine and parse_hash_family reject bad names", "[engines]") {
  try {
    cpu::find_engine(hash_family::sha256, "no-such-engine");
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    CHECK(msg.find("no-such-engine") != std::string::npos);
    CHECK(msg.find("portable") != std::string::npos);  // lists the valid names
  }
  CHECK_THROWS_AS(cpu::find_engine(hash_family::blake2s, "shani"), std::invalid_argument);
  CHECK_THROWS_AS(parse_hash_family("md5"), std::invalid_argument);
  bool any_missing = false;
  for (hash_family algo : hash_families())
    for (const auto& e : cpu::compiled_engines(algo)) {
      if (e.available()) {
        CHECK(&cpu::find_engine(algo, e.name) == &e);
        continue;
      }
      any_missing = true;
      try {
        cpu::find_engine(algo, e.name);
        FAIL("no exception for " << e.name);
      } catch (const cpu::engine_unavailable& x) {
        CHECK(std::string(x.what()).find(std::string(e.name)) != std::string::npos);
      }
    }
  if (!any_missing) WARN("this CPU runs every compiled engine: the engine_unavailable path is not exercised");
}

namespace {
// 96 random chunks, each its own 32-byte allocation, so sanitizers catch any read past one.
std::vector<std::unique_ptr<std::uint8_t[]>> random_chunks(std::mt19937_64& rng) {
  std::vector<std::unique_ptr<std::uint8_t[]>> pool;
  for (int i = 0; i < 96; ++i) {
    pool.emplace_back(new std::uint8_t[32]);
    for (int b = 0; b < 32; ++b) pool.back()[b] = static_cast<std::uint8_t>(rng());
  }
  return pool;
}
}  // namespace

TEST_CASE("SHA-256 engines match portable on random chains", "[engines]") {
  std::mt19937_64 rng(20261122);
  const auto pool = random_chunks(rng);
  const engine& ref = cpu::find_engine(hash_family::sha256, "portable");
  for (const engine* e : engines_under_test(hash_family::sha256)) {
    for (std::size_t lanes : lane_counts(e->lanes))
      for (std::size_t nblocks : {1, 2, 20}) {
        INFO("engine " << e->name << ", lanes " << lanes << ", nblocks " << nblocks);
        std::vector<const std::uint8_t*> chunks(2 * nblocks * lanes);
        for (auto& c : chunks) c = pool[rng() % pool.size()].get();
        std::vector<std::uint32_t> state(8 * lanes);
        for (auto& w : state) w = static_cast<std::uint32_t>(rng());
        auto expect = state;
        ref.sha256(expect.data(), chunks.data(), nblocks, lanes);
        e->sha256(state.data(), chunks.data(), nblocks, lanes);
        CHECK(state == expect);
      }
  }
}

TEST_CASE("SHA-256 engines that keep schedules match portable on repeating chains", "[engines]") {
  std::mt19937_64 rng(20261125);
  const auto pool = random_chunks(rng);
  // first_of maps: SDR's two, one longer than the tracked blocks with more first
  // occurrences repeated than are kept, and one whose entries point forward or at repeats
  // (engines must then recompute, never misread).
  std::vector<std::vector<std::uint8_t>> maps;
  for (const auto& r : {sdr::kLayer1BlockRepeats, sdr::kLaterLayerBlockRepeats})
    maps.emplace_back(r.first_of, r.first_of + sdr::kLabelCompressions);
  std::vector<std::uint8_t> many(40);
  for (std::size_t k = 0; k < many.size(); ++k) many[k] = k < 12 || rng() % 3 == 0 ? static_cast<std::uint8_t>(k) : static_cast<std::uint8_t>(rng() % 12);
  maps.push_back(many);
  std::vector<std::uint8_t> odd = {0, 0, 1, 9, 2, 4, 6, 6};
  maps.push_back(odd);
  const engine& ref = cpu::find_engine(hash_family::sha256, "portable");
  bool any = false;
  for (const engine* e : engines_under_test(hash_family::sha256)) {
    if (e->sha256_repeat == nullptr) continue;
    any = true;
    for (std::size_t lanes : lane_counts(e->lanes))
      for (const auto& first_of : maps) {
        const std::size_t nblocks = first_of.size();
        INFO("engine " << e->name << ", lanes " << lanes << ", nblocks " << nblocks);
        std::vector<const std::uint8_t*> chunks(2 * nblocks * lanes);
        for (std::size_t k = 0; k < nblocks; ++k)
          for (std::size_t h = 0; h < 2; ++h)
            for (std::size_t j = 0; j < lanes; ++j) {
              // A block that names an earlier first occurrence holds that block's bytes.
              const std::size_t f = first_of[k];
              const bool repeat = f < k && first_of[f] == f;
              chunks[(2 * k + h) * lanes + j] = repeat ? chunks[(2 * f + h) * lanes + j] : pool[rng() % pool.size()].get();
            }
        std::vector<std::uint32_t> state(8 * lanes);
        for (auto& w : state) w = static_cast<std::uint32_t>(rng());
        const auto init = state;
        auto expect = state;
        ref.sha256(expect.data(), chunks.data(), nblocks, lanes);
        e->sha256_repeat(state.data(), chunks.data(), first_of.data(), nblocks, lanes);
        CHECK(state == expect);
        // The dispatcher, both ways: this engine's kept schedules, portable's plain chains.
        for (const engine* d : {e, &ref}) {
          auto got = init;
          cpu::sha256_chains_repeating(*d, got.data(), chunks.data(), first_of.data(), nblocks, lanes);
          CHECK(got == expect);
        }
        // SDR's maps keep every repeat's schedule: the engine promises not to read those
        // rows, and the labeler leaves them stale. Point them at other bytes.
        if (nblocks == sdr::kLabelCompressions && first_of[nblocks - 1] == nblocks - 1) {
          static const std::array<std::uint8_t, 32> poison = [] {
            std::array<std::uint8_t, 32> p{};
            p.fill(0xa5);
            return p;
          }();
          auto stale = chunks;
          for (std::size_t k = 0; k < nblocks; ++k)
            if (first_of[k] != k)
              for (std::size_t r = 2 * k * lanes; r < 2 * (k + 1) * lanes; ++r) stale[r] = poison.data();
          auto got = init;
          e->sha256_repeat(got.data(), stale.data(), first_of.data(), nblocks, lanes);
          CHECK(got == expect);
        }
      }
  }
  if (!any) WARN("no engine this CPU runs keeps schedules: sha256_repeat is not exercised");
}

TEST_CASE("SHA-256 engines give the known digests with standard padding", "[engines]") {
  const auto kat = test::load_json(test::data_dir() / "kat" / "hash-vectors.json");
  struct msg {
    std::vector<std::uint8_t> data;
    std::string hex;
  };
  std::vector<msg> msgs;
  for (const auto& v : kat["vectors"]) msgs.push_back({pattern(v["len"].get<std::size_t>()), v["sha256"]});
  for (const auto& v : kat["all_lengths_0_300"]) msgs.push_back({pattern(v["len"].get<std::size_t>()), v["sha256"]});
  for (const auto& v : kat["fips180_examples"]) {
    const std::string m = v["msg_ascii"];
    msg x;
    if (m == "a x 1000000")
      x.data.assign(1000000, 'a');
    else
      x.data.assign(m.begin(), m.end());
    x.hex = v["sha256"];
    msgs.push_back(std::move(x));
  }
  REQUIRE(msgs.size() > 300);

  for (const engine* e : engines_under_test(hash_family::sha256)) {
    INFO("engine " << e->name);
    for (const auto& m : msgs) {
      INFO("length " << m.data.size());
      CHECK(to_hex(cpu::sha256_digest(*e, m.data.data(), m.data.size())) == m.hex);
    }
    // Every lane at once: lane j hashes its own copy of the message, padded by hand
    // (FIPS 180-4 5.1.1) in a per-lane tail, chunks read in place from both.
    const std::size_t lanes = e->lanes;
    for (const auto& m : msgs) {
      const std::size_t len = m.data.size();
      if (len > 5000) continue;
      INFO("all " << lanes << " lanes, length " << len);
      const std::size_t full = len / 64, tail_blocks = len % 64 < 56 ? 1 : 2, nblocks = full + tail_blocks;
      std::vector<std::vector<std::uint8_t>> copies(lanes, m.data), tails(lanes, std::vector<std::uint8_t>(128, 0));
      std::vector<const std::uint8_t*> chunks(2 * nblocks * lanes);
      for (std::size_t j = 0; j < lanes; ++j) {
        auto& t = tails[j];
        if (len % 64 != 0) std::memcpy(t.data(), m.data.data() + 64 * full, len % 64);
        t[len % 64] = 0x80;
        store_be64(t.data() + 64 * tail_blocks - 8, static_cast<std::uint64_t>(len) * 8);
        for (std::size_t c = 0; c < 2 * nblocks; ++c)
          chunks[c * lanes + j] = c < 2 * full ? copies[j].data() + 32 * c : t.data() + 32 * (c - 2 * full);
      }
      std::vector<std::uint32_t> state(8 * lanes);
      for (std::size_t j = 0; j < lanes; ++j) sha256::init_state(state.data() + 8 * j);
      e->sha256(state.data(), chunks.data(), nblocks, lanes);
      for (std::size_t j = 0; j < lanes; ++j) {
        std::uint8_t d[32];
        sha256::store_digest(state.data() + 8 * j, d);
        CHECK(to_hex(d, 32) == m.hex);
      }
    }
  }
}

TEST_CASE("BLAKE2 engines match the official KATs, keyed and unkeyed", "[engines]") {
  const auto kat = test::load_json(test::data_dir() / "kat" / "blake2-kat.json");
  for (hash_family algo : {hash_family::blake2s, hash_family::blake2b}) {
    const std::string algo_name(hash_family_name(algo));
    const std::size_t outlen = algo == hash_family::blake2s ? 32 : 64;
    for (const engine* e : engines_under_test(algo)) {
      INFO(algo_name << " engine " << e->name);
      std::size_t keyed = 0, unkeyed = 0;
      for (const auto& v : kat) {
        if (v["hash"] != algo_name) continue;
        const auto in = from_hex(v["in"].get<std::string>());
        const auto key = from_hex(v["key"].get<std::string>());
        INFO("input " << in.size() << " bytes, key " << key.size() << " bytes");
        CHECK(to_hex(cpu::blake2_digest(*e, outlen, in.data(), in.size(), key.data(), key.size())) ==
              v["out"].get<std::string>());
        ++(key.empty() ? unkeyed : keyed);
      }
      CHECK(keyed == 256);
      CHECK(unkeyed == 256);
    }
  }
}

TEST_CASE("BLAKE2 engines give the known digests of long pattern inputs", "[engines]") {
  const auto kat = test::load_json(test::data_dir() / "kat" / "hash-vectors.json");
  for (const auto& v : kat["vectors"]) {
    const auto msg = pattern(v["len"].get<std::size_t>());
    INFO("length " << msg.size());
    for (const engine* e : engines_under_test(hash_family::blake2s)) {
      INFO("blake2s engine " << e->name);
      CHECK(to_hex(cpu::blake2_digest(*e, 32, msg.data(), msg.size())) == v["blake2s256"].get<std::string>());
    }
    for (const engine* e : engines_under_test(hash_family::blake2b)) {
      INFO("blake2b engine " << e->name);
      CHECK(to_hex(cpu::blake2_digest(*e, 64, msg.data(), msg.size())) == v["blake2b512"].get<std::string>());
      CHECK(to_hex(cpu::blake2_digest(*e, 32, msg.data(), msg.size())) == v["blake2b256"].get<std::string>());
    }
  }
}

TEST_CASE("every engine's full digest is its family's, whatever the family", "[engines]") {
  const auto kat = test::load_json(test::data_dir() / "kat" / "hash-vectors.json");
  for (const hash_family f : hash_families()) {
    const hash_algo full = full_digest(f);
    for (const auto& v : kat["vectors"]) {
      const auto msg = pattern(v["len"].get<std::size_t>());
      const std::string want = to_hex(hash_bytes(full, msg.data(), msg.size()));
      for (const engine* e : engines_under_test(f)) {
        INFO(hash_family_name(f) << " engine " << e->name << ", length " << msg.size());
        CHECK(to_hex(cpu::full_digest_of(*e, msg.data(), msg.size())) == want);
      }
    }
  }
}

TEST_CASE("BLAKE2 engines match portable on random blocks, counters and lane counts", "[engines]") {
  std::mt19937_64 rng(7693);
  auto check = [&](hash_family algo, auto word_tag) {
    using W = decltype(word_tag);
    const std::size_t B = 16 * sizeof(W), C = B / 32;
    for (const engine* e : engines_under_test(algo))
      for (std::size_t lanes : {std::size_t{1}, std::size_t{3}, e->lanes, e->lanes + 1, 2 * e->lanes + 3})
        for (std::size_t nblocks : {1, 2, 20})
          for (bool final : {false, true}) {
            INFO(hash_family_name(algo) << " engine " << e->name << ", lanes " << lanes << ", nblocks " << nblocks
                                             << ", final " << final);
            // Each lane's chunks scattered through a pool, as a layer's parents are.
            std::vector<std::uint8_t> pool(32 * C * nblocks * lanes);
            for (auto& b : pool) b = static_cast<std::uint8_t>(rng());
            std::vector<std::size_t> slot(C * nblocks * lanes);
            std::iota(slot.begin(), slot.end(), std::size_t{0});
            std::shuffle(slot.begin(), slot.end(), rng);
            std::vector<const std::uint8_t*> chunks(slot.size());
            for (std::size_t i = 0; i < slot.size(); ++i) chunks[i] = pool.data() + 32 * slot[i];
            std::vector<W> h(8 * lanes), expect(8 * lanes);
            for (auto& w : h) w = static_cast<W>(rng());
            // Counters past 2^32 exercise BLAKE2s's high counter word.
            const std::uint64_t t = (rng() % 3 == 0 ? (1ull << 32) - 64 : 0) + B * (1 + rng() % 1000);
            for (std::size_t j = 0; j < lanes; ++j) {
              std::vector<std::uint8_t> blocks(B * nblocks);
              for (std::size_t c = 0; c < C * nblocks; ++c) std::memcpy(blocks.data() + 32 * c, chunks[c * lanes + j], 32);
              std::copy(h.begin() + 8 * j, h.begin() + 8 * j + 8, expect.begin() + 8 * j);
              for (std::size_t k = 0; k < nblocks; ++k) {
                using H = std::conditional_t<sizeof(W) == 4, blake2s, blake2b>;
                H::compress(expect.data() + 8 * j, blocks.data() + B * k, t + B * k, final && k + 1 == nblocks);
              }
            }
            if constexpr (sizeof(W) == 4)
              e->blake2s(h.data(), chunks.data(), nblocks, t, final, lanes);
            else
              e->blake2b(h.data(), chunks.data(), nblocks, t, final, lanes);
            CHECK(h == expect);
          }
  };
  check(hash_family::blake2s, std::uint32_t{});
  check(hash_family::blake2b, std::uint64_t{});
}

TEST_CASE("best_engine honours POREPLAB_FORCE_ENGINE", "[engines]") {
  {
    force_engine_env env(nullptr);
    test::scoped_env static_order(cpu::kTuneEnv, "static");
    cpu::reset_tuning();
    CHECK(&cpu::best_engine(hash_family::sha256) == cpu::available_engines(hash_family::sha256).front());
    const engine& one = cpu::best_engine(hash_family::sha256, 1, 1);
    CHECK(one.lanes == 1);
    CHECK_THROWS_AS(cpu::best_engine(hash_family::sha256, 1000, 2000), std::invalid_argument);
  }
  cpu::reset_tuning();  // the static order above must not outlive its scope
  {
    force_engine_env env("portable");
    for (hash_family algo : hash_families()) CHECK(cpu::best_engine(algo).name == "portable");
  }
  {
    force_engine_env env("sha256:portable");
    CHECK(cpu::best_engine(hash_family::sha256).name == "portable");
    CHECK(&cpu::best_engine(hash_family::blake2s) != &cpu::find_engine(hash_family::sha256, "portable"));
  }
  {
    // A qualified entry wins over a bare name for its algo.
    force_engine_env env(" portable , blake2b:portable, sha256:portable ");
    CHECK(cpu::best_engine(hash_family::blake2b).name == "portable");
  }
  const auto& sha = cpu::available_engines(hash_family::sha256);
  const engine* widest = *std::max_element(sha.begin(), sha.end(), [](auto* a, auto* b) { return a->lanes < b->lanes; });
  if (widest->lanes > 1) {
    const engine* b2s_auto = &cpu::best_engine(hash_family::blake2s);
    force_engine_env env(std::string(widest->name).c_str());
    CHECK(&cpu::best_engine(hash_family::sha256) == widest);
    // A name only SHA-256 knows leaves BLAKE2 alone.
    const auto& b2s = cpu::compiled_engines(hash_family::blake2s);
    if (std::none_of(b2s.begin(), b2s.end(), [&](const engine& x) { return x.name == widest->name; }))
      CHECK(&cpu::best_engine(hash_family::blake2s) == b2s_auto);
    // Outside the caller's lane range.
    CHECK_THROWS_AS(cpu::best_engine(hash_family::sha256, 1, 1), std::invalid_argument);
  } else {
    WARN("no multi-lane SHA-256 engine available: forced lane-range check skipped");
  }
  {
    force_engine_env env("no-such-engine");
    try {
      cpu::best_engine(hash_family::sha256);
      FAIL("no exception");
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()).find("no-such-engine") != std::string::npos);
      CHECK(std::string(e.what()).find(cpu::kForceEngineEnv) != std::string::npos);
    }
  }
  {
    force_engine_env env("blake2s:shani");
    CHECK_THROWS_AS(cpu::best_engine(hash_family::blake2s), std::invalid_argument);
  }
  {
    force_engine_env env("md5:portable");
    CHECK_THROWS_AS(cpu::best_engine(hash_family::sha256), std::invalid_argument);
  }
}

TEST_CASE("bench_hash verifies every engine and OpenSSL in both modes", "[engines]") {
  cpu::hash_bench_options opt;
  opt.bytes_per_lane = 2048;  // a chain pass then holds one SDR label per lane
  opt.min_time_s = 0;
  opt.repetitions = 2;
  for (hash_family algo : hash_families()) {
    const auto rows = cpu::bench_hash(algo, "all", opt);
    const std::size_t engines = cpu::available_engines(algo).size();
    REQUIRE(rows.size() == 2 * (engines + 1));
    for (const auto& r : rows) {
      INFO(hash_family_name(r.algo) << " " << r.engine << " " << hash_bench_mode_name(r.mode));
      CHECK(r.algo == algo);
      CHECK(r.verified);
      // OpenSSL is sampled once after every engine sample: its row holds all of those.
      CHECK(r.samples.size() == (r.engine == cpu::kOpenssl ? 2 * engines : 2));
      if (r.engine == cpu::kOpenssl) {
        CHECK(!r.vs_openssl);
        CHECK(r.vs_openssl_pairs.empty());
      } else {
        REQUIRE(r.vs_openssl);
        REQUIRE(r.vs_openssl_pairs.size() == 2);
        CHECK(*r.vs_openssl > 0);
        CHECK(r.vs_openssl_lo <= *r.vs_openssl);
        CHECK(*r.vs_openssl <= r.vs_openssl_hi);
        // Each pair is OpenSSL's sample over this engine's sample taken just before it.
        const auto& o = rows[r.mode == hash_bench_mode::throughput ? engines : 2 * engines + 1];
        REQUIRE(o.engine == cpu::kOpenssl);
        bool paired = false;
        for (double os : o.samples) paired = paired || os / r.samples[0] == Approx(r.vs_openssl_pairs[0]);
        CHECK(paired);
        CHECK(cpu::to_json(r)["vs_openssl_pairs"].size() == 2);
      }
      CHECK(r.ns_per_block > 0);
      CHECK(r.min_ns_per_block <= r.ns_per_block);
      CHECK(r.ns_per_block <= r.max_ns_per_block);
      CHECK(r.gbps > 0);
      CHECK(r.cycles_per_byte_tsc > 0);
      CHECK(r.block_bytes == (algo == hash_family::blake2b ? 128u : 64u));
      const auto j = cpu::to_json(r);
      for (const char* key : {"kind", "algo", "engine", "lanes", "mode", "ns_per_block", "gb_per_s", "cycles_per_byte",
                              "cycles_per_byte_core", "verified", "samples", "bound_ns_per_block", "vs_bound"})
        CHECK(j.contains(key));
      // Every SHA-256 engine has a port bound; OpenSSL and BLAKE2 have none.
      const bool bounded = algo == hash_family::sha256 && r.engine != cpu::kOpenssl;
      CHECK(r.bound_ns_per_block.has_value() == bounded);
      CHECK(r.vs_bound.has_value() == bounded);
      if (bounded) {
        CHECK(*r.bound_ns_per_block > 0);
        CHECK(*r.vs_bound == Approx(*r.bound_ns_per_block / r.ns_per_block));
        CHECK(r.core_hz > 0);
      } else {
        CHECK(j["vs_bound"].is_null());
      }
      CHECK(j["kind"] == "hash");
    }
    CHECK(rows.front().mode == hash_bench_mode::throughput);
    CHECK(rows.back().mode == hash_bench_mode::chain);
    CHECK(rows.back().engine == cpu::kOpenssl);
  }
  CHECK_THROWS_AS(cpu::bench_hash(hash_family::sha256, "no-such-engine", opt), std::invalid_argument);
  const auto only = cpu::bench_hash(hash_family::blake2b, cpu::kOpenssl, opt);
  CHECK(only.size() == 2);
  for (const auto& r : only) CHECK(r.samples.size() == 2);
  opt.repetitions = 0;
  CHECK_THROWS_AS(cpu::bench_hash(hash_family::sha256, "portable", opt), std::invalid_argument);
}

TEST_CASE("bench_hash runs threads side by side and pairs them with one thread", "[engines]") {
  cpu::hash_bench_options opt;
  opt.bytes_per_lane = 2048;
  opt.min_time_s = 0;
  opt.repetitions = 3;
  opt.threads = 2;
  opt.placement = cpu::thread_placement::spread;
  const auto rows = cpu::bench_hash(hash_family::sha256, "portable", opt);
  REQUIRE(rows.size() == 4);  // portable and OpenSSL, two modes
  for (const auto& r : rows) {
    INFO(r.engine << " " << hash_bench_mode_name(r.mode));
    CHECK(r.verified);  // every copy's output
    CHECK(r.threads == 2);
    CHECK(r.placement == "spread");
    CHECK(r.cpus.size() == (cpu::affinity_cpus().empty() ? 0u : 2u));
    // A pass is both copies' blocks: 2 KiB messages, or one 20-block SDR label a lane.
    CHECK(r.blocks_per_pass == (r.mode == hash_bench_mode::throughput ? 2 * 2048u / 64 : 2 * 20u));
    if (r.engine == cpu::kOpenssl) {
      CHECK(!r.vs_one_thread);
      continue;
    }
    REQUIRE(r.vs_one_thread);
    CHECK(r.vs_one_thread_pairs.size() == 3);
    CHECK(*r.vs_one_thread > 0);
    CHECK(r.vs_one_thread_lo <= *r.vs_one_thread);
    CHECK(*r.vs_one_thread <= r.vs_one_thread_hi);
    CHECK(!r.bound_ns_per_block);  // one core's bound does not apply to two threads
    const auto j = cpu::to_json(r);
    CHECK(j["threads"] == 2);
    CHECK(j["vs_one_thread_pairs"].size() == 3);
  }
  // One thread: no pairing, nothing pinned.
  opt.threads = 1;
  for (const auto& r : cpu::bench_hash(hash_family::blake2s, "portable", opt)) {
    CHECK(!r.vs_one_thread);
    CHECK(r.cpus.empty());
    CHECK(cpu::to_json(r)["vs_one_thread"].is_null());
  }
  opt.threads = 0;
  CHECK_THROWS_WITH(cpu::bench_hash(hash_family::blake2s, "portable", opt), Catch::Contains("threads"));
  opt.threads = 2;
  opt.placement = cpu::thread_placement::siblings;
  const auto& topo = cpu::topology();
  if (!cpu::placement_unavailable(opt.placement, topo, cpu::affinity_cpus()).empty())
    CHECK_THROWS_AS(cpu::bench_hash(hash_family::blake2s, "portable", opt), unavailable_error);
}

TEST_CASE("precomputed padding blocks finish 64-byte messages", "[engines]") {
  const auto msg = pattern(64);
  std::uint8_t want[32];
  sha256::digest(want, msg.data(), msg.size());
  std::size_t with_pad = 0;
  for (const engine* e : engines_under_test(hash_family::sha256)) {
    if (e->sha256_pad64 == nullptr) continue;
    ++with_pad;
    INFO(e->name);
    for (std::size_t lanes : {std::size_t{1}, std::size_t{3}}) {
      std::vector<std::uint32_t> state(8 * lanes);
      std::vector<const std::uint8_t*> chunks(2 * lanes);
      for (std::size_t j = 0; j < lanes; ++j) {
        sha256::init_state(state.data() + 8 * j);
        chunks[j] = msg.data();
        chunks[lanes + j] = msg.data() + 32;
      }
      e->sha256(state.data(), chunks.data(), 1, lanes);
      e->sha256_pad64(state.data(), lanes);
      for (std::size_t j = 0; j < lanes; ++j) {
        std::uint8_t got[32];
        sha256::store_digest(state.data() + 8 * j, got);
        CHECK(std::equal(got, got + 32, want));
      }
    }
  }
  CHECK(with_pad >= 1);  // portable at least
}

TEST_CASE("a chain with a one-block chain interleaved computes both as the portable engine", "[engines]") {
  const auto msg = pattern(64 * 24);
  const engine& portable = cpu::find_engine(hash_family::sha256, "portable");
  for (const engine* e : engines_under_test(hash_family::sha256)) {
    if (e->sha256_chain_ahead == nullptr) continue;
    for (std::size_t lanes : {std::size_t{1}, std::size_t{3}})
      for (std::size_t nblocks : {std::size_t{1}, std::size_t{2}, std::size_t{19}}) {
        INFO(e->name << ", lanes " << lanes << ", blocks " << nblocks);
        // Lane j's blocks start j chunks further in; its ahead block is the last 64 bytes.
        std::vector<const std::uint8_t*> chunks(2 * nblocks * lanes), ahead_chunks(2 * lanes);
        std::vector<std::uint32_t> state(8 * lanes), ahead(8 * lanes), want_state, want_ahead(8 * lanes);
        for (std::size_t j = 0; j < lanes; ++j) {
          for (std::size_t r = 0; r < 2 * nblocks; ++r) chunks[r * lanes + j] = msg.data() + 32 * (r + j);
          ahead_chunks[j] = msg.data() + msg.size() - 64;
          ahead_chunks[lanes + j] = msg.data() + msg.size() - 32;
          for (int i = 0; i < 8; ++i) state[8 * j + i] = static_cast<std::uint32_t>(0x9e3779b9u * (j + 1) + i);
          sha256::init_state(ahead.data() + 8 * j);
        }
        want_state = state;
        want_ahead = ahead;
        portable.sha256(want_state.data(), chunks.data(), nblocks, lanes);
        portable.sha256(want_ahead.data(), ahead_chunks.data(), 1, lanes);
        e->sha256_chain_ahead(state.data(), chunks.data(), nblocks, ahead.data(), ahead_chunks.data(), lanes);
        CHECK(state == want_state);
        CHECK(ahead == want_ahead);
      }
  }
}

TEST_CASE("an SDR node hashed whole from its header state labels as the reference", "[engines][producer]") {
  // 14 distinct parent labels (bytes as they come: the engine must not care what a label's
  // top bits are), each layer's cycle, and a node index with no zero byte.
  const auto labels = random_bytes(32 * sdr::kParents, 1);
  const auto replica_id = pattern(32);
  for (const engine* e : engines_under_test(hash_family::sha256)) {
    // The one-chain engines that interleave a header block also hash a node whole.
    CHECK((e->sha256_chain_ahead != nullptr) == (e->sha256_sdr_node != nullptr));
    if (e->sha256_sdr_node == nullptr) continue;
    for (std::uint32_t layer : {1u, 2u, 11u})
      for (std::uint64_t node : {std::uint64_t{1}, std::uint64_t{0x0102030405060708}}) {
        INFO(e->name << ", layer " << layer << ", node " << node);
        std::uint8_t want[32], got[32] = {}, hdr[64];
        sdr::label_from_parent_labels(hash_family::sha256, replica_id.data(), layer, node, labels.data(), want);
        sdr::make_header(hdr, replica_id.data(), layer, node);
        std::uint32_t header_state[8];
        sha256::init_state(header_state);
        sha256::compress2(header_state, hdr, hdr + 32);
        const std::uint8_t* parents[sdr::kParents];
        for (std::uint32_t k = 0; k < sdr::kParents; ++k) parents[k] = labels.data() + 32 * k;
        const std::uint32_t cycle = layer == 1 ? sdr::kBaseDegree : sdr::kParents;
        e->sha256_sdr_node(header_state, parents, cycle, got, nullptr, nullptr, nullptr);
        CHECK(std::equal(got, got + 32, want));
        // With the next node's header block beside the chain: the same label, and that block's state.
        std::uint8_t next_hdr[64], got_ahead[32] = {};
        sdr::make_header(next_hdr, replica_id.data(), layer, node + 1);
        std::uint32_t want_next[8], next_state[8];
        sha256::init_state(want_next);
        sha256::compress2(want_next, next_hdr, next_hdr + 32);
        sha256::init_state(next_state);
        e->sha256_sdr_node(header_state, parents, cycle, got_ahead, next_state, next_hdr, next_hdr + 32);
        CHECK(std::equal(got_ahead, got_ahead + 32, want));
        CHECK(std::equal(next_state, next_state + 8, want_next));
      }
  }
}

TEST_CASE("SDR nodes hashed whole in an engine's lanes label as the reference, lane by lane", "[engines]") {
  // 16 sectors' replica_ids and the labels of a node's 14 parents, node-major (row k holds
  // every lane's label of parent k), as a layer lays them out.
  const auto ids = random_bytes(32 * 16, 2);
  const auto rows = random_bytes(32 * 16 * sdr::kParents + 7, 3);
  bool any = false;
  for (const engine* e : engines_under_test(hash_family::sha256)) {
    if (e->sha256_sdr_nodes == nullptr) continue;
    any = true;
    CHECK(e->lanes > 1);
    REQUIRE(e->lanes <= 16);
    const std::uint8_t* parents[sdr::kParents];
    for (std::uint32_t k = 0; k < sdr::kParents; ++k) parents[k] = rows.data() + 7 + 32 * 16 * k;
    // Every lane count: the narrower groups and the lanes left out.
    for (std::size_t lanes = 1; lanes <= e->lanes; ++lanes)
      for (std::uint32_t layer : {1u, 2u, 11u})
        for (std::uint64_t node : {std::uint64_t{1}, std::uint64_t{0x0102030405060708}}) {
          INFO(e->name << ", " << lanes << " lanes, layer " << layer << ", node " << node);
          // The header states made by the call, and given as a producer makes them.
          std::vector<std::uint32_t> states(8 * 16);
          for (std::size_t j = 0; j < 16; ++j) {
            std::uint8_t hdr[64];
            sdr::make_header(hdr, ids.data() + 32 * j, layer, node);
            sha256::init_state(states.data() + 8 * j);
            sha256::compress2(states.data() + 8 * j, hdr, hdr + 32);
          }
          const std::uint32_t* const given = states.data();
          for (const std::uint32_t* made : {static_cast<const std::uint32_t*>(nullptr), given}) {
            INFO((made == nullptr ? "header made by the call" : "header states given"));
            std::vector<std::uint8_t> got(32 * 16, 0xa5);
            e->sha256_sdr_nodes(ids.data(), layer, node, made, parents, layer == 1 ? sdr::kBaseDegree : sdr::kParents,
                                lanes, got.data());
            for (std::size_t j = 0; j < 16; ++j) {
              if (j >= lanes) {  // a lane beyond the sectors writes nothing
                CHECK(std::all_of(got.begin() + 32 * j, got.begin() + 32 * (j + 1), [](std::uint8_t b) { return b == 0xa5; }));
                continue;
              }
              std::uint8_t labels[32 * sdr::kParents], want[32];
              for (std::uint32_t k = 0; k < sdr::kParents; ++k) std::memcpy(labels + 32 * k, parents[k] + 32 * j, 32);
              sdr::label_from_parent_labels(hash_family::sha256, ids.data() + 32 * j, layer, node, labels, want);
              CHECK(std::equal(want, want + 32, got.begin() + 32 * j));
            }
          }
        }
  }
  if (!any) SUCCEED("no engine here hashes SDR nodes whole in lanes");
}

TEST_CASE("tree_d through every SHA-256 engine, padding precomputed or not, matches the library", "[engines][tree_d]") {
  for (std::uint64_t nodes : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{64}, std::uint64_t{1} << 13}) {
    auto data = pattern(nodes * 32);
    for (std::size_t i = 31; i < data.size(); i += 32) data[i] &= 0x3f;
    std::vector<std::uint8_t> want(sdr::tree_d_bytes(nodes)), got(want.size());
    const auto root = sdr::build_tree_d(data.data(), nodes, want.data());
    for (const engine* e : engines_under_test(hash_family::sha256))
      for (bool pad : {false, true}) {
        if (pad && e->sha256_pad64 == nullptr) {
          CHECK_THROWS_WITH(cpu::build_tree_d(*e, data.data(), nodes, got.data(), true),
                            Catch::Contains("precomputed-padding"));
          continue;
        }
        INFO(e->name << ", nodes " << nodes << ", pad " << pad);
        std::fill(got.begin(), got.end(), 0);
        CHECK(cpu::build_tree_d(*e, data.data(), nodes, got.data(), pad) == root);
        CHECK(got == want);
      }
  }
  CHECK_THROWS_WITH(cpu::build_tree_d(cpu::find_engine(hash_family::sha256, "portable"), nullptr, 3, nullptr, false),
                    Catch::Contains("power of two"));
}

TEST_CASE("seal's tree_d: the cpu backend's multi-lane rows and the all-zero shortcut equal the hashed tree",
          "[engines][tree_d]") {
  const auto be = cpu::make_cpu_backend({});
  const sdr::tree_d_row_hasher rows = be->tree_d_rows();
  REQUIRE(rows);
  // On this machine's CPUs (AVX-512 or SHA-NI) the engine has the precomputed padding.
  const engine& e = cpu::tree_d_engine();
  INFO("tree_d engine " << e.name);
  CHECK(e.sha256_pad64 != nullptr);
  const engine& portable = cpu::find_engine(hash_family::sha256, "portable");
  for (std::uint64_t nodes : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{32}, std::uint64_t{1} << 14}) {
    INFO("nodes " << nodes);
    auto data = pattern(nodes * 32);
    for (std::size_t i = 31; i < data.size(); i += 32) data[i] &= 0x3f;
    std::vector<std::uint8_t> want(sdr::tree_d_bytes(nodes)), got(want.size(), 0xee);
    const auto root = cpu::build_tree_d(portable, data.data(), nodes, want.data(), false);
    CHECK(sdr::build_tree_d(data.data(), nodes, got.data(), rows) == root);
    CHECK(got == want);
    // All zero: the rows are filled from zero_subtree_root, the same bytes as hashing them.
    const std::vector<std::uint8_t> zero(nodes * 32, 0);
    cpu::build_tree_d(portable, zero.data(), nodes, want.data(), false);
    std::fill(got.begin(), got.end(), 0xee);
    const auto zero_root = sdr::build_tree_d(zero.data(), nodes, got.data(), rows);
    CHECK(got == want);
    CHECK(std::equal(zero_root.begin(), zero_root.end(), want.end() - 32));
    CHECK(sdr::comm_d(zero.data(), nodes) == zero_root);
    CHECK(zero_root == sdr::zero_subtree_root(static_cast<unsigned>(std::countr_zero(nodes))));
  }
  // Streamed, chunks of zeros and of data mixed: the file and root of the hashed tree.
  const std::uint64_t nodes = 1 << 12, chunk = 256;
  auto data = pattern(nodes * 32);
  for (std::size_t i = 31; i < data.size(); i += 32) data[i] &= 0x3f;
  std::fill(data.begin(), data.begin() + 3 * chunk * 32, 0);                    // chunks 0-2 zero
  std::fill(data.end() - static_cast<std::ptrdiff_t>(chunk * 32), data.end(), 0);  // and the last
  std::vector<std::uint8_t> want(sdr::tree_d_bytes(nodes)), got(want.size(), 0xee);
  const auto root = cpu::build_tree_d(portable, data.data(), nodes, want.data(), false);
  const auto r = sdr::build_tree_d_streamed(
      nodes, chunk,
      [&](std::uint64_t first, std::uint64_t count, std::uint8_t* out) {
        std::copy_n(data.data() + first * 32, count * 32, out);
      },
      [&](std::uint64_t off, const std::uint8_t* b, std::uint64_t n) { std::copy_n(b, n, got.data() + off); }, rows);
  CHECK(r == root);
  CHECK(got == want);
  CHECK_THROWS_WITH(sdr::zero_subtree_root(64), Catch::Contains("2^64"));
}

TEST_CASE("CPUID family and model name the microarchitecture", "[engines]") {
  CHECK(cpu::microarchitecture("AuthenticAMD", 25, 1) == "Zen 3");     // EPYC Milan
  CHECK(cpu::microarchitecture("AuthenticAMD", 25, 0x11) == "Zen 4");  // EPYC Genoa
  CHECK(cpu::microarchitecture("AuthenticAMD", 26, 2) == "Zen 5");     // EPYC Turin
  CHECK(cpu::microarchitecture("AuthenticAMD", 23, 0x31) == "Zen 2");  // EPYC Rome
  CHECK(cpu::microarchitecture("GenuineIntel", 6, 207) == "Emerald Rapids");
  CHECK(cpu::microarchitecture("GenuineIntel", 6, 143) == "Sapphire Rapids");
  CHECK(cpu::microarchitecture("GenuineIntel", 6, 173) == "Granite Rapids");
  CHECK(cpu::microarchitecture("GenuineIntel", 25, 1).empty());  // another vendor's numbers
  CHECK(cpu::microarchitecture("AuthenticAMD", 6, 207).empty());
  const auto& f = cpu::detect();
  CHECK(f.family > 0);
  CHECK(f.microarchitecture == cpu::microarchitecture(f.vendor, f.family, f.model_number));
}
