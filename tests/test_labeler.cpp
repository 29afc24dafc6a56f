#include <sched.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "poreplab/cpu/floor.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/cpu/profile.hpp"
#include "poreplab/cpu/topology.hpp"
#include "poreplab/graph/graph_params.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/graph/parents.hpp"
#include "poreplab/graph/zigzag_graph.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/sdr/backend.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "poreplab/unavailable.hpp"
#include "runner/kinds.hpp"
#include "sdr_inputs.hpp"

using namespace poreplab;

namespace {

std::vector<std::uint32_t> table_for(std::uint64_t nodes) { return test::sdr_parent_table(nodes); }
std::vector<std::uint8_t> ids_for(std::uint32_t sectors) { return test::sdr_replica_ids(sectors); }

constexpr hash_family kHashes[] = {hash_family::sha256, hash_family::blake2s,
                                       hash_family::blake2b};
constexpr sdr::porep_variant kVariants[] = {sdr::porep_variant::sdr, sdr::porep_variant::zigzag};

std::vector<sdr::label_scheme> all_schemes() {
  std::vector<sdr::label_scheme> s;
  for (auto v : kVariants)
    for (auto h : kHashes) s.push_back({v, h});
  return s;
}

// A job of any scheme on a small graph (as tests/test_variants.cpp builds them).
struct scheme_job {
  std::vector<std::uint32_t> table;
  std::vector<std::uint8_t> ids, data;
  sdr::label_job job;
};

scheme_job make_scheme_job(sdr::label_scheme s, std::uint64_t nodes, std::uint32_t layers, std::uint32_t sectors) {
  const auto id = sdr::porep_id_of(sdr::find_registered_proof("StackedDrg2KiBV1_1"));
  const auto g = graph::make_graph_params(id.data(), graph::api_version::v1_1_0, nodes);
  scheme_job d;
  if (s.variant == sdr::porep_variant::zigzag) {
    const huge_buffer b = graph::zigzag_table(g);
    const auto* w = reinterpret_cast<const std::uint32_t*>(b.data());
    d.table.assign(w, w + 2 * nodes * 14);
  } else {
    d.table.resize(nodes * 14);
    graph::fill_parent_rows(g, 0, nodes, d.table.data());
  }
  d.ids = ids_for(sectors);
  std::mt19937 rng(11 + sectors);
  d.data.resize(nodes * sectors * 32);
  for (auto& x : d.data) x = static_cast<std::uint8_t>(rng());
  for (std::size_t i = 31; i < d.data.size(); i += 32) d.data[i] &= 0x3f;  // canonical field elements
  d.job = sdr::label_job{nodes, d.table.data(), layers, sectors, d.ids.data(), s, d.data.data()};
  return d;
}

}  // namespace

TEST_CASE("every CPU engine labels like the reference at boundary sector counts", "[labeler]") {
  const std::uint64_t nodes = 256;
  const std::uint32_t layers = 3;
  const auto parents = table_for(nodes);
  for (const cpu::engine* e : cpu::available_engines(hash_family::sha256)) {
    const std::uint32_t L = static_cast<std::uint32_t>(e->lanes);
    std::vector<std::uint32_t> counts = {1, L, L + 1, 2 * L + 1};
    if (L > 1) counts.push_back(L - 1);
    for (std::uint32_t sectors : counts) {
      INFO("engine " << e->name << ", sectors " << sectors);
      const auto ids = ids_for(sectors);
      sdr::label_job job{nodes, parents.data(), layers, sectors, ids.data()};
      sdr::memory_layer_store want(nodes * 32 * sectors, layers), got(nodes * 32 * sectors, layers);
      sdr::make_reference_backend()->label(job, want);
      cpu::labeler_options opt;
      opt.engine = std::string(e->name);
      opt.threads = 2;
      cpu::make_cpu_backend(opt)->label(job, got);
      for (std::uint32_t l = 1; l <= layers; ++l)
        REQUIRE(std::equal(want.layer(l), want.layer(l) + nodes * 32 * sectors, got.layer(l)));
    }
  }
}

TEST_CASE("cpu backend rejects unknown engines", "[labeler]") {
  cpu::labeler_options opt;
  opt.engine = "no-such-engine";
  CHECK_THROWS_AS(cpu::make_cpu_backend(opt), std::invalid_argument);
}

