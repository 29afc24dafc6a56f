// poreplab_pc2_bench: the cpu Poseidon engines measured (poseidon_bench.hpp), as a table
// or JSON lines. Run it on a quiet machine.
//   poreplab_pc2_bench [--engine all|NAME] [--threads N] [--pc2-nodes N] [--target-nodes N]
//                      [--pc2-engine best|all|NAME] [--no-pc2] [--json]
// --pc2-nodes: a power of 8 (one tree of base arity 8), default 2^21 (64 MiB).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

#include "poreplab/cpu/features.hpp"
#include "poreplab/cpu/poseidon_bench.hpp"

using namespace poreplab;

int main(int argc, char** argv) try {
  std::string engine = "all", pc2_engine = "best";
  int threads = 2;
  std::uint64_t pc2_nodes = std::uint64_t{1} << 21, target_nodes = std::uint64_t{1} << 24;  // 64 MiB, 512 MiB
  bool json = false, pc2 = true;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(std::string(a) + " needs a value");
      return argv[++i];
    };
    if (a == "--engine") engine = next();
    else if (a == "--pc2-engine") pc2_engine = next();
    else if (a == "--threads") threads = std::stoi(next());
    else if (a == "--pc2-nodes") pc2_nodes = std::stoull(next());
    else if (a == "--target-nodes") target_nodes = std::stoull(next());
    else if (a == "--no-pc2") pc2 = false;
    else if (a == "--json") json = true;
    else throw std::invalid_argument("unknown argument " + std::string(a));
  }
  const auto& f = cpu::detect();
  if (!json) std::printf("CPU: %s\n", f.model.c_str());
  for (const auto& r : cpu::bench_poseidon(engine)) {
    if (json) {
      std::cout << cpu::to_json(r).dump() << "\n";
    } else if (r.what == cpu::poseidon_row::hash) {
      std::printf("%-9s hash arity %-2d         %9.3f us per hash (min %.3f, max %.3f, cpu %.3f)%s\n", r.engine.c_str(),
                  r.arity, r.ns / 1e3, r.min_ns / 1e3, r.max_ns / 1e3, r.cpu_ns / 1e3, r.verified ? "" : "  NOT VERIFIED");
    } else {
      std::printf("%-9s %-18s %2zu chains %9.3f ns per multiply (min %.3f, max %.3f, cpu %.3f)%s\n", r.engine.c_str(),
                  std::string(cpu::kPoseidonRows.name(r.what)).c_str(), r.lanes, r.ns, r.min_ns, r.max_ns, r.cpu_ns, r.verified ? "" : "  NOT VERIFIED");
    }
  }
  if (!pc2) return 0;
  std::vector<const cpu::poseidon_engine*> engines;
  if (pc2_engine == "best")
    engines.push_back(cpu::available_poseidon_engines().front());
  else if (pc2_engine == "all")
    engines = cpu::available_poseidon_engines();
  else
    engines.push_back(&cpu::poseidon_engine_named(pc2_engine));
  for (const auto* e : engines) {
    const auto r = cpu::bench_pc2(*e, threads, pc2_nodes, 2, target_nodes);
    if (json) {
      std::cout << cpu::to_json(r).dump() << "\n";
    } else {
      std::printf("%-9s PC2 %llu nodes, 2 layers, %d threads: %.3f s (columns and tree_c %.3f s, tree_r_last %.3f s), "
                  "%.2f ns per multiply per thread; scaled to %llu nodes: %.1f s\n",
                  r.engine.c_str(), static_cast<unsigned long long>(r.nodes), r.threads, r.seconds, r.columns_s,
                  r.tree_r_s, r.ns_per_multiply_per_thread, static_cast<unsigned long long>(r.target_nodes),
                  r.target_seconds);
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "poreplab_pc2_bench: %s\n", e.what());
  return 1;
}
