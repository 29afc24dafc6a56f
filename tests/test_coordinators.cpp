// Coordinators feeding teams of hashing threads (labeler_options::producer,
// hashers_per_coordinator): labels equal to the reference at every team size, teams over a
// topology, bad values, which parents a slot holds, and a team that stops as a whole.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <catch2/catch.hpp>
#include <cstdint>
#include <thread>
#include <vector>

#include "parent_ring.hpp"  // cpu/src: the ring's wait and stop
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/cpu/topology.hpp"
#include "poreplab/interrupt.hpp"
#include "poreplab/sdr/backend.hpp"
#include "poreplab/sdr/label.hpp"
#include "sdr_inputs.hpp"

using namespace poreplab;

namespace {

// Teams not pinned: more threads than this machine's CPUs still run (oversubscribed).
cpu::labeler_options team_options(const cpu::engine& e, std::size_t hashers_per_coordinator, int hashers) {
  cpu::labeler_options o;
  o.engine = std::string(e.name);
  o.producer = cpu::parent_producer::core;
  o.pin_threads = false;
  o.hashers_per_coordinator = hashers_per_coordinator;
  o.threads = hashers;
  return o;
}

}  // namespace

TEST_CASE("coordinators feeding 1, 2 and 4 hashers label like the reference", "[labeler][coordinators]") {
  // 256 nodes: rings of 4 and 64 slots wrap; base parents both copied and left out.
  const std::uint64_t nodes = 256;
  const std::uint32_t layers = 3;
  const auto parents = test::sdr_parent_table(nodes);
  for (const cpu::engine* e : cpu::available_engines(hash_family::sha256)) {
    const auto width = static_cast<std::uint32_t>(std::max<std::size_t>(1, e->lanes));
    const std::uint32_t sectors = 4 * width + 1;  // five groups: slices of unequal size
    const auto ids = test::sdr_replica_ids(sectors);
    sdr::label_job job{nodes, parents.data(), layers, sectors, ids.data()};
    const std::uint64_t bytes = nodes * 32 * sectors;
    sdr::memory_layer_store want(bytes, layers);
    sdr::make_reference_backend()->label(job, want);
    for (std::size_t k : {1u, 2u, 4u})
      for (int hashers : {static_cast<int>(k), 4}) {
        const bool small_ring = hashers == 4;
        const bool ahead = k != 2, whole = k != 4;
        INFO("engine " << e->name << ", hashers per coordinator " << k << ", hashers " << hashers << ", ring "
                       << (small_ring ? 4 : 64) << ", header ahead " << ahead << ", whole nodes " << whole);
        cpu::labeler_options o = team_options(*e, k, hashers);
        o.ring_depth = small_ring ? 4 : 64;
        o.header_ahead = ahead;
        o.whole_node = whole;
        o.prefetch_distance = small_ring ? 0 : 4;
        const cpu::planned_teams plan = cpu::planned_coordination(o, job);
        CHECK(plan.where == cpu::parent_producer::core);
        CHECK(plan.hashers == static_cast<std::uint32_t>(hashers));
        CHECK(plan.coordinators == static_cast<std::uint32_t>((hashers + static_cast<int>(k) - 1) / static_cast<int>(k)));
        sdr::memory_layer_store got(bytes, layers);
        const auto be = cpu::make_cpu_backend(o);
        const sdr::label_run_times t = be->timed_label(job, got);
        for (std::uint32_t l = 1; l <= layers; ++l) REQUIRE(std::equal(want.layer(l), want.layer(l) + bytes, got.layer(l)));
        // The coordinators' account: every team, and every regular node's parent rows copied
        // but the base parents left out: the expander parents (layers 2 on) always.
        CHECK(t.coordination.coordinators == plan.coordinators);
        CHECK(t.coordination.hashers == plan.hashers);
        CHECK(t.coordination.coordinator_ticks > t.coordination.coordinator_wait_ticks);
        const std::uint64_t regular = (nodes - 1) * plan.coordinators;
        CHECK(t.coordination.parent_rows_copied <= regular * (6 + 14ull * (layers - 1)));
        CHECK(t.coordination.parent_rows_copied >= regular * 8ull * (layers - 1));
      }
  }
}

