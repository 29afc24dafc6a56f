#include "records/environment.hpp"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <string>

#include "backends/backends.hpp"
#include "git_revision.hpp"  // generated at build time (cmake/git_revision.cmake)
#include "poreplab/cpu/features.hpp"
#include "records/schema.hpp"
#ifdef POREPLAB_WITH_CUDA
#include "poreplab/cuda/devices.hpp"
#endif

namespace poreplab {

namespace {

// The block's keys: environment_json() writes them and machine_facts_of() reads them.
namespace env_key {
constexpr const char *host = "host", *date = "date", *cpu = "cpu", *topology = "topology", *memory = "memory",
                     *cuda = "cuda", *build = "build";
constexpr const char *vendor = "vendor", *model = "model", *family = "family", *model_number = "model_number",
                     *stepping = "stepping", *microarchitecture = "microarchitecture", *logical_cores = "logical_cores",
                     *features = "features", *tsc_hz = "tsc_hz", *caches = "caches";
constexpr const char *level = "level", *type = "type", *bytes = "bytes", *line_bytes = "line_bytes",
                     *shared_by_threads = "shared_by_threads";
constexpr const char *compiled = "compiled", *available = "available", *reason = "reason",
                     *driver_version = "driver_version", *runtime_version = "runtime_version", *devices = "devices";
constexpr const char *index = "index", *name = "name", *compute_capability = "compute_capability",
                     *multiprocessors = "multiprocessors", *clock_mhz = "clock_mhz", *total_memory_bytes = "total_memory_bytes",
                     *unsupported = "unsupported";
constexpr const char *version = "version", *git_revision = "git_revision", *compiler = "compiler", *flags = "flags",
                     *backends = "backends";
constexpr const char* total_bytes = "total_bytes";
constexpr const char *source = "source", *packages = "packages", *cores = "cores", *pus = "pus", *smt = "smt",
                     *pu_core = "pu_core", *allowed = "allowed";
}  // namespace env_key

}  // namespace

nlohmann::json cpu_json() {
  const auto& f = cpu::detect();
  nlohmann::json caches = nlohmann::json::array();
  for (const auto& c : f.caches)
    caches.push_back({{env_key::level, c.level}, {env_key::type, c.type}, {env_key::bytes, c.bytes},
                      {env_key::line_bytes, c.line_bytes}, {env_key::shared_by_threads, c.shared_by_threads}});
  return {{env_key::vendor, f.vendor},
          {env_key::model, f.model},
          {env_key::family, f.family},
          {env_key::model_number, f.model_number},
          {env_key::stepping, f.stepping},
          {env_key::microarchitecture, f.microarchitecture},
          {env_key::logical_cores, f.logical_cores},
          {env_key::features, f.names()},
          {"sha_ni", f.can_shani()},
          {"avx2", f.can_avx2()},
          {"avx512", f.can_avx512()},
          {env_key::tsc_hz, cpu::tsc_hz()},
          {env_key::caches, caches}};
}

nlohmann::json cuda_json() {
#ifdef POREPLAB_WITH_CUDA
  const auto r = cuda::query_devices();
  nlohmann::json devs = nlohmann::json::array();
  for (const auto& d : r.devices)
    devs.push_back({{env_key::index, d.index},
                    {env_key::name, d.name},
                    {env_key::compute_capability, std::to_string(d.sm_major) + "." + std::to_string(d.sm_minor)},
                    {env_key::multiprocessors, d.multiprocessors},
                    {env_key::clock_mhz, d.clock_khz / 1000},
                    {"memory_clock_mhz", d.memory_clock_khz / 1000},
                    {env_key::total_memory_bytes, d.total_memory},
                    {"free_memory_bytes", d.free_memory},
                    {env_key::unsupported, d.unsupported}});
  nlohmann::json j = {{env_key::compiled, true},
                      {env_key::available, r.available},
                      {env_key::driver_version, r.driver_version},
                      {env_key::runtime_version, r.runtime_version},
                      {env_key::devices, devs}};
  if (!r.available) j[env_key::reason] = r.reason;
  return j;
#else
  return {{env_key::compiled, false}, {env_key::available, false},
          {env_key::reason, kNoCudaBuild}, {env_key::devices, nlohmann::json::array()}};
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
  return {{env_key::version, POREPLAB_VERSION},
          {env_key::git_revision, POREPLAB_GIT_REVISION},
          {env_key::compiler, POREPLAB_CXX_COMPILER},
          {env_key::flags, POREPLAB_BUILD_FLAGS},
          {env_key::backends, backends},
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
  return {{env_key::total_bytes, total}, {"available_bytes", available}};
}

nlohmann::json topology_json() {
  const cpu::machine_topology& t = cpu::topology();
  nlohmann::json pu_core = nlohmann::json::array();
  for (const auto& p : t.pus) pu_core.push_back({p.os_index, p.core});
  return {{env_key::source, t.source},
          {env_key::packages, t.packages},
          {env_key::cores, t.cores},
          {env_key::pus, t.pus.size()},
          {env_key::smt, t.threads_per_core()},
          {env_key::pu_core, pu_core},
          {env_key::allowed, cpu::affinity_cpus()},
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
  return {{env_key::host, host},
          {env_key::date, date},
          {env_key::cpu, cpu_json()},
          {env_key::topology, topology_json()},
          {env_key::memory, memory_json()},
          {env_key::cuda, cuda_json()},
          {env_key::build, build_json()}};
}

namespace records {

namespace {

using nlohmann::json;

const json* field(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::optional<std::string> text_of(const json& j, const char* key) {
  const json* v = field(j, key);
  return v != nullptr && v->is_string() ? std::optional<std::string>(v->get<std::string>()) : std::nullopt;
}

std::optional<double> number_of(const json& j, const char* key) {
  const json* v = field(j, key);
  return v != nullptr && v->is_number() ? std::optional<double>(v->get<double>()) : std::nullopt;
}

// A count: a whole number, or a number cut to one; nullopt for a negative one or another type.
std::optional<std::uint64_t> count(const json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  return d >= 0 ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(d)) : std::nullopt;
}

std::optional<std::uint64_t> count_of(const json& j, const char* key) {
  const json* v = field(j, key);
  return v != nullptr ? count(*v) : std::nullopt;
}

std::optional<std::int64_t> integer_of(const json& j, const char* key) {
  const json* v = field(j, key);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  return v->is_number_float() ? static_cast<std::int64_t>(v->get<double>()) : v->get<std::int64_t>();
}

std::vector<std::string> texts_of(const json& j, const char* key) {
  std::vector<std::string> out;
  if (const json* v = field(j, key); v != nullptr && v->is_array())
    for (const auto& e : *v)
      if (e.is_string()) out.push_back(e.get<std::string>());
  return out;
}

std::vector<std::uint64_t> counts_of(const json& j, const char* key) {
  std::vector<std::uint64_t> out;
  if (const json* v = field(j, key); v != nullptr && v->is_array())
    for (const auto& e : *v)
      if (const auto n = count(e)) out.push_back(*n);
  return out;
}

gpu_facts gpu_of(const json& d) {
  gpu_facts g;
  g.text = d.dump();
  if (!d.is_object()) return g;
  g.recorded = true;
  g.name = text_of(d, env_key::name);
  g.compute_capability = text_of(d, env_key::compute_capability).value_or("");
  g.multiprocessors = count_of(d, env_key::multiprocessors);
  g.index = count_of(d, env_key::index).value_or(0);
  g.clock_mhz = count_of(d, env_key::clock_mhz).value_or(0);
  g.total_memory_bytes = count_of(d, env_key::total_memory_bytes).value_or(0);
  g.unsupported = text_of(d, env_key::unsupported).value_or("");
  return g;
}

}  // namespace

std::string gpu_facts::arch() const {
  const auto dot = compute_capability.find('.');
  if (dot == std::string::npos) return "";
  return "sm_" + compute_capability.substr(0, dot) + compute_capability.substr(dot + 1);
}

const gpu_facts* machine_facts::gpu(const std::string& gpu_name) const {
  for (const auto& g : gpus)
    if (g.recorded && g.name.value_or("") == gpu_name) return &g;
  return nullptr;
}

machine_facts machine_facts_of_environment(const json& env) {
  machine_facts f;
  if (!env.is_object()) return f;
  f.recorded = true;
  f.host = text_of(env, env_key::host);
  f.date = text_of(env, env_key::date);
  if (const json* c = field(env, env_key::cpu)) {
    f.has_cpu = true;
    f.cpu_model = text_of(*c, env_key::model);
    f.cpu_vendor = text_of(*c, env_key::vendor).value_or("");
    f.microarchitecture = text_of(*c, env_key::microarchitecture).value_or("");
    f.family = count_of(*c, env_key::family).value_or(0);
    f.model_number = count_of(*c, env_key::model_number).value_or(0);
    f.stepping = count_of(*c, env_key::stepping).value_or(0);
    f.logical_cores = count_of(*c, env_key::logical_cores);
    f.tsc_hz = number_of(*c, env_key::tsc_hz);
    f.features = texts_of(*c, env_key::features);
    if (const json* caches = field(*c, env_key::caches); caches != nullptr && caches->is_array()) {
      f.caches.emplace();
      for (const auto& e : *caches)
        if (e.is_object())
          f.caches->push_back({count_of(e, env_key::level).value_or(0), text_of(e, env_key::type).value_or(""),
                               count_of(e, env_key::bytes).value_or(0), count_of(e, env_key::line_bytes).value_or(0),
                               count_of(e, env_key::shared_by_threads).value_or(0)});
    }
  }
  if (const json* t = field(env, env_key::topology)) {
    f.has_topology = true;
    f.topology_source = text_of(*t, env_key::source).value_or("");
    f.packages = count_of(*t, env_key::packages).value_or(0);
    f.cores = count_of(*t, env_key::cores).value_or(0);
    f.pus = count_of(*t, env_key::pus).value_or(0);
    f.smt = count_of(*t, env_key::smt).value_or(0);
    if (const json* pc = field(*t, env_key::pu_core); pc != nullptr && pc->is_array())
      for (const auto& e : *pc)
        if (e.is_array() && e.size() == 2 && count(e[0]) && count(e[1])) f.pu_core.emplace_back(*count(e[0]), *count(e[1]));
    f.allowed = counts_of(*t, env_key::allowed);
  }
  if (const json* m = field(env, env_key::memory)) f.memory_total_bytes = number_of(*m, env_key::total_bytes);
  if (const json* c = field(env, env_key::cuda)) {
    f.has_cuda = true;
    const json* a = field(*c, env_key::available);
    f.cuda_available = a != nullptr && a->is_boolean() && a->get<bool>();
    f.cuda_reason = text_of(*c, env_key::reason);
    f.driver_version = integer_of(*c, env_key::driver_version);
    f.runtime_version = integer_of(*c, env_key::runtime_version);
    if (const json* devs = field(*c, env_key::devices); devs != nullptr && devs->is_array())
      for (const auto& d : *devs) f.gpus.push_back(gpu_of(d));
  }
  if (const json* b = field(env, env_key::build)) {
    f.has_build = true;
    f.version = text_of(*b, env_key::version);
    f.git_revision = text_of(*b, env_key::git_revision);
    f.compiler = text_of(*b, env_key::compiler);
    f.flags = text_of(*b, env_key::flags);
    f.backends = texts_of(*b, env_key::backends);
  }
  return f;
}

machine_facts machine_facts_of(const json& header) {
  const json* env = field(header, key::environment);
  return env != nullptr ? machine_facts_of_environment(*env) : machine_facts{};
}

}  // namespace records

}  // namespace poreplab
