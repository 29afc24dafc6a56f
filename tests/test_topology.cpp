// Topology (hwloc, /sys), thread placement over it, the thread map in label records, and
// the latency_under_load kind.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "backends/backends.hpp"
#include "bench/label.hpp"
#include "poreplab/cpu/topology.hpp"
#include "runner/kinds.hpp"

using namespace poreplab;
using cpu::thread_placement;

namespace {

// PUs 0..n-1, PU i on core core_of[i].
cpu::machine_topology synthetic(const std::vector<int>& core_of) {
  cpu::machine_topology t;
  t.source = "test";
  t.packages = 1;
  for (std::size_t i = 0; i < core_of.size(); ++i) t.pus.push_back({static_cast<int>(i), core_of[i], 0});
  t.cores = static_cast<int>(std::set<int>(core_of.begin(), core_of.end()).size());
  return t;
}

std::vector<int> place(thread_placement p, const cpu::machine_topology& t, const std::vector<int>& allowed) {
  return cpu::placement_cpus(p, t, allowed);
}

}  // namespace

TEST_CASE("topology: hwloc and /sys agree on PUs, cores and SMT", "[topology]") {
  const cpu::machine_topology h = cpu::read_topology_hwloc();
  const cpu::machine_topology s = cpu::read_topology_sysfs();
  CHECK(h.source == "hwloc");
  CHECK(cpu::topology().source == "hwloc");
  std::vector<int> hp, sp;
  for (const auto& p : h.pus) hp.push_back(p.os_index);
  for (const auto& p : s.pus) sp.push_back(p.os_index);
  // hwloc leaves out the PUs a cgroup disallows; /sys lists every online CPU.
  CHECK(std::includes(sp.begin(), sp.end(), hp.begin(), hp.end()));
  CHECK(static_cast<long>(hp.size()) <= sysconf(_SC_NPROCESSORS_ONLN));
  for (const int cpu : cpu::affinity_cpus()) CHECK(std::find(hp.begin(), hp.end(), cpu) != hp.end());
  // The same partition of PUs into cores (core numbers may differ).
  for (const int a : hp)
    for (const int b : hp) CHECK((h.core_of(a) == h.core_of(b)) == (s.core_of(a) == s.core_of(b)));
  CHECK(h.threads_per_core() == s.threads_per_core());
  CHECK(h.cores >= 1);
  CHECK(h.packages >= 1);
  for (const int cpu : hp) CHECK(std::find(h.siblings_of(cpu).begin(), h.siblings_of(cpu).end(), cpu) != h.siblings_of(cpu).end());
}

TEST_CASE("placement: spread, siblings, cores on synthetic topologies", "[topology]") {
  using P = thread_placement;
  // 2 cores x 2 threads, numbered as Linux numbers Intel's: siblings 0 & 2, 1 & 3.
  const auto split = synthetic({0, 1, 0, 1});
  const std::vector<int> all = {0, 1, 2, 3};
  CHECK(place(P::compact, split, all) == all);
  CHECK(place(P::spread, split, all) == std::vector<int>{0, 1, 2, 3});
  CHECK(place(P::siblings, split, all) == std::vector<int>{0, 2, 1, 3});
  CHECK(place(P::cores, split, all) == std::vector<int>{0, 1});
  CHECK(place(P::none, split, all).empty());
  CHECK(cpu::placement_unavailable(P::siblings, split, all).empty());
  // Only one thread of each core allowed: no siblings to fill.
  CHECK_THAT(cpu::placement_unavailable(P::siblings, split, {0, 1}), Catch::Contains("no core has two CPUs"));
  // 2 cores x 2 threads, siblings adjacent (0 & 1, 2 & 3).
  const auto adjacent = synthetic({0, 0, 1, 1});
  CHECK(place(P::compact, adjacent, all) == all);
  CHECK(place(P::spread, adjacent, all) == std::vector<int>{0, 2, 1, 3});
  CHECK(place(P::siblings, adjacent, all) == std::vector<int>{0, 1, 2, 3});
  CHECK(place(P::cores, adjacent, all) == std::vector<int>{0, 2});
  CHECK(split.threads_per_core() == 2);
  CHECK(adjacent.siblings_of(3) == std::vector<int>{2, 3});
  // 4 cores x 1 thread: every placement but none is the mask's order; siblings is refused.
  const auto single = synthetic({0, 1, 2, 3});
  for (P p : {P::compact, P::spread, P::siblings, P::cores}) CHECK(place(p, single, all) == all);
  CHECK(single.threads_per_core() == 1);
  CHECK_FALSE(cpu::placement_unavailable(P::siblings, single, all).empty());
  // A CPU the topology does not list counts as a core of its own.
  CHECK(place(P::cores, split, {0, 2, 9}) == std::vector<int>{0, 9});
}

