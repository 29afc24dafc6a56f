#include "model/gpu_model.hpp"
#include "backends/device_class.hpp"
#include "model/sass_detail.hpp"

#include <algorithm>
#include <set>
#include <cmath>
#include <filesystem>
#include <limits>

#include "model/gpu_model_sass.hpp"
#include "poreplab/json_input.hpp"
#include "poreplab/sdr/label_layer_args.hpp"
#include "poreplab/sdr/label_pipelined.hpp"
#include "records/result_set.hpp"
#include "records/schema.hpp"
#include "util/text.hpp"

namespace poreplab::gpu_model {

namespace key = records::key;
namespace axis = records::axis;
namespace ctx = records::ctx;

using nlohmann::json;
using namespace detail;

namespace {
constexpr std::uint32_t kSha256K0 = 0x428a2f98;

const std::set<std::string>& device_memory_opcodes() {
  static const std::set<std::string> m = {"LDG", "LD", "STG", "ST", "ATOMG", "RED"};
  return m;
}

// "label_layer_kernel<sdr, sha256, split>": one block per sector (label_pipelined.hpp).
bool is_block_kernel(const std::string& label) {
  for (const auto& k : sdr::kKernelChoices.entries)
    if (sdr::is_block_per_sector(k.value) && label == label_kernel_label(sdr::kFilecoinScheme, k.value)) return true;
  return false;
}

// One warp instruction's occupancy of its pipe, added to the iteration's totals.
void add_pipe_cycles(const sass_instruction& in, const arch_params& a, kernel_analysis& k) {
  if (const auto p = pipe_of(in, a)) {
    k.pipe_cycles[a.pipes[*p].name] += a.pipes[*p].cycles;
  } else {
    k.unpiped_opcodes.insert(in.base);
  }
}

// Each role of the block kernel traced through one step, cut at its block barriers.
// Returns the round thread's path (the kernel's per-node instruction stream).
std::vector<std::size_t> analyze_roles(const sass_function& f, const loop_range& loop, const arch_params& a,
                                       kernel_analysis& k) {
  k.block_threads = sdr::kPipelinedThreads;
  auto latency = [&](const sass_instruction& in) { return instruction_cycles(in, a, k.load_level); };
  auto pipe = [&](const sass_instruction& in) { return pipe_use_of(in, a); };
  std::vector<std::size_t> round_path;
  for (const auto& role : sdr::kPipelinedRoles) {
    role_analysis r;
    r.name = role.name;
    r.tid = role.tid;
    r.lanes = role.lanes;
    iteration_trace t = trace_iteration(f, loop, role.tid);
    r.notes = std::move(t.notes);
    r.exact = t.exact;
    std::vector<std::vector<const sass_instruction*>> phases(1);
    for (std::size_t i : t.path) {
      const sass_instruction& in = f.code[i];
      phases.back().push_back(&in);
      add_pipe_cycles(in, a, k);
      if (device_memory_opcodes().count(in.base)) r.bytes += access_bytes(in) * role.lanes;
      if (in.base == "BAR") phases.emplace_back();
    }
    // What follows the last barrier (the step's loop control) runs before the first phase.
    if (phases.size() > 1) {
      phases.front().insert(phases.front().begin(), phases.back().begin(), phases.back().end());
      phases.pop_back();
    }
    for (const auto& p : phases) r.phase_cycles.push_back(schedule(p, latency, pipe).in_order);
    r.instructions = t.path.size();
    k.warp_instructions += r.instructions;
    k.bytes_per_iteration += r.bytes;
    k.exact = k.exact && r.exact;
    for (const auto& n : r.notes) k.notes.push_back(r.name + ": " + n);
    if (role.tid == sdr::kRoundThread) round_path = std::move(t.path);
    k.roles.push_back(std::move(r));
  }
  // A phase lasts as long as its slowest role; the barrier then releases the block.
  const double barrier = a.opcode_cycles.count("BAR") ? a.opcode_cycles.at("BAR") : a.default_cycles;
  std::size_t phases = 0;
  for (const auto& r : k.roles) phases = std::max(phases, r.phase_cycles.size());
  k.phase_cycles.assign(phases, 0);
  for (const auto& r : k.roles)
    for (std::size_t p = 0; p < r.phase_cycles.size(); ++p) k.phase_cycles[p] = std::max(k.phase_cycles[p], r.phase_cycles[p]);
  k.in_order_cycles = 0;
  for (double c : k.phase_cycles) k.in_order_cycles += c + barrier;
  for (const auto& r : k.roles)
    if (r.phase_cycles.size() != phases)
      k.notes.push_back(r.name + ": " + std::to_string(r.phase_cycles.size()) + " phases traced, " +
                        std::to_string(phases) + " expected");
  return round_path;
}

}  // namespace

// ---- analysis ----

kernel_analysis analyze(const sass_function& f, const arch_params& a, const std::string& load_level) {
  kernel_analysis k;
  k.arch = f.arch;
  k.mangled = f.mangled;
  k.name = f.name;
  k.label = kernel_label(f.name);
  k.unit = is_label_kernel(k.label) ? "node" : "compression";
  k.kernel = kernel_variant_of_label(k.label);
  k.load_level = load_level.empty() ? a.global_load_level : load_level;
  if (k.load_level != "l1" && k.load_level != "l2" && k.load_level != "dram")
    throw model_error("load level '" + k.load_level + "' is not l1, l2 or dram");
  std::vector<std::size_t> path;
  if (const auto l = main_loop(f)) {
    k.has_loop = true;
    k.loop_head = f.code[l->head].address;
    k.loop_latch = f.code[l->latch].address;
    if (is_block_kernel(k.label)) {
      // One block per sector: each role traced by its thread index.
      path = analyze_roles(f, *l, a, k);
    } else {
      iteration_trace t = trace_iteration(f, *l);
      path = std::move(t.path);
      k.notes = std::move(t.notes);
      k.exact = t.exact;
    }
  } else {
    for (std::size_t i = 0; i < f.code.size(); ++i) path.push_back(i);
    k.notes.push_back("no loop: the whole kernel is counted once");
    k.exact = false;
  }
  std::vector<const sass_instruction*> seq;
  seq.reserve(path.size());
  int max_reg = -1;
  for (const auto& in : f.code) {
    for (int r : in.dests)
      if (r < kUniformBase) max_reg = std::max(max_reg, r);
    for (int r : in.srcs)
      if (r < kUniformBase) max_reg = std::max(max_reg, r);
  }
  for (std::size_t i : path) {
    const sass_instruction& in = f.code[i];
    seq.push_back(&in);
    ++k.by_opcode[in.base];
    if (!a.opcode_cycles.count(in.base) && !a.opcode_memory.count(in.base)) k.default_latency_opcodes.insert(in.base);
    if (k.block_threads == 0) add_pipe_cycles(in, a, k);
    if (k.block_threads == 0 && device_memory_opcodes().count(in.base)) k.bytes_per_iteration += access_bytes(in);
    for (const auto& op : in.operands)
      if (auto v = parse_number(op); v && static_cast<std::uint32_t>(*v) == kSha256K0) ++k.round_constant_hits;
  }
  k.instructions = seq.size();
  const auto s = schedule(
      seq, [&](const sass_instruction& in) { return instruction_cycles(in, a, k.load_level); },
      [&](const sass_instruction& in) { return pipe_use_of(in, a); });
  k.critical_path_cycles = s.critical_path;
  if (k.block_threads == 0) {
    k.in_order_cycles = s.in_order;
    k.warp_instructions = k.instructions;
  }
  if (f.registers > 0) {
    k.registers = f.registers;
    k.registers_source = "cuobjdump -res-usage";
  } else {
    k.registers = max_reg + 1;
    k.registers_source = "highest register named in the SASS";
  }
  return k;
}

prediction predict(const kernel_analysis& k, const arch_params& a, unsigned threads_per_block) {
  if (threads_per_block == 0 || threads_per_block > 1024 || threads_per_block % 32 != 0)
    throw model_error("threads per block must be a multiple of 32 from 32 to 1024, not " +
                      std::to_string(threads_per_block));
  prediction p;
  const double hz = a.clock_mhz * 1e6;
  p.single_thread_cycles = k.in_order_cycles;
  p.single_thread_ns = k.in_order_cycles / hz * 1e9;
  p.critical_path_ns = k.critical_path_cycles / hz * 1e9;
  // Residency per SM: blocks limited by threads, the block cap and registers (allocated
  // per warp in units of register_allocation_unit).
  // A block kernel has its own block size and labels one sector per block.
  if (k.block_threads != 0) threads_per_block = k.block_threads;
  const double sectors_per_thread = k.block_threads != 0 ? 1.0 / k.block_threads : 1.0;
  const double warps_per_block = std::ceil(threads_per_block / 32.0);
  const double by_threads = std::floor(a.max_threads_per_sm / threads_per_block);
  double by_regs = std::numeric_limits<double>::infinity();
  if (k.registers > 0) {
    const double per_warp = std::ceil(k.registers * 32.0 / a.register_alloc_unit) * a.register_alloc_unit;
    by_regs = std::floor(std::floor(a.registers_per_sm / per_warp) / warps_per_block);
  }
  double blocks = std::min({by_threads, a.max_blocks_per_sm, by_regs});
  p.resident_limit = blocks == by_regs ? "registers" : blocks == a.max_blocks_per_sm ? "blocks per SM" : "threads per SM";
  p.resident_threads = blocks * threads_per_block * a.sm_count;
  // Warp instructions per node: a thread-per-sector warp serves 32 sectors at once.
  const double per_node = k.block_threads != 0 ? static_cast<double>(k.warp_instructions)
                                               : static_cast<double>(k.instructions) / 32.0;
  // Each sub-partition issues at most issue_per_scheduler instructions a cycle, and each of
  // its pipes takes a warp instruction only every `cycles` cycles: the busiest pipe may
  // bound the device before the issue slots do.
  const double sub_partitions = a.sm_count * a.schedulers_per_sm;
  const double warps_per_node = k.block_threads != 0 ? 1.0 : 1.0 / 32.0;
  p.issue_rate = sub_partitions * a.issue_per_scheduler * hz / std::max(1.0 / 32.0, per_node);
  p.issue_limit = "issue slots";
  for (const auto& [name, cycles] : k.pipe_cycles) {
    const double busy = cycles * warps_per_node;  // pipe cycles per node (or compression)
    if (busy <= 0) continue;
    const double r = sub_partitions * hz / busy;
    if (r < p.issue_rate) {
      p.issue_rate = r;
      p.issue_limit = name + " pipe";
    }
  }
  p.latency_rate = p.single_thread_ns > 0 ? p.resident_threads * sectors_per_thread / (p.single_thread_ns * 1e-9) : 0;
  p.memory_rate = k.bytes_per_iteration > 0 ? a.hbm_gb_per_s * 1e9 / k.bytes_per_iteration
                                            : std::numeric_limits<double>::infinity();
  p.rate = std::min({p.issue_rate, p.latency_rate, p.memory_rate});
  p.bound = p.rate == p.issue_rate ? "issue" : p.rate == p.latency_rate ? "latency" : "memory";
  return p;
}

double predicted_ns_per_iteration(const prediction& p, double parallel) {
  return std::max(p.single_thread_ns, parallel * 1e9 / p.rate);
}

// ---- the build's SASS ----

std::vector<embedded_arch> embedded_sass() {
  std::vector<embedded_arch> out;
  const embedded::sass_blob* b = embedded::blobs();
  for (std::size_t i = 0; i < embedded::blob_count(); ++i) {
    embedded_arch e;
    e.arch = b[i].arch;
    for (std::size_t c = 0; c < b[i].chunk_count; ++c) e.text += b[i].chunks[c];
    e.resources = b[i].resources;
    out.push_back(std::move(e));
  }
  return out;
}

std::string embedded_note() { return embedded::note(); }

std::vector<std::string> embedded_kernel_labels(const std::string& arch) {
  std::vector<std::string> out;
  for (const auto& e : embedded_sass()) {
    if (e.arch != arch) continue;
    const std::string_view text = e.text;
    for (std::size_t pos = text.find("Function : "); pos != std::string_view::npos;
         pos = text.find("Function : ", pos + 1)) {
      const std::size_t end = text.find('\n', pos);
      const std::string k = kernel_label(demangle(std::string(trim(text.substr(pos + 11, end - pos - 11)))));
      if (!k.empty() && std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
    }
  }
  return out;
}

std::vector<sass_function> embedded_kernels(const std::vector<std::string>& archs, const std::string& label) {
  std::vector<sass_function> out;
  for (const auto& e : embedded_sass()) {
    if (!archs.empty() && std::find(archs.begin(), archs.end(), e.arch) == archs.end()) continue;
    const auto regs = parse_resources(e.resources);
    for (auto& f : parse_sass(e.text, e.arch, label)) {
      if (kernel_label(f.name).empty()) continue;
      f.arch = e.arch;
      if (auto it = regs.find(f.mangled); it != regs.end()) f.registers = it->second;
      out.push_back(std::move(f));
    }
  }
  // Label kernels first, then the chains; by name within each.
  std::stable_sort(out.begin(), out.end(), [](const sass_function& x, const sass_function& y) {
    const std::string a = kernel_label(x.name), b = kernel_label(y.name);
    const bool la = a.rfind("label", 0) == 0, lb = b.rfind("label", 0) == 0;
    if (x.arch != y.arch) return x.arch < y.arch;
    if (la != lb) return la;
    return a < b;
  });
  return out;
}

std::vector<model_row> run_model(const latency_table& t, const model_options& o) {
  const auto sass = embedded_sass();
  if (sass.empty()) throw model_error(embedded_note().empty() ? "no SASS in this build" : embedded_note());
  std::vector<std::string> built;
  for (const auto& e : sass) built.push_back(e.arch);
  std::vector<std::string> archs = o.archs;
  if (archs.empty())
    for (const auto& a : built)
      if (t.archs.count(a)) archs.push_back(a);
  if (archs.empty())
    throw model_error(t.file + ": has none of the architectures this build has SASS for (" + names_text(built) + ")");
  for (const auto& a : archs) {
    if (std::find(built.begin(), built.end(), a) == built.end()) {
      throw model_error("this build has no SASS for " + a + " (it was built for " + names_text(built) +
                        "; add it with -DCMAKE_CUDA_ARCHITECTURES)");
    }
    arch_of(t, a);  // the table must describe it
  }
  std::vector<model_row> rows;
  for (const auto& f : embedded_kernels(archs)) {
    const arch_params& a = arch_of(t, f.arch);
    model_row r;
    r.analysis = analyze(f, a, o.load_level);
    r.predicted = predict(r.analysis, a, o.threads_per_block);
    r.device = a.device;
    rows.push_back(std::move(r));
  }
  return rows;
}

json to_json(const model_row& r) {
  const kernel_analysis& k = r.analysis;
  const prediction& p = r.predicted;
  auto finite = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  json by = json::object();
  for (const auto& [op, n] : k.by_opcode) by[op] = n;
  json roles = json::array();
  for (const auto& role : k.roles)
    roles.push_back({{"role", role.name}, {"tid", role.tid}, {"lanes", role.lanes}, {"instructions", role.instructions},
                     {"phase_cycles", role.phase_cycles}, {"bytes", role.bytes}, {"trace_exact", role.exact}});
  return {{"modeled", true},
          {"arch", k.arch},
          {ctx::device, r.device},
          {"kernel", k.label},
          {"mangled", k.mangled},
          {"unit", k.unit},
          {"has_loop", k.has_loop},
          {"loop", {{"head", hex_address(k.loop_head)}, {"latch", hex_address(k.loop_latch)}}},
          {"instructions_per_iteration", k.instructions},
          {"instructions_by_opcode", by},
          {"critical_path_cycles", k.critical_path_cycles},
          {"in_order_cycles", k.in_order_cycles},
          {"bytes_per_iteration", k.bytes_per_iteration},
          {"sha256_round_constant_hits", k.round_constant_hits},
          {"registers", k.registers},
          {"registers_source", k.registers_source},
          {"global_load_level", k.load_level},
          {"trace_exact", k.exact},
          {"notes", k.notes},
          {"default_latency_opcodes", std::vector<std::string>(k.default_latency_opcodes.begin(),
                                                               k.default_latency_opcodes.end())},
          {"single_thread_ns", p.single_thread_ns},
          {"critical_path_ns", p.critical_path_ns},
          {"resident_threads", p.resident_threads},
          {"resident_limit", p.resident_limit},
          {"issue_bound_per_s", finite(p.issue_rate)},
          {"latency_bound_per_s", finite(p.latency_rate)},
          {"memory_bound_per_s", finite(p.memory_rate)},
          {"rate_per_s", finite(p.rate)},
          {"bound", p.bound},
          {"issue_limit", p.issue_limit},
          {"pipe_cycles_per_iteration", k.pipe_cycles},
          {"unpiped_opcodes", std::vector<std::string>(k.unpiped_opcodes.begin(), k.unpiped_opcodes.end())},
          {"block_threads", k.block_threads},
          {"warp_instructions_per_iteration", k.warp_instructions},
          {"phase_cycles", k.phase_cycles},
          {"roles", roles}};
}

// ---- measured records ----

namespace {

std::string arch_from_device(const std::string& device) {
  for (const char* a : {"A100", "A800", "A30"})
    if (device.find(a) != std::string::npos) return "sm_80";
  for (const char* h : {"H100", "H200", "H800", "H20", "GH200"})
    if (device.find(h) != std::string::npos) return "sm_90";
  for (const char* l : {"RTX 40", "L40", "RTX 6000 Ada", "RTX 4000 Ada", "RTX 5000 Ada"})
    if (device.find(l) != std::string::npos) return "sm_89";
  return {};
}

std::string text_of(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
}

}  // namespace

std::vector<measured_point> read_measured(const std::string& dir) {
  records::result_set in;
  try {
    in = records::load_result_set({dir});
  } catch (const std::exception& e) {
    throw model_error(std::string("cannot read measured records: ") + e.what());
  }
  std::vector<measured_point> out;
  for (const auto& rec : in.records) {
    const json& r = rec.point;
    if (!records::is_ok(r) || r.value(key::modeled, false)) continue;
    const json ctx = r.value(key::context, json::object());
    if (ctx.value(key::modeled, false)) continue;
    const json axes = r.value(key::axes, json::object());
    const auto kind = records::kind_of(r);
    const bool cuda = backend_is(text_of(axes, axis::backend), device_class::gpu) || backend_is(text_of(axes, axis::engine), device_class::gpu);
    if (!cuda || (kind != records::record_kind::label && kind != records::record_kind::hash)) continue;
    const json st = r.value(key::stats, json::object());
    if (!st.contains("median") || !st["median"].is_number()) continue;
    measured_point m;
    m.dir = dir;
    m.experiment = r.value(key::experiment, "");
    m.kind = *kind;
    m.device = text_of(ctx, ctx::device);
    m.arch = arch_from_device(m.device);
    m.axes = axes;
    m.metric = r.value(key::metric, "");
    m.value = st["median"].get<double>();
    if (kind == records::record_kind::label) {
      m.algo = text_of(axes, "hash").empty() ? "sha256" : text_of(axes, "hash");
      m.parallel = axes.contains(axis::sectors) && axes[axis::sectors].is_number() ? axes[axis::sectors].get<double>() : 1;
      const std::string used = text_of(ctx, "kernel_used").empty() ? text_of(axes, "kernel") : text_of(ctx, "kernel_used");
      if (!used.empty() && used != sdr::kernel_variant_name(sdr::kernel_variant::automatic)) {
        try {
          m.kernel = sdr::parse_kernel_variant(used);
        } catch (const std::invalid_argument&) {
          // A kernel this build does not know: compared with none.
        }
      }
      if (const auto k = ctx.find("kernel_ns_per_node_layer"); k != ctx.end() && k->is_number()) m.kernel_value = k->get<double>();
      m.sector_major = text_of(axes, "layout") == sdr::sector_layout_name(sdr::sector_layout::sector_major);
    } else {
      m.algo = text_of(axes, "algo");
      m.parallel = text_of(axes, "mode") == "chain" ? 1 : ctx.value("lanes", 0.0);
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace poreplab::gpu_model