TEST_CASE("cpu backend runs every scheme on every engine of its hash like the reference", "[labeler][variants]") {
  for (auto v : kVariants)
    for (auto h : kHashes) {
      const sdr::label_scheme scheme{v, h};
      const bool zigzag = v == sdr::porep_variant::zigzag;
      const std::uint64_t nodes = zigzag ? 128 : 64;
      const std::uint32_t layers = zigzag ? 4 : 3;
      for (const cpu::engine* e : cpu::available_engines(h)) {
        const auto L = static_cast<std::uint32_t>(e->lanes);
        std::vector<std::uint32_t> counts = {1, L, L + 1};
        if (L > 2) counts.push_back(L - 1);
        for (std::uint32_t sectors : counts) {
          INFO(sdr::scheme_name(scheme) << ", engine " << e->name << ", sectors " << sectors);
          auto d = make_scheme_job(scheme, nodes, layers, sectors);
          const std::uint64_t bytes = nodes * 32 * sectors;
          sdr::memory_layer_store want(bytes, layers), got(bytes, layers);
          sdr::make_reference_backend()->label(d.job, want);
          cpu::labeler_options opt;
          opt.engine = std::string(e->name);
          opt.threads = 2;
          // Chunks read in place, and (one count a scheme) copied per lane first.
          if (sectors == L + 1) opt.assembly = cpu::message_assembly::gather;
          cpu::make_cpu_backend(opt)->label(d.job, got);
          for (std::uint32_t l = 1; l <= layers; ++l) {
            INFO("layer " << l);
            REQUIRE(std::equal(want.layer(l), want.layer(l) + bytes, got.layer(l)));
          }
          // "auto" picks an engine of the scheme's hash, too.
          if (e == cpu::available_engines(h).front() && sectors == 1) {
            sdr::rolling_layer_store rolling(bytes);
            cpu::make_cpu_backend({})->label(d.job, rolling);
            REQUIRE(std::equal(want.layer(layers), want.layer(layers) + bytes, rolling.layer(layers)));
          }
        }
      }
    }
}

TEST_CASE("cpu backend engine names are looked up per scheme hash", "[labeler][variants]") {
  const sdr::label_scheme b2s{sdr::porep_variant::zigzag, hash_family::blake2s};
  CHECK(cpu::pick_label_engine(b2s, 1).algo == hash_family::blake2s);
  CHECK(cpu::pick_label_engine(b2s, 16).algo == hash_family::blake2s);
  CHECK(cpu::pick_label_engine(b2s, 1, "portable").algo == hash_family::blake2s);
  CHECK(&cpu::pick_label_engine(sdr::kFilecoinScheme, 3) == &cpu::pick_label_engine(3));
  CHECK_THROWS_WITH(cpu::pick_label_engine(b2s, 1, "avx2-x4"), Catch::Contains("blake2s"));  // a BLAKE2b name
  // A SHA-256 engine name forced on a BLAKE2 job: refused when labeling, naming the algo.
  cpu::labeler_options opt;
  const auto& b2s_engines = cpu::compiled_engines(hash_family::blake2s);
  for (const cpu::engine* e : cpu::available_engines(hash_family::sha256)) {
    if (std::any_of(b2s_engines.begin(), b2s_engines.end(), [&](const cpu::engine& x) { return x.name == e->name; }))
      continue;  // a name both algos know
    opt.engine = std::string(e->name);
    auto be = cpu::make_cpu_backend(opt);
    auto d = make_scheme_job(b2s, 64, 1, 1);
    sdr::rolling_layer_store store(64 * 32);
    CHECK_THROWS_WITH(be->label(d.job, store), Catch::Contains("unknown blake2s engine '" + opt.engine + "'"));
    break;
  }
  opt.engine = "no-such-engine";
  CHECK_THROWS_WITH(cpu::make_cpu_backend(opt), Catch::Contains("sha256:") && Catch::Contains("blake2b:"));
}

TEST_CASE("labeling floor runs every scheme's compressions", "[labeler][variants]") {
  for (auto v : kVariants)
    for (auto h : kHashes) {
      const sdr::label_scheme scheme{v, h};
      INFO(sdr::scheme_name(scheme));
      const cpu::engine& e = cpu::pick_label_engine(scheme, 1);
      const double s = cpu::measure_floor_seconds(e, scheme, 1, 1000, 1);
      CHECK(s > 0);
      CHECK(s < 1);
    }
  const sdr::label_scheme b2b{sdr::porep_variant::sdr, hash_family::blake2b};
  CHECK_THROWS_AS(cpu::measure_floor_seconds(cpu::pick_label_engine(1), b2b, 1, 10, 1), std::invalid_argument);
}

