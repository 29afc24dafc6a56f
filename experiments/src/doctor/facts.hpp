#pragma once
// Everything `poreplab doctor` judges, in one struct (system_facts), filled by one
// provider (gather_facts): /proc and /sys read below a root directory (a fixture tree in
// tests), the CPU's features and topology, the engines' measured speeds, the layer
// directory and its disk test, the parent cache and the GPUs. The checks (checks.hpp)
// read nothing else.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "doctor/disk.hpp"
#include "doctor/plan.hpp"
#include "poreplab/cpu/features.hpp"
#include "poreplab/cpu/topology.hpp"

namespace poreplab::doctor {

// What doctor is asked: the plan's sectors sealed with their layers in layer_dir.
struct request {
  std::optional<std::filesystem::path> layer_dir;  // none: the layer directory is not checked
  std::filesystem::path parent_cache_dir;          // empty: graph::default_parent_cache_dir()
  double disk_seconds = 3;                         // the disk test's bound; 0: no disk test
};

// The clock driver of CPU 0 (/sys/devices/system/cpu).
struct cpufreq_facts {
  bool present = false;  // cpu0/cpufreq exists (virtual machines usually have none)
  std::string driver, governor;
  std::uint64_t cur_khz = 0, max_khz = 0;
  std::optional<bool> boost;  // cpufreq/boost, or intel_pstate/no_turbo inverted; unknown: none
};

struct hugepage_pool {
  std::uint64_t page_bytes = 0;
  std::uint64_t pages = 0;  // reserved (nr_hugepages)
  std::uint64_t free_pages = 0;
};

inline constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();

struct memory_facts {
  std::uint64_t total_bytes = 0, available_bytes = 0;  // MemTotal, MemAvailable; 0: unknown
  std::uint64_t swap_total_bytes = 0, swap_free_bytes = 0;
  std::uint64_t cgroup_limit_bytes = 0;  // this process's memory cgroup; 0: none
  std::string thp_enabled, thp_defrag;   // the selected word of transparent_hugepage/*; "": unknown
  std::vector<hugepage_pool> hugepages;  // one per page size the kernel offers
  std::optional<std::uint64_t> memlock_bytes;  // soft RLIMIT_MEMLOCK, kUnlimited; none: unknown
  // What a new allocation may take: MemAvailable capped by the cgroup's limit (as seal's
  // memory_budget_bytes); 0: unknown.
  std::uint64_t budget() const;
};

// A SHA-256 engine as `tune` measured it, and the hash floor of the planned labeling on it
// where doctor timed one.
struct engine_facts {
  std::string name;
  std::size_t lanes = 1;
  bool sha_ni = false;           // runs on the SHA extensions (cpu::engine::uses_sha_ni)
  double ns_per_lane_block = 0;  // tune's rate
  double floor_ns_per_node = 0;  // one node of every planned sector, hash only; 0: not timed
};

// A SHA-256 engine this build has and this CPU cannot run.
struct missing_engine {
  std::string name;
  std::size_t lanes = 1;
  std::string required;  // the features it needs, as `poreplab info` names them
};

struct cpu_facts {
  cpu::features features;
  cpu::machine_topology topology;
  std::vector<int> allowed;                  // this process's affinity mask
  std::vector<std::vector<int>> numa_nodes;  // the CPUs of each NUMA node; empty: unknown
  std::string smt_control;                   // /sys/devices/system/cpu/smt/control; "": none
  std::uint64_t llc_bytes = 0;               // the last-level cache producer auto weighs a layer against
  int label_threads = 1;                     // the labeler's OpenMP threads
  double load_average = -1;                  // /proc/loadavg over 1 minute; < 0: unknown
  double tsc_hz = 0, core_hz = 0;            // core_hz: measured now; 0: not measured
  cpufreq_facts freq;
  std::string tune_source;                   // where tune's rates came from
  std::vector<engine_facts> engines;         // the SHA-256 engines this CPU runs
  std::vector<missing_engine> unavailable_engines;
  std::string auto_engine;                   // the engine auto labels the planned sectors with
};

// A directory and the filesystem it is on.
struct dir_facts {
  std::filesystem::path path;
  bool exists = false, is_dir = false, writable = false;
  bool read_only = false;        // its filesystem is mounted read-only: no owner or mode makes it writable
  std::filesystem::path probed;  // path, or its nearest existing parent: where space and type were read
  std::uint64_t free_bytes = 0, total_bytes = 0;
  std::string fs_type;           // of the mount holding it (/proc/self/mountinfo); "": unknown
};

struct parent_cache_facts {
  std::filesystem::path dir, file;
  bool present = false, sidecar = false;
  std::uint64_t bytes = 0, expected_bytes = 0;
  std::uint64_t rows_checked = 0;  // sampled rows recomputed from the graph and compared
  std::string check_error;         // the first row that differs, or why the file could not be read
  std::string path_error;          // what a seal refuses at the path (graph::parent_cache_present)
  dir_facts space;                 // where the file is or would go
};

struct gpu_device_facts {
  int index = 0;
  std::string name;
  int sm_major = 0, sm_minor = 0, multiprocessors = 0;
  std::uint64_t total_memory = 0;
  std::string unsupported;  // why this build's kernels cannot run on it; "": they can
  bool sass = false;        // this build carries SASS for it; else the driver compiles PTX at load
};

struct gpu_facts {
  bool compiled = false, available = false;
  std::string reason;  // why no device is usable
  int driver_version = 0, runtime_version = 0;  // e.g. 12040; 0: none
  std::vector<int> sass_archs, ptx_archs;       // x10: 90 = sm_90
  std::vector<gpu_device_facts> devices;
};

struct system_facts {
  cpu_facts cpu;
  memory_facts memory;
  std::optional<dir_facts> layer_dir;  // when asked
  disk_result disk;
  parent_cache_facts parent_cache;
  gpu_facts gpu;
};

// Where the facts come from: this machine by default. Tests point root at a fixture tree
// (its proc/ and sys/), give the topology, features, mask and GPUs, and measure nothing.
struct fact_source {
  std::filesystem::path root = "/";
  std::optional<cpu::machine_topology> topology;  // else hwloc (cpu::topology())
  std::optional<cpu::features> features;          // else CPUID (and the C library's L3 size)
  std::optional<std::vector<int>> allowed;        // else this process's mask
  std::optional<gpu_facts> gpu;                   // else the CUDA device query (`poreplab info`'s)
  // The engines (tune's rates, this build's engines the CPU cannot run, the labeling floors),
  // the core clock and the disk test.
  bool measure = true;
  std::uint64_t parent_cache_samples = 256;  // rows of a present table recomputed; 0: none
};

system_facts gather_facts(const request& req, const seal_plan& plan, const fact_source& src = {});

// The readers gather_facts uses, each over a root.
memory_facts read_memory_facts(const std::filesystem::path& root);
cpufreq_facts read_cpufreq_facts(const std::filesystem::path& root);
std::vector<std::vector<int>> read_numa_nodes(const std::filesystem::path& root);
// The type of the mount holding `dir` (an absolute path): the longest mount point of
// root's proc/self/mountinfo above it.
std::string mount_type(const std::filesystem::path& root, const std::filesystem::path& dir);
dir_facts read_dir_facts(const std::filesystem::path& root, const std::filesystem::path& dir);
// "0-3,8,10-11" as {0, 1, 2, 3, 8, 10, 11}; empty for text that is not such a list.
std::vector<int> parse_cpu_list(const std::string& text);
gpu_facts this_build_gpu_facts();

// Among `engines` that do (sha_ni) or do not run on the SHA extensions, the one with the
// shortest block step for `sectors` chains on `threads` threads (cpu::chains_step_ns, as
// auto weighs them); one sector keeps to one-lane engines. nullptr when there is none.
const engine_facts* fastest_engine(const std::vector<engine_facts>& engines, bool sha_ni, std::size_t sectors,
                                   std::size_t threads);

}  // namespace poreplab::doctor
