#include "doctor/checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "poreplab/cuda/memory_plan.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/sdr/window_store.hpp"
#include "util/text.hpp"

namespace poreplab::doctor {

namespace {

std::string bytes(std::uint64_t b) { return cuda::format_bytes(b); }

std::string ghz(double hz) { return format_number(hz / 1e9, 3) + " GHz"; }

std::string plural(std::uint64_t n, const std::string& one) {
  return std::to_string(n) + " " + one + (n == 1 ? "" : "s");
}

// "1 x 32GiB sector", "4 x 32GiB sectors"
std::string sectors_text(const seal_plan& p) {
  return std::to_string(p.sectors) + " x " + format_size(p.sector_bytes) + (p.sectors == 1 ? " sector" : " sectors");
}

finding make(std::string id, std::string title) {
  finding x;
  x.id = std::move(id);
  x.title = std::move(title);
  return x;
}

std::size_t threads_of(const cpu_facts& c) { return static_cast<std::size_t>(std::max(1, c.label_threads)); }

const engine_facts* engine_named(const cpu_facts& c, const std::string& name) {
  for (const auto& e : c.engines)
    if (e.name == name) return &e;
  return nullptr;
}

// PC1's hash floor: every node of every layer of the planned sectors on one engine, the
// parents' memory traffic left out (a lower bound of labeling).
double pc1_floor_seconds(const engine_facts& e, const seal_plan& p) {
  return e.floor_ns_per_node * 1e-9 * static_cast<double>(p.nodes) * p.layers;
}

const engine_facts* auto_engine(const cpu_facts& c) {
  const engine_facts* e = engine_named(c, c.auto_engine);
  return e != nullptr && e->floor_ns_per_node > 0 ? e : nullptr;
}

// How the cpu labeler would run the plan here (labeler.cpp's rules over the facts).
struct label_layout {
  std::size_t lanes = 1, groups = 1, threads = 1;
  bool producer_wanted = false;  // producer auto: the layers exceed the cache and 64 MiB
  std::size_t pairs = 0;         // (labeling CPU, producer CPU) pairs on distinct cores
  bool producers() const { return producer_wanted && pairs >= threads; }
  std::size_t cpus() const { return threads * (producers() ? 2 : 1); }
};

label_layout layout_of(const cpu_facts& c, const seal_plan& p) {
  label_layout l;
  if (const engine_facts* e = engine_named(c, c.auto_engine)) l.lanes = std::max<std::size_t>(1, e->lanes);
  l.groups = (p.sectors + l.lanes - 1) / l.lanes;
  l.threads = std::min(l.groups, threads_of(c));
  l.producer_wanted = p.memory.layer_bytes > cpu::producer_min_layer_bytes(c.llc_bytes);
  l.pairs = cpu::producer_cpu_pairs(cpu::parent_producer::core, c.topology, c.allowed).size();
  return l;
}

std::string generate_command(const seal_plan& p, const parent_cache_facts& pc, bool force) {
  std::string graph = !p.proof.empty() ? "--proof " + p.proof
                                       : "--porep-id " + to_hex(sdr::benchmark_porep_id(p.sector_bytes).data(), 32) +
                                             " --api-version " + std::string(sdr::api_version_name(p.graph.api)) +
                                             " --sector-size " + format_size(p.sector_bytes);
  return "poreplab parent-cache generate " + graph + " --dir " + pc.dir.string() + (force ? " --force" : "");
}

// Filesystems whose data is not on a local disk, by the kind of place it is.
enum class fs_kind { local, memory, network };
fs_kind kind_of(const std::string& type) {
  static const std::set<std::string> memory = {"tmpfs", "ramfs"};
  static const std::set<std::string> network = {"nfs",  "nfs4",   "cifs",      "smb3",
                                                "smbfs", "ceph", "lustre", "glusterfs", "fuse.sshfs"};
  if (memory.count(type) != 0) return fs_kind::memory;
  if (network.count(type) != 0) return fs_kind::network;
  return fs_kind::local;
}

// Floors timed while other work held the CPUs are slower than this CPU can be.
std::string busy_note(const cpu_facts& c) {
  if (c.engines.empty() || c.load_average < static_cast<double>(std::max<std::size_t>(1, c.allowed.size())) / 2)
    return {};
  return " (timed at a load average of " + format_number(c.load_average, 3) + " on " + std::to_string(c.allowed.size()) +
         " CPUs: an idle machine is faster)";
}

std::string mb_per_s(double bps) { return format_number(bps / 1e6, 3) + " MB/s"; }

}  // namespace

std::string_view section_of(const finding& x) {
  const std::string_view id = x.id;
  return id.substr(0, id.find('.'));
}

// ---- CPU ----

finding check_sha(const system_facts& f, const seal_plan& p) {
  const cpu_facts& c = f.cpu;
  finding x = make("cpu.sha", "SHA extensions");
  const bool has = c.features.can_shani();
  const engine_facts* sha = fastest_engine(c.engines, true, p.sectors, threads_of(c));
  const engine_facts* other = fastest_engine(c.engines, false, p.sectors, threads_of(c));
  x.values = {{"sha_ni", has}};
  auto floor_text = [&](const engine_facts& e) {
    x.values["pc1_floor_seconds"][e.name] = pc1_floor_seconds(e, p);
    return format_seconds(pc1_floor_seconds(e, p)) + " on " + e.name;
  };
  const std::string what = "PC1 hash floor of " + sectors_text(p) + ", " + std::to_string(p.layers) + " layers: ";
  if (has) {
    x.found = "SHA-NI present";
    if (sha != nullptr && other != nullptr && sha->floor_ns_per_node > 0 && other->floor_ns_per_node > 0) {
      const double ratio = other->floor_ns_per_node / sha->floor_ns_per_node;
      x.values["without_sha_ni_slower_by"] = ratio;
      x.found += "; " + what + floor_text(*sha) + ", " + floor_text(*other) + " without them (" +
                 format_number(ratio, 3) + "x" + (ratio < 1 ? ": the vector engine is faster at this many sectors" : "") +
                 ")";
    } else if (c.engines.empty()) {
      x.found += "; engine speeds not measured";
    }
    x.found += busy_note(c);
    return x;
  }
  x.status = level::warn;
  x.found = "no SHA extensions: SHA-256 runs on vector or portable engines";
  if (other != nullptr && other->floor_ns_per_node > 0)
    x.cost = what + floor_text(*other) + ", the fastest engine here; SHA-NI engines cannot be timed on this CPU" +
             busy_note(c);
  else
    x.cost = "labeling hashes without SHA-NI (engine speeds not measured)";
  x.fix = "seal on a CPU with SHA extensions (`poreplab info` lists sha_ni): AMD Zen or later, Intel Ice Lake or later";
  return x;
}

finding check_vector_units(const system_facts& f, const seal_plan& p) {
  const cpu_facts& c = f.cpu;
  finding x = make("cpu.simd", "AVX-512 / AVX2");
  const bool avx512 = c.features.can_avx512(), avx2 = c.features.can_avx2();
  std::size_t widest = 1;
  for (const auto& e : c.engines) widest = std::max(widest, e.lanes);
  x.values = {{"avx512", avx512}, {"avx2", avx2}, {"widest_lanes", widest}, {"auto_engine", c.auto_engine}};
  x.found = std::string("AVX-512 ") + (avx512 ? "yes" : "no") + ", AVX2 " + (avx2 ? "yes" : "no");
  if (!c.auto_engine.empty()) {
    x.found += "; " + sectors_text(p) + " hash on " + c.auto_engine;
    if (const engine_facts* e = auto_engine(c))
      x.found += " (" + format_number(e->floor_ns_per_node, 4) + " ns per node of all sectors, hash only)";
  }
  // Engines this build has and this CPU cannot run that the plan's sectors would fill wider.
  std::string wider;
  for (const auto& m : c.unavailable_engines)
    if (m.lanes > widest && p.sectors > widest)
      wider += (wider.empty() ? "" : ", ") + m.name + " (" + std::to_string(m.lanes) + " lanes, needs " + m.required + ")";
  if (wider.empty()) return x;
  x.status = level::warn;
  x.cost = std::to_string(p.sectors) + " sectors hash in groups of at most " + std::to_string(widest) +
           " lanes; wider engines this CPU lacks: " + wider + " (not measurable here)";
  x.fix = "for many sectors per core, a CPU with AVX-512 (Intel Skylake-SP or later, AMD Zen 4 or later); or --sectors " +
          std::to_string(widest);
  return x;
}

finding check_clock(const system_facts& f, const seal_plan& p) {
  const cpu_facts& c = f.cpu;
  const cpufreq_facts& q = c.freq;
  finding x = make("cpu.clock", "core clock");
  x.values = {{"core_hz", c.core_hz}, {"tsc_hz", c.tsc_hz}, {"cpufreq", q.present}};
  const std::string measured =
      c.core_hz > 0 ? "measured " + ghz(c.core_hz) + (c.tsc_hz > 0 ? " (TSC " + ghz(c.tsc_hz) + ")" : "") : "";
  if (!q.present) {
    x.found = "no cpufreq driver in /sys (a virtual machine, or none loaded): governor and boost are not set here" +
              (measured.empty() ? std::string() : "; " + measured);
    return x;
  }
  const double max_hz = static_cast<double>(q.max_khz) * 1e3;
  const double now_hz = c.core_hz > 0 ? c.core_hz : static_cast<double>(q.cur_khz) * 1e3;
  x.values.update({{"governor", q.governor}, {"driver", q.driver}, {"max_hz", max_hz}});
  if (q.boost) x.values["boost"] = *q.boost;
  x.found = (measured.empty() ? "now " + ghz(now_hz) : measured) + (max_hz > 0 ? " of " + ghz(max_hz) + " max" : "") +
            ", governor " + (q.governor.empty() ? "?" : q.governor) + " (" + (q.driver.empty() ? "?" : q.driver) + ")" +
            (q.boost ? std::string(", boost ") + (*q.boost ? "on" : "off") : "");
  const double ratio = max_hz > 0 && now_hz > 0 ? now_hz / max_hz : 1;
  const bool slow = ratio < 0.9 && q.governor != "performance";
  const bool no_boost = q.boost && !*q.boost;
  if (!slow && !no_boost) return x;
  x.status = level::warn;
  const engine_facts* e = auto_engine(c);
  x.cost = "labeling time scales with the clock" +
           (e != nullptr && ratio < 1 ? ": PC1 hash floor " + format_seconds(pc1_floor_seconds(*e, p)) + " at " +
                                            ghz(now_hz) + ", about " + format_seconds(pc1_floor_seconds(*e, p) * ratio) +
                                            " at " + ghz(max_hz)
                                      : std::string());
  std::vector<std::string> fixes;
  if (slow) fixes.push_back("sudo cpupower frequency-set -g performance");
  if (no_boost)
    fixes.push_back(q.driver == "intel_pstate" ? "echo 0 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo"
                                               : "echo 1 | sudo tee /sys/devices/system/cpu/cpufreq/boost");
  x.fix = join(fixes, "; ");
  return x;
}

finding check_smt(const system_facts& f, const seal_plan& p) {
  const cpu_facts& c = f.cpu;
  finding x = make("cpu.smt", "SMT and the producer");
  const int per_core = c.topology.threads_per_core();
  const label_layout l = layout_of(c, p);
  x.values = {{"threads_per_core", per_core}, {"smt_control", c.smt_control}, {"producers", l.producers()}};
  if (per_core <= 1) {
    x.found = "one thread per core" + (c.smt_control.empty() ? std::string() : " (SMT control: " + c.smt_control + ")") +
              ": a producer takes a core of its own";
    return x;
  }
  x.found = std::to_string(per_core) +
            " threads per core (SMT on): producer auto puts each producer on another core, never on its labeling "
            "thread's sibling (`--producer sibling` asks for the sibling)";
  if (l.producers()) return x;
  // Without producers thread i runs on the i-th CPU of the mask (placement compact).
  const std::vector<int> cpus = cpu::placement_cpus(cpu::thread_placement::compact, c.topology, c.allowed);
  std::set<int> cores;
  std::size_t placed = 0;
  for (std::size_t i = 0; i < l.threads && i < cpus.size(); ++i, ++placed) cores.insert(c.topology.core_of(cpus[i]));
  x.values["labeling_threads"] = l.threads;
  x.values["cores_used"] = cores.size();
  if (cores.size() >= placed) return x;
  x.status = level::warn;
  x.cost = std::to_string(l.threads) + " labeling threads on " + plural(cores.size(), "core") +
           " (placement compact): SMT siblings share a core's SHA units and ports, not measured here";
  x.fix = "--placement spread (one thread per core first), or measure what the sibling costs: poreplab run smt";
  return x;
}

finding check_topology(const system_facts& f, const seal_plan&) {
  const cpu_facts& c = f.cpu;
  const cpu::machine_topology& t = c.topology;
  finding x = make("cpu.topology", "packages, L3 groups, NUMA");
  std::size_t nodes_used = 0;
  for (const auto& n : c.numa_nodes)
    if (std::any_of(n.begin(), n.end(), [&](int cpu) { return std::find(c.allowed.begin(), c.allowed.end(), cpu) != c.allowed.end(); }))
      ++nodes_used;
  x.values = {{"packages", t.packages}, {"cores", t.cores}, {"pus", t.pus.size()}, {"l3_groups", t.l3.size()},
              {"numa_nodes", c.numa_nodes.size()}, {"numa_nodes_used", nodes_used}, {"allowed", c.allowed.size()}};
  x.found = plural(static_cast<std::uint64_t>(t.packages), "package") + ", " + plural(static_cast<std::uint64_t>(t.cores), "core") +
            ", " + plural(t.pus.size(), "PU") + " (" + t.source + "); " +
            (t.l3.empty() ? std::string("L3 groups unknown")
                          : plural(t.l3.size(), "L3 group") + " of " + std::to_string(t.l3.front().size()) + " PUs") +
            "; " + (c.numa_nodes.empty() ? std::string("NUMA nodes unknown") : plural(c.numa_nodes.size(), "NUMA node")) +
            "; this process may use " + std::to_string(c.allowed.size()) + " of them";
  if (nodes_used <= 1) return x;
  x.status = level::warn;
  x.cost = "the process spans " + std::to_string(nodes_used) +
           " NUMA nodes: a layer's pages sit on the node that first touched them, and labeling threads on the other "
           "node read their parents across the interconnect";
  x.fix = "one sealing process per node: numactl --cpunodebind=N --membind=N poreplab ...";
  return x;
}

finding check_cores(const system_facts& f, const seal_plan& p) {
  const cpu_facts& c = f.cpu;
  finding x = make("cpu.cores", "sectors and producers");
  const label_layout l = layout_of(c, p);
  const std::size_t mask = c.allowed.size();
  const double busy = std::max(0.0, c.load_average);
  const std::size_t free_cpus =
      static_cast<std::size_t>(std::max(0.0, static_cast<double>(mask) - std::round(busy)));
  x.values = {{"engine", c.auto_engine},   {"lanes", l.lanes},         {"groups", l.groups},
              {"threads", l.threads},      {"producer_wanted", l.producer_wanted}, {"producer_pairs", l.pairs},
              {"producers", l.producers()}, {"cpus_needed", l.cpus()}, {"cpus_allowed", mask},
              {"load_average", c.load_average}};
  x.found = sectors_text(p) + " on " + (c.auto_engine.empty() ? std::string("?") : c.auto_engine) + ": " +
            plural(l.groups, "lane group") + " on " + plural(l.threads, "thread") + ", producers " +
            (l.producers() ? "on a core each" : l.producer_wanted ? "wanted, no free core" : "off (the layers fit in the cache)") +
            "; needs " + plural(l.cpus(), "CPU") + " of " + std::to_string(mask) +
            (c.load_average >= 0 ? ", load average " + format_number(c.load_average, 3) : std::string());
  std::vector<std::string> costs, fixes;
  if (l.producer_wanted && !l.producers()) {
    costs.push_back("the layers (" + bytes(p.memory.layer_bytes) + ") outgrow the last-level cache (" + bytes(c.llc_bytes) +
                    ") but " + std::to_string(l.threads) + " labeling threads find " + plural(l.pairs, "pair") +
                    " of cores: no producers, so every parent's DRAM latency and page walk stalls the hash chain "
                    "(docs/cpu-backend.md, \"Real sector sizes\")");
    fixes.push_back("--sectors " + std::to_string(std::max<std::size_t>(1, l.pairs) * l.lanes) +
                    " or fewer, or more cores for this process (taskset)");
  }
  if (l.groups > l.threads) {
    const engine_facts* e = auto_engine(c);
    costs.push_back(plural(l.groups, "lane group") + " on " + plural(l.threads, "thread") + " run in " +
                    std::to_string((l.groups + l.threads - 1) / l.threads) + " rounds" +
                    (e != nullptr ? " (in the PC1 hash floor: " + format_seconds(pc1_floor_seconds(*e, p)) + ")" : ""));
    fixes.push_back("fewer sectors at once, or more cores");
  }
  if (c.load_average >= 0 && l.cpus() > free_cpus) {
    costs.push_back("other work keeps " + format_number(busy, 3) + " of " + std::to_string(mask) +
                    " CPUs busy: the labeling threads and their producers would share cores with it");
    fixes.push_back("stop the other work, or give the sealer idle cores (taskset -c LIST poreplab ...)");
  }
  if (costs.empty()) return x;
  x.status = level::warn;
  x.cost = join(costs, "; ");
  x.fix = join(fixes, "; ");
  return x;
}

// ---- Memory ----

finding check_ram(const system_facts& f, const seal_plan& p) {
  const memory_facts& m = f.memory;
  finding x = make("memory.ram", "RAM for the plan");
  const std::uint64_t budget = m.budget();
  x.values = {{"total_bytes", m.total_bytes},       {"available_bytes", m.available_bytes},
              {"cgroup_limit_bytes", m.cgroup_limit_bytes}, {"budget_bytes", budget},
              {"label_bytes", p.label_bytes},       {"kept_bytes", p.kept_bytes},
              {"resident_bytes", p.resident_bytes}};
  if (budget == 0) {
    x.status = level::skip;
    x.found = "MemAvailable unknown (no /proc/meminfo)";
    return x;
  }
  const std::string have = bytes(budget) + " available" +
                           (m.cgroup_limit_bytes != 0 && m.cgroup_limit_bytes < m.available_bytes ? " (the cgroup's limit)" : "") +
                           " of " + bytes(m.total_bytes);
  const std::string two = "two layers of " + sectors_text(p) + " and the parent table (" + bytes(p.label_bytes) + ")";
  if (budget >= p.kept_bytes) {
    x.found = have + ": all " + std::to_string(p.layers) + " layers and the table (" + bytes(p.kept_bytes) + ") fit";
    return x;
  }
  if (budget >= p.label_bytes) {
    x.found = have + ": " + two + " fit; the other layers go to files";
    return x;
  }
  x.fix = "memory for " + bytes(p.label_bytes) + " (labeling in RAM) or at least " + bytes(p.resident_bytes) +
          ", fewer sectors at once, or a smaller --for size";
  if (budget >= p.resident_bytes) {
    x.status = level::warn;
    x.found = have + ", less than " + two + ": a seal runs bounded, the previous layer in memory";
    x.cost = "the parent table (" + bytes(p.memory.parent_table_bytes) +
             ") and the layer being written go through the page cache: late in a layer its base parents are read "
             "back from disk (docs/scaling.md, \"Sealing past RAM\")";
    return x;
  }
  x.status = level::fail;
  x.found = have + ", less than one layer of " + sectors_text(p) + " with its margin (" + bytes(p.resident_bytes) +
            "): a seal leaves the previous layer to the page cache";
  // docs/scaling.md's model: about two of a node's parent reads miss the page cache.
  const double reads_per_layer = 2.0 * static_cast<double>(p.nodes) * p.sectors;
  x.values["random_reads_per_layer"] = reads_per_layer;
  if (f.disk.ran && f.disk.random_reads_per_s > 0) {
    const double layer_s = reads_per_layer / f.disk.random_reads_per_s;
    x.values["layer_seconds_at_measured_iops"] = layer_s;
    x.cost = "about 2 random 4 KiB disk reads a node: at the " + format_number(f.disk.random_reads_per_s, 3) +
             " reads/s measured in the layer directory, " + format_seconds(layer_s) + " a layer, " +
             format_seconds(layer_s * p.layers) + " for " + std::to_string(p.layers) + " layers";
  } else {
    x.cost = "about 2 random 4 KiB disk reads a node (" + format_number(reads_per_layer, 3) +
             " a layer): give --layer-dir to measure what that costs on the disk";
  }
  return x;
}

finding check_thp(const system_facts& f, const seal_plan&) {
  const memory_facts& m = f.memory;
  finding x = make("memory.thp", "transparent huge pages");
  x.values = {{"enabled", m.thp_enabled}, {"defrag", m.thp_defrag}};
  if (m.thp_enabled.empty()) {
    x.status = level::skip;
    x.found = "no /sys/kernel/mm/transparent_hugepage (a kernel without THP)";
    return x;
  }
  x.found = "enabled " + m.thp_enabled + ", defrag " + (m.thp_defrag.empty() ? "?" : m.thp_defrag);
  if (m.thp_enabled != "never") {
    x.found += ": the layers and the parent table get huge pages (poreplab asks with madvise)";
    return x;
  }
  x.status = level::warn;
  x.cost = "the layers and the parent table on 4 KiB pages: a TLB miss on nearly every parent read "
           "(docs/cpu-backend.md, \"Real sector sizes\")";
  x.fix = "echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled";
  return x;
}

// The node window poreplab times at real sizes (the default and coordinators configs).
constexpr std::uint64_t kTimedWindowNodes = 65536;

// 2 MiB pages that window of the plan's sectors needs with its layers on the aliased backing
// (bench label --window-backing aliased), the arrangement that measured fastest for the 32GiB
// windows on AMD Zen 4 (docs/scaling.md); 0 for a size no larger than the window.
std::uint64_t aliased_window_pages(const seal_plan& p) {
  if (p.nodes <= kTimedWindowNodes) return 0;
  const std::uint64_t row = 32ull * p.sectors;
  const sdr::window_alias alias{};
  std::uint64_t pages = 0;
  for (const auto& need : sdr::aliased_huge_pages(p.nodes * row, sdr::aliased_own_bytes_at_most(kTimedWindowNodes * row, alias.page), 2, alias))
    if (need.page_bytes == alias.page) pages += need.pages;
  return pages;
}

finding check_hugetlb(const system_facts& f, const seal_plan& p) {
  const memory_facts& m = f.memory;
  finding x = make("memory.hugetlb", "reserved huge pages");
  std::uint64_t reserved = 0, free_bytes = 0;
  std::vector<std::string> pools;
  nlohmann::json jp = nlohmann::json::array();
  for (const auto& h : m.hugepages) {
    reserved += h.pages * h.page_bytes;
    free_bytes += h.free_pages * h.page_bytes;
    pools.push_back(bytes(h.page_bytes) + ": " + std::to_string(h.pages) + " (" + std::to_string(h.free_pages) + " free)");
    jp.push_back({{"page_bytes", h.page_bytes}, {"pages", h.pages}, {"free_pages", h.free_pages}});
  }
  const std::uint64_t window_pages = aliased_window_pages(p);
  x.values = {{"pools", jp},         {"reserved_bytes", reserved}, {"free_bytes", free_bytes},
              {"plan_bytes", p.label_bytes}, {"window_pages_2mib", window_pages}};
  if (m.hugepages.empty()) {
    x.status = level::skip;
    x.found = "no /sys/kernel/mm/hugepages (a kernel without hugetlbfs)";
    return x;
  }
  x.found = bytes(reserved) + " reserved (" + join(pools, ", ") + ")";
  if (window_pages > 0) {
    std::uint64_t free_2mib = 0;
    for (const auto& h : m.hugepages)
      if (h.page_bytes == (2ull << 20)) free_2mib = h.free_pages;
    x.found += "; a " + std::to_string(kTimedWindowNodes) + "-node window of " + std::to_string(p.sectors) +
               " sector(s) of this size with its layers on 2 MiB pages (bench label --window-backing aliased, the "
               "arrangement docs/scaling.md measured fastest at 32GiB on AMD Zen 4) needs " + std::to_string(window_pages) +
               " of them, " + std::to_string(free_2mib) + " free" +
               (free_2mib >= window_pages ? "" : ": reserve them with sysctl vm.nr_hugepages=" + std::to_string(window_pages) +
                                                     " (and 0 after)");
  }
  if (reserved == 0) {
    x.found += "; poreplab's layers use transparent huge pages, not reserved ones (only `bench label "
               "--window-backing aliased` maps a window's layers on reserved 2 MiB or 1 GiB pages, --window-page)";
    return x;
  }
  if (reserved >= p.label_bytes) {
    x.found += ", at least the plan's two layers and table (" + bytes(p.label_bytes) +
               ") for a sealer that maps them there; poreplab uses transparent huge pages";
    return x;
  }
  x.status = level::warn;
  x.cost = "less than the plan's two layers and table (" + bytes(p.label_bytes) +
           "): a sealer that maps its layers on reserved pages runs out of them; for poreplab (transparent huge "
           "pages) the " + bytes(free_bytes) + " left free are memory only its aliased window backing uses (2 MiB or 1 GiB "
           "pages)";
  x.fix = "reserve what such a sealer needs (echo N | sudo tee /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages), "
          "or 0 where only poreplab seals";
  return x;
}

finding check_memlock(const system_facts& f, const seal_plan& p) {
  const memory_facts& m = f.memory;
  finding x = make("memory.memlock", "ulimit -l");
  x.values = {{"plan_bytes", p.label_bytes}};
  if (!m.memlock_bytes) {
    x.status = level::skip;
    x.found = "no \"Max locked memory\" in /proc/self/limits";
    return x;
  }
  const bool unlimited = *m.memlock_bytes == kUnlimited;
  x.values["memlock_bytes"] = unlimited ? nlohmann::json("unlimited") : nlohmann::json(*m.memlock_bytes);
  x.found = "ulimit -l " + (unlimited ? std::string("unlimited") : bytes(*m.memlock_bytes)) +
            " against the plan's two layers and table (" + bytes(p.label_bytes) + ")";
  if (unlimited || *m.memlock_bytes >= p.label_bytes) return x;
  x.status = level::warn;
  x.cost = "a sealer that locks its layers in RAM (mlock) cannot lock them; poreplab itself locks nothing";
  x.fix = "ulimit -l unlimited (LimitMEMLOCK=infinity in a systemd unit, memlock in /etc/security/limits.conf)";
  return x;
}

finding check_swap(const system_facts& f, const seal_plan& p) {
  const memory_facts& m = f.memory;
  finding x = make("memory.swap", "swap");
  const std::uint64_t used = m.swap_total_bytes - std::min(m.swap_free_bytes, m.swap_total_bytes);
  x.values = {{"swap_total_bytes", m.swap_total_bytes}, {"swap_used_bytes", used}, {"plan_bytes", p.label_bytes}};
  if (m.swap_total_bytes == 0) {
    x.found = "no swap";
    return x;
  }
  x.found = bytes(m.swap_total_bytes) + " of swap, " + bytes(used) + " used";
  if (m.budget() >= p.label_bytes) {
    x.found += "; the plan's two layers and table fit in RAM";
    return x;
  }
  x.status = level::warn;
  x.cost = "the plan's two layers and table (" + bytes(p.label_bytes) + ") exceed the " + bytes(m.budget()) +
           " available: pages of them can be swapped out, and every parent read of one is a disk read on the hash "
           "chain; a sealer that locks its layers is killed for memory while swap is still free";
  x.fix = "sudo swapoff -a on a sealing machine, and plan what fits in RAM";
  return x;
}

// ---- Storage ----

finding check_parent_cache(const system_facts& f, const seal_plan& p) {
  const parent_cache_facts& c = f.parent_cache;
  finding x = make("storage.parent_cache", "parent cache");
  const std::string graph = p.proof.empty() ? "the " + format_size(p.sector_bytes) + " custom graph" : p.proof;
  x.values = {{"file", c.file.string()}, {"present", c.present}, {"bytes", c.bytes}, {"expected_bytes", c.expected_bytes},
              {"sidecar", c.sidecar}, {"rows_checked", c.rows_checked}, {"free_bytes", c.space.free_bytes}};
  if (!c.path_error.empty()) {
    x.status = level::fail;
    x.found = c.path_error;
    x.cost = "a seal refuses it";
    x.fix = "remove what is there, or set FIL_PROOFS_PARENT_CACHE (or --parent-cache) to a directory";
    return x;
  }
  if (c.present) {
    if (c.bytes != c.expected_bytes) {
      x.status = level::fail;
      x.found = c.file.string() + " is " + bytes(c.bytes) + "; the table of " + graph + " is " + bytes(c.expected_bytes);
      x.cost = "a seal refuses it";
      x.fix = generate_command(p, c, true);
      return x;
    }
    if (!c.check_error.empty()) {
      x.status = level::fail;
      x.found = c.check_error;
      x.cost = "labels from wrong parents: the seal's proofs would not verify";
      x.fix = generate_command(p, c, true);
      return x;
    }
    x.found = c.file.string() + " (" + graph + ", " + bytes(c.bytes) + ")" +
              (c.rows_checked > 0 ? ": " + std::to_string(c.rows_checked) + " sampled rows recomputed from the graph agree"
                                  : ": rows not sampled") +
              (c.sidecar ? "" : "; no .sha256 sidecar (written by rust-fil-proofs?)");
    return x;
  }
  const std::uint64_t free_bytes = c.space.free_bytes;
  x.found = "no table for " + graph + " in " + c.dir.string() + " (" + bytes(free_bytes) + " free on " +
            c.space.probed.string() + ")";
  if (free_bytes < c.expected_bytes) {
    x.status = level::fail;
    x.cost = "the table (" + bytes(c.expected_bytes) + ") does not fit there: the first seal fails";
    x.fix = "free space there, or set FIL_PROOFS_PARENT_CACHE to a directory with " + bytes(c.expected_bytes) + " free";
    return x;
  }
  x.status = level::warn;
  x.cost = "the first seal generates the table (" + bytes(c.expected_bytes) + ") before labeling (`poreplab parent-cache "
           "bench` times that)";
  x.fix = generate_command(p, c, false);
  return x;
}

finding check_layer_dir(const system_facts& f, const seal_plan& p) {
  finding x = make("storage.layer_dir", "layer directory");
  if (!f.layer_dir) {
    x.status = level::skip;
    x.found = "no --layer-dir: where the layers go is not checked";
    x.fix = "poreplab doctor --layer-dir DIR";
    return x;
  }
  const dir_facts& d = *f.layer_dir;
  const std::string dir = d.path.string();
  x.values = {{"path", dir},         {"exists", d.exists},        {"writable", d.writable},
              {"fs_type", d.fs_type}, {"free_bytes", d.free_bytes}, {"needed_bytes", p.disk_bytes}};
  x.status = level::fail;
  if (!d.exists) {
    x.found = dir + " does not exist";
    x.cost = "a seal there fails";
    x.fix = "mkdir -p " + dir + " (" + bytes(d.free_bytes) + " free on " + d.probed.string() + "), or another --layer-dir";
    return x;
  }
  if (!d.is_dir) {
    x.found = dir + " is not a directory";
    x.cost = "a seal there fails";
    x.fix = "a directory for --layer-dir";
    return x;
  }
  if (!d.writable && d.read_only) {
    x.found = dir + " is on a read-only filesystem (" + d.probed.string() + ")";
    x.cost = "a seal there fails";
    x.fix = "a --layer-dir on a filesystem mounted read-write";
    return x;
  }
  if (!d.writable) {
    x.found = dir + " is not writable by this user";
    x.cost = "a seal there fails";
    x.fix = "sudo chown $USER " + dir + ", or another --layer-dir";
    return x;
  }
  const std::string type = d.fs_type.empty() ? std::string("an unknown filesystem") : d.fs_type;
  x.found = dir + ": " + bytes(d.free_bytes) + " free of " + bytes(d.total_bytes) + " on " + type + "; sealing " +
            sectors_text(p) + " writes " + bytes(p.disk_bytes) + " (" + std::to_string(p.layers) +
            " layers, tree_d, replica)";
  if (d.free_bytes < p.disk_bytes) {
    x.cost = "a seal refuses to start (it checks the space first)";
    x.fix = "free " + bytes(p.disk_bytes - d.free_bytes) + " there, or a --layer-dir with " + bytes(p.disk_bytes) + " free";
    return x;
  }
  switch (kind_of(d.fs_type)) {
    case fs_kind::memory:
      x.status = level::warn;
      x.cost = "the layer files (" + bytes(p.disk_bytes) + ") live in RAM, beside the memory labeling needs";
      x.fix = "a --layer-dir on a local disk";
      return x;
    case fs_kind::network:
      x.status = level::warn;
      x.cost = "every layer write and read-back crosses the network";
      x.fix = "a --layer-dir on a local disk (NVMe)";
      return x;
    case fs_kind::local: break;
  }
  x.status = level::ok;
  return x;
}

finding check_o_direct(const system_facts& f, const seal_plan&) {
  finding x = make("storage.o_direct", "O_DIRECT");
  const disk_result& d = f.disk;
  x.values = {{"o_direct", d.o_direct}};
  if (!d.ran) {
    x.status = level::skip;
    x.found = "the disk test did not run" + (d.error.empty() ? std::string() : ": " + d.error);
    return x;
  }
  const std::string where = f.layer_dir ? " on " + (f.layer_dir->fs_type.empty() ? std::string("this filesystem") : f.layer_dir->fs_type) : "";
  if (d.o_direct) {
    x.found = "O_DIRECT reads and writes work" + where;
    return x;
  }
  x.status = level::warn;
  x.found = "O_DIRECT refused" + where + " (" + d.o_direct_error + ")";
  x.cost = "a sealer that reads or writes layers with O_DIRECT fails here; the disk test went through the page cache";
  x.fix = "a --layer-dir on a filesystem with O_DIRECT (ext4, xfs)";
  return x;
}

finding check_disk_speed(const system_facts& f, const seal_plan& p) {
  finding x = make("storage.disk_speed", "disk speed");
  const disk_result& d = f.disk;
  if (!d.ran) {
    x.status = level::skip;
    x.found = "the disk test did not run" + (d.error.empty() ? std::string() : ": " + d.error);
    if (!f.layer_dir) x.fix = "poreplab doctor --layer-dir DIR";
    return x;
  }
  x.values = {{"write_bytes_per_s", d.write_bytes_per_s}, {"read_bytes_per_s", d.read_bytes_per_s},
              {"random_reads_per_s", d.random_reads_per_s}, {"random_reads_per_s_at_depth", d.random_reads_per_s_at_depth},
              {"queue_depth", d.queue_depth}, {"file_bytes", d.file_bytes}, {"seconds", d.seconds},
              {"o_direct", d.o_direct}};
  x.found = mb_per_s(d.write_bytes_per_s) + " sequential write, " + mb_per_s(d.read_bytes_per_s) + " read, " +
            format_number(d.random_reads_per_s, 3) + " random 4 KiB reads/s one at a time, " +
            format_number(d.random_reads_per_s_at_depth, 3) + " with " + std::to_string(d.queue_depth) +
            " in flight (labeling with layers on disk reads that way: `poreplab bench disk-label`) (" + bytes(d.file_bytes) +
            " file, " + (d.o_direct ? "O_DIRECT" : "through the page cache") + ", " + format_number(d.seconds, 2) + " s)";
  const engine_facts* e = auto_engine(f.cpu);
  if (e == nullptr || d.write_bytes_per_s <= 0) return x;
  const double pc1 = pc1_floor_seconds(*e, p);
  const double write_s = static_cast<double>(p.disk_bytes) / d.write_bytes_per_s;
  x.values["pc1_floor_seconds"] = pc1;
  x.values["write_seconds"] = write_s;
  x.found += "; the seal's " + bytes(p.disk_bytes) + " take " + format_seconds(write_s) + " to write, PC1's hash floor " +
             format_seconds(pc1);
  if (write_s <= pc1) return x;
  x.status = level::warn;
  x.cost = "writing the sealed files takes longer than labeling them: the disk, not the CPU, bounds the seal";
  x.fix = "a faster disk (NVMe) for --layer-dir, or fewer sectors at once";
  return x;
}

// ---- GPU ----

finding check_gpu_driver(const system_facts& f, const seal_plan&) {
  const gpu_facts& g = f.gpu;
  finding x = make("gpu.driver", "CUDA driver and runtime");
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  x.values = {{"compiled", g.compiled}, {"driver_version", g.driver_version}, {"runtime_version", g.runtime_version},
              {"devices", g.devices.size()}};
  if (!g.compiled) {
    x.status = level::skip;
    x.found = g.reason + ": no GPU checks";
    x.fix = "build where nvcc is on PATH: cmake --preset default && cmake --build --preset default";
    return x;
  }
  if (g.driver_version == 0) {
    x.status = level::skip;
    x.found = g.reason.empty() ? "no CUDA driver" : g.reason;
    x.fix = "install the NVIDIA driver where there is a GPU";
    return x;
  }
  x.found = "driver CUDA " + version(g.driver_version) + ", runtime " + version(g.runtime_version) + ", " +
            plural(g.devices.size(), "device");
  if (g.driver_version / 1000 < g.runtime_version / 1000) {
    x.status = level::fail;
    x.cost = "the driver cannot run this build's kernels";
    x.fix = "install an NVIDIA driver for CUDA " + version(g.runtime_version) + " or newer";
    return x;
  }
  if (!g.available) {
    x.status = level::skip;
    x.found += " (" + g.reason + ")";
  }
  return x;
}

std::vector<finding> check_gpu_devices(const system_facts& f, const seal_plan& p) {
  std::vector<finding> out;
  const gpu_facts& g = f.gpu;
  for (const auto& d : g.devices) {
    finding x = make("gpu." + std::to_string(d.index), "GPU " + std::to_string(d.index));
    const int cc = d.sm_major * 10 + d.sm_minor;
    cuda::memory_request req;
    req.sector_bytes = p.sector_bytes;
    req.sectors = p.sectors;
    req.layers = p.layers;
    req.free_bytes = d.total_memory;
    const cuda::memory_plan mp = cuda::plan_memory(req);
    x.values = {{"name", d.name},       {"compute_capability", std::to_string(d.sm_major) + "." + std::to_string(d.sm_minor)},
                {"memory_bytes", d.total_memory}, {"sass", d.sass}, {"max_sectors", mp.max_sectors},
                {"parents", cuda::parent_placement_name(mp.parents)}};
    x.found = d.name + ", sm_" + std::to_string(cc) + ", " + std::to_string(d.multiprocessors) + " SMs, " +
              bytes(d.total_memory) + "; " +
              (d.sass ? "SASS for it in this build" : "no SASS for it: its PTX is compiled at load (JIT)") + "; " +
              (mp.max_sectors == 0 ? "no " + format_size(p.sector_bytes) + " sector fits"
                                   : "at most " + plural(mp.max_sectors, format_size(p.sector_bytes) + " sector") +
                                         " at once" + (mp.max_resident_sectors < mp.max_sectors ? " (parent table streamed)" : ""));
    if (!d.unsupported.empty()) {
      x.status = level::fail;
      x.cost = "this build's kernels cannot run on it: " + d.unsupported;
      x.fix = "rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(cc) + ", or use a GPU this build supports";
    } else if (mp.max_sectors < p.sectors) {
      x.status = level::warn;
      x.cost = mp.message;
      x.fix = mp.max_sectors > 0 ? "--sectors " + std::to_string(mp.max_sectors) + " per GPU" : "a GPU with more memory, or a smaller --for size";
    } else if (!d.sass) {
      x.status = level::warn;
      x.cost = "the first launch of each process compiles every kernel for it (the driver caches the result in "
               "~/.nv/ComputeCache)";
      x.fix = "rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(cc);
    }
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<finding> run_checks(const system_facts& f, const seal_plan& p) {
  std::vector<finding> out = {check_sha(f, p),        check_vector_units(f, p), check_clock(f, p),
                              check_smt(f, p),        check_topology(f, p),     check_cores(f, p),
                              check_ram(f, p),        check_thp(f, p),          check_hugetlb(f, p),
                              check_memlock(f, p),    check_swap(f, p),         check_parent_cache(f, p),
                              check_layer_dir(f, p),  check_o_direct(f, p),     check_disk_speed(f, p),
                              check_gpu_driver(f, p)};
  for (auto& d : check_gpu_devices(f, p)) out.push_back(std::move(d));
  return out;
}

int exit_status(const std::vector<finding>& findings) {
  int s = 0;
  for (const auto& x : findings) s = std::max(s, x.status == level::fail ? 2 : x.status == level::warn ? 1 : 0);
  return s;
}

}  // namespace poreplab::doctor
