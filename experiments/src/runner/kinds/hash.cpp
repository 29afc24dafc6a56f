// The `hash` kind: one hash engine (or OpenSSL's EVP, the reference row) in one pattern,
// through bench_hash (the same measurement as `poreplab bench hash`).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "poreplab/cpu/bench.hpp"
#include "backends/device_class.hpp"
#include "poreplab/cpu/engines.hpp"
#include "poreplab/cpu/latency.hpp"
#include "poreplab/cpu/reference.hpp"
#include "poreplab/hash/algo.hpp"
#include "poreplab/hex.hpp"
#include "records/schema.hpp"
#include "runner/kinds.hpp"
#ifdef POREPLAB_WITH_CUDA
#include "poreplab/cuda/bench.hpp"
#include "poreplab/cuda/devices.hpp"
#endif

namespace poreplab::runner {

namespace key = records::key;
namespace axis = records::axis;
namespace ctx = records::ctx;

using nlohmann::json;

// The digest a record carries: the engine's digest of a fixed message, compared with the
// portable streaming implementation (and OpenSSL's row with OpenSSL's own EVP digest).
known_answer engine_known_answer(hash_family a, const std::string& name) {
  std::vector<std::uint8_t> msg(1000);
  for (std::size_t i = 0; i < msg.size(); ++i) msg[i] = static_cast<std::uint8_t>(i * 131 + 7);
  const hash_algo portable = full_digest(a);
  const auto want = hash_bytes(portable, msg.data(), msg.size());
  std::vector<std::uint8_t> got;
  if (cpu::find_reference(name) != nullptr) {
    try {
      got = cpu::openssl_digest(a, msg.data(), msg.size());
    } catch (const std::runtime_error&) {
      got.clear();  // no digest: the record says it does not match
    }
  } else {
    got = cpu::full_digest_of(cpu::find_engine(a, name), msg.data(), msg.size());
  }
  return {to_hex(got), got == want,
          std::string("the portable ") + std::string(hash_algo_name(portable)) + " of a 1000-byte message"};
}

std::string engine_unavailable_reason(const json& axes) {
  const std::string name = axes[axis::engine];
  if (const cpu::reference* r = cpu::find_reference(name))
    return cpu::reference_covers(*r, algo_of(axes)) ? std::string() : name + " is a SHA-256 row only";
  try {
    cpu::find_engine(algo_of(axes), name);
  } catch (const cpu::engine_unavailable& e) {
    return e.what();
  } catch (const std::invalid_argument& e) {
    return e.what();  // an engine of another algo: e.g. "shani" asked for blake2s
  }
  return {};
}

namespace {

bool on_gpu(const json& axes) { return axes.contains(axis::backend) && axes[axis::backend].is_string() && backend_is(axes[axis::backend].get<std::string>(), device_class::gpu); }

std::string unavailable(const json& axes) {
  if (on_gpu(axes)) {
#ifdef POREPLAB_WITH_CUDA
    const auto report = cuda::query_devices();
    return report.available ? std::string() : "cuda backend unavailable: " + report.reason;
#else
    return "cuda backend is not in this build (built without CUDA: POREPLAB_CUDA=OFF or no nvcc)";
#endif
  }
  return engine_unavailable_reason(axes);
}

#ifdef POREPLAB_WITH_CUDA
// One GPU thread running one dependent chain (chain) or every thread slot its own chain
// (throughput), timed with CUDA events; the device checks chains against the host.
measurement run_gpu(const json& axes, std::uint32_t warmup, std::uint32_t samples) {
  const hash_family a = algo_of(axes);
  cuda::hash_bench_options o;
  o.algo = a;
  o.mode = parse_hash_bench_mode(axes["mode"].get<std::string>());
  const bool chain = o.mode == hash_bench_mode::chain;
  o.warmup = warmup;
  o.samples = samples;
  const auto r = cuda::bench_hash_gpu(o);
  measurement m;
  m.metric = "ns_per_block";
  // ns per compression: per dependent step (chain) or per compression of the device.
  for (double s : r.samples_s) m.samples.push_back(s * 1e9 / static_cast<double>(r.compressions));
  m.verified = r.verified;
  m.verified_against = "the host's portable compression of the first, middle and last chains";
  m.digest = hash_family_name(a);
  const double ns = r.ns_per_compression;
  m.context = {{ctx::engine, backend_of(device_class::gpu)},
               {ctx::backend, backend_of(device_class::gpu)},
               {ctx::device, r.device.name},
               {"clock_mhz", r.device.clock_khz / 1000.0},
               {"multiprocessors", r.device.multiprocessors},
               {"lanes", chain ? std::uint64_t{1} : r.options.chains},
               {"block_bytes", r.block_bytes},
               {"ns_per_block", ns},
               {"lane_ns_per_block", chain ? ns : 0.0},
               {"gb_per_s", r.bytes_per_s / 1e9},
               {"cycles_per_compression", r.cycles_per_compression},
               {"reference", false}};
  return m;
}
#endif

// A reference row with OPENSSL_ia32cap set, measured by a child poreplab: OpenSSL reads
// the mask when libcrypto starts.
std::vector<cpu::hash_bench_row> bench_openssl_masked(const cpu::reference& ref, const json& axes, int repetitions) {
  const std::string who(ref.name);
  std::error_code ec;
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec || exe.empty() || exe.find('\'') != std::string::npos)
    throw std::runtime_error(who + ": cannot name this executable for the child run");
  std::string cmd = "OPENSSL_ia32cap='";
  cmd += ref.ia32cap;
  cmd += "' '";
  cmd += exe;
  cmd += "' bench hash --algo ";
  cmd += hash_family_name(algo_of(axes));
  cmd += " --engine ";
  cmd += cpu::kOpenssl;
  cmd += " --json --mode ";
  cmd += axes["mode"].get<std::string>();
  cmd += " --bytes " + std::to_string(axes["size"].get<std::uint64_t>());
  cmd += " --repetitions " + std::to_string(repetitions);
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) throw std::runtime_error(who + ": cannot start the child run");
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  const int status = pclose(f);
  if (status != 0) throw std::runtime_error(who + ": the child run failed (status " + std::to_string(status) + ")");
  std::vector<cpu::hash_bench_row> rows;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.front() != '{') continue;
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || j.value(ctx::engine, "") != cpu::kOpenssl) continue;
    cpu::hash_bench_row r;
    r.algo = parse_hash_family(j.value("algo", "sha256"));
    r.engine = who;
    r.mode = parse_hash_bench_mode(j.value("mode", ""));
    r.lanes = j.value("lanes", std::size_t{1});
    r.block_bytes = j.value("block_bytes", std::size_t{64});
    r.blocks_per_pass = j.value("blocks_per_pass", std::size_t{0});
    r.passes_per_sample = j.value("passes_per_sample", std::size_t{0});
    r.ns_per_block = j.value("ns_per_block", 0.0);
    r.lane_ns_per_block = j.value("lane_ns_per_block", 0.0);
    r.gbps = j.value("gb_per_s", 0.0);
    r.cycles_per_byte_tsc = j.value("cycles_per_byte", 0.0);
    if (j.contains("samples") && j["samples"].is_array()) r.samples = j["samples"].get<std::vector<double>>();
    r.verified = j.value(key::verified, false);
    rows.push_back(std::move(r));
  }
  if (rows.empty()) throw std::runtime_error(who + ": the child run printed no OpenSSL row");
  return rows;
}