TEST_CASE("a coordinator copies exactly the base parents every hasher has labeled, and every expander parent", "[labeler][coordinators]") {
  // The hasher has labeled nodes [0, labeled) when the coordinator reaches node v: base
  // parents below that are copied into v's slot, the rest left out (read in place); expander
  // parents always copied, and a copied row holds the parent's label. `labeled` on either
  // side of one of v's base parents.
  const std::uint64_t nodes = 4096;
  const std::uint32_t slots = 16;
  const auto parents = test::sdr_parent_table(nodes);
  const auto ids = test::sdr_replica_ids(1);
  sdr::label_job job{nodes, parents.data(), 2, 1, ids.data()};
  std::vector<std::uint8_t> layer1(nodes * 32), layer2(nodes * 32);
  for (std::size_t i = 0; i < layer1.size(); ++i) {
    layer1[i] = static_cast<std::uint8_t>(i * 7);
    layer2[i] = static_cast<std::uint8_t>(i * 13 + 1);
  }
  const sdr::layer_inputs in{layer2.data(), layer1.data(), job.row(0)};
  // A node with a base parent u a few nodes back, not its predecessor: labeled = u and u + 1
  // both stay above v - slots, so the coordinator never waits.
  const auto near_parent = [&](std::uint64_t v) -> std::uint64_t {
    for (std::uint32_t k = 1; k < sdr::kBaseDegree; ++k)
      if (job.row(v)[k] + 12 >= v && job.row(v)[k] + 2 <= v) return job.row(v)[k];
    return 0;
  };
  std::uint64_t v = nodes / 2;
  while (v + 1 < nodes && near_parent(v) == 0) ++v;
  const std::uint64_t u = near_parent(v);
  REQUIRE(u != 0);
  for (const std::uint64_t labeled : {u, u + 1}) {
    cpu::detail::lane_layer<sdr::porep_variant::sdr> at(job, 2, in, 0, 1);
    at.end = v + 1;
    cpu::detail::parent_ring ring(slots, 1);
    ring.publish_labeled(0, labeled);
    cpu::detail::produce_parents(at, ring, 0, 0, nullptr);
    const std::uint32_t mask = ring.mask(v);
    for (std::uint32_t k = 0; k < sdr::kParents; ++k) {
      const std::uint32_t p = job.row(v)[k];
      INFO("node " << v << ", parent " << k << ": node " << p << ", labeled below " << labeled);
      CHECK(((mask >> k & 1) != 0) == (k >= sdr::kBaseDegree || p < labeled));
      if ((mask >> k & 1) != 0)
        CHECK(std::equal(ring.parents(v) + 32 * k, ring.parents(v) + 32 * k + 32, at.word(job.row(v), k)));
    }
  }
}

