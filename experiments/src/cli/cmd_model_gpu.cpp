// `poreplab model gpu`: the SASS-based GPU latency model (gpu_model.hpp). Every figure
// it prints is modeled; measured GPU records given as RESULTS_DIR are printed beside.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "model/gpu_model.hpp"
#include "records/schema.hpp"

namespace poreplab::cli {

namespace key = records::key;
namespace axis = records::axis;
namespace ctx = records::ctx;

namespace {

struct model_cli_options {
  std::string arch = "all";
  std::string latency;
  std::string load_level;
  unsigned threads_per_block = 32;
  bool json = false;
  std::vector<std::string> results;
};

std::string rate_text(double r) {
  if (!std::isfinite(r)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", r);
  return b;
}

std::string algo_of(const std::string& label) {
  if (label.find("sha256") != std::string::npos) return "sha256";
  if (label.find("blake2s") != std::string::npos) return "blake2s";
  if (label.find("blake2b") != std::string::npos) return "blake2b";
  return {};
}

// Measured points comparable with a modeled kernel: same kind, same algorithm, the same
// architecture when the device name tells it, and for a label kernel the same design
// (the kernel that ran) over sector-minor layers (the layout the model traces).
std::vector<const gpu_model::measured_point*> matches(const gpu_model::model_row& r,
                                                      const std::vector<gpu_model::measured_point>& measured) {
  std::vector<const gpu_model::measured_point*> out;
  const bool label = r.analysis.unit == "node";
  for (const auto& m : measured) {
    if ((m.kind == records::record_kind::label) != label) continue;
    if (!m.arch.empty() && m.arch != r.analysis.arch) continue;
    std::string algo = m.algo;
    if (algo.rfind("blake2b", 0) == 0) algo = "blake2b";
    if (algo != algo_of(r.analysis.label)) continue;
    if (label && (m.sector_major || !m.kernel || *m.kernel != r.analysis.kernel)) continue;
    if (label && r.analysis.label.find("zigzag") != std::string::npos) {
      const std::string v = m.axes.contains(axis::variant) && m.axes[axis::variant].is_string() ? m.axes[axis::variant].get<std::string>() : "sdr";
      if (v != "zigzag") continue;
    } else if (label && m.axes.contains(axis::variant) && m.axes[axis::variant] == "zigzag") {
      continue;
    }
    out.push_back(&m);
  }
  return out;
}

void print_text(const std::vector<gpu_model::model_row>& rows, const gpu_model::latency_table& t,
                const model_cli_options& o, const std::vector<gpu_model::measured_point>& measured) {
  std::cout << "GPU latency model -- every figure below is MODELED from the kernels' SASS, not measured\n"
            << "latency table: " << t.file << "; " << o.threads_per_block << " threads per block\n";
  std::string arch;
  for (const auto& r : rows) {
    const auto& k = r.analysis;
    const auto& p = r.predicted;
    const auto& a = gpu_model::arch_of(t, k.arch);
    if (k.arch != arch) {
      arch = k.arch;
      std::printf("\n%s (modeled as %s: %.0f SMs, %.0f MHz, %.0f GB/s; global loads at %s latency %.0f cycles)\n",
                  arch.c_str(), a.device.c_str(), a.sm_count, a.clock_mhz, a.hbm_gb_per_s, k.load_level.c_str(),
                  a.memory_cycles.at(k.load_level));
      std::printf("  %-34s %-11s %8s %9s %9s %11s %4s %8s %10s %10s %10s %10s  %s\n", "kernel", "per", "instr",
                  "crit.cyc", "inord.cyc", "ns (1 thr)", "regs", "resident", "issue/s", "latency/s", "memory/s",
                  "modeled/s", "bound");
    }
    std::printf("  %-34s %-11s %8zu %9.0f %9.0f %11.1f %4d %8.0f %10s %10s %10s %10s  %s\n", k.label.c_str(),
                k.unit.c_str(), k.instructions, k.critical_path_cycles, k.in_order_cycles, p.single_thread_ns,
                k.registers, p.resident_threads, rate_text(p.issue_rate).c_str(), rate_text(p.latency_rate).c_str(),
                rate_text(p.memory_rate).c_str(), rate_text(p.rate).c_str(),
                (p.bound == "issue" ? "issue (" + p.issue_limit + ")" : p.bound).c_str());
    // The largest opcode groups of one iteration.
    std::vector<std::pair<std::size_t, std::string>> ops;
    for (const auto& [op, n] : k.by_opcode) ops.emplace_back(n, op);
    std::sort(ops.rbegin(), ops.rend());
    std::string top;
    for (std::size_t i = 0; i < ops.size() && i < 8; ++i)
      top += (i ? " " : "") + ops[i].second + " " + std::to_string(ops[i].first);
    std::printf("      per %s: %s; %.0f B loaded/stored; critical path %.1f ns (modeled)", k.unit.c_str(), top.c_str(),
                k.bytes_per_iteration, p.critical_path_ns);
    if (k.round_constant_hits) std::printf("; SHA-256 compressions in the trace: %zu", k.round_constant_hits);
    std::printf("\n");
    // Busy cycles of each pipe per iteration, largest first: what bounds issue.
    std::vector<std::pair<double, std::string>> busy;
    for (const auto& [pipe, c] : k.pipe_cycles) busy.emplace_back(c, pipe);
    std::sort(busy.rbegin(), busy.rend());
    std::string pipes;
    for (const auto& [c, pipe] : busy) pipes += (pipes.empty() ? "" : ", ") + pipe + " " + std::to_string(std::lround(c));
    std::printf("      pipe cycles per %s%s: %s\n", k.unit.c_str(), k.block_threads != 0 ? " (all warps)" : " (one warp)",
                pipes.c_str());
    if (!k.unpiped_opcodes.empty()) {
      std::string d;
      for (const auto& op : k.unpiped_opcodes) d += (d.empty() ? "" : ", ") + op;
      std::printf("      on no pipe of the table (issue slot only): %s\n", d.c_str());
    }
    if (k.block_threads != 0) {
      // One block per sector: the node lasts as long as each phase's slowest role.
      std::printf("      one block of %u threads per sector; %zu warp instructions per node over its roles; phases:",
                  k.block_threads, k.warp_instructions);
      for (std::size_t i = 0; i < k.phase_cycles.size(); ++i) std::printf(" %s%.0f", i ? "+ " : "", k.phase_cycles[i]);
      std::printf(" cycles + a barrier each\n");
      for (const auto& role : k.roles) {
        std::printf("        %-9s (thread %3u, %2u lanes): %6zu instr;", role.name.c_str(), role.tid, role.lanes,
                    role.instructions);
        for (std::size_t i = 0; i < role.phase_cycles.size(); ++i) std::printf(" phase %zu %.0f cycles", i, role.phase_cycles[i]);
        std::printf("; %.0f B\n", role.bytes);
      }
    }
    if (!k.has_loop) std::printf("      no loop found: the whole kernel counted once\n");
    for (const auto& n : k.notes) std::printf("      note: %s\n", n.c_str());
    if (!k.default_latency_opcodes.empty()) {
      std::string d;
      for (const auto& op : k.default_latency_opcodes) d += (d.empty() ? "" : ", ") + op;
      std::printf("      default latency (%.0f cycles) used for: %s\n", a.default_cycles, d.c_str());
    }
    for (const auto* m : matches(r, measured)) {
      if (m->kind == records::record_kind::label) {
        const double modeled = gpu_model::predicted_ns_per_iteration(p, m->parallel);
        std::printf("      measured (%s, %s, %s sectors): %.1f ns/node/layer end to end", m->dir.c_str(),
                    m->device.c_str(), rate_text(m->parallel).c_str(), m->value);
        if (m->kernel_value > 0) std::printf(", %.1f in the label kernels", m->kernel_value);
        std::printf("; modeled at that many sectors: %.1f (measured / modeled %.2f)\n", modeled,
                    (m->kernel_value > 0 ? m->kernel_value : m->value) / modeled);
      } else {
        // A chain is one thread's latency; a throughput point is the whole device's rate.
        const double modeled = m->parallel == 1 ? p.single_thread_ns : 1e9 / p.rate;
        std::printf("      measured (%s, %s, %s, %s): %.4g %s; modeled %.4g (measured / modeled %.2f)\n", m->dir.c_str(),
                    m->device.c_str(), m->experiment.c_str(), m->parallel == 1 ? "one chain" : "device-wide", m->value,
                    m->metric.c_str(), modeled, m->value / modeled);
      }
    }
  }
  std::printf(
      "\ncolumns: instr = instructions issued per iteration; crit.cyc = longest read-after-write path through one\n"
      "iteration; inord.cyc = one warp issuing that iteration in order (block kernels: the sum over phases of the\n"
      "slowest role, plus a barrier each); ns (1 thr) = inord.cyc / clock; resident = threads the device holds at once;\n"
      "issue/s, latency/s, memory/s = the three bounds on iterations per second (issue: the issue slots or the\n"
      "busiest pipe, whichever is slower; inord.cyc also waits for each instruction's pipe);\n"
      "modeled/s = the smallest. All MODELED (docs/cuda-backend.md, \"Latency model\").\n");
  if (!measured.empty() && rows.size())
    std::printf("measured records read: %zu (shown beside the kernels they match)\n", measured.size());
}

}  // namespace

void add_model_command(CLI::App& app) {
  auto* group = app.add_subcommand("model", "Models that predict performance without the hardware");
  group->require_subcommand(1);
  auto o = std::make_shared<model_cli_options>();
  auto* cmd = group->add_subcommand(
      "gpu", "modeled GPU latency and rates of the CUDA kernels, from their SASS (no GPU needed)");
  cmd->add_option("--arch", o->arch, "sm_80 | sm_89 | sm_90 | all (every architecture with SASS and a table entry)")
      ->capture_default_str();
  cmd->add_option("--latency", o->latency, "latency table (JSON); default: the built-in experiments/data/gpu-latency.json");
  cmd->add_option("--load-level", o->load_level, "memory level global loads see: l1 | l2 | dram (default: the table's)");
  cmd->add_option("--threads-per-block", o->threads_per_block, "threads per block of the modeled launch")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "one JSON object per kernel (and per measured record)");
  cmd->add_option("RESULTS_DIR", o->results, "result directories whose measured cuda records are shown beside");
  cmd->callback([o] {
    if (o->arch != "all" && o->arch.rfind("sm_", 0) != 0)
      throw usage_error("--arch: '" + o->arch + "' is not an architecture like sm_80, or all");
    if (!o->load_level.empty() && o->load_level != "l1" && o->load_level != "l2" && o->load_level != "dram")
      throw usage_error("--load-level: '" + o->load_level + "' is not l1, l2 or dram");
    try {
      const gpu_model::latency_table t = gpu_model::load_latency_table(o->latency);
      std::vector<gpu_model::measured_point> measured;
      for (const auto& d : o->results) {
        auto m = gpu_model::read_measured(d);
        measured.insert(measured.end(), m.begin(), m.end());
      }
      gpu_model::model_options mo;
      if (o->arch != "all") mo.archs = {o->arch};
      mo.load_level = o->load_level;
      mo.threads_per_block = o->threads_per_block;
      const auto rows = gpu_model::run_model(t, mo);
      if (o->json) {
        for (const auto& r : rows) std::cout << gpu_model::to_json(r).dump() << "\n";
        for (const auto& m : measured)
          std::cout << nlohmann::json{{"measured", true},   {"dir", m.dir},       {key::experiment, m.experiment},
                                      {"kind", records::kind_name(m.kind)},     {ctx::device, m.device}, {"arch", m.arch},
                                      {"algo", m.algo},     {key::metric, m.metric}, {"value", m.value},
                                      {"parallel", m.parallel}, {"axes", m.axes},
                                      {"kernel", m.kernel ? nlohmann::json(sdr::kernel_variant_name(*m.kernel)) : nlohmann::json()},
                                      {"kernel_value", m.kernel_value}}
                           .dump()
                    << "\n";
        return;
      }
      print_text(rows, t, *o, measured);
    } catch (const gpu_model::model_error& e) {
      throw usage_error(e.what());
    }
  });
}

}  // namespace poreplab::cli
