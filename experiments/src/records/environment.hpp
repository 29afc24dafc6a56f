#pragma once
// What machine and build a measurement came from: shown by `poreplab info` and
// stored in every experiment record.
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

}  // namespace poreplab
