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

void print_text(const nlohmann::json& env) {
  const auto& cpu = env["cpu"];
  std::cout << "poreplab " << env["build"]["version"].get<std::string>() << " ("
            << env["build"]["git_revision"].get<std::string>() << ", " << env["build"]["compiler"].get<std::string>()
            << ")\n";
  const std::string uarch = cpu.value("microarchitecture", "");
  std::cout << "cpu:       " << cpu["model"].get<std::string>() << " (" << cpu["vendor"].get<std::string>() << ", family "
            << cpu.value("family", 0) << " model " << cpu.value("model_number", 0) << " stepping " << cpu.value("stepping", 0)
            << (uarch.empty() ? "" : ": " + uarch) << ")\n";
  std::cout << "cores:     " << cpu["logical_cores"].get<int>() << " logical\n";
  if (env.contains("topology")) {
    const auto& t = env["topology"];
    std::cout << "topology:  " << t["packages"].get<int>() << " package(s), " << t["cores"].get<int>() << " cores, "
              << t["pus"].get<int>() << " PUs, " << t["smt"].get<int>() << " thread(s) per core ("
              << t["source"].get<std::string>() << "); PU:core";
    for (const auto& pc : t["pu_core"]) std::cout << " " << pc[0].get<int>() << ":" << pc[1].get<int>();
    std::cout << "; allowed";
    for (const auto& c : t["allowed"]) std::cout << " " << c.get<int>();
    std::cout << "\n";
  }
  std::cout << "features:";
  for (const auto& f : cpu["features"]) std::cout << " " << f.get<std::string>();
  std::cout << "\n";
  std::cout << "tsc:       " << std::fixed << std::setprecision(3) << cpu["tsc_hz"].get<double>() / 1e9
            << " GHz" << std::defaultfloat << "\n";
  for (const auto& c : cpu["caches"])
    std::cout << "cache:     L" << c["level"].get<int>() << " " << c["type"].get<std::string>() << " "
              << human_bytes(c["bytes"].get<std::uint64_t>()) << ", " << c["line_bytes"].get<int>()
              << " B lines, shared by " << c["shared_by_threads"].get<int>() << " threads\n";
  std::cout << "share:     " << share_dir_text() << "\n";
  std::cout << "backends:";
  for (const auto& b : env["build"]["backends"]) std::cout << " " << b.get<std::string>();
  std::cout << "\n";
  const auto& cuda = env["cuda"];
  if (!cuda["available"].get<bool>()) {
    std::cout << "cuda:      no CUDA device (" << cuda["reason"].get<std::string>() << ")\n";
  } else {
    for (const auto& d : cuda["devices"])
      std::cout << "cuda:      [" << d["index"].get<int>() << "] " << d["name"].get<std::string>() << ", sm_"
                << d["compute_capability"].get<std::string>() << ", " << d["multiprocessors"].get<int>() << " SMs, "
                << d["clock_mhz"].get<int>() << " MHz, " << human_bytes(d["total_memory_bytes"].get<std::uint64_t>())
                << (d.value("unsupported", std::string()).empty() ? "" : "; UNUSABLE: " + d["unsupported"].get<std::string>())
                << "\n";
    std::cout << "driver:    CUDA " << cuda["driver_version"].get<int>() / 1000 << "."
              << cuda["driver_version"].get<int>() % 1000 / 10 << ", runtime " << cuda["runtime_version"].get<int>() / 1000
              << "." << cuda["runtime_version"].get<int>() % 1000 / 10 << "\n";
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
    if (*json)
      std::cout << env.dump(2) << "\n";
    else
      print_text(env);
    if (*require) {
      const auto& cuda = env["cuda"];
      if (!cuda["available"].get<bool>())
        throw std::runtime_error("no usable CUDA device: " + cuda.value("reason", std::string("unknown reason")));
      const auto& d0 = cuda["devices"][0];
      if (!d0.value("unsupported", std::string()).empty())
        throw std::runtime_error("CUDA device 0 (" + d0["name"].get<std::string>() + ") " + d0["unsupported"].get<std::string>());
    }
  });
}

}  // namespace poreplab::cli
