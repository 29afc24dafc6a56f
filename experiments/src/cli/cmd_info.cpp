// `poreplab info`: this machine's CPU features, caches, compiled backends and GPUs.
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <stdexcept>

#include "cli/cli.hpp"
#include "records/environment.hpp"
#include "util/share_dir.hpp"

namespace poreplab::cli {

namespace {

std::string human_bytes(std::uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = static_cast<double>(b);
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char s[32];
  std::snprintf(s, sizeof s, v == static_cast<double>(static_cast<std::uint64_t>(v)) ? "%.0f %s" : "%.1f %s", v,
                units[u]);
  return s;
}

// Where data/, configs/ and plots/ are read from, or why none is.
std::string share_dir_text() {
  try {
    const auto dir = share_dir();
    return dir ? dir->string() : "not found (set POREPLAB_SHARE_DIR)";
  } catch (const std::runtime_error& e) {
    return e.what();
  }
}

void print_text(const records::machine_facts& m) {
  std::cout << "poreplab " << m.version.value_or("") << " (" << m.git_revision.value_or("") << ", " << m.compiler.value_or("")
            << ")\n";
  std::cout << "cpu:       " << m.cpu_model.value_or("") << " (" << m.cpu_vendor << ", family " << m.family << " model "
            << m.model_number << " stepping " << m.stepping << (m.microarchitecture.empty() ? "" : ": " + m.microarchitecture)
            << ")\n";
  std::cout << "cores:     " << m.logical_cores.value_or(0) << " logical\n";
  if (m.has_topology) {
    std::cout << "topology:  " << m.packages << " package(s), " << m.cores << " cores, " << m.pus << " PUs, " << m.smt
              << " thread(s) per core (" << m.topology_source << "); PU:core";
    for (const auto& [pu, core] : m.pu_core) std::cout << " " << pu << ":" << core;
    std::cout << "; allowed";
    for (const auto c : m.allowed) std::cout << " " << c;
    std::cout << "\n";
  }
  std::cout << "features:";
  for (const auto& f : m.features) std::cout << " " << f;
  std::cout << "\n";
  std::cout << "tsc:       " << std::fixed << std::setprecision(3) << m.tsc_hz.value_or(0) / 1e9 << " GHz" << std::defaultfloat
            << "\n";
  for (const auto& c : m.caches.value_or(std::vector<records::cache_facts>{}))
    std::cout << "cache:     L" << c.level << " " << c.type << " " << human_bytes(c.bytes) << ", " << c.line_bytes
              << " B lines, shared by " << c.shared_by_threads << " threads\n";
  std::cout << "share:     " << share_dir_text() << "\n";
  std::cout << "backends:";
  for (const auto& b : m.backends) std::cout << " " << b;
  std::cout << "\n";
  if (!m.cuda_available) {
    std::cout << "cuda:      no CUDA device (" << m.cuda_reason.value_or("") << ")\n";
  } else {
    for (const auto& d : m.gpus)
      std::cout << "cuda:      [" << d.index << "] " << d.name.value_or("") << ", sm_" << d.compute_capability << ", "
                << d.multiprocessors.value_or(0) << " SMs, " << d.clock_mhz << " MHz, " << human_bytes(d.total_memory_bytes)
                << (d.unsupported.empty() ? "" : "; UNUSABLE: " + d.unsupported) << "\n";
    const std::int64_t driver = m.driver_version.value_or(0), runtime = m.runtime_version.value_or(0);
    std::cout << "driver:    CUDA " << driver / 1000 << "." << driver % 1000 / 10 << ", runtime " << runtime / 1000 << "."
              << runtime % 1000 / 10 << "\n";
  }
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto require = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("info", "Show CPU features, caches, compiled backends and CUDA devices");
  cmd->add_flag("--json", *json, "print one JSON object");
  cmd->add_flag("--require-cuda", *require, "exit 1 (after printing) unless CUDA device 0 can run this build's kernels");
  cmd->callback([json, require] {
    const auto env = environment_json();
    const records::machine_facts m = records::machine_facts_of_environment(env);
    if (*json)
      std::cout << env.dump(2) << "\n";
    else
      print_text(m);
    if (*require) {
      if (!m.cuda_available) throw std::runtime_error("no usable CUDA device: " + m.cuda_reason.value_or("unknown reason"));
      const records::gpu_facts& d0 = m.gpus.at(0);
      if (!d0.unsupported.empty())
        throw std::runtime_error("CUDA device 0 (" + d0.name.value_or("") + ") " + d0.unsupported);
    }
  });
}

}  // namespace poreplab::cli
