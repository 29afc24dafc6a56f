#include "report/pipeline.hpp"

#include <cmath>
#include <limits>
#include <optional>

#include "backends/device_class.hpp"
#include "model/gpu_model.hpp"
#include "model/pc2_model.hpp"
#include "poreplab/sdr/pc2_build.hpp"
#include "records/environment.hpp"
#include "records/schema.hpp"
#include "util/text.hpp"

namespace poreplab::verdict {

namespace key = records::key;
namespace axis = records::axis;
namespace ctx = records::ctx;

namespace {

using nlohmann::json;

source src(figure_status status, const std::string& detail) { return source{status, detail}; }

// Where a pc2 record's labels came from (records older than the axis: memory); none for a
// word this build does not know.
std::optional<records::pc2_source> source_of(const json& axes) {
  const json& s = axes.value(axis::source, json());
  if (!s.is_string()) return records::pc2_source::memory;
  if (!records::kPc2Sources.has(s.get<std::string>())) return std::nullopt;
  return records::kPc2Sources.parse(s.get<std::string>());
}

// What a pc2 record's end to end is: from files, the pace that bound it and the device's
// kernels beside it; from memory, synthetic.
std::string pc2_basis(const json& axes, const json& context) {
  if (source_of(axes) == records::pc2_source::memory)
    return "from labels in memory (synthetic: no disk read)";
  std::string s = "from files read off the disk, end to end";
  const json& pace = context.value(ctx::pace, json());
  if (pace.is_string()) s += ", its pace set by the " + pace.get<std::string>();
  const double kernels = context.value(ctx::kernel_ns_per_node, -1.0);
  if (kernels >= 0) s += "; its kernels alone " + format_number(kernels, 4) + " ns per node";
  return s;
}

// One sector's PC2 on a backend of class `on` (host CPU: all its threads; GPU: the device) from the pc2
// records of this layer count: read from files before from memory, then at this size
// (measured; a window's per-node rate is "measured on a window"), else the nearest size
// (extrapolated per node: PC2's work per node does not depend on the size). `hasher`
// receives the record's hasher name.
figure pc2_seconds(const size_row& row, const records::result_set& in, device_class on, std::string* hasher,
                   double* threads = nullptr) {
  const json* best = nullptr;
  std::uint64_t best_size = 0;
  std::string best_where;
  double best_dist = std::numeric_limits<double>::infinity();
  bool best_files = false;
  for (const auto& r : in.records) {
    const json& p = r.point;
    if (!records::is_ok(p, records::record_kind::pc2)) continue;
    const json& axes = p.value(key::axes, json::object());
    if (!backend_is(axes.value(axis::backend, ""), on) || axes.value(axis::layers, 0u) != row.layers) continue;
    if (axes.contains(axis::threads) && axes[axis::threads].is_number() && axes[axis::threads].get<std::uint64_t>() != 0) continue;
    const std::uint64_t size = axes.value(axis::sector_size, std::uint64_t{0});
    if (size == 0 || !p.contains(key::stats)) continue;
    const double dist = std::fabs(std::log2(double(size)) - std::log2(double(row.sector_size)));
    const auto source = source_of(axes);
    if (!source) continue;
    const bool files = *source == records::pc2_source::files;
    if (files > best_files || (files == best_files && dist < best_dist)) {
      best_files = files;
      best_dist = dist;
      best = &p;
      best_size = size;
      best_where = r.where;
    }
  }
  figure f;
  if (best == nullptr) {
    f.from = src(figure_status::none, "no pc2 record on the " + backend_of(on) + " backend with " + std::to_string(row.layers) + " layers");
    return f;
  }
  const json context = (*best).value(key::context, json::object());
  if (hasher != nullptr) *hasher = context.value(ctx::hasher, backend_of(on));
  if (threads != nullptr) *threads = context.value(ctx::threads, 0.0);
  const double ns = (*best)[key::stats].value("median", 0.0);
  // window_nodes; records written before the axis took the label kind's name say window.
  const json& axes = (*best)[key::axes];
  const std::uint64_t window = axes.value(axis::window_nodes, axes.value("window", std::uint64_t{0}));
  f.value = ns * double(row.nodes) * 1e-9;
  const std::string how = format_number(ns, 4) + " ns per node" +
                          (window != 0 ? " on a " + std::to_string(window) + "-node window" : std::string()) +
                          " " + pc2_basis(axes, context) + " (record " + best_where + ") x " + std::to_string(row.nodes) +
                          " nodes";
  f.from = best_size == row.sector_size ? src(figure_status::measured, how)
                                        : src(figure_status::extrapolated, how + ", measured at " + format_size(best_size));
  return f;
}

const device_row* find_row(const size_row& row, std::initializer_list<device_kind> kinds) {
  for (const device_kind k : kinds)
    for (const auto& d : row.devices)
      if (d.kind == k) return &d;
  return nullptr;
}

// Device-hours per sector of a PC1 row: at its best batch, else one sector at a time.
figure pc1_hours(const device_row& d) {
  if (d.sectors_per_hour.value && *d.sectors_per_hour.value > 0)
    return {1.0 / *d.sectors_per_hour.value, d.sectors_per_hour.from};
  // A real size whose bound says no sector fits is not sealed one at a time either.
  if (d.sectors_per_hour.value && !d.bound.empty()) return {std::nullopt, src(figure_status::none, "no sector fits: " + d.bound)};
  if (d.pc1_seconds.value && *d.pc1_seconds.value > 0) {
    source s = d.pc1_seconds.from;
    s.detail += "; one sector at a time (no batch rate at this size)";
    return {*d.pc1_seconds.value / 3600.0, s};
  }
  return {std::nullopt, src(figure_status::none, "no PC1 figure")};
}

// Phases on one device take turns: a sector costs the sum of their per-sector times at
// the device's best rates. On two devices they overlap: the slower sets the pace.
pipeline_row combine(std::string mix, const device_row& pc1, const figure& pc2_seconds, const std::string& pc2_device,
                     bool shared) {
  pipeline_row p;
  p.mix = std::move(mix);
  p.pc1_device = pc1.device;
  p.pc2_device = pc2_device;
  p.pc1_seconds = pc1.pc1_seconds;
  p.pc2_seconds = pc2_seconds;
  const figure h1 = pc1_hours(pc1);
  if (!h1.value || !pc2_seconds.value || *pc2_seconds.value <= 0) {
    p.sectors_per_hour.from = src(figure_status::none, "a phase has no figure");
    return p;
  }
  const double pc2_hours = *pc2_seconds.value / 3600.0;
  const double per_hour = shared ? 1.0 / (*h1.value + pc2_hours) : 1.0 / std::max(*h1.value, pc2_hours);
  p.sectors_per_hour = {per_hour, weakest(h1.from, pc2_seconds.from)};
  p.bottleneck = *h1.value >= pc2_hours ? "PC1" : "PC2";
  return p;
}

// One sector's PC2 on one GPU of `arch` by the PC2 model (its FMA pipe saturated).
figure modeled_gpu_pc2(const size_row& row, const std::string& arch, std::string* device) {
  figure f;
  try {
    const auto table = gpu_model::load_latency_table({});
    const auto& a = gpu_model::arch_of(table, arch);
    const double mults = sdr::pc2_multiplies(row.nodes, row.layers, sdr::tree_shape_for_sector_size(row.sector_size));
    const auto e = gpu_model::best_pc2_model(a, mults);
    f = {e.sector_seconds, src(figure_status::modeled, format_number(mults, 4) +
                                              " Fr multiplies (neptune's optimized Poseidon) at the bound of " +
                                              e.basis)};
    if (device != nullptr) *device = "GPU MODEL: " + a.device;
  } catch (const std::exception& e) {
    f.from = src(figure_status::none, std::string("the PC2 model cannot run: ") + e.what());
  }
  return f;
}

// "sm_90" from the first CUDA device of the header of a cuda pc2 record, "" when none.
std::string measured_pc2_arch(const records::result_set& in) {
  for (const auto& r : in.records) {
    const json& p = r.point;
    if (!records::is_ok(p, records::record_kind::pc2)) continue;
    if (!backend_is(p.value(key::axes, json::object()).value(axis::backend, ""), device_class::gpu)) continue;
    const records::machine_facts m = records::machine_facts_of(r.header);
    if (m.gpus.empty() || !m.gpus[0].recorded) continue;
    if (const std::string arch = m.gpus[0].arch(); !arch.empty()) return arch;
  }
  return {};
}

}  // namespace

figure pc2_seconds_on_gpu(const size_row& row, const records::result_set& in, const std::string& arch, std::string* device) {
  if (!arch.empty() && arch == measured_pc2_arch(in)) {
    figure one = pc2_seconds(row, in, device_class::gpu, device);
    if (one.value) {
      one.from = src(figure_status::extrapolated, one.from.detail + " (a measured GPU of the same architecture, " + arch + ")");
      return one;
    }
  }
  return modeled_gpu_pc2(row, arch, device);
}

figure pc2_seconds_on_cpu(const size_row& row, const records::result_set& in, std::uint32_t threads) {
  double measured_threads = 0;
  const figure here = pc2_seconds(row, in, device_class::host_cpu, nullptr, &measured_threads);
  figure f;
  if (!here.value || measured_threads <= 0 || threads == 0) {
    f.from = here.value ? src(figure_status::none, "the cpu pc2 record has no thread count") : here.from;
    return f;
  }
  return {*here.value * measured_threads / threads,
          src(figure_status::extrapolated, here.from.detail + " on " + format_number(measured_threads) + " threads, scaled to " +
                                  std::to_string(threads) + "; assumes its threads as fast as this run's")};
}

void fill_machine_pipeline(size_row& row, const machine& m, const records::result_set& in, const std::string& measured_gpu_arch,
                           const records::result_set& references) {
  const machine_row* cpu = nullptr;
  for (const auto& r : row.machines)
    if (r.machine == m.name && r.kind == device_kind::cpu) cpu = &r;
  if (cpu == nullptr) return;
  pipeline_row p;
  p.pc1_device = cpu->part;
  p.pc1_seconds = cpu->pc1_seconds;
  const figure& pc1_rate = cpu->sectors_per_hour;
  if (m.gpus.empty()) {
    // PC2 on the same cores: this run's CPU PC2 per thread, times the machine's threads.
    double threads = 0;
    std::string hasher;
    const figure here = pc2_seconds(row, in, device_class::host_cpu, &hasher, &threads);
    p.mix = m.name + ": PC1 and PC2 on its CPU";
    p.pc2_device = cpu->part;
    if (here.value && threads > 0) {
      p.pc2_seconds = {*here.value * threads / m.threads,
                       src(figure_status::extrapolated, here.from.detail + " on " + format_number(threads) + " threads, scaled to " +
                                               std::to_string(m.threads) + "; assumes its threads as fast as this run's")};
    } else {
      p.pc2_seconds.from = here.value ? src(figure_status::none, "the cpu pc2 record has no thread count") : here.from;
    }
    if (pc1_rate.value && p.pc2_seconds.value && *pc1_rate.value > 0) {
      const double h1 = 1.0 / *pc1_rate.value, h2 = *p.pc2_seconds.value / 3600.0;
      p.sectors_per_hour = {1.0 / (h1 + h2), weakest(pc1_rate.from, p.pc2_seconds.from)};
      p.bottleneck = h1 >= h2 ? "PC1" : "PC2";
    } else {
      p.sectors_per_hour.from = src(figure_status::none, "a phase has no figure");
    }
    row.machine_pipeline.push_back(p);
    return;
  }
  // PC2 on its GPUs, overlapping PC1 on its CPU: each GPU kind measured when this run
  // measured its architecture, else modeled.
  double pc2_per_hour = 0;
  source pc2_from = src(figure_status::measured, "");
  std::string parts;
  for (const auto& mg : m.gpus) {
    std::string name;
    figure one = mg.arch == measured_gpu_arch ? pc2_seconds(row, in, device_class::gpu, &name) : figure{};
    if (one.value) {
      one.from = src(figure_status::extrapolated, one.from.detail + " (this run's GPU, " + mg.arch + ")");
    } else if (!mg.arch.empty() && mg.arch == measured_pc2_arch(references)) {
      one = pc2_seconds(row, references, device_class::gpu, &name);
      if (one.value) one.from = src(figure_status::extrapolated, one.from.detail + " (a GPU of the same architecture measured elsewhere, " + mg.arch + ")");
    }
    if (!one.value) one = modeled_gpu_pc2(row, mg.arch, nullptr);
    parts += (parts.empty() ? "" : " + ") + std::to_string(mg.count) + "x " + mg.name;
    if (!one.value || *one.value <= 0) {
      pc2_from = one.from;
      pc2_per_hour = 0;
      break;
    }
    if (!p.pc2_seconds.value) p.pc2_seconds = one;  // one sector on the first kind's GPU
    pc2_per_hour += mg.count * 3600.0 / *one.value;
    pc2_from = pc2_from.detail.empty() ? one.from : weakest(pc2_from, one.from);
  }
  p.mix = m.name + ": PC1 on its CPU, PC2 on its " + parts;
  p.pc2_device = parts;
  if (pc1_rate.value && pc2_per_hour > 0) {
    p.sectors_per_hour = {std::min(*pc1_rate.value, pc2_per_hour), weakest(pc1_rate.from, pc2_from)};
    p.bottleneck = *pc1_rate.value <= pc2_per_hour ? "PC1" : "PC2";
  } else {
    p.sectors_per_hour.from = src(figure_status::none, pc2_per_hour > 0 ? "no PC1 rate for its CPU" : "no PC2 figure for its GPUs");
  }
  row.machine_pipeline.push_back(p);
}

void fill_pipeline(size_row& row, const records::result_set& in, const records::result_set& references) {
  const device_row* cpu = find_row(row, {device_kind::cpu});
  const device_row* core = find_row(row, {device_kind::cpu_core});
  const device_row* gpu = find_row(row, {device_kind::gpu, device_kind::gpu_reference, device_kind::gpu_model});
  const figure cpu_pc2 = pc2_seconds(row, in, device_class::host_cpu, nullptr);
  std::string gpu_name;
  figure gpu_pc2 = pc2_seconds(row, in, device_class::gpu, &gpu_name);
  // A GPU's PC2 measured (a pc2 record on cuda) wins over the model: here, else elsewhere.
  if (!gpu_pc2.value && !references.records.empty()) {
    gpu_pc2 = pc2_seconds(row, references, device_class::gpu, &gpu_name);
    gpu_name = "GPU, measured elsewhere: " + gpu_name;
  }
  if (!gpu_pc2.value) gpu_pc2 = modeled_gpu_pc2(row, "sm_90", &gpu_name);
  if (cpu != nullptr) row.pipeline.push_back(combine("CPU only", *cpu, cpu_pc2, cpu->device, true));
  if (gpu != nullptr) row.pipeline.push_back(combine("GPU only", *gpu, gpu_pc2, gpu_name, true));
  if (cpu != nullptr && gpu_pc2.value)
    row.pipeline.push_back(combine("PC1 on the CPU, PC2 on the GPU", *cpu, gpu_pc2, gpu_name, false));
  const figure core_hours = core != nullptr ? pc1_hours(*core) : figure{};
  if (core_hours.value && gpu_pc2.value) {
    // One core labels 1 / core_hours sectors an hour; the GPU's PC2 takes gpu_pc2 each.
    row.cores_per_gpu = {*core_hours.value * 3600.0 / *gpu_pc2.value, weakest(core_hours.from, gpu_pc2.from)};
  } else {
    row.cores_per_gpu.from = src(figure_status::none, "no one-core PC1 rate or no GPU PC2 figure");
  }
}

}  // namespace poreplab::verdict