TEST_CASE("replication profile: verified, shares of one, overhead reported", "[labeler][profile]") {
  for (const auto scheme : all_schemes()) {
    INFO(sdr::scheme_name(scheme));
    const bool zigzag = scheme.variant == sdr::porep_variant::zigzag;
    for (std::uint32_t sectors : {1u, 2u}) {
      INFO("sectors " << sectors);
      auto d = make_scheme_job(scheme, 256, zigzag ? 3 : 2, sectors);
      if (!zigzag && sectors == 1) d.job.data = nullptr;  // the profile generates the data to encode
      sdr::rolling_layer_store store(256 * 32 * sectors);
      cpu::profile_options opt;
      opt.samples = 2;
      const auto r = cpu::profile_labeling(d.job, store, cpu::pick_label_engine(scheme, 1), opt);
      CHECK(r.verified);
      CHECK(r.digest == r.reference_digest);
      CHECK(r.samples == 2);
      CHECK(r.timed_s.size() == 2);
      CHECK(r.untimed_s.size() == 2);
      CHECK(r.backend_s.size() == 2);
      for (double x : {r.share.fetch, r.share.hash, r.share.encode, r.share.io, r.share.other}) {
        CHECK(x >= 0);
        CHECK(x <= 1);
      }
      CHECK(std::abs(r.share.sum() - 1) < 1e-9);
      CHECK(r.share.hash > 0);
      CHECK(r.share.fetch > 0);
      CHECK(r.share.encode > 0);  // zigzag: per node; sdr: the replica pass
      if (zigzag) CHECK(r.share.io > 0);  // the copy into the next layer
      CHECK(std::isfinite(r.overhead));
      CHECK(r.overhead > -1);
      CHECK(r.total_s > 0);
      CHECK(r.untimed_total_s > 0);
      CHECK(r.backend_total_s > 0);
      CHECK(r.cycles_per_byte > 0);
      CHECK(r.backend_cycles_per_byte > 0);
      CHECK(r.hashed_bytes == 256ull * (zigzag ? 3 : 2) * sectors * sdr::message_bytes(scheme.variant));
      CHECK(r.seconds.sum() > 0);
      if (!zigzag) CHECK(!r.replica_digest.empty());
      // Layer groups: zigzag 3 layers = forward 1, 3 and reverse 2; sdr 2 = layer 1 and 2.
      REQUIRE(r.directions.size() == 2);
      CHECK(r.directions[0].group == (zigzag ? "forward" : "layer 1"));
      CHECK(r.directions[0].layers == (zigzag ? 2u : 1u));
      CHECK(r.directions[1].group == (zigzag ? "reverse" : "layers 2+"));
      CHECK(r.directions[1].layers == 1u);
      for (const auto& g : r.directions) {
        CHECK(g.fetch_share > 0);
        CHECK(g.hash_share > 0);
        CHECK(g.fetch_share + g.hash_share <= 1);
        CHECK(g.ns_per_node > 0);
        CHECK((g.llc_misses_per_node >= 0) == (r.llc_counter == "PERF_COUNT_HW_CACHE_MISSES"));
      }
      CHECK(!r.llc_counter.empty());
    }
  }
  // An engine of another hash is refused.
  auto d = make_scheme_job({sdr::porep_variant::zigzag, hash_family::blake2s}, 64, 1, 1);
  sdr::rolling_layer_store store(64 * 32);
  CHECK_THROWS_WITH(cpu::profile_labeling(d.job, store, cpu::pick_label_engine(1)), Catch::Contains("blake2s"));
}

TEST_CASE("runner kind profile: verified point, shares and overhead as rates", "[labeler][profile]") {
  const runner::kind_spec* k = runner::find_kind("profile");
  REQUIRE(k != nullptr);
  const nlohmann::json axes = {{"backend", "cpu"},      {"variant", "zigzag"}, {"hash", "blake2b-256"},
                               {"engine", "auto"},      {"sector_size", 4096}, {"layers", 3}};
  CHECK(k->unavailable(axes).empty());
  nlohmann::json bad = axes;
  bad["engine"] = "shani-x2";
  CHECK_THAT(k->unavailable(bad), Catch::Contains("blake2b"));
  const runner::measurement m = k->run(axes, 0, 2);
  CHECK(m.verified);
  CHECK(m.samples.size() == 2);
  CHECK(m.context.value("scheme", "") == "zigzag/blake2b-256");
  CHECK(m.context.value("scheme_status", "") == "what-if");
  CHECK(!m.context.value("engine", "").empty());
  const auto r = k->rates(axes, m.context, m.samples[0]);
  double sum = 0;
  for (const char* share : {"share_hash", "share_fetch", "share_encode", "share_io", "share_other"}) {
    REQUIRE(r.contains(share));
    sum += r[share].get<double>();
  }
  CHECK(std::abs(sum - 1) < 1e-9);
  for (const char* key : {"overhead", "cycles_per_byte", "ns_per_node_layer", "untimed_ns_per_node_layer",
                          "backend_ns_per_node_layer"})
    CHECK(r.contains(key));
  CHECK(r["cycles_per_byte"].get<double>() > 0);
}

