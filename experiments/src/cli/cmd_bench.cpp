// `poreplab bench` (the group) and `poreplab bench hash`: hash engine speed against
// OpenSSL, as an aligned table or one JSON object per row.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/device_class.hpp"
#include "cli/bench_cli.hpp"
#include "cli/cli.hpp"
#include "poreplab/cpu/bench.hpp"
#include "poreplab/cpu/features.hpp"
#include "poreplab/cpu/reference.hpp"
#include "poreplab/hash/algo.hpp"
#include "poreplab/unavailable.hpp"
#include "records/schema.hpp"
#include "util/text.hpp"
#ifdef POREPLAB_WITH_CUDA
#include "poreplab/cuda/bench.hpp"
#endif

namespace poreplab::cli {

namespace key = records::key;
namespace ctx = records::ctx;

CLI::App* bench_group(CLI::App& app) {
  const auto found = app.get_subcommands([](CLI::App* s) { return s->get_name() == "bench"; });
  if (!found.empty()) return found.front();
  auto* bench = app.add_subcommand(
      "bench", "Benchmarks: hash engines, instruction latencies, labeling (in memory, on disk), its profile, reads per node, the disk, PC2");
  bench->require_subcommand(1);
  return bench;
}

namespace {

constexpr const char* kAll = "all";

struct hash_cli_options {
  std::string backend = backend_of(device_class::host_cpu);
  std::string algo = kAll;
  std::string engine = kAll;
  std::string mode = kAll;
  std::size_t bytes = 16 * 1024;
  double min_time_s = 0.02;
  int repetitions = 7;
  bool no_openssl = false;
  bool json = false;
  int threads = 1;
  std::string placement = "compact";
};

std::vector<std::string> with_all(std::vector<std::string> names) {
  names.emplace_back(kAll);
  return names;
}

// --algo and --mode: one name of the table, or every entry for "all".
std::vector<hash_family> algos_named(const std::string& text) {
  return text == kAll ? hash_families() : std::vector<hash_family>{parse_hash_family(text)};
}

std::vector<hash_bench_mode> modes_named(const std::string& text) {
  if (text != kAll) return {parse_hash_bench_mode(text)};
  std::vector<hash_bench_mode> out;
  for (const auto& e : kHashBenchModes.entries) out.push_back(e.value);
  return out;
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

void print_table(const std::vector<cpu::hash_bench_row>& rows, std::size_t bytes) {
  std::string last;
  for (const auto& r : rows) {
    const std::string group = std::string(hash_family_name(r.algo)) + ", " + std::string(hash_bench_mode_name(r.mode));
    if (group != last) {
      if (!last.empty()) std::cout << "\n";
      std::cout << group
                << (r.mode == hash_bench_mode::throughput
                        ? ": independent " + std::to_string(bytes / r.block_bytes * r.block_bytes) +
                              "-byte messages, one per lane"
                        : ": " + r.chain)
                << "\n";
      std::printf("  %-11s %5s %9s %11s %8s %8s %9s %8s %13s %5s %9s %8s %8s%s\n",
                  "engine", "lanes", "ns/block", "ns/lane-blk", "GB/s", "c/B tsc", "c/B core",  // titles, not record keys
                  "vs ossl", "95% interval", "cpu%", "verified", "bound", "vs bound",  // titles, not record keys
                  r.threads > 1 ? "  vs 1 thread [95%]" : "");
      last = group;
    }
    std::string ci = "-";
    if (r.vs_openssl) {
      ci = fmt("%.2f", r.vs_openssl_lo);
      ci += fmt("-%.2f", r.vs_openssl_hi);
    }
    std::string threads;
    if (r.vs_one_thread)
      threads = fmt("  %.2fx", *r.vs_one_thread) + fmt(" [%.2f", r.vs_one_thread_lo) + fmt("-%.2f]", r.vs_one_thread_hi);
    std::printf("  %-11s %5zu %9.2f %11.2f %8.3f %8.3f %9s %8s %13s %5.0f %9s %8s %8s%s\n", r.engine.c_str(), r.lanes,
                r.ns_per_block, r.lane_ns_per_block, r.gbps, r.cycles_per_byte_tsc,
                r.cycles_per_byte_core ? fmt("%.3f", *r.cycles_per_byte_core).c_str() : "-",
                r.vs_openssl ? fmt("%.2fx", *r.vs_openssl).c_str() : "-", ci.c_str(),
                100.0 * r.cpu_ns_per_block / r.ns_per_block, r.verified ? "ok" : "MISMATCH",
                r.bound_ns_per_block ? fmt("%.2f", *r.bound_ns_per_block).c_str() : "-",
                r.vs_bound ? fmt("%.2f", *r.vs_bound).c_str() : "-", threads.c_str());
  }
}

void run_hash(const hash_cli_options& o) {
  std::vector<hash_family> algos;
  if (o.algo != kAll) {
    algos = algos_named(o.algo);
  } else if (o.engine == kAll || o.engine == cpu::kOpenssl) {
    algos = hash_families();
  } else {
    // A named engine with every algorithm: the algorithms that have an engine of that name.
    std::string valid;
    for (hash_family a : hash_families()) {
      bool has = false;
      for (const auto& e : cpu::compiled_engines(a)) {
        has = has || e.name == o.engine;
        valid += (valid.empty() ? "" : ", ") + std::string(hash_family_name(a)) + ":" + std::string(e.name);
      }
      if (has) algos.push_back(a);
    }
    if (algos.empty())
      throw std::invalid_argument("unknown engine '" + o.engine + "' (valid: " + kAll + ", " + std::string(cpu::kOpenssl) +
                                  ", " + valid + ")");
  }
  cpu::hash_bench_options opt;
  opt.bytes_per_lane = o.bytes;
  opt.min_time_s = o.min_time_s;
  opt.repetitions = o.repetitions;
  opt.openssl = !o.no_openssl;
  opt.modes = modes_named(o.mode);
  opt.threads = o.threads;
  opt.placement = cpu::kThreadPlacements.parse(o.placement);

  std::vector<cpu::hash_bench_row> rows;
  for (hash_family a : algos) {
    auto r = cpu::bench_hash(a, o.engine, opt);
    rows.insert(rows.end(), r.begin(), r.end());
  }
  bool all_verified = true;
  for (const auto& r : rows) all_verified = all_verified && r.verified;
  if (o.json) {
    for (const auto& r : rows) std::cout << cpu::to_json(r).dump() << "\n";
  } else {
    const auto& f = cpu::detect();
    std::printf("cpu: %s; TSC %.3f GHz; core cycle counter: %s; %d samples of >= %.3f s each (median shown)\n\n",
                f.model.c_str(), cpu::tsc_hz() / 1e9,
                cpu::core_cycle_counter_available() ? "perf_event_open" : "not available", o.repetitions,
                o.min_time_s);
    if (o.threads > 1 && !rows.empty()) {
      std::string where;
      for (int c : rows.front().cpus) where += (where.empty() ? "" : " ") + std::to_string(c);
      std::printf("%d threads side by side, each on its own copy of the data, placement %s (CPUs: %s); figures are "
                  "per block of all threads\n\n",
                  o.threads, rows.front().placement.c_str(), where.empty() ? "not pinned" : where.c_str());
    }
    print_table(rows, o.bytes);
  }
  if (!all_verified) {
    std::cout.flush();
    std::cerr << "poreplab: error: an engine's output differs from the portable code (rows marked MISMATCH)\n";
    set_exit_status(1);
  }
}

// GPU rows: one thread's dependent chain (latency, the SDR pattern) and every thread
// slot of the device with its own chain (throughput), timed with CUDA events.
void run_hash_cuda(const hash_cli_options& o) {
#ifdef POREPLAB_WITH_CUDA
  bool all_verified = true;
  for (const auto a : algos_named(o.algo)) {
    for (const auto m : modes_named(o.mode)) {
      cuda::hash_bench_options opt;
      opt.algo = a;
      opt.mode = m;
      opt.samples = static_cast<std::uint32_t>(std::max(1, o.repetitions));
      const auto r = cuda::bench_hash_gpu(opt);
      all_verified = all_verified && r.verified;
      const double cpb = r.cycles_per_compression / r.block_bytes;
      if (o.json) {
        nlohmann::json j = {{"kind", "hash"},
                            {ctx::backend, backend_of(device_class::gpu)},
                            {"algo", hash_family_name(a)},
                            {ctx::engine, backend_of(device_class::gpu)},
                            {"mode", hash_bench_mode_name(m)},
                            {"lanes", r.blocks * r.threads},
                            {"ns_per_block", r.ns_per_compression},
                            {"gbps", r.bytes_per_s / 1e9},
                            {"cycles_per_byte", cpb},
                            {ctx::device, r.device.name},
                            {"sm_count", r.device.multiprocessors},
                            {"clock_mhz", r.device.clock_khz / 1000},
                            {key::verified, r.verified},
                            {"samples_s", r.samples_s}};
        std::cout << j.dump() << "\n";
      } else {
        std::printf("%-8s %-10s %s (%d SMs, %d MHz): %.2f ns/compression, %.3f GB/s, %.2f SM-cycles/byte, %s\n",
                    hash_family_name(a).data(), hash_bench_mode_name(m).data(), r.device.name.c_str(),
                    r.device.multiprocessors, r.device.clock_khz / 1000, r.ns_per_compression, r.bytes_per_s / 1e9,
                    cpb, r.verified ? "verified" : "MISMATCH");  // words, not record keys
      }
    }
  }
  if (!all_verified) set_exit_status(1);
#else
  (void)o;
  throw unavailable_error("cuda backend unavailable: built without CUDA (POREPLAB_CUDA=OFF or no nvcc)");
#endif
}

}  // namespace

void add_bench_command(CLI::App& app) {
  CLI::App* bench = bench_group(app);
  auto o = std::make_shared<hash_cli_options>();
  auto* cmd = bench->add_subcommand("hash", "Hash engine speed (ns per block, GB/s, cycles per byte) vs OpenSSL EVP");
  cmd->add_option("--backend", o->backend,
                  join(backends_of({device_class::host_cpu, device_class::gpu}), " | ") +
                      ": the host CPU's (every engine) or the GPU's (its chain latency and throughput)")
      ->capture_default_str();
  cmd->add_option("--algo", o->algo, join(with_all(kHashFamilies.names()), " | "))
      ->check(CLI::IsMember(with_all(kHashFamilies.names())))
      ->capture_default_str();
  cmd->add_option("--engine", o->engine, "an engine name, all (every one this CPU runs) or openssl")
      ->capture_default_str();
  cmd->add_option("--mode", o->mode, join(with_all(kHashBenchModes.names()), " | "))
      ->check(CLI::IsMember(with_all(kHashBenchModes.names())))
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
  cmd->add_option("--threads", o->threads,
                  "threads hashing side by side, each on its own copy of the data; with 2 or more, each row also "
                  "gives its rate over one thread of the same engine (what the other threads add) (cpu)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--placement", o->placement,
                  "where the threads are pinned: compact, spread (one per core first), siblings (both SMT threads "
                  "of a core first), cores, none (cpu)")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "one JSON object per row instead of the table");
  cmd->callback([o] {
    const auto on = device_class_of(o->backend);
    if (on == device_class::gpu)
      run_hash_cuda(*o);
    else if (on == device_class::host_cpu)
      run_hash(*o);
    else
      throw usage_error("--backend: '" + o->backend + "' is not " + join(backends_of({device_class::host_cpu, device_class::gpu}), " or "));
  });
}

}  // namespace poreplab::cli
