#include "poreplab/cpu/topology.hpp"

#include <hwloc.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "poreplab/unavailable.hpp"

namespace poreplab::cpu {

namespace {

// A kernel CPU list ("0-3,8,10-11"); empty when unreadable.
std::vector<int> read_cpu_list(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  std::vector<int> out;
  if (!std::getline(in, text)) return out;
  std::istringstream list(text);
  for (std::string part; std::getline(list, part, ',');) {
    const auto dash = part.find('-');
    try {
      const int lo = std::stoi(part.substr(0, dash));
      const int hi = dash == std::string::npos ? lo : std::stoi(part.substr(dash + 1));
      for (int c = lo; c <= hi && c - lo < CPU_SETSIZE; ++c) out.push_back(c);
    } catch (const std::exception&) {
      return {};
    }
  }
  return out;
}

int read_int(const std::string& path) {
  std::ifstream in(path);
  int v = -1;
  return in >> v ? v : -1;
}

void add_group(std::vector<std::vector<int>>& groups, std::vector<int> pus) {
  std::sort(pus.begin(), pus.end());
  if (!pus.empty() && std::find(groups.begin(), groups.end(), pus) == groups.end()) groups.push_back(std::move(pus));
}

std::vector<int> bitmap_pus(hwloc_const_bitmap_t set) {
  std::vector<int> out;
  for (int id = hwloc_bitmap_first(set); id >= 0; id = hwloc_bitmap_next(set, id)) out.push_back(id);
  return out;
}


}  // namespace

int machine_topology::threads_per_core() const {
  std::map<int, int> per_core;
  int most = 0;
  for (const auto& p : pus) most = std::max(most, ++per_core[p.core]);
  return most;
}

int machine_topology::core_of(int cpu) const {
  for (const auto& p : pus)
    if (p.os_index == cpu) return p.core;
  return -1;
}

std::vector<int> machine_topology::siblings_of(int cpu) const {
  const int core = core_of(cpu);
  std::vector<int> out;
  if (core < 0) return out;
  for (const auto& p : pus)
    if (p.core == core) out.push_back(p.os_index);
  return out;
}

machine_topology read_topology_hwloc() {
  hwloc_topology_t t = nullptr;
  if (hwloc_topology_init(&t) != 0) throw std::runtime_error("hwloc_topology_init failed");
  struct destroy {
    hwloc_topology_t t;
    ~destroy() { hwloc_topology_destroy(t); }
  } guard{t};
  if (hwloc_topology_load(t) != 0) throw std::runtime_error("hwloc_topology_load failed");
  machine_topology m;
  m.source = "hwloc";
  m.packages = std::max(1, hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE));
  const int npu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  if (npu <= 0) throw std::runtime_error("hwloc found no processing units");
  const bool has_cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE) > 0;
  std::map<unsigned, int> cores;  // hwloc's logical core index -> ours (dense)
  for (int i = 0; i < npu; ++i) {
    const hwloc_obj_t pu = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, static_cast<unsigned>(i));
    const hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu);
    const hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, pu);
    // Without Core objects (some virtual machines) each PU is a core of its own.
    const unsigned key = has_cores && core != nullptr ? core->logical_index : 0x10000u + pu->logical_index;
    const int dense = cores.emplace(key, static_cast<int>(cores.size())).first->second;
    m.pus.push_back({static_cast<int>(pu->os_index), dense,
                     package != nullptr ? static_cast<int>(package->logical_index) : 0});
  }
  m.cores = static_cast<int>(cores.size());
  std::sort(m.pus.begin(), m.pus.end(), [](const auto& a, const auto& b) { return a.os_index < b.os_index; });
  for (const auto& [type, groups] : {std::pair{HWLOC_OBJ_L2CACHE, &m.l2}, std::pair{HWLOC_OBJ_L3CACHE, &m.l3}}) {
    const int n = hwloc_get_nbobjs_by_type(t, type);
    for (int i = 0; i < n; ++i) add_group(*groups, bitmap_pus(hwloc_get_obj_by_type(t, type, static_cast<unsigned>(i))->cpuset));
  }
  return m;
}

