// The `latency_under_load` kind: one sector's labeling latency (ns per node per layer,
// through bench_label, verified as the label kind's) alone, then again while every other
// CPU of the affinity mask hashes: SHA-256 chains on the widest engine in a loop, one
// thread pinned to each CPU. The labeling thread is pinned to the mask's first CPU for
// both runs, so that the two differ only by the load beside it.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "backends/backends.hpp"
#include "bench/label.hpp"
#include "poreplab/cpu/engines.hpp"
#include "poreplab/cpu/tune.hpp"
#include "poreplab/cpu/topology.hpp"
#include "poreplab/stats.hpp"
#include "records/schema.hpp"
#include "runner/kinds.hpp"

namespace poreplab::runner {

namespace axis = records::axis;
namespace ctx = records::ctx;
namespace rate = records::rate;


using nlohmann::json;

namespace {

// The calling thread on one CPU while it lives; its mask as it was afterwards.
class pinned_here {
 public:
  explicit pinned_here(int cpu) { cpu::pin_this_thread(cpu); }

 private:
  cpu::affinity_guard restore_;  // constructed first: the mask before the pin
};

// One hashing thread per CPU given, until destroyed; blocks() counts the compressions.
class hash_load {
 public:
  hash_load(const std::vector<int>& cpus, const cpu::engine& e) {
    for (const int cpu : cpus)
      threads_.emplace_back([this, cpu, &e] {
        cpu::pin_this_thread(cpu);
        constexpr std::size_t kBlocks = 64;
        const std::size_t lanes = std::max<std::size_t>(1, e.lanes);
        std::vector<std::uint8_t> chunk(32, 0x5a);
        std::vector<const std::uint8_t*> chunks(2 * kBlocks * lanes, chunk.data());
        std::vector<std::uint32_t> state(8 * lanes, 0x6a09e667u);
        started_.fetch_add(1);
        while (!stop_.load(std::memory_order_relaxed)) {
          e.sha256(state.data(), chunks.data(), kBlocks, lanes);
          blocks_.fetch_add(kBlocks * lanes, std::memory_order_relaxed);
        }
        sink_.fetch_xor(state[0], std::memory_order_relaxed);  // keeps the chains live
      });
    while (started_.load() < static_cast<int>(cpus.size())) std::this_thread::yield();
    start_ = std::chrono::steady_clock::now();
  }
  ~hash_load() { stop(); }
  hash_load(const hash_load&) = delete;
  hash_load& operator=(const hash_load&) = delete;
  // Stops and joins the threads; the compressions a second while they ran.
  double stop() {
    if (!threads_.empty()) {
      stop_ = true;
      for (auto& t : threads_) t.join();
      threads_.clear();
      seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }
    return seconds_ > 0 ? static_cast<double>(blocks_.load()) / seconds_ : 0;
  }

