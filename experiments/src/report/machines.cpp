#include "report/machines.hpp"

#include <charconv>

#include <nlohmann/json.hpp>

#include "model/gpu_model.hpp"
#include "model/storage_model.hpp"
#include "poreplab/checked.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/json_input.hpp"
#include "records/payload_keys.hpp"
#include "util/json_check.hpp"
#include "util/text.hpp"

namespace poreplab::verdict {

namespace axis = records::axis;

using nlohmann::json;

namespace {

// A machine description is a few hundred bytes; anything much larger is not one.
constexpr std::uint64_t kMaxMachineFileBytes = 1 << 20;
constexpr std::size_t kMaxText = 1000;
constexpr std::size_t kMaxKinds = 64;

// What a machine's figures can plausibly be: a value outside (5e-324 cycles a node, 1e308
// watts) passes "positive" and turns sectors an hour into 0 or inf.
constexpr double kMinCyclesPerNode = 10, kMaxCyclesPerNode = 1e7;
constexpr double kMinMemoryBytes = double(std::uint64_t{1} << 30);      // 1 GiB
constexpr double kMaxRamBytes = double(std::uint64_t{1} << 50);         // 1 PiB
constexpr double kMaxGpuMemoryBytes = double(std::uint64_t{1} << 44);   // 16 TiB
constexpr double kMinDriveBytes = 1e9, kMaxDriveBytes = 1e15;           // 1 GB to 1 PB

// "3.84TB", "960GB": drive capacities as sold, in powers of ten.
std::optional<double> decimal_bytes(const std::string& s) {
  for (const auto& [unit, scale] : {std::pair{"TB", 1e12}, std::pair{"GB", 1e9}}) {
    if (!s.ends_with(unit)) continue;
    double v = 0;
    const char* end = s.data() + s.size() - 2;
    const auto [stop, ec] = std::from_chars(s.data(), end, v);
    if (ec != std::errc{} || stop != end || !(v > 0) || v > 1e6) return std::nullopt;
    return v * scale;
  }
  return std::nullopt;
}

struct reader : json_checker<machine_error> {
  using json_checker::json_checker;

  std::string short_text(const json& v, const std::string& ptr) const {
    const std::string s = text(v, ptr);
    if (s.size() > kMaxText) fail(ptr, "longer than " + std::to_string(kMaxText) + " characters");
    return s;
  }

  std::string optional_text(const json& obj, const std::string& ptr, const char* key) const {
    return obj.contains(key) ? short_text(obj[key], json_pointer_child(ptr, key)) : std::string();
  }

  // A size from lo to hi bytes: "expected <what> from 1GiB to 1PiB, got ...".
  double bytes(const json& v, const std::string& ptr, double lo, double hi, const std::string& what) const {
    double b = 0;
    if (v.is_string()) {
      const std::string s = v.get<std::string>();
      if (const auto d = decimal_bytes(s)) {
        b = *d;
      } else {
        const auto parsed = parse_size(s);
        if (!parsed || *parsed == 0) fail(ptr, v.dump() + " is not a size (write e.g. 80GiB, 1TiB, 3.84TB or a byte count)");
        b = static_cast<double>(*parsed);
      }
    } else {
      b = static_cast<double>(integer(v, ptr, 1, std::uint64_t{1} << 60, "a size such as \"80GiB\" or a byte count"));
    }
    const auto shown = [](double x) {
      const std::string binary = format_size(static_cast<std::uint64_t>(x));
      return binary.size() > 1 && binary[binary.size() - 2] >= '0' && binary[binary.size() - 2] <= '9'
                 ? format_number(x) + " bytes"  // not a power of 1024: "1e+09 bytes", not "1000000000B"
                 : binary;
    };
    if (b < lo || b > hi) fail(ptr, "expected " + what + " from " + shown(lo) + " to " + shown(hi) + ", got " + v.dump());
    return b;
  }

