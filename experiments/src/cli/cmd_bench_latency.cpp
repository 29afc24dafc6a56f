// `poreplab bench latency`: dependent-chain instruction latencies and each available
// engine's critical-path limit from them.
#include <iomanip>
#include <iostream>
#include <memory>

#include "cli/bench_cli.hpp"
#include "cli/cli.hpp"
#include "poreplab/cpu/latency.hpp"

namespace poreplab::cli {

void add_bench_latency_command(CLI::App& app) {
  auto opt = std::make_shared<cpu::latency_options>();
  auto json = std::make_shared<bool>(false);
  auto* cmd = bench_group(app)->add_subcommand(
      "latency", "instruction latencies (dependent chains, core cycles) and each engine's critical-path limit");
  cmd->add_option("--iterations", opt->iterations, "chain steps per sample")->capture_default_str();
  cmd->add_option("--repetitions", opt->repetitions, "samples per instruction (the minimum counts)")
      ->capture_default_str();
  cmd->add_flag("--json", *json, "one JSON object per row");
  cmd->callback([opt, json] {
    const cpu::latency_table t = cpu::measure_latencies(*opt);
    std::vector<cpu::critical_path> limits;
    std::vector<cpu::port_bound> bounds;
    for (const hash_family a : hash_families())
      for (const cpu::engine* e : cpu::available_engines(a)) {
        limits.push_back(cpu::critical_path_limit(a, e->name, t));
        if (cpu::has_port_model(a)) bounds.push_back(cpu::port_bound_of(a, e->name, t));
      }
    if (*json) {
      std::cout << cpu::calibration_json(t).dump() << "\n";
      for (const auto& r : t.rows) std::cout << cpu::to_json(r).dump() << "\n";
      for (const auto& m : t.mixes) std::cout << cpu::to_json(m).dump() << "\n";
      for (const auto& c : limits) std::cout << cpu::to_json(c).dump() << "\n";
      for (const auto& b : bounds) std::cout << cpu::to_json(b).dump() << "\n";
      return;
    }
    std::cout << "calibration: " << t.calibration << "\n\n"
              << std::left << std::setw(16) << "instruction" << std::setw(8) << "isa" << std::right << std::setw(8)
              << "latency" << std::setw(8) << "rtp" << "  note (rtp: cycles per instruction, 12 independent chains)\n";
    for (const auto& r : t.rows) {
      std::cout << std::left << std::setw(16) << r.instruction << std::setw(8) << r.isa << std::right << std::setw(8);
      if (r.measured)
        std::cout << std::fixed << std::setprecision(2) << r.cycles;
      else
        std::cout << "-";
      std::cout << std::setw(8);
      if (r.recip_throughput)
        std::cout << std::fixed << std::setprecision(2) << *r.recip_throughput;
      else
        std::cout << "-";
      std::cout << "  " << (r.measured ? r.note : "not available on this CPU") << "\n";
    }
    std::cout << "\nengine instruction mixes, issued without dependencies (core cycles per block of every lane)\n";
    for (const auto& m : t.mixes) {
      std::cout << "  " << std::left << std::setw(12) << m.engine << std::right << std::setw(3) << m.group_lanes
                << " lanes " << std::setw(9);
      if (m.measured)
        std::cout << std::fixed << std::setprecision(1) << m.cycles_per_group_block;
      else
        std::cout << "-";
      std::cout << "  " << m.mix << "\n";
    }
    std::cout << "\nSHA-256 port bounds (core cycles per block hashed, any lane: the larger of latency and ports)\n"
              << std::left << std::setw(12) << "engine" << std::right << std::setw(6) << "lanes" << std::setw(10)
              << "latency" << std::setw(10) << "ports" << std::setw(10) << "bound" << "  limited by\n";
    for (const auto& b : bounds) {
      std::cout << std::left << std::setw(12) << b.engine << std::right << std::setw(6) << b.lanes << std::fixed
                << std::setprecision(1) << std::setw(10) << b.latency_cycles_per_block << std::setw(10);
      if (b.mix_cycles_per_block)
        std::cout << *b.mix_cycles_per_block;
      else
        std::cout << "-";
      std::cout << std::setw(10) << b.cycles_per_block << "  " << b.limited_by << "\n";
    }
    std::cout << "\ncritical-path limits (core cycles per byte; all lanes, and per chain)\n"
              << std::left << std::setw(9) << "algo" << std::setw(12) << "engine" << std::right << std::setw(6)
              << "lanes" << std::setw(9) << "c/B" << std::setw(11) << "c/B/chain" << "  formula\n";
    for (const auto& c : limits)
      std::cout << std::left << std::setw(9) << c.algo << std::setw(12) << c.engine << std::right << std::setw(6)
                << c.lanes << std::fixed << std::setprecision(3) << std::setw(9) << c.cycles_per_byte << std::setw(11)
                << c.lane_cycles_per_byte << "  " << c.formula << "\n";
  });
}

}  // namespace poreplab::cli