 private:
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  std::atomic<int> started_{0};
  std::atomic<std::uint64_t> blocks_{0};
  std::atomic<std::uint32_t> sink_{0};
  std::chrono::steady_clock::time_point start_;
  double seconds_ = 0;
};

// The labeling CPU (the mask's first) and the load's: the rest of the mask, or the first
// `load_threads` of it (0: all).
std::pair<int, std::vector<int>> cpus_of(const json& axes) {
  const std::vector<int> allowed = cpu::affinity_cpus();
  if (allowed.size() < 2)
    throw point_unavailable("latency_under_load needs 2 or more CPUs in the affinity mask (" +
                            std::to_string(allowed.size()) + " here)");
  std::vector<int> load(allowed.begin() + 1, allowed.end());
  const auto n = axes["load_threads"].get<std::size_t>();
  if (n > load.size())
    throw point_unavailable("load_threads " + std::to_string(n) + ": only " + std::to_string(load.size()) +
                            " other CPU(s) in the affinity mask");
  if (n > 0) load.resize(n);
  return {allowed[0], load};
}

label_bench_options options_of(const json& axes, const sampling& plan) {
  label_bench_options o;
  o.backend = &find_backend(axes[axis::backend].get<std::string>());
  o.scheme = scheme_of(axes);
  o.knobs = knobs_of_point(axes);
  o.sector_size = axes[axis::sector_size];
  o.sectors = 1;
  o.layers = axes[axis::layers];
  o.warmup = plan.warmup;
  o.samples = plan.samples;
  o.target_ci = plan.ci_target;
  // The budget is shared by the two runs.
  o.max_seconds = plan.time_budget_s / 2;
  return o;
}

std::string unavailable(const json& axes) {
  if (auto m = memory_shortfall(2.0 * axes[axis::sector_size].get<double>() * 3); !m.empty()) return m;
  try {
    cpus_of(axes);
    const backend_settings knobs = knobs_of_point(axes);
    const backend_entry& b = find_backend(axes[axis::backend].get<std::string>());
    if (b.floor_engine) b.floor_engine(scheme_of(axes), 1, knobs);
    b.make(knobs);
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

measurement run_plan(const json& axes, const sampling& plan) {
  const auto [label_cpu, load_cpus] = cpus_of(axes);
  const label_bench_options o = options_of(axes, plan);
  const cpu::engine& load_engine = cpu::best_engine(hash_family::sha256);
  const pinned_here here(label_cpu);
  const label_bench_result alone = bench_label(o);
  label_bench_result loaded;
  double load_rate = 0;
  {
    hash_load load(load_cpus, load_engine);
    loaded = bench_label(o);
    load_rate = load.stop();
  }
  measurement m;
  m.metric = rate::ns_per_node_layer;
  m.samples = loaded.samples_ns_per_node_layer;
  m.digest = loaded.digest;
  m.verified = alone.verified && loaded.verified && alone.digest == loaded.digest;
  m.verified_against = "the portable reference labeler (" + alone.verified_by.text() + " alone, " + loaded.verified_by.text() +
                       " under load)";
  m.context = {{ctx::engine, loaded.engine},
               {ctx::device, loaded.device},
               {"nodes", loaded.nodes},
               {"alone_ns_per_node_layer", alone.ns_per_node_layer},
               {"alone_samples_ns_per_node_layer", alone.samples_ns_per_node_layer},
               {"loaded_ns_per_node_layer", loaded.ns_per_node_layer},
               {"slowdown", alone.ns_per_node_layer > 0 ? loaded.ns_per_node_layer / alone.ns_per_node_layer : 0.0},
               {"label_cpu", label_cpu},
               {"load_cpus", load_cpus},
               {"load", "sha256 chains on " + std::string(load_engine.name) + ", one thread per load CPU"},
               {"load_blocks_per_s", load_rate},
               {"alone_cpu_share", alone.cpu_share},
               {"loaded_cpu_share", loaded.cpu_share}};
  if (!loaded.placement.empty()) {
    m.context["placement"] = loaded.placement;
    m.context[ctx::thread_map] = loaded.thread_map;
  }
  if (loaded.core_hz > 0) {
    m.context["alone_core_hz"] = alone.core_hz;
    m.context["loaded_core_hz"] = loaded.core_hz;
  }
  m.stopped_by = loaded.stopped_by;
  return m;
}

measurement run(const json& axes, std::uint32_t warmup, std::uint32_t samples) {
  return run_plan(axes, sampling{warmup, samples, 0, 0});
}

json rates(const json&, const json& ctx, double median) {
  json r = {{rate::ns_per_node_layer, median}};
  const double alone = ctx.value("alone_ns_per_node_layer", 0.0);
  if (alone > 0 && median > 0) {
    r["alone_ns_per_node_layer"] = alone;
    r["slowdown"] = median / alone;
  }
  return r;
}

}  // namespace

kind_spec latency_under_load_kind() {
  kind_spec k;
  k.name = records::kind_name(records::record_kind::latency_under_load);
  k.help = "one sector's labeling latency alone and while the other CPUs of the affinity mask hash (SHA-256), "
           "both verified";
  k.axes = labeling_axes(false, true);
  k.axes.push_back(count_param("load_threads", 0, 0, 4096,
                              "hashing threads beside the labeling, one per CPU of the mask after its first; 0 = all"));
  k.unavailable = unavailable;
  k.run = run;
  k.run_sampled = run_plan;
  k.rates = rates;
  return k;
}

}  // namespace poreplab::runner