machine_topology read_topology_sysfs() {
  const std::string root = "/sys/devices/system/cpu/";
  const std::vector<int> online = read_cpu_list(root + "online");
  if (online.empty()) throw std::runtime_error("cannot read " + root + "online");
  machine_topology m;
  m.source = "sysfs";
  std::map<std::pair<int, int>, int> cores;  // (package id, core id) -> dense
  std::map<int, int> packages;
  for (const int cpu : online) {
    const std::string dir = root + "cpu" + std::to_string(cpu) + "/";
    const int package_id = read_int(dir + "topology/physical_package_id");
    const int core_id = read_int(dir + "topology/core_id");
    // An unreadable core id: the CPU is a core of its own.
    const std::pair<int, int> key = core_id < 0 ? std::pair{-1, -1 - cpu} : std::pair{package_id, core_id};
    const int core = cores.emplace(key, static_cast<int>(cores.size())).first->second;
    const int package = packages.emplace(package_id, static_cast<int>(packages.size())).first->second;
    m.pus.push_back({cpu, core, package});
    for (int index = 0; index < 8; ++index) {
      const std::string cache = dir + "cache/index" + std::to_string(index) + "/";
      const int level = read_int(cache + "level");
      if (level < 0) break;
      if (level == 2) add_group(m.l2, read_cpu_list(cache + "shared_cpu_list"));
      if (level == 3) add_group(m.l3, read_cpu_list(cache + "shared_cpu_list"));
    }
  }
  m.cores = static_cast<int>(cores.size());
  m.packages = static_cast<int>(packages.size());
  return m;
}

const machine_topology& topology() {
  static const machine_topology t = [] {
    try {
      return read_topology_hwloc();
    } catch (const std::exception&) {
    }
    try {
      return read_topology_sysfs();
    } catch (const std::exception&) {
    }
    machine_topology m;
    m.source = "sysconf";
    const long n = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
    for (int c = 0; c < n; ++c) m.pus.push_back({c, c, 0});
    m.cores = static_cast<int>(n);
    m.packages = 1;
    return m;
  }();
  return t;
}

std::vector<int> affinity_cpus() {
  cpu_set_t allowed;
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  return cpus;
}

void pin_this_thread(int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  pthread_setaffinity_np(pthread_self(), sizeof one, &one);
}

affinity_guard::affinity_guard() { saved_ = pthread_getaffinity_np(pthread_self(), sizeof mask_, &mask_) == 0; }

affinity_guard::~affinity_guard() {
  if (saved_) pthread_setaffinity_np(pthread_self(), sizeof mask_, &mask_);
}

std::vector<int> placement_cpus(thread_placement p, const machine_topology& t, const std::vector<int>& allowed) {
  if (p == thread_placement::none) return {};
  if (p == thread_placement::compact) return allowed;
  // The allowed CPUs by core, cores in the order their first CPU comes.
  std::vector<std::pair<int, std::vector<int>>> by_core;
  for (const int cpu : allowed) {
    const int core = t.core_of(cpu);
    auto it = std::find_if(by_core.begin(), by_core.end(), [&](const auto& g) { return core >= 0 && g.first == core; });
    if (it == by_core.end()) by_core.push_back({core, {cpu}});
    else it->second.push_back(cpu);
  }
  std::vector<int> out;
  std::size_t deepest = 0;
  for (const auto& g : by_core) deepest = std::max(deepest, g.second.size());
  if (p == thread_placement::siblings) {
    for (const auto& g : by_core) out.insert(out.end(), g.second.begin(), g.second.end());
  } else {
    const std::size_t rounds = p == thread_placement::cores ? 1 : deepest;
    for (std::size_t r = 0; r < rounds; ++r)
      for (const auto& g : by_core)
        if (r < g.second.size()) out.push_back(g.second[r]);
  }
  return out;
}

std::string placement_unavailable(thread_placement p, const machine_topology& t, const std::vector<int>& allowed) {
  if (p != thread_placement::siblings) return {};
  for (const int cpu : allowed) {
    const auto sib = t.siblings_of(cpu);
    if (std::count_if(sib.begin(), sib.end(), [&](int s) {
          return std::find(allowed.begin(), allowed.end(), s) != allowed.end();
        }) > 1)
      return {};
  }
  return "placement siblings: no core has two CPUs of this process's affinity mask (one thread per core here, " +
         std::to_string(t.threads_per_core()) + " per core on this machine); valid here: compact, spread, cores, none";
}