measurement run(const json& axes, std::uint32_t warmup, std::uint32_t samples) {
#ifdef POREPLAB_WITH_CUDA
  if (on_gpu(axes)) return run_gpu(axes, warmup, samples);
#endif
  const hash_family a = algo_of(axes);
  const std::string name = axes[axis::engine];
  cpu::hash_bench_options o;
  o.bytes_per_lane = axes["size"].get<std::size_t>();
  o.repetitions = static_cast<int>(warmup + samples);
  o.modes = {parse_hash_bench_mode(axes["mode"].get<std::string>())};
  const cpu::reference* ref = cpu::find_reference(name);
  o.openssl = ref != nullptr && ref->ia32cap.empty();
  const auto rows = ref != nullptr && !ref->ia32cap.empty() ? bench_openssl_masked(*ref, axes, o.repetitions)
                                                           : cpu::bench_hash(a, name, o);
  const auto row = std::find_if(rows.begin(), rows.end(), [&](const cpu::hash_bench_row& r) {
    return r.engine == name && r.mode == o.modes.front();
  });
  if (row == rows.end()) throw std::runtime_error("bench_hash returned no row for engine " + name);

  measurement m;
  m.metric = "ns_per_block";
  // The first `warmup` repetitions are dropped; bench_hash's own medians cover them all,
  // so its rates travel in the context and are rescaled to this median.
  const auto skip = std::min<std::size_t>(warmup, row->samples.size() > 1 ? row->samples.size() - 1 : 0);
  m.samples.assign(row->samples.begin() + static_cast<std::ptrdiff_t>(skip), row->samples.end());
  const known_answer k = engine_known_answer(a, name);
  m.digest = k.digest;
  m.verified = row->verified && k.matches;
  m.verified_against = k.against + (row->verified ? "" : "; bench_hash found the engine's output wrong");
  // bench hash's row whole (its one serializer), less the point's axes, the samples and
  // the verdict the record keeps at its top level, and less the fields it left empty.
  m.context = cpu::to_json(*row);
  for (const char* echo : {records::key::kind, records::key::samples, records::key::verified, "algo", "mode"})
    m.context.erase(echo);
  for (auto it = m.context.begin(); it != m.context.end();) it = it->is_null() ? m.context.erase(it) : std::next(it);
  m.context["reference"] = ref != nullptr;
  if (ref != nullptr && !ref->ia32cap.empty()) m.context["openssl_ia32cap"] = std::string(ref->ia32cap);
  // The engine's dependency-chain limit from instruction latencies measured on this CPU.
  if (auto l = cpu::critical_path_cycles_per_byte_tsc(a, name)) m.context["critical_path_cycles_per_byte"] = *l;
  return m;
}

