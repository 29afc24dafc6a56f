// `poreplab info`: this machine's CPU features, caches, compiled backends and GPUs.
#include <cstdio>
#include <iomanip>
#include <iostream>

#include "cli.hpp"
#include "environment.hpp"

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

void print_text(const nlohmann::json& env) {
  const auto& cpu = env["cpu"];
  std::cout << "poreplab " << env["build"]["version"].get<std::string>() << " ("
            << env["build"]["git_revision"].get<std::string>() << ", " << env["build"]["compiler"].get<std::string>()
            << ")\n";
  std::cout << "cpu:       " << cpu["model"].get<std::string>() << " (" << cpu["vendor"].get<std::string>() << ")\n";
  std::cout << "cores:     " << cpu["logical_cores"].get<int>() << " logical\n";
  std::cout << "features:";
  for (const auto& f : cpu["features"]) std::cout << " " << f.get<std::string>();
  std::cout << "\n";
  std::cout << "tsc:       " << std::fixed << std::setprecision(3) << cpu["tsc_hz"].get<double>() / 1e9
            << " GHz" << std::defaultfloat << "\n";
  for (const auto& c : cpu["caches"])
    std::cout << "cache:     L" << c["level"].get<int>() << " " << c["type"].get<std::string>() << " "
              << human_bytes(c["bytes"].get<std::uint64_t>()) << ", " << c["line_bytes"].get<int>()
              << " B lines, shared by " << c["shared_by_threads"].get<int>() << " threads\n";
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
                << "\n";
  }
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("info", "Show CPU features, caches, compiled backends and CUDA devices");
  cmd->add_flag("--json", *json, "print one JSON object");
  cmd->callback([json] {
    const auto env = environment_json();
    if (*json)
      std::cout << env.dump(2) << "\n";
    else
      print_text(env);
  });
}

}  // namespace poreplab::cli
