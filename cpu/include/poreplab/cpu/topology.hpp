#pragma once
// The machine's processing units (PUs: hardware threads), the core and package each
// belongs to, and which PUs share an L2 / L3: read with hwloc, or from /sys when hwloc
// cannot load the topology. Over it, where the labeling threads go (thread_placement);
// the backend that places them is placed_backend.hpp.
#include <sched.h>

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "poreplab/cpu/labeler_options.hpp"
#include "poreplab/name_table.hpp"

namespace poreplab::cpu {

struct processing_unit {
  int os_index = -1;  // the CPU number of sched_setaffinity / sched_getcpu
  int core = -1;      // 0..cores-1, in hwloc's logical order (sysfs: order of first appearance)
  int package = -1;   // 0..packages-1
};

struct machine_topology {
  std::string source;  // "hwloc" or "sysfs"
  int packages = 0;
  int cores = 0;
  std::vector<processing_unit> pus;      // ascending os_index
  std::vector<std::vector<int>> l2, l3;  // the PUs (os indices) sharing each L2 / L3; empty: unknown
  int threads_per_core() const;          // most PUs of one core (1: no SMT)
  int core_of(int cpu) const;            // -1 for a CPU it does not list
  std::vector<int> siblings_of(int cpu) const;  // the PUs of cpu's core, itself included
};

// Throw std::runtime_error naming what failed.
machine_topology read_topology_hwloc();
machine_topology read_topology_sysfs();
// hwloc, else /sys, else one core per online CPU (source "sysconf"); read once a process.
const machine_topology& topology();

// The CPUs of this process's affinity mask (the calling thread's), ascending.
std::vector<int> affinity_cpus();

// The calling thread onto one CPU (a failure leaves it where it was).
void pin_this_thread(int cpu);

// The calling thread's affinity mask, put back when this goes out of scope.
class affinity_guard {
 public:
  affinity_guard();
  ~affinity_guard();
  affinity_guard(const affinity_guard&) = delete;
  affinity_guard& operator=(const affinity_guard&) = delete;

 private:
  cpu_set_t mask_{};
  bool saved_ = false;
};

// Where the labeling threads are pinned. compact: thread i on the i-th CPU of the affinity
// mask (what pin_threads always did); spread: one thread per core before any core gets a
// second (each core's first allowed PU, then each core's second...); siblings: every
// allowed PU of a core before the next core; cores: one thread per core, the SMT siblings
// left idle (the thread count is capped at the cores); none: no pinning, the OS decides.
enum class thread_placement { compact, spread, siblings, cores, none };
inline constexpr name_table kThreadPlacements{
    "thread placement", std::array{named<thread_placement>{thread_placement::compact, "compact"},
                                   named<thread_placement>{thread_placement::spread, "spread"},
                                   named<thread_placement>{thread_placement::siblings, "siblings"},
                                   named<thread_placement>{thread_placement::cores, "cores"},
                                   named<thread_placement>{thread_placement::none, "none"}}};

// The CPU of labeling thread i at [i % size] for a placement over the `allowed` CPUs (in
// mask order) of topology `t`; cores are taken in the order their first PU appears in
// `allowed`. Empty for none. A CPU `t` does not list counts as a core of its own.
std::vector<int> placement_cpus(thread_placement p, const machine_topology& t, const std::vector<int>& allowed);
// Why `p` cannot mean what it says over these CPUs (siblings with no core that has two
// allowed PUs), or empty.
std::string placement_unavailable(thread_placement p, const machine_topology& t, const std::vector<int>& allowed);

// (labeling CPU, producer CPU) pairs for a producer placement over the `allowed` CPUs (in
// mask order) of topology `t`: sibling pairs each core's first allowed CPU with an allowed
// SMT sibling; core pairs each free CPU with the next free one of another core. Empty for
// sibling without SMT siblings, and for off or automatic.
std::vector<std::pair<int, int>> producer_cpu_pairs(parent_producer where, const machine_topology& t,
                                                    const std::vector<int>& allowed);
// A coordinator and the hashing threads it feeds (labeler_options::producer): their CPUs
// (-1: not pinned).
struct coordinator_team {
  int coordinator = -1;
  std::vector<int> hashers;
};
// The teams over the `allowed` CPUs (in mask order) of topology `t`. core: the CPUs of each
// last-level-cache domain, one core after another, cut into a coordinator and up to
// `hashers_per_coordinator` hashers (0: every other CPU of the domain), a last, smaller team
// where two CPUs or more are left; a CPU `t` puts in no domain counts as one of its own.
// sibling: each producer_cpu_pairs pair, the sibling coordinating. Empty for off, automatic.
std::vector<coordinator_team> coordinator_teams(parent_producer where, std::size_t hashers_per_coordinator,
                                                const machine_topology& t, const std::vector<int>& allowed);
// The layer size (bytes, all sectors) above which producer auto gives a producer, with a
// last-level cache of `llc_bytes` (0: unknown): larger than the cache and at least 64 MiB.
std::uint64_t producer_min_layer_bytes(std::uint64_t llc_bytes);
// The last-level cache as the labeler weighs it (the C library's L3 size); 0: unknown.
std::uint64_t last_level_cache_bytes();

}  // namespace poreplab::cpu
