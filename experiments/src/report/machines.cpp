#include "report/machines.hpp"

#include <nlohmann/json.hpp>

#include "model/gpu_model.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/json_input.hpp"
#include "util/json_check.hpp"
#include "util/text.hpp"

namespace poreplab::verdict {

using nlohmann::json;

namespace {

// A machine description is a few hundred bytes; anything much larger is not one.
constexpr std::uint64_t kMaxMachineFileBytes = 1 << 20;
constexpr std::size_t kMaxText = 1000;
constexpr std::size_t kMaxGpuKinds = 64;

struct reader : json_checker<machine_error> {
  using json_checker::json_checker;

  std::string short_text(const json& v, const std::string& ptr) const {
    const std::string s = text(v, ptr);
    if (s.size() > kMaxText) fail(ptr, "longer than " + std::to_string(kMaxText) + " characters");
    return s;
  }

  double bytes(const json& v, const std::string& ptr) const {
    if (v.is_string()) {
      const auto b = parse_size(v.get<std::string>());
      if (!b || *b == 0) fail(ptr, v.dump() + " is not a size (write e.g. 80GiB, 1TiB or a byte count)");
      return static_cast<double>(*b);
    }
    return static_cast<double>(integer(v, ptr, 1, std::uint64_t{1} << 60, "a size such as \"80GiB\" or a byte count"));
  }
};

}  // namespace

machine load_machine(const std::filesystem::path& file) {
  const std::string source = file.string();
  json j;
  try {
    j = parse_json(read_small_file(file, {.max_bytes = kMaxMachineFileBytes}), source);
  } catch (const std::exception& e) {
    throw machine_error(e.what());
  }
  const reader r(source);
  r.object(j, "", "a machine description (an object)");
  r.only_keys(j, "", {"schema", "name", "description", "source", "cpu", "ram", "gpus", "price_usd", "power_watts"});
  if (r.short_text(r.require(j, "", "schema"), "/schema") != kMachineSchema)
    r.fail("/schema", "expected \"" + std::string(kMachineSchema) + "\", got " + j["schema"].dump());
  machine m;
  m.file = source;
  m.name = r.short_text(r.require(j, "", "name"), "/name");
  if (m.name.empty()) r.fail("/name", "must not be empty");
  if (j.contains("description")) m.description = r.short_text(j["description"], "/description");
  if (j.contains("source")) m.source = r.short_text(j["source"], "/source");

  const json& cpu = r.object(r.require(j, "", "cpu"), "/cpu", "an object (cores, threads, model)");
  r.only_keys(cpu, "/cpu", {"cores", "threads", "model"});
  m.cores = static_cast<std::uint32_t>(r.integer(r.require(cpu, "/cpu", "cores"), "/cpu/cores", 1, 1 << 16,
                                                 "a core count from 1 to 65536"));
  m.threads = cpu.contains("threads") ? static_cast<std::uint32_t>(r.integer(cpu["threads"], "/cpu/threads", m.cores,
                                                                             4u * m.cores, "a thread count from the cores to 4x the cores"))
                                      : m.cores;
  if (cpu.contains("model")) m.cpu_model = r.short_text(cpu["model"], "/cpu/model");
  m.ram_bytes = r.bytes(r.require(j, "", "ram"), "/ram");

  if (j.contains("gpus")) {
    const json& gpus = j["gpus"];
    if (!gpus.is_array()) r.fail("/gpus", "expected an array of GPU kinds, got " + show(gpus));
    if (gpus.size() > kMaxGpuKinds) r.fail("/gpus", "more than " + std::to_string(kMaxGpuKinds) + " GPU kinds");
    const auto table = gpu_model::load_latency_table({});
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      const std::string p = json_pointer_child("/gpus", i);
      const json& g = r.object(gpus[i], p, "an object (arch, name, count, memory)");
      r.only_keys(g, p, {"arch", "name", "count", "memory"});
      machine_gpu mg;
      mg.arch = r.short_text(r.require(g, p, "arch"), p + "/arch");
      if (!table.archs.count(mg.arch)) {
        std::vector<std::string> known;
        for (const auto& [name, a] : table.archs) known.push_back(name);
        r.fail(p + "/arch", "no GPU latency table for \"" + mg.arch + "\" (" + table.file + " has " + join(known) + ")");
      }
      mg.name = g.contains("name") ? r.short_text(g["name"], p + "/name") : mg.arch;
      mg.count = g.contains("count") ? static_cast<std::uint32_t>(r.integer(g["count"], p + "/count", 1, 1024,
                                                                            "a GPU count from 1 to 1024"))
                                     : 1;
      mg.memory_bytes = r.bytes(r.require(g, p, "memory"), p + "/memory");
      m.gpus.push_back(mg);
    }
  }
  if (j.contains("price_usd")) m.price_usd = r.positive(j["price_usd"], "/price_usd");
  if (j.contains("power_watts")) m.power_watts = r.positive(j["power_watts"], "/power_watts");
  return m;
}

}  // namespace poreplab::verdict
