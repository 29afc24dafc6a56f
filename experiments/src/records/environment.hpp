#pragma once
// What machine and build a measurement came from: shown by `poreplab info` and
// stored in every experiment record. Written as JSON by environment_json(), read back
// only through machine_facts_of().
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "poreplab/cpu/placed_backend.hpp"
#include "poreplab/cpu/topology.hpp"

namespace poreplab {

// Why a build has no GPU devices to offer when the CUDA backend was not compiled.
inline constexpr const char* kNoCudaBuild = "built without CUDA (POREPLAB_CUDA=OFF or no nvcc)";

nlohmann::json cpu_json();
nlohmann::json cuda_json();   // {"compiled": bool, "available": bool, "reason"?, "devices": [...]}
nlohmann::json build_json();  // version, compiler, flags, git revision, backends
// The machine's topology (cpu::topology()): source (hwloc | sysfs | sysconf), packages,
// cores, pus, smt (most threads per core), pu_core ([PU, core] pairs), allowed (this
// process's affinity mask), l2 / l3 (the PUs sharing each cache).
nlohmann::json topology_json();
// Where a labeling's threads ran: [{"thread", "cpu", "core", "role", "pinned"[, "moved"]}].
nlohmann::json thread_map_json(const std::vector<cpu::thread_cpu>& threads);
nlohmann::json environment_json();  // all of the above plus host, date

namespace records {

// The environment block of a run header, typed: the one reader of its keys. A field the
// block lacks, or holds as another type, reads as 0, empty or nullopt; a reader that told
// a recorded 0 or "" from a missing one asks the optional.
struct cache_facts {
  std::uint64_t level = 0;
  std::string type;  // data, instruction, unified
  std::uint64_t bytes = 0, line_bytes = 0, shared_by_threads = 0;
};

struct gpu_facts {
  bool recorded = false;  // an object in the header; false for any other entry (readers skip it)
  std::string text;       // the entry as recorded (JSON), shown for one that names no GPU
  std::optional<std::string> name;
  std::string compute_capability;  // "9.0"
  std::optional<std::uint64_t> multiprocessors;
  std::uint64_t index = 0, clock_mhz = 0, total_memory_bytes = 0;
  std::string unsupported;  // why this build cannot run on it; empty: it can
  std::string arch() const;  // "sm_90"; empty without a compute capability
};

struct machine_facts {
  bool recorded = false;  // the header has an environment block (a merge's has none)
  std::optional<std::string> host, date;

  bool has_cpu = false;
  std::optional<std::string> cpu_model;  // "AMD EPYC 9654 96-Core Processor"
  std::string cpu_vendor, microarchitecture;
  std::uint64_t family = 0, model_number = 0, stepping = 0;
  std::optional<std::uint64_t> logical_cores;
  std::optional<double> tsc_hz;
  std::vector<std::string> features;
  std::optional<std::vector<cache_facts>> caches;

  bool has_topology = false;
  std::string topology_source;  // hwloc, sysfs, sysconf
  std::uint64_t packages = 0, cores = 0, pus = 0, smt = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pu_core;  // [PU, core]
  std::vector<std::uint64_t> allowed;

  std::optional<double> memory_total_bytes;

  bool has_cuda = false, cuda_available = false;
  std::optional<std::string> cuda_reason;
  std::optional<std::int64_t> driver_version, runtime_version;
  std::vector<gpu_facts> gpus;  // every entry of the devices list, in its order

  bool has_build = false;
  std::optional<std::string> version, git_revision, compiler, flags;
  std::vector<std::string> backends;  // compiled in

  // The recorded GPU of this name, or null.
  const gpu_facts* gpu(const std::string& name) const;
};

// The facts of a run header (its environment key), or of an environment block itself.
machine_facts machine_facts_of(const nlohmann::json& header);
machine_facts machine_facts_of_environment(const nlohmann::json& environment);

}  // namespace records

}  // namespace poreplab