TEST_CASE("placement knob: typed, one-line errors, the retired pin_threads names it", "[topology][backends]") {
  backend_settings k;
  try {
    k.set("placement", "diagonal");
    FAIL("a bad placement was accepted");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find('\n') == std::string::npos);
    CHECK_THAT(what, Catch::Contains("diagonal") && Catch::Contains("spread") && Catch::Contains("siblings"));
  }
  CHECK_THROWS_AS(k.set("placement", 1), std::invalid_argument);
  CHECK_THROWS_WITH(cpu::kThreadPlacements.parse("x"), Catch::Contains("valid: compact, spread, siblings, cores, none"));
  CHECK(cpu_thread_placement(k) == thread_placement::compact);
  k.set("placement", "spread");
  CHECK(cpu_thread_placement(k) == thread_placement::spread);
  CHECK_THROWS_WITH(k.set("pin_threads", 0),
                    "backend option 'pin_threads' is now placement: pin_threads 0 is placement none, 1 is placement "
                    "compact (the default)");
  k.set("placement", "none");
  CHECK(cpu_thread_placement(k) == thread_placement::none);
  // siblings without SMT siblings in the mask is unavailable, as producer sibling is.
  backend_settings sib;
  sib.set("placement", "siblings");
  if (!cpu::placement_unavailable(thread_placement::siblings, cpu::topology(), cpu::affinity_cpus()).empty())
    CHECK_THROWS_AS(make_backend("cpu", sib), unavailable_error);
  else
    CHECK_NOTHROW(make_backend("cpu", sib));
}

TEST_CASE("label records carry the thread-to-core map", "[topology][bench]") {
  for (const char* placement : {"compact", "spread", "none"}) {
    CAPTURE(placement);
    label_bench_options o;
    o.sectors = 2;  // two groups on the 1-lane engine: two threads where there are two CPUs
    o.warmup = 0;
    o.samples = 1;
    o.knobs.set("engine", "portable").set("threads", 2).set("placement", placement);
    const label_bench_result r = bench_label(o);
    CHECK(r.verified);
    CHECK(r.placement == placement);
    REQUIRE(!r.thread_map.empty());
    std::set<int> threads;
    for (const auto& t : r.thread_map) {
      CHECK(t["role"] == "label");
      CHECK(t["cpu"].get<int>() >= 0);
      CHECK(t["core"].get<int>() == cpu::topology().core_of(t["cpu"].get<int>()));
      threads.insert(t["thread"].get<int>());
      if (std::string(placement) == "none") CHECK_FALSE(t["pinned"].get<bool>());
    }
    CHECK(threads.count(0) == 1);
    if (cpu::affinity_cpus().size() >= 2 && std::string(placement) != "none") {
      CHECK(r.thread_map.size() == 2);
      CHECK(r.thread_map[0]["cpu"] != r.thread_map[1]["cpu"]);
    }
    const auto row = to_json(r);
    CHECK(row["thread_map"] == r.thread_map);
    CHECK(row["placement"] == placement);
  }
}

TEST_CASE("runner kind latency_under_load: alone and loaded, both verified", "[topology][runner]") {
  const runner::kind_spec* k = runner::find_kind("latency_under_load");
  REQUIRE(k != nullptr);
  const nlohmann::json axes = {{"backend", "cpu"}, {"variant", "sdr"},   {"hash", "sha256"},
                               {"engine", "auto"}, {"sector_size", 2048}, {"layers", 2},
                               {"threads", 0},     {"load_threads", 0}};
  if (cpu::affinity_cpus().size() < 2) {
    CHECK_THAT(k->unavailable(axes), Catch::Contains("2 or more CPUs"));
    return;
  }
  REQUIRE(k->unavailable(axes).empty());
  nlohmann::json too_many = axes;
  too_many["load_threads"] = 4096;
  CHECK_THAT(k->unavailable(too_many), Catch::Contains("load_threads"));
  const runner::measurement m = k->run(axes, 0, 2);
  CHECK(m.verified);
  CHECK(m.samples.size() == 2);
  CHECK(m.context["alone_ns_per_node_layer"].get<double>() > 0);
  CHECK(m.context["loaded_ns_per_node_layer"].get<double>() > 0);
  CHECK(m.context["slowdown"].get<double>() > 0);
  CHECK(m.context["load_blocks_per_s"].get<double>() > 0);
  CHECK(m.context["label_cpu"] == cpu::affinity_cpus()[0]);
  CHECK(!m.context["thread_map"].empty());
  const auto r = k->rates(axes, m.context, m.samples[0]);
  CHECK(r.contains("slowdown"));
  CHECK(r.contains("alone_ns_per_node_layer"));
}
