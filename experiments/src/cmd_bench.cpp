// `poreplab bench` (the group) and `poreplab bench hash`: hash engine speed against
// OpenSSL, as an aligned table or one JSON object per row.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_cli.hpp"
#include "cli.hpp"
#include "poreplab/cpu/bench.hpp"
#include "poreplab/cpu/features.hpp"

namespace poreplab::cli {

CLI::App* bench_group(CLI::App& app) {
  const auto found = app.get_subcommands([](CLI::App* s) { return s->get_name() == "bench"; });
  if (!found.empty()) return found.front();
  auto* bench = app.add_subcommand("bench", "Benchmarks: hash engines, labeling");
  bench->require_subcommand(1);
  return bench;
}

namespace {

struct hash_cli_options {
  std::string algo = "all";
  std::string engine = "all";
  std::string mode = "all";
  std::size_t bytes = 16 * 1024;
  double min_time_s = 0.02;
  int repetitions = 7;
  bool no_openssl = false;
  bool json = false;
};

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// Engine rate over OpenSSL's for the same algo and mode; NaN without an OpenSSL row.
double vs_openssl(const cpu::hash_bench_row& r, const std::vector<cpu::hash_bench_row>& rows) {
  for (const auto& o : rows)
    if (o.engine == "openssl" && o.algo == r.algo && o.mode == r.mode) return r.gbps / o.gbps;
  return std::nan("");
}

void print_table(const std::vector<cpu::hash_bench_row>& rows, std::size_t bytes) {
  std::string last;
  for (const auto& r : rows) {
    const std::string group = r.algo + " " + r.mode;
    if (group != last) {
      if (!last.empty()) std::cout << "\n";
      std::cout << r.algo << ", " << r.mode
                << (r.mode == "throughput"
                        ? ": independent " + std::to_string(bytes / r.block_bytes * r.block_bytes) +
                              "-byte messages, one per lane"
                        : r.algo == "sha256" ? ": dependent SDR-shaped labels (20 compressions, parents in place)"
                                             : ": dependent one-block messages")
                << "\n";
      std::printf("  %-11s %5s %9s %11s %8s %8s %9s %8s %5s %9s\n", "engine", "lanes", "ns/block", "ns/lane-blk",
                  "GB/s", "c/B tsc", "c/B core", "vs ossl", "cpu%", "verified");
      last = group;
    }
    const double ratio = vs_openssl(r, rows);
    std::printf("  %-11s %5zu %9.2f %11.2f %8.3f %8.3f %9s %8s %5.0f %9s\n", r.engine.c_str(), r.lanes,
                r.ns_per_block, r.lane_ns_per_block, r.gbps, r.cycles_per_byte_tsc,
                r.cycles_per_byte_core ? fmt("%.3f", *r.cycles_per_byte_core).c_str() : "-",
                std::isnan(ratio) ? "-" : fmt("%.2fx", ratio).c_str(), 100.0 * r.cpu_ns_per_block / r.ns_per_block,
                r.verified ? "ok" : "MISMATCH");
  }
}

void run_hash(const hash_cli_options& o) {
  std::vector<cpu::engine_algo> algos;
  if (o.algo != "all") {
    algos.push_back(cpu::parse_engine_algo(o.algo));
  } else if (o.engine == "all" || o.engine == "openssl") {
    algos = cpu::engine_algos();
  } else {
    // A named engine with every algorithm: the algorithms that have an engine of that name.
    std::string valid;
    for (cpu::engine_algo a : cpu::engine_algos()) {
      bool has = false;
      for (const auto& e : cpu::compiled_engines(a)) {
        has = has || e.name == o.engine;
        valid += (valid.empty() ? "" : ", ") + std::string(cpu::engine_algo_name(a)) + ":" + std::string(e.name);
      }
      if (has) algos.push_back(a);
    }
    if (algos.empty())
      throw std::invalid_argument("unknown engine '" + o.engine + "' (valid: all, openssl, " + valid + ")");
  }
  cpu::hash_bench_options opt;
  opt.bytes_per_lane = o.bytes;
  opt.min_time_s = o.min_time_s;
  opt.repetitions = o.repetitions;
  opt.openssl = !o.no_openssl;
  if (o.mode != "all") opt.modes = {cpu::parse_bench_mode(o.mode)};

  std::vector<cpu::hash_bench_row> rows;
  for (cpu::engine_algo a : algos) {
    auto r = cpu::bench_hash(a, o.engine, opt);
    rows.insert(rows.end(), r.begin(), r.end());
  }
  bool all_verified = true;
  for (const auto& r : rows) all_verified = all_verified && r.verified;
  if (o.json) {
    for (const auto& r : rows) {
      auto j = cpu::to_json(r);
      const double ratio = vs_openssl(r, rows);
      j["vs_openssl"] = std::isnan(ratio) ? nlohmann::json() : nlohmann::json(ratio);
      std::cout << j.dump() << "\n";
    }
  } else {
    const auto& f = cpu::detect();
    std::printf("cpu: %s; TSC %.3f GHz; core cycle counter: %s; %d samples of >= %.3f s each (median shown)\n\n",
                f.model.c_str(), cpu::tsc_hz() / 1e9,
                cpu::core_cycle_counter_available() ? "perf_event_open" : "not available", o.repetitions,
                o.min_time_s);
    print_table(rows, o.bytes);
  }
  if (!all_verified) {
    std::cout.flush();
    std::cerr << "poreplab: error: an engine's output differs from the portable code (rows marked MISMATCH)\n";
    set_exit_status(1);
  }
}

}  // namespace

void add_bench_command(CLI::App& app) {
  CLI::App* bench = bench_group(app);
  auto o = std::make_shared<hash_cli_options>();
  auto* cmd = bench->add_subcommand("hash", "Hash engine speed (ns per block, GB/s, cycles per byte) vs OpenSSL EVP");
  cmd->add_option("--algo", o->algo, "sha256 | blake2s | blake2b | all")
      ->check(CLI::IsMember({"sha256", "blake2s", "blake2b", "all"}))
      ->capture_default_str();
  cmd->add_option("--engine", o->engine, "an engine name, all (every one this CPU runs) or openssl")
      ->capture_default_str();
  cmd->add_option("--mode", o->mode, "throughput | chain | all")
      ->check(CLI::IsMember({"throughput", "chain", "all"}))
      ->capture_default_str();
  cmd->add_option("--bytes", o->bytes, "message bytes per lane in one measured pass")
      ->check(CLI::Range(std::size_t{128}, std::size_t{1} << 30))
      ->capture_default_str();
  cmd->add_option("--min-time", o->min_time_s, "seconds each sample runs at least")
      ->check(CLI::Range(0.0, 60.0))
      ->capture_default_str();
  cmd->add_option("--repetitions", o->repetitions, "samples per row (the median is reported)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_flag("--no-openssl", o->no_openssl, "leave out the OpenSSL reference rows");
  cmd->add_flag("--json", o->json, "one JSON object per row instead of the table");
  cmd->callback([o] { run_hash(*o); });
}

}  // namespace poreplab::cli