TEST_CASE("ablation switches label like the reference", "[labeler][variants][ablation]") {
  using cpu::message_assembly;
  for (auto v : kVariants)
    for (auto h : kHashes) {
      const sdr::label_scheme scheme{v, h};
      const bool zigzag = v == sdr::porep_variant::zigzag;
      const std::uint64_t nodes = zigzag ? 128 : 64;
      const std::uint32_t layers = zigzag ? 4 : 3;
      for (const cpu::engine* e : cpu::available_engines(h)) {
        const bool sha = e->algo == hash_family::sha256;
        const auto L = static_cast<std::uint32_t>(e->lanes);
        for (std::uint32_t sectors : {1u, L, L + 1}) {
          if (sectors == L && L == 1) continue;
          auto d = make_scheme_job(scheme, nodes, layers, sectors);
          const std::uint64_t bytes = nodes * 32 * sectors;
          sdr::memory_layer_store want(bytes, layers);
          sdr::make_reference_backend()->label(d.job, want);
          std::vector<cpu::labeler_options> settings;
          for (auto a : {message_assembly::in_place, message_assembly::gather})
            for (auto enc : {cpu::field_encoding::normal, cpu::field_encoding::montgomery}) {
              if (!sha && a == message_assembly::in_place) continue;
              cpu::labeler_options o;
              o.assembly = a;
              o.encoding = enc;
              o.prefetch_distance = enc == cpu::field_encoding::normal ? 0 : 7;
              o.prefetch_to = a == message_assembly::gather ? cpu::prefetch_level::l1 : cpu::prefetch_level::l2;
              settings.push_back(o);
            }
          for (auto p : {cpu::huge_pages::on, cpu::huge_pages::off}) {
            cpu::labeler_options o;
            o.pages = p;
            settings.push_back(o);
          }
          for (auto a : {message_assembly::in_place, message_assembly::gather}) {
            if (!sha && a == message_assembly::in_place) continue;
            cpu::labeler_options o;
            o.schedule_reuse = false;
            o.assembly = a;
            settings.push_back(o);
          }
          // The header on the chain (the 20-block path), with and without schedule reuse.
          for (bool reuse : {true, false}) {
            cpu::labeler_options o;
            o.header_ahead = false;
            o.schedule_reuse = reuse;
            o.assembly = sha ? message_assembly::in_place : message_assembly::gather;
            settings.push_back(o);
          }
          // In place through the chunk rows, where an engine with a whole-node entry would take the node.
          if (sha) {
            cpu::labeler_options o;
            o.whole_node = false;
            settings.push_back(o);
          }
          if (sha && e->sha256_pad64 != nullptr)
            for (auto a : {message_assembly::in_place, message_assembly::gather}) {
              cpu::labeler_options o;
              o.pad_precompute = true;
              o.assembly = a;
              settings.push_back(o);
            }
          for (auto o : settings) {
            INFO(sdr::scheme_name(scheme) << ", engine " << e->name << ", sectors " << sectors << ", assembly "
                                          << int(o.assembly) << ", encoding " << int(o.encoding) << ", pages "
                                          << int(o.pages) << ", pad " << o.pad_precompute << ", reuse "
                                          << o.schedule_reuse << ", header ahead " << o.header_ahead << ", whole " << o.whole_node << ", prefetch " << o.prefetch_distance << " to L"
                                          << (o.prefetch_to == cpu::prefetch_level::l1 ? 1 : 2));
            o.engine = std::string(e->name);
            o.threads = 2;
            sdr::memory_layer_store got(bytes, layers);
            cpu::make_cpu_backend(o)->label(d.job, got);
            for (std::uint32_t l = 1; l <= layers; ++l) REQUIRE(std::equal(want.layer(l), want.layer(l) + bytes, got.layer(l)));
          }
        }
      }
    }
}

