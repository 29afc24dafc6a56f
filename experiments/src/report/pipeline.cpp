#include "report/pipeline.hpp"

#include <cmath>
#include <limits>

#include "model/gpu_model.hpp"
#include "model/pc2_model.hpp"
#include "poreplab/sdr/pc2_build.hpp"
#include "util/text.hpp"

namespace poreplab::verdict {

namespace {

using nlohmann::json;

source src(const std::string& status, const std::string& detail) { return source{status, detail}; }

source worst(const source& a, const source& b) {
  auto rank = [](const std::string& s) { return s == "measured" ? 0 : s == "extrapolated" ? 1 : s == "modeled" ? 2 : 3; };
  source s = rank(a.status) >= rank(b.status) ? a : b;
  s.detail = a.detail + "; " + b.detail;
  return s;
}

// The whole CPU's PC2 of one sector from the pc2 records of this layer count: at this size
// (measured; a window's per-node rate is "measured on a window"), else the nearest size
// (extrapolated per node: PC2's work per node does not depend on the size).
figure cpu_pc2_seconds(const size_row& row, const amax::inputs& in) {
  const json* best = nullptr;
  std::uint64_t best_size = 0;
  std::string best_where;
  double best_dist = std::numeric_limits<double>::infinity();
  for (const auto& r : in.records) {
    const json& p = r.point;
    if (p.value("kind", "") != "pc2" || p.value("status", "") != "ok") continue;
    const json& axes = p.value("axes", json::object());
    if (axes.value("backend", "") != "cpu" || axes.value("layers", 0u) != row.layers) continue;
    if (axes.contains("threads") && axes["threads"].is_number() && axes["threads"].get<std::uint64_t>() != 0) continue;
    const std::uint64_t size = axes.value("sector_size", std::uint64_t{0});
    if (size == 0 || !p.contains("stats")) continue;
    const double dist = std::fabs(std::log2(double(size)) - std::log2(double(row.sector_size)));
    if (dist < best_dist) {
      best_dist = dist;
      best = &p;
      best_size = size;
      best_where = r.where;
    }
  }
  figure f;
  if (best == nullptr) {
    f.from = src("none", "no pc2 record on the cpu backend with " + std::to_string(row.layers) + " layers");
    return f;
  }
  const double ns = (*best)["stats"].value("median", 0.0);
  const std::uint64_t window = (*best)["axes"].value("window", std::uint64_t{0});
  f.value = ns * double(row.nodes) * 1e-9;
  const std::string how = format_number(ns, 4) + " ns per node" +
                          (window != 0 ? " on a " + std::to_string(window) + "-node window" : std::string()) +
                          " (record " + best_where + ") x " + std::to_string(row.nodes) + " nodes";
  f.from = best_size == row.sector_size ? src("measured", how)
                                        : src("extrapolated", how + ", measured at " + format_size(best_size));
  return f;
}

const device_row* find_row(const size_row& row, std::initializer_list<const char*> kinds) {
  for (const char* k : kinds)
    for (const auto& d : row.devices)
      if (d.kind == k) return &d;
  return nullptr;
}

// Device-hours per sector of a PC1 row: at its best batch, else one sector at a time.
figure pc1_hours(const device_row& d) {
  if (d.sectors_per_hour.value && *d.sectors_per_hour.value > 0)
    return {1.0 / *d.sectors_per_hour.value, d.sectors_per_hour.from};
  if (d.pc1_seconds.value && *d.pc1_seconds.value > 0) {
    source s = d.pc1_seconds.from;
    s.detail += "; one sector at a time (no batch rate at this size)";
    return {*d.pc1_seconds.value / 3600.0, s};
  }
  return {std::nullopt, src("none", "no PC1 figure")};
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
    p.sectors_per_hour.from = src("none", "a phase has no figure");
    return p;
  }
  const double pc2_hours = *pc2_seconds.value / 3600.0;
  const double per_hour = shared ? 1.0 / (*h1.value + pc2_hours) : 1.0 / std::max(*h1.value, pc2_hours);
  p.sectors_per_hour = {per_hour, worst(h1.from, pc2_seconds.from)};
  p.bottleneck = *h1.value >= pc2_hours ? "PC1" : "PC2";
  return p;
}

}  // namespace

void fill_pipeline(size_row& row, const amax::inputs& in) {
  const device_row* cpu = find_row(row, {"cpu"});
  const device_row* core = find_row(row, {"cpu-core"});
  const device_row* gpu = find_row(row, {"gpu", "gpu-model"});
  const figure cpu_pc2 = cpu_pc2_seconds(row, in);
  figure gpu_pc2;
  std::string gpu_name;
  try {
    const auto table = gpu_model::load_latency_table({});
    const auto& a = gpu_model::arch_of(table, "sm_90");
    const double mults = sdr::pc2_multiplies(row.nodes, row.layers, sdr::tree_shape_for_sector_size(row.sector_size));
    const auto e = gpu_model::model_pc2(a, mults, true);
    gpu_pc2 = {e.sector_seconds, src("modeled", format_number(mults, 4) + " Fr multiplies (neptune's optimized "
                                                                          "Poseidon) at the FMA-pipe bound of " +
                                                                          e.basis)};
    gpu_name = "GPU MODEL: " + a.device;
  } catch (const std::exception& e) {
    gpu_pc2.from = src("none", std::string("the PC2 model cannot run: ") + e.what());
  }
  if (cpu != nullptr) row.pipeline.push_back(combine("CPU only", *cpu, cpu_pc2, cpu->device, true));
  if (gpu != nullptr) row.pipeline.push_back(combine("GPU only", *gpu, gpu_pc2, gpu_name, true));
  if (cpu != nullptr && gpu_pc2.value)
    row.pipeline.push_back(combine("PC1 on the CPU, PC2 on the GPU", *cpu, gpu_pc2, gpu_name, false));
  const figure core_hours = core != nullptr ? pc1_hours(*core) : figure{};
  if (core_hours.value && gpu_pc2.value) {
    // One core labels 1 / core_hours sectors an hour; the GPU's PC2 takes gpu_pc2 each.
    row.cores_per_gpu = {*core_hours.value * 3600.0 / *gpu_pc2.value, worst(core_hours.from, gpu_pc2.from)};
  } else {
    row.cores_per_gpu.from = src("none", "no one-core PC1 rate or no GPU PC2 figure");
  }
}

}  // namespace poreplab::verdict