  const json& array(const json& obj, const char* key, const std::string& what) const {
    const json& a = obj[key];
    const std::string ptr = json_pointer_child("", key);
    if (!a.is_array()) fail(ptr, "expected an array of " + what + ", got " + show(a));
    if (a.size() > kMaxKinds) fail(ptr, "more than " + std::to_string(kMaxKinds) + " " + what);
    return a;
  }
};

void read_cpu(const reader& r, const json& j, machine& m) {
  const json& cpu = r.object(r.require(j, "", "cpu"), "/cpu", "an object (cores, threads, model...)");
  r.only_keys(cpu, "/cpu", {"cores", "threads", "model", "all_core_ghz", "clock_source", "ccx_cores", "microarchitecture"});
  m.cores = static_cast<std::uint32_t>(r.integer(r.require(cpu, "/cpu", "cores"), "/cpu/cores", 1, 1 << 16,
                                                 "a core count from 1 to 65536"));
  m.threads = cpu.contains("threads") ? static_cast<std::uint32_t>(r.integer(cpu["threads"], "/cpu/threads", m.cores,
                                                                             4u * m.cores, "a thread count from the cores to 4x the cores"))
                                      : m.cores;
  m.cpu_model = r.optional_text(cpu, "/cpu", "model");
  if (cpu.contains("all_core_ghz")) {
    m.all_core_hz = r.between(cpu["all_core_ghz"], "/cpu/all_core_ghz", 0.1, 10, "a clock in GHz") * 1e9;
  }
  m.clock_source = r.optional_text(cpu, "/cpu", "clock_source");
  m.microarchitecture = r.optional_text(cpu, "/cpu", "microarchitecture");
  if (cpu.contains("ccx_cores"))
    m.ccx_cores = static_cast<std::uint32_t>(r.integer(cpu["ccx_cores"], "/cpu/ccx_cores", 2, m.cores,
                                                       "cores sharing an L3 (a CCX), from 2 to the cores"));
}

void read_disks(const reader& r, const json& j, machine& m) {
  if (!j.contains("disks")) return;
  const json& disks = r.array(j, "disks", "drive kinds");
  for (std::size_t i = 0; i < disks.size(); ++i) {
    const std::string p = json_pointer_child("/disks", i);
    const json& d = r.object(disks[i], p, "an object (count, model, random_read_iops, capacity, source)");
    r.only_keys(d, p, {"count", "model", "random_read_iops", "capacity", "source"});
    machine_disk md;
    md.count = static_cast<std::uint32_t>(r.integer(r.require(d, p, "count"), p + "/count", 1, 1024,
                                                    "a drive count from 1 to 1024"));
    md.model = r.optional_text(d, p, "model");
    md.random_read_iops = r.between(r.require(d, p, "random_read_iops"), p + "/random_read_iops", 1, 1e8,
                                    "random 4 KiB reads/s of one drive");
    md.capacity_bytes = r.bytes(r.require(d, p, "capacity"), p + "/capacity", kMinDriveBytes, kMaxDriveBytes, "a drive's capacity");
    md.source = r.short_text(r.require(d, p, "source"), p + "/source");
    m.disks.push_back(md);
  }
}

machine_gpu read_gpu(const reader& r, const json& g, const std::string& p, const gpu_model::latency_table& table) {
  r.only_keys(g, p, {"arch", "name", "count", "memory", "link"});
  machine_gpu mg;
  mg.arch = r.short_text(r.require(g, p, "arch"), p + "/arch");
  if (!table.archs.count(mg.arch)) {
    std::vector<std::string> known;
    for (const auto& [name, a] : table.archs) known.push_back(name);
    r.fail(p + "/arch", "no GPU latency table for \"" + mg.arch + "\" (" + table.file + " has " + names_text(known) + ")");
  }
  mg.name = g.contains("name") ? r.short_text(g["name"], p + "/name") : mg.arch;
  mg.count = g.contains("count") ? static_cast<std::uint32_t>(r.integer(g["count"], p + "/count", 1, 1024,
                                                                        "a GPU count from 1 to 1024"))
                                 : 1;
  mg.memory_bytes = r.bytes(r.require(g, p, "memory"), p + "/memory", kMinMemoryBytes, kMaxGpuMemoryBytes, "a GPU's memory");
  mg.link = r.optional_text(g, p, "link");
  if (!mg.link.empty() && storage_model::find_link(mg.link) == nullptr)
    r.fail(p + "/link", "unknown link \"" + mg.link + "\" (known: " + join(storage_model::link_names()) + ")");
  return mg;
}

void read_gpus(const reader& r, const json& j, machine& m) {
  if (!j.contains("gpus")) return;
  const json& gpus = r.array(j, "gpus", "GPU kinds");
  const auto table = gpu_model::load_latency_table({});
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const std::string p = json_pointer_child("/gpus", i);
    m.gpus.push_back(read_gpu(r, r.object(gpus[i], p, "an object (arch, name, count, memory, link)"), p, table));
  }
}

void read_pc1_facts(const reader& r, const json& j, machine& m) {
  if (j.contains("pc1_hashing")) {
    const json& h = r.object(j["pc1_hashing"], "/pc1_hashing", "an object (sectors_per_core, cycles_per_node, source)");
    r.only_keys(h, "/pc1_hashing", {"sectors_per_core", "cycles_per_node", "one_sector_cycles_per_node", "source"});
    machine_hashing mh;
    mh.sectors_per_core = static_cast<std::uint32_t>(r.integer(r.require(h, "/pc1_hashing", "sectors_per_core"),
                                                               "/pc1_hashing/sectors_per_core", 1, 1024, "1 to 1024 sectors"));
    mh.cycles_per_node = r.between(r.require(h, "/pc1_hashing", "cycles_per_node"), "/pc1_hashing/cycles_per_node",
                                   kMinCyclesPerNode, kMaxCyclesPerNode, "core cycles a node");
    if (h.contains("one_sector_cycles_per_node"))
      mh.one_sector_cycles_per_node = r.between(h["one_sector_cycles_per_node"], "/pc1_hashing/one_sector_cycles_per_node",
                                                kMinCyclesPerNode, kMaxCyclesPerNode, "core cycles a node");
    mh.source = r.short_text(r.require(h, "/pc1_hashing", "source"), "/pc1_hashing/source");
    m.hashing = mh;
  }
  if (j.contains("pc1_record")) {
    const json& rec = r.object(j["pc1_record"], "/pc1_record", "an object (sector_size, sectors, seconds, source)");
    r.only_keys(rec, "/pc1_record", {axis::sector_size, axis::sectors, "seconds", "source"});
    machine_record mr;
    mr.sector_size = static_cast<std::uint64_t>(r.bytes(r.require(rec, "/pc1_record", axis::sector_size), "/pc1_record/sector_size",
                                                        2048, double(std::uint64_t{1} << 40), "a sector size"));
    mr.sectors = static_cast<std::uint32_t>(r.integer(r.require(rec, "/pc1_record", axis::sectors), "/pc1_record/sectors", 1,
                                                      1u << 20, "a sector count"));
    mr.seconds = r.between(r.require(rec, "/pc1_record", "seconds"), "/pc1_record/seconds", 1, kMaxInputSeconds,
                           "a record's seconds");
    mr.source = r.short_text(r.require(rec, "/pc1_record", "source"), "/pc1_record/source");
    m.pc1_record = mr;
  }
}

}  // namespace