TEST_CASE("parents gathered by a producer thread label like the reference", "[labeler][producer]") {
  // 1024 nodes: rings of 4 and 256 slots wrap; base parents both copied and left out (not
  // yet labeled when the producer reached their node).
  const std::uint64_t nodes = 1024;
  const std::uint32_t layers = 3;
  const auto parents = table_for(nodes);
  for (const cpu::engine* e : cpu::available_engines(hash_family::sha256)) {
    const auto L = static_cast<std::uint32_t>(e->lanes);
    for (std::uint32_t sectors : {1u, L + 1}) {
      const auto ids = ids_for(sectors);
      sdr::label_job job{nodes, parents.data(), layers, sectors, ids.data()};
      const std::uint64_t bytes = nodes * 32 * sectors;
      sdr::memory_layer_store want(bytes, layers);
      sdr::make_reference_backend()->label(job, want);
      // Each ring depth with one and two threads, schedule reuse on and off between them.
      for (std::size_t depth : {4u, 256u})
        for (int threads : {1, 2}) {
          const bool reuse = (threads == 2) == (depth == 4);
          // Headers from the producer, or on the chain: each with one and two threads; with
          // headers made, nodes hashed whole (where the engine can) and through chunk rows.
          const bool ahead = (threads == 1) != (depth == 4);
          const bool whole = depth == 256;
          INFO("engine " << e->name << ", sectors " << sectors << ", ring " << depth << ", threads " << threads
                         << ", schedule reuse " << reuse << ", header ahead " << ahead << ", whole nodes " << whole);
          cpu::labeler_options o;
          o.engine = std::string(e->name);
          o.producer = cpu::parent_producer::core;
          o.ring_depth = depth;
          o.threads = threads;
          o.schedule_reuse = reuse;
          o.header_ahead = ahead;
          o.whole_node = whole;
          REQUIRE(cpu::header_off_chain(o, job) == ahead);
          o.prefetch_distance = depth == 4 ? 0 : 4;
          REQUIRE(cpu::planned_producer(o, job) == cpu::parent_producer::core);
          sdr::memory_layer_store got(bytes, layers);
          cpu::make_cpu_backend(o)->label(job, got);
          for (std::uint32_t l = 1; l <= layers; ++l) REQUIRE(std::equal(want.layer(l), want.layer(l) + bytes, got.layer(l)));
        }
    }
  }
}

TEST_CASE("the header leaves the chain by a producer or for a one-lane group only", "[labeler][producer]") {
  const std::uint64_t nodes = 256;
  const auto parents = table_for(nodes);
  for (const cpu::engine* e : cpu::available_engines(hash_family::sha256)) {
    const auto L = static_cast<std::uint32_t>(std::max<std::size_t>(1, e->lanes));
    for (std::uint32_t sectors : {1u, L + 1}) {
      INFO("engine " << e->name << ", sectors " << sectors);
      const auto ids = ids_for(sectors);
      sdr::label_job job{nodes, parents.data(), 2, sectors, ids.data()};
      cpu::labeler_options o;
      o.engine = std::string(e->name);
      o.producer = cpu::parent_producer::off;
      CHECK(cpu::header_off_chain(o, job) == (std::min(sectors, L) == 1));
      o.producer = cpu::parent_producer::core;
      CHECK(cpu::header_off_chain(o, job));
      o.header_ahead = false;
      CHECK_FALSE(cpu::header_off_chain(o, job));
    }
  }
  auto z = make_scheme_job({sdr::porep_variant::sdr, hash_family::blake2s}, 64, 1, 1);
  CHECK_FALSE(cpu::header_off_chain(cpu::labeler_options{}, z.job));
}