TEST_CASE("a coordinator's header states: a narrow team's next nodes made in one call of every engine", "[labeler][coordinators]") {
  const std::uint64_t nodes = 512;
  const auto parents = test::sdr_parent_table(nodes);
  const std::uint32_t sectors = 40;
  const auto ids = test::sdr_replica_ids(sectors);
  const sdr::label_job job{nodes, parents.data(), 2, sectors, ids.data()};
  std::vector<std::uint8_t> layer(nodes * 32 * sectors);
  const sdr::layer_inputs in{layer.data(), layer.data(), job.row(0)};
  for (const cpu::engine* e : cpu::available_engines(hash_family::sha256)) {
    const auto width = static_cast<std::uint32_t>(std::max<std::size_t>(1, e->lanes));
    for (const std::uint32_t lanes : {1u, 2u, 3u, width, width + 1}) {
      INFO("engine " << e->name << ", " << lanes << " lanes");
      const cpu::detail::lane_layer<sdr::porep_variant::sdr> at(job, 2, in, 5, lanes);
      cpu::detail::header_maker headers(*e, at);
      CHECK(headers.nodes_a_call() == std::max<std::uint32_t>(1, width / lanes));
      std::vector<std::uint32_t> got(8ull * lanes);
      // In order across call boundaries, then back to an earlier node and far ahead.
      std::vector<std::uint64_t> order;
      for (std::uint64_t v = 1; v < 3 * width + 5; ++v) order.push_back(v);
      order.insert(order.end(), {3, 2, 400, 401, 1});
      for (const std::uint64_t v : order) {
        headers.make(v, got.data());
        for (std::uint32_t j = 0; j < lanes; ++j) {
          std::uint8_t header[64];
          sdr::make_header(header, ids.data() + 32ull * (5 + j), 2, v);
          std::uint32_t want[8];
          sha256::init_state(want);
          sha256::compress2(want, header, header + 32);
          INFO("node " << v << ", lane " << j);
          REQUIRE(std::equal(want, want + 8, got.data() + 8ull * j));
        }
      }
    }
  }
}

TEST_CASE("coordinator teams over a topology: per last-level cache, k hashers each", "[labeler][coordinators]") {
  cpu::machine_topology t;
  t.source = "test";
  t.packages = 1;
  for (int i = 0; i < 8; ++i) t.pus.push_back({i, i, 0});
  t.cores = 8;
  t.l3 = {{0, 1, 2, 3}, {4, 5, 6, 7}};
  const std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7};
  const auto at = [&](std::size_t k, const std::vector<int>& allowed) {
    std::vector<std::vector<int>> out;
    for (const auto& team : cpu::coordinator_teams(cpu::parent_producer::core, k, t, allowed)) {
      std::vector<int> cpus{team.coordinator};
      cpus.insert(cpus.end(), team.hashers.begin(), team.hashers.end());
      out.push_back(cpus);
    }
    return out;
  };
  // auto: one coordinator per domain, every other CPU of it hashing.
  CHECK(at(0, all) == std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}});
  CHECK(at(1, all) == std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  // A last, smaller team where two CPUs are left; none across domains.
  CHECK(at(2, all) == std::vector<std::vector<int>>{{0, 1, 2}, {4, 5, 6}});
  CHECK(at(2, {0, 1, 2, 3, 4}) == std::vector<std::vector<int>>{{0, 1, 2}});
  CHECK(at(0, {3, 5}).empty());
  CHECK(cpu::coordinator_teams(cpu::parent_producer::off, 0, t, all).empty());
}

TEST_CASE("coordinator team sizes out of range name the valid range", "[labeler][coordinators]") {
  const std::uint64_t nodes = 256;
  const auto parents = test::sdr_parent_table(nodes);
  const auto ids = test::sdr_replica_ids(8);
  sdr::label_job job{nodes, parents.data(), 2, 8, ids.data()};
  cpu::labeler_options o;
  o.producer = cpu::parent_producer::core;
  o.hashers_per_coordinator = cpu::kMaxHashersPerCoordinator + 1;
  CHECK_THROWS_WITH(cpu::make_cpu_backend(o),
                    Catch::Contains("--hashers-per-coordinator") && Catch::Contains("valid: 0 (auto) to 1024"));
  o.producer = cpu::parent_producer::sibling;
  o.hashers_per_coordinator = 2;
  CHECK_THROWS_WITH(cpu::make_cpu_backend(o), Catch::Contains("valid: 0 or 1"));
  // Pinned, a team must fit this process's CPUs.
  const std::size_t cpus = cpu::affinity_cpus().size();
  if (cpus > 1) {
    o.producer = cpu::parent_producer::core;
    o.hashers_per_coordinator = cpus;
    sdr::memory_layer_store store(nodes * 32 * 8, 2);
    CHECK_THROWS_WITH(cpu::make_cpu_backend(o)->label(job, store),
                      Catch::Contains("need " + std::to_string(cpus + 1) + " CPUs") &&
                          Catch::Contains("valid: 0 (auto) to " + std::to_string(cpus - 1)));
  }
}