std::vector<std::pair<int, int>> producer_cpu_pairs(parent_producer where, const machine_topology& t,
                                                    const std::vector<int>& allowed) {
  std::vector<std::pair<int, int>> pairs;
  if (where == parent_producer::sibling) {
    std::vector<bool> taken(CPU_SETSIZE, false);
    for (int c : allowed) {
      if (c < 0 || c >= CPU_SETSIZE || taken[static_cast<std::size_t>(c)]) continue;
      for (int s : t.siblings_of(c))
        if (s != c && s >= 0 && s < CPU_SETSIZE && !taken[static_cast<std::size_t>(s)] &&
            std::find(allowed.begin(), allowed.end(), s) != allowed.end()) {
          taken[static_cast<std::size_t>(c)] = taken[static_cast<std::size_t>(s)] = true;
          pairs.emplace_back(c, s);
          break;
        }
    }
  } else if (where == parent_producer::core) {
    // The producer on a CPU of another core: never on a sibling of its labeling thread's.
    std::vector<bool> taken(allowed.size(), false);
    for (std::size_t i = 0; i < allowed.size(); ++i) {
      if (taken[i]) continue;
      const std::vector<int> sib = t.siblings_of(allowed[i]);
      for (std::size_t j = i + 1; j < allowed.size(); ++j)
        if (!taken[j] && std::find(sib.begin(), sib.end(), allowed[j]) == sib.end()) {
          taken[i] = taken[j] = true;
          pairs.emplace_back(allowed[i], allowed[j]);
          break;
        }
    }
  }
  return pairs;
}

std::vector<coordinator_team> coordinator_teams(parent_producer where, std::size_t hashers_per_coordinator,
                                                const machine_topology& t, const std::vector<int>& allowed) {
  std::vector<coordinator_team> teams;
  if (where == parent_producer::sibling) {
    for (const auto& [label, sibling] : producer_cpu_pairs(where, t, allowed)) teams.push_back({sibling, {label}});
    return teams;
  }
  if (where != parent_producer::core) return teams;
  // The allowed CPUs by L3 domain, domains in the order their first CPU comes.
  std::vector<std::pair<int, std::vector<int>>> domains;
  for (const int cpu : allowed) {
    int d = -1;
    for (std::size_t i = 0; i < t.l3.size() && d < 0; ++i)
      if (std::find(t.l3[i].begin(), t.l3[i].end(), cpu) != t.l3[i].end()) d = static_cast<int>(i);
    if (t.l3.empty()) d = 0;
    auto it = std::find_if(domains.begin(), domains.end(), [&](const auto& g) { return d >= 0 && g.first == d; });
    if (it == domains.end()) domains.push_back({d, {cpu}});
    else it->second.push_back(cpu);
  }
  for (const auto& [d, cpus] : domains) {
    // One core after another: a team's CPUs are siblings only where the domain has no more cores.
    const std::vector<int> order = placement_cpus(thread_placement::spread, t, cpus);
    const std::size_t n = order.size();
    const std::size_t k = hashers_per_coordinator > 0 ? hashers_per_coordinator : std::max<std::size_t>(1, n - 1);
    for (std::size_t i = 0; i + 1 < n; i += k + 1)
      teams.push_back({order[i], std::vector<int>(order.begin() + static_cast<std::ptrdiff_t>(i + 1),
                                                  order.begin() + static_cast<std::ptrdiff_t>(std::min(n, i + 1 + k)))});
  }
  return teams;
}

std::uint64_t last_level_cache_bytes() {
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return l3 > 0 ? static_cast<std::uint64_t>(l3) : 0;
}

std::uint64_t producer_min_layer_bytes(std::uint64_t llc_bytes) {
  // Below this the parents mostly hit the caches and a producer gains nothing for its CPU
  // (docs/cpu-backend.md, "Real sector sizes").
  return std::max<std::uint64_t>(64ull << 20, llc_bytes);
}

}  // namespace poreplab::cpu