TEST_CASE("producer placement: auto, bad values and jobs it cannot serve", "[labeler][producer]") {
  CHECK(cpu::kParentProducers.parse("auto") == cpu::parent_producer::automatic);
  CHECK(cpu::kParentProducers.name(cpu::parent_producer::sibling) == "sibling");
  CHECK_THROWS_WITH(cpu::kParentProducers.parse("smt"), Catch::Contains("off, auto, core, sibling"));
  const std::uint64_t nodes = 256;
  const auto parents = table_for(nodes);
  const auto ids = ids_for(1);
  sdr::label_job small{nodes, parents.data(), 2, 1, ids.data()};
  cpu::labeler_options o;
  // auto: no producer for a layer the caches hold.
  CHECK(cpu::planned_producer(o, small) == cpu::parent_producer::off);
  {
    // Pinned labeling threads include the caller: its affinity is given back afterwards
    // (else the next job would see one allowed CPU and plan no producer).
    cpu_set_t before{}, after{};
    REQUIRE(sched_getaffinity(0, sizeof before, &before) == 0);
    cpu::labeler_options pinned;
    pinned.threads = 2;
    pinned.producer = cpu::parent_producer::core;
    sdr::memory_layer_store s(nodes * 32, 2);
    cpu::make_cpu_backend(pinned)->label(small, s);
    REQUIRE(sched_getaffinity(0, sizeof after, &after) == 0);
    CHECK(CPU_EQUAL(&before, &after));
  }
  for (std::size_t depth : {2u, 100u, 8192u}) {
    o.ring_depth = depth;
    CHECK_THROWS_WITH(cpu::make_cpu_backend(o), Catch::Contains("--ring-depth") && Catch::Contains("power of two"));
  }
  o = {};
  o.producer = cpu::parent_producer::core;
  o.assembly = cpu::message_assembly::gather;
  sdr::memory_layer_store store(nodes * 32, 2);
  CHECK_THROWS_WITH(cpu::make_cpu_backend(o)->label(small, store), Catch::Contains("in-place assembly only"));
  o.assembly = cpu::message_assembly::automatic;
  auto z = make_scheme_job({sdr::porep_variant::zigzag, hash_family::sha256}, 64, 1, 1);
  sdr::memory_layer_store zstore(64 * 32, 1);
  CHECK_THROWS_WITH(cpu::make_cpu_backend(o)->label(z.job, zstore), Catch::Contains("SDR SHA-256"));
  // sibling needs SMT siblings: where this process has none it is unavailable, by type.
  o.producer = cpu::parent_producer::sibling;
  bool smt = false;
  try {
    cpu::make_cpu_backend(o);
    smt = true;
  } catch (const unavailable_error& e) {
    CHECK_THAT(e.what(), Catch::Contains("valid here: off, auto, core"));
  }
  if (smt) {
    sdr::memory_layer_store want(nodes * 32, 2), got(nodes * 32, 2);
    sdr::make_reference_backend()->label(small, want);
    cpu::make_cpu_backend(o)->label(small, got);
    CHECK(std::equal(want.layer(2), want.layer(2) + nodes * 32, got.layer(2)));
  }
}

TEST_CASE("ablation switches refuse what they cannot do", "[labeler][ablation]") {
  CHECK(cpu::kMessageAssemblies.parse("in-place") == cpu::message_assembly::in_place);
  CHECK(cpu::kFieldEncodings.parse("montgomery") == cpu::field_encoding::montgomery);
  CHECK(cpu::kHugePages.parse("default") == cpu::huge_pages::system);
  CHECK_THROWS_WITH(cpu::kMessageAssemblies.parse("copy"), Catch::Contains("in-place, gather"));
  CHECK_THROWS_WITH(cpu::kFieldEncodings.parse("x"), Catch::Contains("normal, montgomery"));
  CHECK_THROWS_WITH(cpu::kHugePages.parse("yes"), Catch::Contains("default, on, off"));
  const sdr::label_scheme b2s{sdr::porep_variant::zigzag, hash_family::blake2s};
  auto d = make_scheme_job(b2s, 64, 1, 1);
  sdr::rolling_layer_store store(64 * 32);
  cpu::labeler_options o;
  o.pad_precompute = true;
  CHECK_THROWS_WITH(cpu::make_cpu_backend(o)->label(d.job, store), Catch::Contains("precomputed-padding"));
}

TEST_CASE("name tables: every value named once, each name parses back to its value", "[labeler][names]") {
  auto check = [](const auto& table) {
    INFO(table.what);
    std::set<std::string> seen;
    for (const auto& e : table.entries) {
      CHECK(seen.insert(std::string(e.name)).second);
      CHECK(table.parse(e.name) == e.value);
      CHECK(table.name(e.value) == e.name);
      CHECK(table.has(e.name));
    }
    CHECK_FALSE(table.has("no such name"));
    CHECK_THROWS_WITH(table.parse("no such name"),
                      "unknown " + std::string(table.what) + " 'no such name' (valid: " + table.valid() + ")");
  };
  check(cpu::kMessageAssemblies);
  check(cpu::kFieldEncodings);
  check(cpu::kHugePages);
  check(cpu::kPrefetchLevels);
  check(cpu::kParentProducers);
  check(cpu::kThreadPlacements);
}