json rates(const json&, const json& ctx, double median) {
  json r = {{"ns_per_block", median}};
  const double own = ctx.value("ns_per_block", 0.0);
  if (own <= 0 || median <= 0) return r;
  const double time_scale = median / own;  // >1: this median is slower than bench_hash's
  r["cycles_per_byte"] = ctx.value("cycles_per_byte", 0.0) * time_scale;
  if (ctx.contains("cycles_per_byte_core")) r["cycles_per_byte_core"] = ctx["cycles_per_byte_core"].get<double>() * time_scale;
  r["gb_per_s"] = ctx.value("gb_per_s", 0.0) / time_scale;
  r["lane_ns_per_block"] = ctx.value("lane_ns_per_block", 0.0) * time_scale;
  if (ctx.contains("critical_path_cycles_per_byte")) r["critical_path_cycles_per_byte"] = ctx["critical_path_cycles_per_byte"];
  return r;
}

}  // namespace

kind_spec hash_kind() {
  kind_spec k;
  k.name = records::kind_name(records::record_kind::hash);
  k.help = "one hash engine (or OpenSSL, the reference) hashing independent messages or dependent chains";
  auto algo = algo_axis();
  auto engine = text_param(
      axis::engine, "all",
      [] {
        auto v = all_engine_names();
        for (const auto& r : cpu::kReferences) v.emplace_back(r.name);
        return v;
      },
      "engine name, openssl (the EVP reference), or all = every compiled engine of the algo and openssl");
  engine.all = [](const json& axes) {
    auto v = engine_names(algo_of(axes));
    v.emplace_back(cpu::kOpenssl);  // a masked reference (a child process) only when named
    return v;
  };
  auto mode = text_param(
      "mode", "throughput", [] { return kHashBenchModes.names(); },
      "throughput: independent messages, one per lane; chain: dependent chains, the SDR pattern");
  auto backend = text_param(
      axis::backend, backend_of(device_class::host_cpu), [] { return backends_of({device_class::host_cpu, device_class::gpu}); },
      "the host CPU's backend: the engines; the GPU's: its hash-chain kernels (chain = one thread's dependent chain)");
  engine.applies = [](const json& a) { return !on_gpu(a); };
  auto size = size_param("size", 16 * 1024, 64, false, "message bytes per lane in one pass, e.g. 16KiB (cpu)");
  size.applies = [](const json& a) { return !on_gpu(a); };
  k.axes = {backend, algo, engine, mode, size};
  k.unavailable = unavailable;
  k.run = run;
  k.rates = rates;
  return k;
}

}  // namespace poreplab::runner