TEST_CASE("auto picks the engine for the threads that hash, not for those a coordinator takes", "[labeler][coordinators]") {
  const std::uint64_t nodes = 256;
  const auto parents = test::sdr_parent_table(nodes);
  const auto ids = test::sdr_replica_ids(4);
  const sdr::label_job job{nodes, parents.data(), 2, 4, ids.data()};
  const int cpus = static_cast<int>(cpu::affinity_cpus().size());
  cpu::labeler_options o;
  o.producer = cpu::parent_producer::core;
  o.threads = cpus;
  const cpu::planned_teams teams = cpu::planned_coordination(o, job);
  const int hashing = teams.hashers > 0 ? static_cast<int>(teams.hashers) : cpus;
  CHECK(&cpu::label_engine(o, job) == &cpu::pick_label_engine(job.scheme, job.sectors, "auto", hashing));
  if (cpus > 1) CHECK(teams.hashers < static_cast<std::uint32_t>(cpus));  // pinned: the coordinator has a CPU of its own
  // In place, every thread hashes; a named engine is kept whatever the plan.
  o.producer = cpu::parent_producer::off;
  CHECK(&cpu::label_engine(o, job) == &cpu::pick_label_engine(job.scheme, job.sectors, "auto", cpus));
  o.producer = cpu::parent_producer::core;
  o.engine = "portable";
  CHECK(cpu::label_engine(o, job).name == std::string_view("portable"));
}

TEST_CASE("a team stops as a whole: a thread that throws ends the others' waits", "[labeler][coordinators]") {
  // The ring alone: a hasher waiting for a slot, a coordinator for a hasher that never comes.
  cpu::detail::parent_ring ring(4, 2, 2);
  ring.publish_labeled(0, 10);
  CHECK(ring.labeled_by_all() == 0);  // the slower hasher's
  bool hasher_returned = false, coordinator_returned = false;
  std::thread hasher([&] {
    try {
      ring.wait([&] { return ring.produced.load() > 0; });
    } catch (const cpu::detail::team_stopped&) {
      hasher_returned = true;
    }
  });
  std::thread coordinator([&] {
    try {
      ring.wait([&] { return ring.labeled_by_all() > 0; });
    } catch (const cpu::detail::team_stopped&) {
      coordinator_returned = true;
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ring.stop();
  hasher.join();
  coordinator.join();
  CHECK(hasher_returned);
  CHECK(coordinator_returned);

  // A labeling: the coordinators see an interrupt and throw; their hashers return, and the
  // labeling throws the coordinator's exception.
  const std::uint64_t nodes = 1u << 14;
  const auto parents = test::sdr_parent_table(nodes);
  const cpu::engine* narrow = nullptr;  // two groups of 4 sectors at most: two hashers
  for (const cpu::engine* e : cpu::available_engines(hash_family::sha256))
    if (narrow == nullptr || e->lanes < narrow->lanes) narrow = e;
  REQUIRE(narrow != nullptr);
  const auto ids = test::sdr_replica_ids(8);
  sdr::label_job job{nodes, parents.data(), 2, 8, ids.data()};
  for (std::size_t k : {1u, 2u}) {
    INFO("hashers per coordinator " << k);
    const cpu::labeler_options o = team_options(*narrow, k, 2);
    sdr::memory_layer_store store(nodes * 32 * 8, 2);
    request_interrupt(SIGINT);
    CHECK_THROWS_AS(cpu::make_cpu_backend(o)->label(job, store), interrupted);
    clear_interrupt();
    cpu::make_cpu_backend(o)->label(job, store);  // and the next labeling runs
  }
}
