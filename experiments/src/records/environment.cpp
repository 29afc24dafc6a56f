#include "records/environment.hpp"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <string>

#include "backends/backends.hpp"
#include "git_revision.hpp"  // generated at build time (cmake/git_revision.cmake)
#include "poreplab/cpu/features.hpp"
#ifdef POREPLAB_WITH_CUDA
#include "poreplab/cuda/devices.hpp"
#endif

namespace poreplab {

nlohmann::json cpu_json() {
  const auto& f = cpu::detect();
  nlohmann::json caches = nlohmann::json::array();
  for (const auto& c : f.caches)
    caches.push_back({{"level", c.level}, {"type", c.type}, {"bytes", c.bytes},
                      {"line_bytes", c.line_bytes}, {"shared_by_threads", c.shared_by_threads}});
  return {{"vendor", f.vendor},
          {"model", f.model},
          {"family", f.family},
          {"model_number", f.model_number},
          {"stepping", f.stepping},
          {"microarchitecture", f.microarchitecture},
          {"logical_cores", f.logical_cores},
          {"features", f.names()},
          {"sha_ni", f.can_shani()},
          {"avx2", f.can_avx2()},
          {"avx512", f.can_avx512()},
          {"tsc_hz", cpu::tsc_hz()},
          {"caches", caches}};
}

nlohmann::json cuda_json() {
#ifdef POREPLAB_WITH_CUDA
  const auto r = cuda::query_devices();
  nlohmann::json devs = nlohmann::json::array();
  for (const auto& d : r.devices)
    devs.push_back({{"index", d.index},
                    {"name", d.name},
                    {"compute_capability", std::to_string(d.sm_major) + "." + std::to_string(d.sm_minor)},
                    {"multiprocessors", d.multiprocessors},
                    {"clock_mhz", d.clock_khz / 1000},
                    {"memory_clock_mhz", d.memory_clock_khz / 1000},
                    {"total_memory_bytes", d.total_memory},
                    {"free_memory_bytes", d.free_memory},
                    {"unsupported", d.unsupported}});
  nlohmann::json j = {{"compiled", true},
                      {"available", r.available},
                      {"driver_version", r.driver_version},
                      {"runtime_version", r.runtime_version},
                      {"devices", devs}};
  if (!r.available) j["reason"] = r.reason;
  return j;
#else
  return {{"compiled", false}, {"available", false},
          {"reason", kNoCudaBuild}, {"devices", nlohmann::json::array()}};
#endif
}

nlohmann::json build_json() {
  // The backends compiled in, and every backend's device class: readers (plot.py among
  // them) classify a point by its class, not by its backend's name.
  nlohmann::json backends = nlohmann::json::array(), classes = nlohmann::json::object();
  for (const auto& b : poreplab::backends()) {
    if (b.compiled) backends.push_back(b.name);
    classes[b.name] = kDeviceClasses.name(b.device);
  }
  return {{"version", POREPLAB_VERSION},
          {"git_revision", POREPLAB_GIT_REVISION},
          {"compiler", POREPLAB_CXX_COMPILER},
          {"flags", POREPLAB_BUILD_FLAGS},
          {"backends", backends},
          {"device_classes", classes}};
}

// MemTotal and MemAvailable of /proc/meminfo, in bytes (0 when unreadable).
nlohmann::json memory_json() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  unsigned long long kib = 0, total = 0, available = 0;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemTotal:") total = kib * 1024;
    if (key == "MemAvailable:") available = kib * 1024;
  }
  return {{"total_bytes", total}, {"available_bytes", available}};
}

nlohmann::json topology_json() {
  const cpu::machine_topology& t = cpu::topology();
  nlohmann::json pu_core = nlohmann::json::array();
  for (const auto& p : t.pus) pu_core.push_back({p.os_index, p.core});
  return {{"source", t.source},
          {"packages", t.packages},
          {"cores", t.cores},
          {"pus", t.pus.size()},
          {"smt", t.threads_per_core()},
          {"pu_core", pu_core},
          {"allowed", cpu::affinity_cpus()},
          {"l2", t.l2},
          {"l3", t.l3}};
}

nlohmann::json thread_map_json(const std::vector<cpu::thread_cpu>& threads) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& t : threads) {
    nlohmann::json j = {{"thread", t.thread}, {"cpu", t.cpu}, {"core", t.core}, {"role", cpu::kThreadRoles.name(t.role)}, {"pinned", t.pinned}};
    if (t.moved) j["moved"] = true;
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::json environment_json() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return {{"host", host}, {"date", date}, {"cpu", cpu_json()}, {"topology", topology_json()}, {"memory", memory_json()}, {"cuda", cuda_json()}, {"build", build_json()}};
}

}  // namespace poreplab
