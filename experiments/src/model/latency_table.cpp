#include "model/gpu_model.hpp"
#include "model/sass_detail.hpp"

#include <set>
#include <cmath>

#include "gpu_latency_json.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/json_input.hpp"
#include "util/json_check.hpp"

namespace poreplab::gpu_model {

using nlohmann::json;
using namespace detail;

// ---- latency table ----

namespace {

const std::set<std::string> kMemoryLevels = {"l1", "l2", "dram", "shared", "constant"};

class table_reader : public json_checker<model_error> {
 public:
  using json_checker::json_checker;

  // Every figure carries its source, or "status": "assumed" with the reason.
  void provenance(const json& obj, const std::string& ptr, std::vector<std::string>& assumed) const {
    const bool has_source = obj.contains("source");
    if (has_source && (!obj["source"].is_string() || obj["source"].get<std::string>().empty()))
      fail(ptr + "/source", "must be a non-empty string");
    if (obj.contains("status")) {
      if (obj["status"] != "assumed") fail(ptr + "/status", "must be \"assumed\" (or leave it out and give a source)");
      if (!obj.contains("reason") || !obj["reason"].is_string() || obj["reason"].get<std::string>().empty())
        fail(ptr + "/reason", "an assumed value needs a non-empty \"reason\"");
      assumed.push_back(ptr);
    } else if (!has_source) {
      fail(ptr, "needs a \"source\" (or \"status\": \"assumed\" with a \"reason\")");
    }
  }