machine load_machine(const std::filesystem::path& file) {
  std::string text;
  try {
    text = read_small_file(file, {.max_bytes = kMaxMachineFileBytes});
  } catch (const std::exception& e) {
    throw machine_error(e.what());
  }
  return parse_machine(text, file.string());
}

machine parse_machine(std::string_view text, const std::string& source) {
  json j;
  try {
    j = parse_json(text, source);
  } catch (const std::exception& e) {
    throw machine_error(e.what());
  }
  const reader r(source);
  r.object(j, "", "a machine description (an object)");
  r.only_keys(j, "", {"schema", "name", "description", "source", "cpu", "ram", "disks", "gpus", "pc1_hashing",
                      "pc1_record", "price_usd", "power_watts"});
  if (r.short_text(r.require(j, "", "schema"), "/schema") != kMachineSchema)
    r.fail("/schema", "expected \"" + std::string(kMachineSchema) + "\", got " + j["schema"].dump());
  machine m;
  m.file = source;
  m.name = r.short_text(r.require(j, "", "name"), "/name");
  if (m.name.empty()) r.fail("/name", "must not be empty");
  m.description = r.optional_text(j, "", "description");
  m.source = r.optional_text(j, "", "source");
  read_cpu(r, j, m);
  m.ram_bytes = r.bytes(r.require(j, "", "ram"), "/ram", kMinMemoryBytes, kMaxRamBytes, "a machine's RAM");
  read_disks(r, j, m);
  read_gpus(r, j, m);
  read_pc1_facts(r, j, m);
  if (j.contains("price_usd")) m.price_usd = r.between(j["price_usd"], "/price_usd", 1, 1e8, "a price in USD");
  if (j.contains("power_watts")) m.power_watts = r.between(j["power_watts"], "/power_watts", 1, 1e6, "a power in watts");
  return m;
}

}  // namespace poreplab::verdict