  double positive(const json& obj, const std::string& ptr, const std::string& key, const std::string& field,
                  std::vector<std::string>& assumed) const {
    const json& f = require(obj, ptr, key);
    const std::string p = ptr + "/" + key;
    if (!f.is_object()) fail(p, "must be an object {\"" + field + "\": ..., \"source\": ...}");
    only_keys(f, p, {"value", "cycles", "source", "status", "reason", "note"});
    const double v = json_checker::positive(require(f, p, field), p + "/" + field);
    provenance(f, p, assumed);
    return v;
  }
};

}  // namespace

latency_table parse_latency_table(const json& j, const std::string& file) {
  const table_reader r(file);
  latency_table t;
  t.file = file;
  if (!j.is_object()) r.fail("/", "must be a JSON object");
  r.only_keys(j, "", {"schema", "description", "archs", "notes"});
  const json& schema = r.require(j, "", "schema");
  if (schema != "poreplab-gpu-latency/1")
    r.fail("/schema", "unsupported schema " + schema.dump() + " (this poreplab reads \"poreplab-gpu-latency/1\")");
  const json& archs = r.require(j, "", "archs");
  if (!archs.is_object() || archs.empty()) r.fail("/archs", "must be a non-empty object of architectures");
  for (const auto& [name, a] : archs.items()) {
    const std::string p = "/archs/" + name;
    if (name.rfind("sm_", 0) != 0) r.fail(p, "architecture names look like sm_80");
    if (!a.is_object()) r.fail(p, "must be an object");
    r.only_keys(a, p,
                {"device", "sm_count", "boost_clock_mhz", "warp_schedulers_per_sm", "issue_per_scheduler_per_cycle",
                 "issue_pipes", "max_threads_per_sm", "max_blocks_per_sm", "registers_per_sm", "register_allocation_unit",
                 "hbm_bandwidth_gb_s", "memory_latency_cycles", "global_load_level", "default_latency_cycles",
                 "opcodes", "notes"});
    arch_params x;
    x.arch = name;
    const json& dev = r.require(a, p, "device");
    if (!dev.is_string() || dev.get<std::string>().empty()) r.fail(p + "/device", "must be a non-empty string");
    x.device = dev;
    x.sm_count = r.positive(a, p, "sm_count", "value", x.assumed);
    x.clock_mhz = r.positive(a, p, "boost_clock_mhz", "value", x.assumed);
    x.schedulers_per_sm = r.positive(a, p, "warp_schedulers_per_sm", "value", x.assumed);
    x.issue_per_scheduler = r.positive(a, p, "issue_per_scheduler_per_cycle", "value", x.assumed);
    const json& pipes = r.require(a, p, "issue_pipes");
    if (!pipes.is_object() || pipes.empty()) r.fail(p + "/issue_pipes", "must be a non-empty object of pipes");
    for (const auto& [pipe, v] : pipes.items()) {
      const std::string q = p + "/issue_pipes/" + pipe;
      if (!v.is_object()) r.fail(q, "must be an object {\"cycles\": N, \"opcodes\": [...], \"source\": ...}");
      r.only_keys(v, q, {"cycles", "opcodes", "source", "status", "reason", "note"});
      const double cycles = r.json_checker::positive(r.require(v, q, "cycles"), q + "/cycles");
      r.provenance(v, q, x.assumed);
      const json& ops = r.require(v, q, "opcodes");
      if (!ops.is_array() || ops.empty()) r.fail(q + "/opcodes", "must be a non-empty array of opcodes");
      for (std::size_t i = 0; i < ops.size(); ++i) {
        const std::string o = q + "/opcodes/" + std::to_string(i);
        if (!ops[i].is_string() || ops[i].get<std::string>().empty()) r.fail(o, "must be a non-empty opcode");
        const std::string op = ops[i];
        if (const auto it = x.opcode_pipe.find(op); it != x.opcode_pipe.end())
          r.fail(o, op + " is already on the " + x.pipes[it->second].name + " pipe");
        x.opcode_pipe[op] = x.pipes.size();
      }
      x.pipes.push_back({pipe, cycles});
    }
    x.max_threads_per_sm = r.positive(a, p, "max_threads_per_sm", "value", x.assumed);
    x.max_blocks_per_sm = r.positive(a, p, "max_blocks_per_sm", "value", x.assumed);
    x.registers_per_sm = r.positive(a, p, "registers_per_sm", "value", x.assumed);
    x.register_alloc_unit = r.positive(a, p, "register_allocation_unit", "value", x.assumed);
    x.hbm_gb_per_s = r.positive(a, p, "hbm_bandwidth_gb_s", "value", x.assumed);
    x.default_cycles = r.positive(a, p, "default_latency_cycles", "cycles", x.assumed);
    const json& mem = r.require(a, p, "memory_latency_cycles");
    if (!mem.is_object()) r.fail(p + "/memory_latency_cycles", "must be an object");
    for (const auto& [level, v] : mem.items())
      if (!kMemoryLevels.count(level))
        r.fail(p + "/memory_latency_cycles/" + level, "unknown memory level (known: constant, dram, l1, l2, shared)");
    for (const auto& level : kMemoryLevels)
      x.memory_cycles[level] = r.positive(mem, p + "/memory_latency_cycles", level, "cycles", x.assumed);
    const json& gl = r.require(a, p, "global_load_level");
    if (!gl.is_object() || !gl.contains("value") || !gl["value"].is_string())
      r.fail(p + "/global_load_level", "must be {\"value\": \"l1\" | \"l2\" | \"dram\", ...}");
    x.global_load_level = gl["value"];
    if (x.global_load_level != "l1" && x.global_load_level != "l2" && x.global_load_level != "dram")
      r.fail(p + "/global_load_level/value", "must be l1, l2 or dram");
    r.provenance(gl, p + "/global_load_level", x.assumed);
    const json& ops = r.require(a, p, "opcodes");
    if (!ops.is_object() || ops.empty()) r.fail(p + "/opcodes", "must be a non-empty object");
    for (const auto& [op, v] : ops.items()) {
      const std::string q = p + "/opcodes/" + op;
      if (!v.is_object()) r.fail(q, "must be an object {\"cycles\": N, \"source\": ...}");
      r.only_keys(v, q, {"cycles", "memory", "source", "status", "reason", "note"});
      if (v.contains("memory")) {
        const json& m = v["memory"];
        if (!m.is_string() || (m != "global" && !kMemoryLevels.count(m.get<std::string>())))
          r.fail(q + "/memory", "must be global, l1, l2, dram, shared or constant");
        x.opcode_memory[op] = m;
        r.provenance(v, q, x.assumed);
      } else {
        x.opcode_cycles[op] = r.positive(ops, p + "/opcodes", op, "cycles", x.assumed);
      }
    }
    t.archs[name] = std::move(x);
  }
  return t;
}

latency_table load_latency_table(const std::string& path) {
  if (path.empty()) return parse_latency_table(json::parse(kDefaultLatencyJson), kDefaultLatencyName);
  json j;
  try {
    j = parse_json(read_small_file(path, {.max_bytes = 64 << 20}), path + ": not valid JSON");
  } catch (const std::runtime_error& e) {
    throw model_error(e.what());
  }
  return parse_latency_table(j, path);
}

const arch_params& arch_of(const latency_table& t, const std::string& arch) {
  const auto it = t.archs.find(arch);
  if (it == t.archs.end()) {
    std::string known;
    for (const auto& [k, v] : t.archs) known += (known.empty() ? "" : ", ") + k;
    throw model_error(t.file + ": /archs/" + arch + ": missing (the table has " + known + ")");
  }
  return it->second;
}

std::optional<std::size_t> pipe_of(const sass_instruction& in, const arch_params& a) {
  // "IMAD.WIDE.U32": try the whole opcode, then drop modifiers from the end.
  std::string op = in.opcode;
  while (true) {
    if (const auto it = a.opcode_pipe.find(op); it != a.opcode_pipe.end()) return it->second;
    const std::size_t dot = op.rfind('.');
    if (dot == std::string::npos) break;
    op.resize(dot);
  }
  if (const auto it = a.opcode_pipe.find(in.base); it != a.opcode_pipe.end()) return it->second;
  return std::nullopt;
}

pipe_use pipe_use_of(const sass_instruction& in, const arch_params& a) {
  const auto p = pipe_of(in, a);
  if (!p) return {};
  return {static_cast<std::ptrdiff_t>(*p), a.pipes[*p].cycles};
}

double instruction_cycles(const sass_instruction& in, const arch_params& a, const std::string& load_level) {
  if (auto m = a.opcode_memory.find(in.base); m != a.opcode_memory.end()) {
    const std::string level = m->second == "global" ? (load_level.empty() ? a.global_load_level : load_level) : m->second;
    return a.memory_cycles.at(level);
  }
  if (auto c = a.opcode_cycles.find(in.base); c != a.opcode_cycles.end()) return c->second;
  return a.default_cycles;
}

}  // namespace poreplab::gpu_model
