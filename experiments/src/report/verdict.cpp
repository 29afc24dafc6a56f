#include "report/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "backends/device_class.hpp"
#include "poreplab/file_io.hpp"
#include "report/amax.hpp"
#include "model/gpu_model.hpp"
#include "poreplab/cpu/engines.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/cuda/memory_plan.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "records/environment.hpp"
#include "records/records.hpp"
#include "records/schema.hpp"
#include "report/pipeline.hpp"
#include "report/reference.hpp"
#include "report/storage.hpp"
#include "util/text.hpp"

namespace poreplab::verdict {

namespace key = records::key;
namespace axis = records::axis;
namespace ctx = records::ctx;
namespace rate = records::rate;

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// The sizes judged, by their V1_1 proofs.
constexpr const char* kProofs[] = {"StackedDrg2KiBV1_1", "StackedDrg8MiBV1_1", "StackedDrg512MiBV1_1",
                                   "StackedDrg32GiBV1_1", "StackedDrg64GiBV1_1"};
constexpr double kParentRowBytes = 56;

// One ok sdr/sha256 label record.
struct observation {
  std::string backend;
  device_class on = device_class::host_cpu;  // host_cpu, gpu or gpu_emulated
  std::string device;   // CPU model or GPU name
  std::string engine;   // cpu: the SHA-256 engine that ran
  std::uint64_t sector_size = 0;
  std::uint32_t sectors = 1;
  bool all_cores = false;  // cpu: threads 0 or every logical core
  bool one_core = false;   // cpu: one thread (or a one-core machine)
  int cores = 0;
  double ns_per_node_layer = 0;
  double labels_per_s = 0;
  double host_memory = 0;    // bytes of RAM of the machine that measured it (0: unknown)
  double device_memory = 0;  // cuda: the GPU's memory (0: unknown)
  std::string arch;          // cuda: "sm_90" from the recorded compute capability ("" unknown)
  std::uint64_t window_nodes = 0;  // > 0: timed on a node window of a full-size sector
  std::string window_pages;        // records::record_window_pages_text
  cpu::parent_producer producer = cpu::parent_producer::off;  // cpu: where a producer gathered the parents
  std::string where;
  std::string reference;  // measured elsewhere: "DATE, DATASET" (report/reference.hpp); "" here

  // One sector's hash chain with its parents gathered on another CPU: not one core's rate.
  bool uses_second_cpu() const { return producer == cpu::parent_producer::core || producer == cpu::parent_producer::sibling; }
  // " on a 65536-node window", or nothing for a whole sector.
  std::string how() const {
    std::string t = window_nodes > 0 ? " on a " + std::to_string(window_nodes) + "-node window" + window_pages : "";
    if (producer == cpu::parent_producer::core) t += ", parents gathered on a second core";
    if (producer == cpu::parent_producer::sibling) t += ", parents gathered on the SMT sibling";
    return t;
  }
};

// A column of the table: one device measured (or modeled) in some way.
struct device_group {
  device_kind kind;
  std::string label;
  std::vector<observation> single;      // sectors == 1 (the one-sector rate)
  std::vector<observation> throughput;  // every sector count (the best labels/s)
  double memory = 0;                    // RAM (cpu) or device memory (gpu)
  std::string memory_source;
  // gpu-model only
  double model_node_ns = 0, model_rate = 0;
  std::string model_detail;
  std::string arch;  // gpu, gpu-model: the architecture ("" unknown)
  std::string name;  // the CPU model or GPU name alone, for sentences
  std::string reference;  // gpu-reference: the dataset's date and place
};

std::string format_number(double v) { return poreplab::format_number(v, 3); }

// `datasets`: the set holds reference datasets' records (report/reference.hpp), each of the
// dataset named at its index.
std::vector<observation> read_observations(const records::result_set& in, const std::vector<std::string>* datasets = nullptr) {
  std::vector<observation> out;
  for (std::size_t i = 0; i < in.records.size(); ++i) {
    const auto& r = in.records[i];
    const json& p = r.point;
    if (!records::is_ok(p, records::record_kind::label)) continue;
    const json& axes = p.value(key::axes, json::object());
    const json& ctx = p.value(key::context, json::object());
    if (ctx.value(ctx::scheme, "sdr/sha256") != "sdr/sha256") continue;
    observation o;
    o.backend = axes.value(axis::backend, "");
    const auto on = device_class_of(o.backend);
    if (!on || *on == device_class::oracle) continue;
    o.on = *on;
    o.device = ctx.value(ctx::device, "");
    o.engine = ctx.value(ctx::engine, "");
    o.sector_size = axes.value(axis::sector_size, std::uint64_t{0});
    o.sectors = axes.value(axis::sectors, 1u);
    const double median = p.contains(key::stats) ? p[key::stats].value("median", 0.0) : 0.0;
    if (o.sector_size == 0 || median <= 0) continue;
    o.ns_per_node_layer = median;
    const json& rates = p.value(key::rates, json::object());
    o.labels_per_s = rates.value(rate::labels_per_s, o.sectors * 1e9 / median);
    const records::machine_facts machine = records::machine_facts_of(r.header);
    o.cores = static_cast<int>(machine.logical_cores.value_or(0));
    const std::uint64_t threads = axes.contains(axis::threads) && axes[axis::threads].is_number() ? axes[axis::threads].get<std::uint64_t>() : 0;
    o.all_cores = threads == 0 || (o.cores > 0 && threads >= static_cast<std::uint64_t>(o.cores));
    o.one_core = threads == 1 || o.cores == 1;
    o.host_memory = machine.memory_total_bytes.value_or(0);
    if (const records::gpu_facts* g = o.on == device_class::gpu ? machine.gpu(o.device) : nullptr) {
      o.device_memory = static_cast<double>(g->total_memory_bytes);
      o.arch = g->arch();
    }
    o.window_nodes = axes.value(axis::window_nodes, std::uint64_t{0});
    o.window_pages = records::record_window_pages_text(ctx);
    o.producer = records::record_producer(ctx);
    o.where = r.where;
    if (datasets != nullptr) {
      const std::string started = r.header.value(key::started, "");
      o.reference = (started.size() >= 10 ? started.substr(0, 10) + ", " : "") + datasets->at(i);
    }
    out.push_back(o);
  }
  return out;
}

std::vector<device_group> group_devices(const std::vector<observation>& obs) {
  std::vector<device_group> groups;
  // An index, not a reference: a later group may reallocate the vector.
  auto group = [&](device_kind kind, const std::string& label) -> std::size_t {
    for (std::size_t i = 0; i < groups.size(); ++i)
      if (groups[i].kind == kind && groups[i].label == label) return i;
    groups.push_back({kind, label, {}, {}, 0, {}, 0, 0, {}, {}, {}, {}});
    return groups.size() - 1;
  };
  const bool have_gpu = std::any_of(obs.begin(), obs.end(),
                                    [](const observation& o) { return o.on == device_class::gpu && o.reference.empty(); });
  for (const auto& o : obs) {
    if (!o.reference.empty()) {
      // Measured elsewhere: a row of its own per GPU and dataset, only where nothing here
      // measured a GPU.
      if (have_gpu || o.on != device_class::gpu) continue;
      auto& g = groups[group(device_kind::gpu_reference, "GPU, measured elsewhere: " + o.device + " (" + o.reference + ")")];
      if (o.sectors == 1) g.single.push_back(o);
      g.throughput.push_back(o);
      if (g.arch.empty()) g.arch = o.arch;
      g.name = o.device;
      g.reference = o.reference;
      if (o.device_memory > g.memory) {
        g.memory = o.device_memory;
        g.memory_source = "device memory reported in " + o.where;
      }
      continue;
    }
    if (o.on == device_class::host_cpu) {
      // A one-core and a whole-CPU group of this kind, each fed its records.
      const auto add_cpu = [&](device_kind kind, const std::string& what) {
        const std::string cores = o.cores > 0 ? std::to_string(o.cores) + " cores" : "all cores";
        const std::size_t core_i = group(one_core_of(kind), "CPU, 1 core" + what + o.device);
        const std::size_t all_i = group(kind, "CPU, " + cores + what + o.device);
        for (const std::size_t i : {core_i, all_i}) {
          device_group& g = groups[i];
          g.name = o.device;
          if (o.host_memory > g.memory) {
            g.memory = o.host_memory;
            g.memory_source = "RAM of the machine of " + o.where;
          }
          // One core's figures come from streams that ran on one CPU only.
          if (i == core_i && o.uses_second_cpu()) continue;
          if (o.sectors == 1) g.single.push_back(o);
          // The whole CPU's throughput needs several sectors on every thread: one sector is
          // sequential, so an all-thread one-sector record shows one stream's rate.
          if (i == core_i ? o.one_core : (o.all_cores && o.sectors > 1)) g.throughput.push_back(o);
        }
      };
      add_cpu(device_kind::cpu, ": ");
      if (!o.engine.empty() && !cpu::sha256_engine_uses_sha_ni(o.engine))
        add_cpu(device_kind::cpu_no_sha_ni, ", without SHA-NI: ");
    } else if (o.on == device_class::gpu || !have_gpu) {
      const bool emu = o.on == device_class::gpu_emulated;
      auto& g = groups[group(emu ? device_kind::gpu_emulated : device_kind::gpu,
                             emu ? o.backend + " (the GPU kernels emulated on the host CPU " + o.device + "; not a GPU)"
                                 : "GPU: " + o.device)];
      if (o.sectors == 1) g.single.push_back(o);
      g.throughput.push_back(o);
      if (g.arch.empty()) g.arch = o.arch;
      g.name = emu ? o.backend + " on " + o.device : o.device;
      const double mem = emu ? o.host_memory : o.device_memory;
      if (mem > g.memory) {
        g.memory = mem;
        g.memory_source = (emu ? "RAM of the machine of " : "device memory reported in ") + o.where;
      }
    }
  }
  // In the order device_kind declares: cores, whole CPUs, then GPUs.
  std::stable_sort(groups.begin(), groups.end(), [](const device_group& a, const device_group& b) { return a.kind < b.kind; });
  return groups;
}

// The SASS model of the SDR label kernel on the built-in H100 figures, when this build
// carries the kernel's SASS.
std::optional<device_group> modeled_gpu(std::string& why_not, const std::string& arch = "sm_90") {
  try {
    const auto table = gpu_model::load_latency_table({});
    const auto& a = gpu_model::arch_of(table, arch);
    // The GPU gets its best shot: the variant with the shortest node for one sector, and
    // the variant with the highest device-wide rate for many (they differ: a block per
    // sector shortens the node, a thread per sector fills the device).
    std::optional<gpu_model::prediction> fastest, widest;
    std::string fastest_label, widest_label;
    for (const auto& variant : sdr::kernel_variant_names()) {
      const std::string label = gpu_model::label_kernel_label(sdr::kFilecoinScheme, sdr::parse_kernel_variant(variant));
      for (const auto& f : gpu_model::embedded_kernels({arch}, label)) {
        const auto p = gpu_model::predict(gpu_model::analyze(f, a, {}), a, 32);
        if (!fastest || p.single_thread_ns < fastest->single_thread_ns) {
          fastest = p;
          fastest_label = label;
        }
        if (!widest || p.rate > widest->rate) {
          widest = p;
          widest_label = label;
        }
      }
    }
    if (!fastest) {
      why_not = gpu_model::embedded_note().empty()
                    ? "no SASS of " + gpu_model::label_kernel_label(sdr::kFilecoinScheme) + " for " + arch + " in this build"
                    : gpu_model::embedded_note();
      return std::nullopt;
    }
    device_group g;
    g.kind = device_kind::gpu_model;
    g.arch = arch;
    g.name = a.device;
    g.label = "GPU MODEL: " + a.device + " (" + arch + ", SASS latency model, not measured)";
    g.model_node_ns = fastest->single_thread_ns;
    g.model_rate = widest->rate;
    g.model_detail = "SASS model on " + arch + " (" + table.file + "): " + fastest_label + " (the shortest modeled node) " +
                     format_number(fastest->single_thread_ns) + " ns per node for one sector; " + widest_label +
                     " (the highest modeled rate) at most " + format_number(widest->rate) + " labels/s device-wide (" +
                     widest->bound + "-bound" + (widest->bound == "issue" ? ": " + widest->issue_limit : "") + ")";
    // The product name carries its memory ("... 80GB ..."); the planner takes it as GiB.
    std::smatch m;
    if (std::regex_search(a.device, m, std::regex("([0-9]+) ?GB"))) {
      g.memory = std::stod(m[1].str()) * double(1ull << 30);
      g.memory_source = "assumed: " + m[1].str() + " GiB from the modeled product's name";
    }
    return g;
  } catch (const std::exception& e) {
    why_not = e.what();
    return std::nullopt;
  }
}

// The observation at `size`, else the one of the nearest size (below first).
// How far a record's sector size is from `size`, in octaves; a smaller measured size is
// preferred at equal distance.
double size_distance(const observation* o, std::uint64_t size) {
  const double d = std::log2(static_cast<double>(o->sector_size)) - std::log2(static_cast<double>(size));
  return d <= 0 ? -d : d + 0.5;
}

const observation* nearest(const std::vector<const observation*>& c, std::uint64_t size) {
  const observation* best = nullptr;
  for (const auto* o : c)
    if (best == nullptr || size_distance(o, size) < size_distance(best, size)) best = o;
  return best;
}

std::string size_text(std::uint64_t b) { return format_size(b); }

// Sectors of `size` the device holds at once.
figure capacity(const device_group& g, std::uint64_t size) {
  figure f;
  if (g.memory <= 0) {
    f.from = {figure_status::none, "the memory of the machine was not recorded"};
    return f;
  }
  const double nodes = static_cast<double>(size) / 32;
  if (is_cpu(g.kind) || g.kind == device_kind::gpu_emulated) {
    const double n = std::floor((g.memory - nodes * kParentRowBytes) / (2.0 * static_cast<double>(size)));
    f.value = std::max(0.0, n);
    f.from = {figure_status::modeled, std::string(is_one_core(g.kind) ? "RAM shared with the other cores: " : "") +
                             "two layers per sector + one parent table (" + size_text(static_cast<std::uint64_t>(nodes * kParentRowBytes)) +
                             ") in " + format_number(g.memory / double(1ull << 30)) + " GiB (" + g.memory_source + ")"};
    return f;
  }
  cuda::memory_request req;
  req.sector_bytes = size;
  req.sectors = 1;
  req.layers = 2;
  req.free_bytes = static_cast<std::uint64_t>(g.memory);
  const auto plan = cuda::plan_memory(req);
  f.value = plan.max_sectors;
  f.from = {figure_status::modeled, "the GPU memory planner on " + format_number(g.memory / double(1ull << 30)) + " GiB (" +
                           g.memory_source + ")" + (plan.max_resident_sectors < plan.max_sectors ? ", parent table streamed" : "")};
  return f;
}

struct rate_figure {
  figure ns_per_node;  // one sector
  figure labels_per_s;  // best throughput
  double batch = 0;     // sectors labeled together at that throughput
  std::uint64_t measured_size = 0;  // the sector size the throughput was measured at
};

rate_figure throughput_elsewhere(const std::vector<const observation*>& all, std::uint64_t size, const figure& cap);

rate_figure rates_of(const device_group& g, std::uint64_t size, const figure& cap) {
  rate_figure r;
  if (g.kind == device_kind::gpu_model) {
    r.ns_per_node = {g.model_node_ns, {figure_status::modeled, g.model_detail}};
    if (cap.value && *cap.value > 0) {
      // The fewest sectors that reach the device's modeled rate, if that many fit.
      r.batch = std::min(*cap.value, std::ceil(g.model_rate * g.model_node_ns / 1e9));
      const double v = std::min(r.batch * 1e9 / g.model_node_ns, g.model_rate);
      r.labels_per_s = {v, {figure_status::modeled, g.model_detail + "; " + format_number(r.batch) + " sectors at once"}};
    } else {
      r.labels_per_s.from = {figure_status::none, "no sector of this size fits"};
    }
    return r;
  }
  std::vector<const observation*> single, all;
  for (const auto& o : g.single) single.push_back(&o);
  for (const auto& o : g.throughput) all.push_back(&o);
  if (const observation* o = nearest(single, size)) {
    for (const auto* x : single)  // the fastest configuration (engine, kernel variant) at that size
      if (x->sector_size == o->sector_size && x->ns_per_node_layer < o->ns_per_node_layer) o = x;
    const bool here = o->sector_size == size;
    r.ns_per_node = {o->ns_per_node_layer,
                     {here ? figure_status::measured : figure_status::extrapolated,
                      format_number(o->ns_per_node_layer) + " ns/node/layer" +
                          (here ? "" : " measured at " + size_text(o->sector_size)) + o->how() + " (record " + o->where + ")"}};
  } else {
    r.ns_per_node.from = {figure_status::none, "no one-sector record"};
  }
  // Best throughput at this size, and the best of the nearest other measured size limited
  // to the sectors that fit at this size. A batch measured here that is smaller than the
  // one measured there shows the batch, not the device: where the larger batch labels
  // faster, it is the figure (extrapolated, naming what was measured here).
  // A node window labels sectors that need not fit: more of them than this machine holds
  // is a hash rate (the storage model's input, model_device_rows), not its throughput.
  const observation* best = nullptr;
  for (const auto* o : all)
    if (o->sector_size == size && (!cap.value || o->sectors <= *cap.value) &&
        (best == nullptr || o->labels_per_s > best->labels_per_s))
      best = o;
  std::vector<const observation*> larger_batches;
  for (const auto* o : all)
    if (o->sector_size != size && (best == nullptr || o->sectors > best->sectors)) larger_batches.push_back(o);
  const rate_figure elsewhere = throughput_elsewhere(larger_batches, size, cap);
  if (best == nullptr) {
    r.labels_per_s = elsewhere.labels_per_s;
    r.batch = elsewhere.batch;
    r.measured_size = elsewhere.measured_size;
    return r;
  }
  const std::string here = format_number(best->labels_per_s) + " labels/s with " + std::to_string(best->sectors) +
                           " sectors" + best->how() + " (record " + best->where + ")";
  if (elsewhere.labels_per_s.value && *elsewhere.labels_per_s.value > best->labels_per_s) {
    r.labels_per_s = elsewhere.labels_per_s;
    r.labels_per_s.from.detail += "; at " + size_text(size) + " only " + here + " was measured";
    r.batch = elsewhere.batch;
    r.measured_size = elsewhere.measured_size;
    return r;
  }
  r.labels_per_s = {best->labels_per_s, {figure_status::measured, here}};
  r.batch = best->sectors;
  r.measured_size = size;
  return r;
}

// The throughput at `size` from records of other sizes (`all`): the largest batch that
// fits at `size`, from the nearest size that measured it (at that size and batch, the
// fastest configuration); where every batch exceeds what fits, the nearest size's
// smallest batch scaled down, one node per sector per node time.
rate_figure throughput_elsewhere(const std::vector<const observation*>& all, std::uint64_t size, const figure& cap) {
  rate_figure r;
  const observation* b = nullptr;
  for (const auto* x : all) {
    if (cap.value && x->sectors > *cap.value) continue;
    const bool better = b == nullptr || x->sectors > b->sectors ||
                        (x->sectors == b->sectors && (size_distance(x, size) < size_distance(b, size) ||
                                                      (x->sector_size == b->sector_size && x->labels_per_s > b->labels_per_s)));
    if (better) b = x;
  }
  if (b != nullptr) {
    r.labels_per_s = {b->labels_per_s, {figure_status::extrapolated, format_number(b->labels_per_s) + " labels/s measured with " +
                                                            std::to_string(b->sectors) + " sectors of " +
                                                            size_text(b->sector_size) + b->how() + " (record " + b->where + ")"}};
    r.batch = b->sectors;
    r.measured_size = b->sector_size;
    return r;
  }
  const observation* o = nearest(all, size);
  if (o == nullptr) {
    r.labels_per_s.from = {figure_status::none, "no throughput record"};
    return r;
  }
  if (!cap.value || *cap.value < 1) {
    r.labels_per_s.from = {figure_status::none, "no sector of this size fits"};
    return r;
  }
  b = o;
  for (const auto* x : all)
    if (x->sector_size == o->sector_size && x->sectors < b->sectors) b = x;
  r.batch = *cap.value;
  r.measured_size = b->sector_size;
  r.labels_per_s = {b->labels_per_s * *cap.value / b->sectors,
                    {figure_status::extrapolated, format_number(b->labels_per_s) + " labels/s with " + std::to_string(b->sectors) +
                                         " sectors of " + size_text(b->sector_size) + b->how() + " scaled to the " +
                                         format_number(*cap.value) + " that fit (record " + b->where + ")"}};
  return r;
}


void fill_crossover(size_row& row, const std::vector<rate_figure>& rates, const std::vector<device_group>& groups,
                    const std::vector<figure>& caps) {
  // The whole CPU with the best throughput, and the GPU column (measured before modeled).
  int cpu = -1, gpu = -1;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const device_kind k = groups[i].kind;
    if (k == device_kind::cpu && rates[i].labels_per_s.value &&
        (cpu < 0 || *rates[i].labels_per_s.value > *rates[cpu].labels_per_s.value))
      cpu = static_cast<int>(i);
    if (is_judged_gpu(k) && gpu < 0) gpu = static_cast<int>(i);
  }
  if (cpu < 0 || gpu < 0) {
    row.crossover_sectors.from = {figure_status::none, cpu < 0 ? "no whole-CPU throughput" : "no GPU measured or modeled"};
    row.crossover_text = "n/a: " + row.crossover_sectors.from.detail + " (none)";
    return;
  }
  const double cpu_rate = *rates[cpu].labels_per_s.value;
  const auto& g = groups[gpu];
  // Measured GPU points: the smallest sector count that passes the CPU, at this size or,
  // failing that (extrapolated), at the size the GPU's throughput cell was taken from, so
  // that the two cells speak of the same points; else at the nearest measured size.
  if (g.kind != device_kind::gpu_model) {
    // A curve: the sizes measured at more than one sector count (else any size).
    std::map<std::uint64_t, std::set<std::uint32_t>> counts;
    for (const auto& o : g.throughput) counts[o.sector_size].insert(o.sectors);
    std::vector<const observation*> all, curves;
    for (const auto& o : g.throughput) {
      all.push_back(&o);
      if (counts[o.sector_size].size() > 1) curves.push_back(&o);
    }
    const std::vector<const observation*>& pool = curves.empty() ? all : curves;
    const observation* near = nearest(pool, row.sector_size);
    if (near != nullptr && near->sector_size != row.sector_size && rates[gpu].measured_size != 0)
      if (const observation* source = nearest(pool, rates[gpu].measured_size);
          source != nullptr && source->sector_size == rates[gpu].measured_size)
        near = source;
    if (near != nullptr) {
      const bool here = near->sector_size == row.sector_size;
      const figure_status status = here ? figure_status::measured : figure_status::extrapolated;
      const std::string at = here ? "" : " of " + size_text(near->sector_size);
      const observation* pass = nullptr;
      std::uint32_t most = 0;
      for (const auto* o : all) {
        if (o->sector_size != near->sector_size) continue;
        most = std::max(most, o->sectors);
        if (o->labels_per_s > cpu_rate && (pass == nullptr || o->sectors < pass->sectors)) pass = o;
      }
      const double fit = caps[gpu].value.value_or(1e300);
      if (pass != nullptr && pass->sectors <= fit) {
        row.crossover_sectors = {static_cast<double>(pass->sectors),
                                 {status, "GPU " + format_number(pass->labels_per_s) + " labels/s with " +
                                              std::to_string(pass->sectors) + " sectors" + at + " (record " + pass->where +
                                              ") > CPU " + format_number(cpu_rate) + " (" +
                                              rates[cpu].labels_per_s.from.text() + ")"}};
        row.crossover_text = std::to_string(pass->sectors) + " sectors" + at + " (" + status_tag(status) + ")";
      } else {
        row.crossover_sectors.from = {status, "no GPU point (up to " + std::to_string(most) + " sectors" + at +
                                                  ") passes the CPU's " + format_number(cpu_rate) + " labels/s" +
                                                  (pass != nullptr ? " within the " + format_number(fit) + " that fit" : "")};
        row.crossover_text = "none up to " + std::to_string(most) + " sectors" + at + " (" + status_tag(status) + ")";
      }
      return;
    }
  }
  // From the one-sector node time: S sectors give S / t labels/s until the device's rate
  // or memory caps them.
  const auto& t = rates[gpu].ns_per_node;
  if (!t.value || !caps[gpu].value) {
    row.crossover_sectors.from = {figure_status::none, "no GPU node time or capacity"};
    row.crossover_text = "n/a: no GPU node time or capacity (none)";
    return;
  }
  const double need = std::floor(cpu_rate * *t.value / 1e9) + 1;
  const double cap_rate = rates[gpu].labels_per_s.value.value_or(0);
  const figure_status status = t.from.status == figure_status::measured ? figure_status::extrapolated : t.from.status;
  if (need <= *caps[gpu].value && (cap_rate <= 0 || cap_rate > cpu_rate)) {
    row.crossover_sectors = {need, {status, format_number(need) + " x 1e9 / " + format_number(*t.value) +
                                                " ns per node > CPU " + format_number(cpu_rate) + " labels/s; GPU node time " +
                                                t.from.text()}};
    row.crossover_text = format_number(need) + " sectors (" + status_tag(status) + ")";
  } else {
    row.crossover_sectors.from = {status, "the GPU would need " + format_number(need) + " sectors at once; " +
                                              format_number(*caps[gpu].value) + " fit, and its rate is at most " +
                                              format_number(cap_rate) + " labels/s vs the CPU's " + format_number(cpu_rate)};
    row.crossover_text = "never: " + format_number(*caps[gpu].value) + " sectors fit, " + format_number(need) + " needed (" +
                         status_tag(status) + ")";
  }
}

// A whole CPU never reads below one of its cores: when its best all-thread throughput is
// lower (records of one sector only, or of a size far from this one), the cell says it was
// not measured and which point would measure it.
void whole_cpu_at_least_one_core(const std::vector<device_group>& groups, std::vector<rate_figure>& rates,
                                 std::uint64_t size) {
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const device_kind k = groups[i].kind;
    if (!is_cpu(k) || is_one_core(k)) continue;
    for (std::size_t j = 0; j < groups.size(); ++j) {
      if (groups[j].kind != one_core_of(k) || !rates[j].labels_per_s.value) continue;
      const double core = *rates[j].labels_per_s.value;
      auto& whole = rates[i].labels_per_s;
      if (whole.value && *whole.value >= core) continue;
      int cores = 0;
      for (const auto& o : groups[i].single) cores = std::max(cores, o.cores);
      // Enough sectors for every core to run the batch that gave one core its rate.
      const double batch = std::max(2.0, rates[j].batch);
      const std::string sectors = cores > 0 ? format_number(batch * cores) : format_number(batch) + " x the cores";
      whole = {std::nullopt,
               {figure_status::none, "not measured: " +
                            (whole.value ? "the best all-thread record (" + format_number(*whole.value) +
                                               " labels/s, " + whole.from.detail + ") is below one core's " +
                                               format_number(core) + " labels/s"
                                         : std::string("no all-thread record of several sectors")) +
                            "; a label point with backend=cpu, threads=0, sectors=" + sectors + " at " + size_text(size) +
                            " measures it (e.g. the default config's label-sectors experiment with --set "
                            "label-sectors.sector_size=" + size_text(size) + ")"}};
      rates[i].batch = 0;
    }
  }
}

// The best CPU row against the GPU row on one figure: PC1 seconds of one sector (lower
// wins) or sectors per hour (higher wins). The GPU row is the most trusted kind that has
// one (measured here, then measured elsewhere, then modeled; never the emulation), and of
// that kind the best figure.
contest contest_of(const size_row& row, figure device_row::*field, bool higher_wins) {
  contest c;
  const device_row* cpu = nullptr;
  const device_row* gpu = nullptr;
  const auto better = [&](const figure& f, const device_row* than) {
    return f.value && (than == nullptr || !(than->*field).value ||
                       (higher_wins ? *f.value > *(than->*field).value : *f.value < *(than->*field).value));
  };
  for (const auto& d : row.devices) {
    const figure& f = d.*field;
    // One sector: one core's chain, or the whole CPU's (its parents gathered on a second CPU).
    const bool cpu_kind = higher_wins ? d.kind == device_kind::cpu : d.kind == device_kind::cpu_core || d.kind == device_kind::cpu;
    if (cpu_kind && f.value && better(f, cpu)) cpu = &d;
    if (!is_judged_gpu(d.kind)) continue;
    // Rows come in device_kind's order: a less trusted kind replaces no row of a kind before it.
    if (gpu == nullptr || (d.kind == gpu->kind && better(f, gpu)) || (d.kind != gpu->kind && !(gpu->*field).value && f.value))
      gpu = &d;
  }
  if (gpu == nullptr || !(gpu->*field).value || *(gpu->*field).value <= 0) {
    c.why_not = gpu == nullptr ? "no GPU measured or modeled" : "no GPU figure: " + (gpu->*field).from.detail;
    return c;
  }
  if (cpu == nullptr || *(cpu->*field).value <= 0) {
    c.why_not = higher_wins ? "no whole-CPU throughput measured" : "no one-sector CPU figure";
    // Measured hashing that the machine has no room to seal at: the storage model says why.
    if (higher_wins && cpu != nullptr && !cpu->bound.empty()) c.why_not = "the whole CPU seals none at once: " + cpu->bound;
    return c;
  }
  const double cv = *(cpu->*field).value, gv = *(gpu->*field).value;
  const bool cpu_wins = higher_wins ? cv >= gv : cv <= gv;
  const device_row& w = cpu_wins ? *cpu : *gpu;
  const device_row& l = cpu_wins ? *gpu : *cpu;
  c.winner = w.name;
  c.loser = l.name;
  c.winner_reference = w.reference;
  c.loser_reference = l.reference;
  c.winner_kind = w.kind;
  c.loser_kind = l.kind;
  c.winner_source = (w.*field).from.status;
  c.loser_source = (l.*field).from.status;
  c.winner_value = *(w.*field).value;
  c.loser_value = *(l.*field).value;
  c.factor = higher_wins ? c.winner_value / c.loser_value : c.loser_value / c.winner_value;
  return c;
}

// The model row against each measured GPU row (here or elsewhere) of the size.
void fill_model_checks(size_row& row) {
  const device_row* model = nullptr;
  for (const auto& d : row.devices)
    if (d.kind == device_kind::gpu_model) model = &d;
  if (model == nullptr) return;
  const auto ratio = [](const figure& m, const figure& x) -> std::optional<double> {
    if (!m.value || !x.value || *x.value <= 0 || *m.value <= 0) return std::nullopt;
    return *m.value / *x.value;
  };
  for (const auto& d : row.devices)
    if (is_measured_gpu(d.kind))
      row.model_checks.push_back({d.device, ratio(model->pc1_seconds, d.pc1_seconds), ratio(model->sectors_per_hour, d.sectors_per_hour)});
}

// The sizes where a sector's layers outgrow RAM and the storage model sizes throughput.
bool is_real_size(std::uint64_t size) { return size >= (32ull << 30); }

machine_row size_machine_cpu(const machine& m, const device_group& core_group, std::uint64_t size, double work);
void model_machine_cpu(machine_row& row, const machine& m, const records::result_set& in, const std::string& device,
                       std::uint64_t size, double work);

// Where the whole CPU seals no batch at this real size, each reference machine's CPU with
// this machine's measured per-core rate (the storage model on the file's cores, clock, RAM
// and disks) and its pipeline (PC2 on its GPUs or its CPU).
void size_reference_machines(size_row& row, const std::vector<device_group>& groups, const records::result_set& in,
                             const std::vector<machine>& machines, const records::result_set& references, double work) {
  const auto seals = [](const device_row& d) {
    return d.kind == device_kind::cpu && d.sectors_per_hour.value && *d.sectors_per_hour.value > 0;
  };
  if (machines.empty() || std::any_of(row.devices.begin(), row.devices.end(), seals)) return;
  const device_group* core = nullptr;
  for (const auto& g : groups)
    if (g.kind == device_kind::cpu_core && core == nullptr) core = &g;
  if (core == nullptr) return;
  std::string gpu_arch;  // a measured GPU's, for the pipelines' PC2
  size_row sized = row;
  sized.machines.clear();
  sized.machine_pipeline.clear();
  for (const auto& m : machines) {
    sized.machines.push_back(size_machine_cpu(m, *core, row.sector_size, work));
    model_machine_cpu(sized.machines.back(), m, in, core->name, row.sector_size, work);
    fill_machine_pipeline(sized, m, in, gpu_arch, references);
  }
  row.reference_machines = std::move(sized.machines);
  row.reference_pipeline = std::move(sized.machine_pipeline);
}

storage_model::sizing sizing_of(std::uint64_t size, double work) {
  return {size, static_cast<std::uint32_t>(std::lround(work / (static_cast<double>(size) / 32)))};
}

// A plan's throughput into a row's cells; `at_once` gets its batch when it holds more.
void apply_plan(const storage_model::plan& p, figure& per_hour, figure& batch, figure& pc1_at_rate, figure& at_once,
                std::string& bound) {
  per_hour = p.sectors_per_hour;
  per_hour.from.detail = p.text() + ": " + per_hour.from.detail;
  bound = p.summary();
  if (!p.feasible) {
    batch.from = pc1_at_rate.from = per_hour.from;
    batch.value = pc1_at_rate.value = std::nullopt;
    return;
  }
  batch = {double(p.batch), per_hour.from};
  pc1_at_rate = {p.batch_seconds.value, per_hour.from};
  if (!at_once.value || *at_once.value < p.batch) at_once = {double(p.batch), {figure_status::modeled, p.design + ": " + p.summary()}};
}

// The whole CPU at a real size: the storage model on the machine its records ran on (its
// disk measured by a `disk` record), where that beats the figure with the layers in RAM.
void model_device_rows(size_row& row, const records::result_set& in, std::vector<rate_figure>& rates) {
  const storage_model::sizing s{row.sector_size, row.layers};
  for (std::size_t i = 0; i < row.devices.size(); ++i) {
    device_row& d = row.devices[i];
    if (!is_cpu(d.kind) && d.sectors_at_once.value)
      d.bound = "device memory: two layers per sector, " + format_number(*d.sectors_at_once.value) + " fit";
    if (d.kind != device_kind::cpu) continue;
    const cpu_evidence e = cpu_evidence_of(in, d.name, row.sector_size);
    if (!e.hash) continue;
    const auto p = storage_model::plan_cpu(e.machine, *e.hash, s, storage_model::counted_reads(s));
    if (d.sectors_per_hour.value && *d.sectors_per_hour.value > p.sectors_per_hour.value.value_or(0)) continue;
    apply_plan(p, d.sectors_per_hour, d.batch_sectors, d.pc1_seconds_at_rate, d.sectors_at_once, d.bound);
    if (!p.feasible && !e.machine.disks.empty()) {
      // What disk would let it seal: the same disks (their measured random reads), room
      // without limit; the batch the model then takes says how much room that is.
      storage_model::cpu_machine roomy = e.machine;
      for (auto& disk : roomy.disks) disk.capacity_each = 1e18;
      const auto q = storage_model::plan_cpu(roomy, *e.hash, s, storage_model::counted_reads(s));
      if (q.feasible && q.disk_bytes.value && q.sectors_per_hour.value)
        d.bound += "; with " + format_number(std::ceil(*q.disk_bytes.value / double(1ull << 30))) +
                   " GiB of layer disk (its random reads as measured) it would seal " + std::to_string(q.batch) +
                   " at once: " + format_number(*q.sectors_per_hour.value) + " sectors/hour (MODELED, " + q.summary() + ")";
    }
    if (p.feasible) rates[i] = {rates[i].ns_per_node, p.labels_per_s, double(p.batch), row.sector_size};  // the crossover's CPU
  }
}

// A target machine's CPU at a real size: the model with its cores, clock, RAM and disks.
void model_machine_cpu(machine_row& row, const machine& m, const records::result_set& in, const std::string& device,
                       std::uint64_t size, double work) {
  const auto h = machine_hash_rate(m, cpu_evidence_of(in, device, size).hash);
  if (!h) return;
  const auto s = sizing_of(size, work);
  const auto p = storage_model::plan_cpu(model_machine(m), *h, s, storage_model::counted_reads(s));
  apply_plan(p, row.sectors_per_hour, row.batch_sectors, row.pc1_seconds_at_rate, row.sectors_at_once, row.bound);
}

// The measured GPU of architecture `arch`: this run's, else one measured elsewhere (the
// fastest one-sector node of those), else nullopt.
std::optional<device_group> measured_gpu_of(const std::vector<device_group>& groups, const std::string& arch) {
  for (const device_kind kind : {device_kind::gpu, device_kind::gpu_reference}) {
    const device_group* best = nullptr;
    double best_ns = 0;
    for (const auto& x : groups) {
      if (x.kind != kind || x.arch != arch) continue;
      double ns = std::numeric_limits<double>::infinity();
      for (const auto& o : x.single) ns = std::min(ns, o.ns_per_node_layer);
      if (best == nullptr || ns < best_ns) {
        best = &x;
        best_ns = ns;
      }
    }
    if (best != nullptr) return *best;
  }
  return std::nullopt;
}

// A target machine's GPUs at a real size: layers in its host RAM or on its NVMe, read
// across each GPU's link, at the rate this run measured (or the model gives) for the GPU.
storage_model::gpu_part gpu_part_of(const machine_gpu& mg, const device_group& g, double node_ns) {
  storage_model::gpu_part part{mg.name, mg.count, mg.memory_bytes, mg.link, node_ns, g.model_rate, {}};
  part.rate_from = {figure_status::modeled, g.model_detail};
  for (const auto& o : g.throughput)
    if (is_measured_gpu(g.kind) && o.labels_per_s > part.peak_labels_per_s) {
      part.peak_labels_per_s = o.labels_per_s;
      part.rate_from = {figure_status::extrapolated, format_number(o.labels_per_s) + " labels/s measured with " +
                                            std::to_string(o.sectors) + " sectors of " + size_text(o.sector_size) +
                                            " (record " + o.where + ")"};
    }
  return part;
}

void model_machine_gpu(machine_row& row, const machine& m, const machine_gpu& mg, const device_group& g,
                       double node_ns, std::uint64_t size, double work) {
  const storage_model::gpu_part part = gpu_part_of(mg, g, node_ns);
  if (part.peak_labels_per_s <= 0) return;
  const auto s = sizing_of(size, work);
  const auto p = storage_model::plan_gpu(model_machine(m), part, s, storage_model::counted_reads(s));
  figure at_once = row.sectors_at_once;
  apply_plan(p, row.sectors_per_hour, row.batch_sectors, row.pc1_seconds_at_rate, at_once, row.bound);
  if (!p.feasible) return;
  row.batch_sectors.value = double(p.batch) * mg.count;  // the plan's batch is per GPU
  row.sectors_at_once = {*row.batch_sectors.value, {figure_status::modeled, p.design + ": " + p.summary() + ", x " +
                                                                    std::to_string(mg.count) + " GPUs"}};
}

// A target machine's CPU: this run's one-core rates times its cores, its RAM for capacity.
machine_row size_machine_cpu(const machine& m, const device_group& core_group, std::uint64_t size, double work) {
  machine_row row;
  row.machine = m.name;
  row.kind = device_kind::cpu;
  row.part = "CPU, " + std::to_string(m.cores) + " cores" + (m.cpu_model.empty() ? "" : " (" + m.cpu_model + ")");
  device_group ram = core_group;
  ram.kind = device_kind::cpu;
  ram.memory = m.ram_bytes;
  ram.memory_source = "RAM of " + m.name + " (" + m.file + ")";
  row.sectors_at_once = capacity(ram, size);
  // This run's one-core rates, extrapolated to what fits in the machine's memory.
  const rate_figure core = rates_of(core_group, size, row.sectors_at_once);
  const std::string assume = "; assumes each of its cores as fast as one core of this run (" + core_group.label +
                             "), which a different CPU model is not";
  if (core.ns_per_node.value) {
    row.pc1_seconds = {*core.ns_per_node.value * work * 1e-9,
                       {figure_status::extrapolated, core.ns_per_node.from.detail + assume}};
  } else {
    row.pc1_seconds.from = core.ns_per_node.from;
  }
  const double cap = row.sectors_at_once.value.value_or(0);
  if (!core.labels_per_s.value || !core.ns_per_node.value || cap < 1) {
    row.sectors_per_hour.from = cap < 1 ? source{figure_status::none, "no sector of this size fits"} : core.labels_per_s.from;
    row.batch_sectors.from = row.pc1_seconds_at_rate.from = row.sectors_per_hour.from;
    return row;
  }
  // Either every core on its best batch of sectors (the multi-lane engines), or, when
  // memory holds fewer sectors than that, one sector per core at the one-sector rate.
  const double per_core_batch = std::max(1.0, core.batch);
  const double lanes = std::min(cap, m.cores * per_core_batch);
  const double multi = lanes / per_core_batch * *core.labels_per_s.value;
  const double single = std::min<double>(cap, m.cores) * 1e9 / *core.ns_per_node.value;
  const bool use_multi = multi >= single;
  const double rate = use_multi ? multi : single;
  const double batch = use_multi ? lanes : std::min<double>(cap, m.cores);
  const source from{figure_status::extrapolated, format_number(rate) + " labels/s: " + format_number(batch) + " sectors on " +
                                        std::to_string(m.cores) + " cores at this run's " +
                                        (use_multi ? core.labels_per_s.from.detail + " per core"
                                                   : core.ns_per_node.from.detail + " per sector") + assume};
  row.sectors_per_hour = {rate * 3600 / work, from};
  row.batch_sectors = {batch, from};
  row.pc1_seconds_at_rate = {batch * work / rate, from};
  return row;
}

// One kind of a target machine's GPUs: a measured GPU of the same architecture when this
// run has one, else the latency model of that architecture; the GPUs' memory for capacity.
machine_row size_machine_gpu(const machine& m, const machine_gpu& mg, const std::vector<device_group>& groups,
                             std::uint64_t size, double work) {
  machine_row row;
  row.machine = m.name;
  row.kind = device_kind::gpu;
  row.part = std::to_string(mg.count) + "x " + mg.name + " (" + mg.arch + ")";
  std::optional<device_group> g = measured_gpu_of(groups, mg.arch);
  std::string why;
  if (!g) g = modeled_gpu(why, mg.arch);
  if (!g) {
    row.pc1_seconds.from = row.sectors_at_once.from = row.sectors_per_hour.from = {figure_status::none, why};
    row.batch_sectors.from = row.pc1_seconds_at_rate.from = row.pc1_seconds.from;
    return row;
  }
  const bool measured = is_measured_gpu(g->kind);
  g->memory = mg.memory_bytes;
  g->memory_source = "memory of each " + mg.name + " (" + m.file + ")";
  const figure cap = capacity(*g, size);
  const rate_figure rf = rates_of(*g, size, cap);
  const figure_status status = measured ? figure_status::extrapolated : figure_status::modeled;
  const std::string each = measured ? " (" + std::string(g->kind == device_kind::gpu ? "this run's " : "") + g->label + ", one GPU)" : "";
  if (cap.value) row.sectors_at_once = {*cap.value * mg.count, {cap.from.status, cap.from.detail + ", x " + std::to_string(mg.count)}};
  else row.sectors_at_once.from = cap.from;
  if (rf.ns_per_node.value)
    row.pc1_seconds = {*rf.ns_per_node.value * work * 1e-9, {status, rf.ns_per_node.from.detail + each}};
  else
    row.pc1_seconds.from = rf.ns_per_node.from;
  if (rf.labels_per_s.value && rf.batch >= 1 && cap.value && *cap.value >= 1) {
    const double rate = *rf.labels_per_s.value * mg.count;
    const source from{status, rf.labels_per_s.from.detail + each + " x " + std::to_string(mg.count) + " GPUs"};
    row.sectors_per_hour = {rate * 3600 / work, from};
    row.batch_sectors = {rf.batch * mg.count, from};
    row.pc1_seconds_at_rate = {rf.batch * work / *rf.labels_per_s.value, from};
  } else {
    row.sectors_per_hour.from = rf.labels_per_s.value ? source{figure_status::none, "no sector of this size fits"} : rf.labels_per_s.from;
    row.batch_sectors.from = row.pc1_seconds_at_rate.from = row.sectors_per_hour.from;
  }
  if (rf.ns_per_node.value && is_real_size(size)) model_machine_gpu(row, m, mg, *g, *rf.ns_per_node.value, size, work);
  return row;
}

void price_machine_row(machine_row& row, const machine& m, double usd_per_kwh) {
  if (!row.sectors_per_hour.value || *row.sectors_per_hour.value <= 0) return;
  const double sph = *row.sectors_per_hour.value;
  if (m.price_usd) row.usd_per_sector_hour = *m.price_usd / sph;
  if (m.power_watts) {
    row.joules_per_sector = *m.power_watts * 3600 / sph;
    if (usd_per_kwh > 0) row.energy_usd_per_sector = *row.joules_per_sector / 3.6e6 * usd_per_kwh;
  }
}

// The GPU group of a machine's GPU kind: this run's GPU of that architecture, else the
// latency model's; with its one-sector rate and capacity at `size`.
std::optional<std::pair<device_group, rate_figure>> gpu_group_for(const std::vector<device_group>& groups,
                                                                 const machine_gpu& mg, std::uint64_t size) {
  std::optional<device_group> g = measured_gpu_of(groups, mg.arch);
  std::string why;
  if (!g) g = modeled_gpu(why, mg.arch);
  if (!g) return std::nullopt;
  g->memory = mg.memory_bytes;
  g->memory_source = "memory of each " + mg.name;
  const figure cap = capacity(*g, size);
  return std::make_pair(*g, rates_of(*g, size, cap));
}

}  // namespace

std::optional<storage_model::gpu_part> machine_gpu_part(const records::result_set& in, const machine_gpu& mg,
                                                        std::uint64_t size) {
  const auto obs = read_observations(in);
  const auto found = gpu_group_for(group_devices(obs), mg, size);
  if (!found || !found->second.ns_per_node.value) return std::nullopt;
  auto part = gpu_part_of(mg, found->first, *found->second.ns_per_node.value);
  if (part.peak_labels_per_s <= 0) return std::nullopt;
  return part;
}

namespace {

// The device groups the verdict compares: this run's, the reference datasets' where this run
// measured no GPU, and the GPU model's; the notes say which.
std::vector<device_group> verdict_groups(const records::result_set& in, const reference_inputs& references,
                                         reference_records& refs, report& r) {
  auto obs = read_observations(in);
  if (obs.empty())
    throw no_usable_record("no usable record: the result directories hold no ok sdr/sha256 label record on cpu, "
                           "cuda or cuda-emu");
  const bool measured_gpu = std::any_of(obs.begin(), obs.end(), [](const observation& o) { return o.on == device_class::gpu; });
  // Measured elsewhere, read only where nothing here measured a GPU: never mixed with this
  // machine's own rows (group_devices keeps them apart).
  if (!measured_gpu && !references.datasets.empty()) {
    refs = load_reference_records(references.datasets);
    for (const auto& w : refs.warnings) {
      std::cerr << "poreplab: warning: " << w << "\n";
      r.notes.push_back(w);
    }
    const auto elsewhere = read_observations(refs.set, &refs.dataset);
    obs.insert(obs.end(), elsewhere.begin(), elsewhere.end());
  }
  std::vector<device_group> groups = group_devices(obs);
  const bool reference_gpu =
      std::any_of(groups.begin(), groups.end(), [](const device_group& g) { return g.kind == device_kind::gpu_reference; });
  if (!measured_gpu) {
    std::string why;
    if (auto m = modeled_gpu(why)) groups.push_back(*m);
    else r.notes.push_back("no GPU column: no GPU was measured and the model cannot run (" + why + ")");
    r.notes.push_back(reference_gpu
                          ? "No GPU was measured in these results. The rows \"GPU, measured elsewhere\" are the "
                            "repository's reference datasets (their GPU records alone, named with their date and "
                            "place; poreplab report verdict --reference none leaves them out): they never feed this "
                            "machine's rows. The GPU MODEL row is the kernel's SASS latency model, shown beside them "
                            "with its ratio to the measurement."
                          : "No GPU was measured in these results: every GPU figure is MODELED from the kernel's SASS "
                            "(poreplab model gpu), or emulated on the host where marked cuda-emu.");
  }
  return groups;
}

void check_cost_names(const cost_map& costs, const std::vector<device_group>& groups) {
  for (const auto& cost : costs) {
    const std::string name = lower(cost.first);
    const bool any = std::any_of(groups.begin(), groups.end(),
                                 [&](const device_group& g) { return lower(g.label).find(name) != std::string::npos; });
    if (!any) throw std::runtime_error("--cost " + cost.first + ": no device of the verdict matches");
  }
}

// One device's row at one proof's size: PC1 seconds, sectors an hour, its batch, and its
// price where --cost names it.
device_row size_device(const device_group& g, const figure& cap, const rate_figure& rf, const size_row& row,
                       double work, const cost_map& costs) {
  device_row d;
  d.device = g.label;
  d.name = g.name;
  d.kind = g.kind;
  d.reference = g.reference;
  d.sectors_at_once = cap;
  if (rf.ns_per_node.value) {
    d.pc1_seconds = {*rf.ns_per_node.value * work * 1e-9, rf.ns_per_node.from};
    d.pc1_seconds.from.detail += " x " + std::to_string(row.nodes) + " nodes x " + std::to_string(row.layers) + " layers";
  } else {
    d.pc1_seconds.from = rf.ns_per_node.from;
  }
  if (rf.labels_per_s.value) {
    d.sectors_per_hour = {*rf.labels_per_s.value * 3600 / work, rf.labels_per_s.from};
    if (cap.value && *cap.value < 1) d.sectors_per_hour = {0.0, weakest(rf.labels_per_s.from, cap.from)};
  } else {
    d.sectors_per_hour.from = rf.labels_per_s.from;
  }
  if (d.sectors_per_hour.value && *d.sectors_per_hour.value > 0 && rf.batch >= 1) {
    // Every sector of the batch advances together: each takes the batch's whole time.
    const source& from = d.sectors_per_hour.from;
    d.batch_sectors = {rf.batch, from};
    d.pc1_seconds_at_rate = {rf.batch * work / *rf.labels_per_s.value,
                             {from.status, format_number(rf.batch) + " sectors x " + std::to_string(row.nodes) +
                                               " nodes x " + std::to_string(row.layers) + " layers at " +
                                               format_number(*rf.labels_per_s.value) + " labels/s"}};
  } else {
    d.batch_sectors.from = d.pc1_seconds_at_rate.from = d.sectors_per_hour.from;
  }
  for (const auto& [name, usd] : costs)
    if (lower(g.label).find(lower(name)) != std::string::npos && d.sectors_per_hour.value && *d.sectors_per_hour.value > 0)
      d.usd_per_sector_hour = usd / *d.sectors_per_hour.value;
  return d;
}

// The --machine targets at one proof's size: each CPU and GPU kind sized, modeled and priced.
void size_target_machines(size_row& row, const std::vector<machine>& machines, const std::vector<device_group>& groups,
                          const records::result_set& in, const records::result_set& ref_set, std::uint64_t sector_size,
                          double work, double usd_per_kwh) {
  for (const auto& m : machines) {
    for (std::size_t i = 0; i < groups.size(); ++i)
      if (groups[i].kind == device_kind::cpu_core) {
        row.machines.push_back(size_machine_cpu(m, groups[i], sector_size, work));
        if (is_real_size(sector_size)) model_machine_cpu(row.machines.back(), m, in, groups[i].name, sector_size, work);
      }
    for (const auto& mg : m.gpus) row.machines.push_back(size_machine_gpu(m, mg, groups, sector_size, work));
    for (auto& mr : row.machines)
      if (mr.machine == m.name) price_machine_row(mr, m, usd_per_kwh);
    std::string gpu_arch;
    for (const auto& g : groups)
      if (g.kind == device_kind::gpu && gpu_arch.empty()) gpu_arch = g.arch;
    fill_machine_pipeline(row, m, in, gpu_arch, ref_set);
  }
}

}  // namespace

report compute(const std::vector<fs::path>& dirs, const cost_map& costs, const std::vector<machine>& machines,
               double usd_per_kwh, const reference_inputs& references) {
  const records::result_set in = records::load_result_set(dirs);
  report r;
  r.dirs = in.dirs;
  reference_records refs;
  const std::vector<device_group> groups = verdict_groups(in, references, refs, r);
  check_cost_names(costs, groups);

  for (const char* proof_name : kProofs) {
    const auto& proof = sdr::find_registered_proof(proof_name);
    size_row row;
    row.proof = std::string(proof.name);
    row.sector_size = proof.sector_size;
    row.layers = proof.layers;
    row.nodes = proof.nodes();
    std::vector<rate_figure> rates;
    std::vector<figure> caps;
    for (const auto& g : groups) {
      caps.push_back(capacity(g, proof.sector_size));
      rates.push_back(rates_of(g, proof.sector_size, caps.back()));
    }
    whole_cpu_at_least_one_core(groups, rates, proof.sector_size);
    const double work = static_cast<double>(row.nodes) * row.layers;
    for (std::size_t i = 0; i < groups.size(); ++i)
      row.devices.push_back(size_device(groups[i], caps[i], rates[i], row, work, costs));
    if (is_real_size(row.sector_size)) model_device_rows(row, in, rates);
    fill_crossover(row, rates, groups, caps);
    row.one_sector = contest_of(row, &device_row::pc1_seconds, false);
    row.throughput = contest_of(row, &device_row::sectors_per_hour, true);
    fill_model_checks(row);
    fill_pipeline(row, in, refs.set);
    if (is_real_size(row.sector_size)) size_reference_machines(row, groups, in, references.machines, refs.set, work);
    size_target_machines(row, machines, groups, in, refs.set, proof.sector_size, work, usd_per_kwh);
    r.sizes.push_back(row);
  }
  r.notes.push_back("PC1 of one sector is sequential within each layer: its hash chain runs on one core; a second "
                    "core can only gather its parents ahead (a producer thread: the whole CPU's one-sector figure when "
                    "the records have one); more cores (or GPU threads) help only with more sectors.");
  r.notes.push_back("\"Without SHA-NI\" rows: the engines that do not use the SHA extensions (an AVX-only CPU's "
                    "figures on this one).");
  r.notes.push_back("Sectors at once (CPU): two layers per sector in RAM plus one shared parent table; at 32GiB and "
                    "64GiB also the storage model's batch with the layers on disk (11 layers per sector on disk, the "
                    "parents read through a node cache of the layer's recent nodes), whichever labels more.");
  return r;
}

namespace {

std::string cell(const figure& f, const std::function<std::string(double)>& fmt) {
  if (!f.value) return "— (" + status_name(f.from.status) + ")";
  return fmt(*f.value) + " (" + status_tag(f.from.status) + ")";
}

}  // namespace

namespace {

// "one core of <CPU> (measured)" from a row's name, kind and source; a GPU measured
// elsewhere with its dataset's date and place.
std::string who(const std::string& name, device_kind kind, figure_status status, const std::string& reference) {
  const std::string what = kind == device_kind::cpu_core ? "one core of " + name
                           : kind == device_kind::cpu    ? "all cores of " + name
                                                 : name;
  if (!reference.empty())
    return what + (status == figure_status::measured ? " (measured elsewhere: " : " (" + status_tag(status) + " from a measurement elsewhere: ") +
           reference + ")";
  return what + " (" + status_tag(status) + ")";
}

std::string contest_words(const contest& c, bool throughput) {
  if (c.why_not) return "not judged: " + *c.why_not + ".";
  auto value = [&](double v) { return throughput ? format_number(v) + " sectors/hour" : format_seconds(v); };
  std::ostringstream o;
  o << who(c.winner, c.winner_kind, c.winner_source, c.winner_reference) << (throughput ? " labels " : " takes ")
    << value(c.winner_value) << ", " << who(c.loser, c.loser_kind, c.loser_source, c.loser_reference) << " "
    << value(c.loser_value) << ": the "
    << (is_cpu(c.winner_kind) ? "CPU" : "GPU") << " wins by " << format_number(c.factor) << "x. ";
  const bool modeled = c.winner_source == figure_status::modeled || c.loser_source == figure_status::modeled;
  o << "Break-even: the figures would have to be " << format_number(c.factor) << "x off for that to change";
  if (modeled) {
    if (c.factor >= 10) o << ": the verdict survives a 10x error of the GPU model";
    else if (c.factor >= 2) o << ": it survives a 2x error of the GPU model, not a 10x one";
    else o << ": within the GPU model's uncertainty, so no verdict until a GPU is measured";
  }
  o << ".";
  return o.str();
}

}  // namespace

namespace {

// The header of the columns rate_cells fills.
constexpr const char* kRateColumns =
    "PC1, one sector | fit in memory | sectors / hour | batch used for throughput | PC1 per sector in that batch";

// A figure equal to one of an earlier row (the same value from the same source).
bool same_figure(const figure& a, const figure& b) {
  return a.value == b.value && a.from.status == b.from.status && a.from.detail == b.from.detail;
}

// The cells every row of a device or a machine has: PC1 of one sector, sectors that fit in
// its memory, sectors per hour, the batch that rate labels and the PC1 time of each of its
// sectors. A figure an earlier row of the table (`earlier`, with its short name) already
// shows says so instead of repeating it.
struct rate_row {
  const figure *pc1, *at_once, *per_hour, *batch, *pc1_at_rate;
  std::string name;
};
std::string rate_cells(const rate_row& row, const std::vector<rate_row>& earlier) {
  auto number = [](double v) { return format_number(v); };
  const auto show = [&](const figure* rate_row::*field, const std::function<std::string(double)>& fmt) {
    const figure& f = *(row.*field);
    if (f.value)
      for (const auto& e : earlier)
        if (same_figure(*(e.*field), f)) return "as " + e.name + " above";
    return cell(f, fmt);
  };
  return show(&rate_row::pc1, format_seconds) + " | " + show(&rate_row::at_once, number) + " | " +
         show(&rate_row::per_hour, number) + " | " + show(&rate_row::batch, number) + " | " +
         show(&rate_row::pc1_at_rate, format_seconds);
}

// A device's short name for "as ... above": its label up to the device's own name.
std::string short_name(const std::string& label) {
  const auto colon = label.find(": ");
  return "\"" + (colon == std::string::npos ? label : label.substr(0, colon)) + "\"";
}

// 32GiB and 64GiB where this machine seals no batch: the reference machines with its rate.
void reference_machines_markdown(const report& r, std::ostringstream& md) {
  const bool any = std::any_of(r.sizes.begin(), r.sizes.end(), [](const size_row& s) { return !s.reference_machines.empty(); });
  if (!any) return;
  md << "\n## Real sizes on the reference machines, at this CPU's measured rate\n\nThis machine seals no 32GiB or "
        "64GiB batch itself (its disk or RAM holds none). Each machine file the project ships (experiments/machines) "
        "is sized here with this CPU's measured per-core hashing rate carried to the file's clock, and the file's "
        "cores, RAM, disks and GPUs: the storage model's batch, its binding bound, and the pipeline with PC2 on the "
        "machine's GPUs (or its CPU). All MODELED from those inputs; `poreplab plan --machine FILE` shows each in "
        "full.\n\n| sector | machine | part | " << kRateColumns << " | bound |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& s : r.sizes)
    for (const auto& m : s.reference_machines)
      md << "| " << size_text(s.sector_size) << " | " << m.machine << " | " << m.part << " | "
         << rate_cells({&m.pc1_seconds, &m.sectors_at_once, &m.sectors_per_hour, &m.batch_sectors, &m.pc1_seconds_at_rate, ""}, {})
         << " | " << (m.bound.empty() ? "—" : m.bound) << " |\n";
  md << "\n| sector | pipeline | PC1, one sector | PC2, one sector | sectors / hour | bottleneck |\n|---|---|---|---|---|---|\n";
  for (const auto& s : r.sizes)
    for (const auto& p : s.reference_pipeline)
      md << "| " << size_text(s.sector_size) << " | " << p.mix << " | " << cell(p.pc1_seconds, format_seconds) << " | "
         << cell(p.pc2_seconds, format_seconds) << " | " << cell(p.sectors_per_hour, format_number) << " | "
         << (p.bottleneck.empty() ? "—" : p.bottleneck) << " |\n";
}

void machines_markdown(const report& r, std::ostringstream& md) {
  const bool any = std::any_of(r.sizes.begin(), r.sizes.end(), [](const size_row& s) { return !s.machines.empty(); });
  if (!any) return;
  auto opt = [](const std::optional<double>& v) { return v ? format_number(*v) : std::string("—"); };
  md << "\n## Target machines\n\nEach machine (`--machine`) sized from this run: its CPU from this run's one-core "
        "rates times its cores (extrapolated), its GPUs from a measured GPU of the same architecture (extrapolated) "
        "or the GPU latency model (MODELED); capacity from its RAM or GPU memory. At 32GiB and 64GiB the storage "
        "model sizes each part from the machine file's cores, all-core clock, RAM, disks and GPU links (MODELED; "
        "the bound column names what binds). USD per sector/hour from its price, energy from its power draw (the "
        "whole machine while that part labels).\n\n"
     << "| sector | machine | part | " << kRateColumns
     << " | bound | USD per sector/hour | J per sector | energy USD per sector |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& s : r.sizes)
    for (const auto& m : s.machines)
      md << "| " << size_text(s.sector_size) << " | " << m.machine << " | " << m.part << " | "
         << rate_cells({&m.pc1_seconds, &m.sectors_at_once, &m.sectors_per_hour, &m.batch_sectors, &m.pc1_seconds_at_rate, ""}, {})
         << " | " << (m.bound.empty() ? "—" : m.bound) << " | " << opt(m.usd_per_sector_hour) << " | " << opt(m.joules_per_sector) << " | "
         << opt(m.energy_usd_per_sector) << " |\n";
}

}  // namespace

std::string plain_words(const report& r) {
  std::ostringstream md;
  for (const auto& s : r.sizes) {
    md << "- **" << size_text(s.sector_size) << "** (" << s.layers << " layers). One sector: "
       << contest_words(s.one_sector, false) << " Throughput: " << contest_words(s.throughput, true);
    if (!s.reference_machines.empty()) {
      md << " On the reference machines, with this CPU's per-core rate (MODELED):";
      for (std::size_t i = 0; i < s.reference_machines.size(); ++i) {
        const auto& m = s.reference_machines[i];
        md << (i ? ";" : "") << " " << m.machine << " "
           << (m.sectors_per_hour.value ? format_number(*m.sectors_per_hour.value) + " sectors/hour" : std::string("none"))
           << (m.bound.empty() ? "" : " (" + m.bound.substr(0, m.bound.find(';')) + ")");
      }
      md << ".";
    }
    md << "\n";
  }
  return md.str();
}

std::string to_markdown(const report& r) {
  std::ostringstream md;
  md << "# CPU vs GPU: the verdict on SDR PC1 (Filecoin sdr/sha256)\n\n";
  md << "Inputs: ";
  for (std::size_t i = 0; i < r.dirs.size(); ++i) md << (i ? ", " : "") << "`" << r.dirs[i] << "`";
  md << ". Each cell says where it comes from: measured (at this sector size), extrapolated (a measured per-node "
        "rate from another size), MODELED (never measured); the sources list below names the record or model.\n\n";
  const bool cost = std::any_of(r.sizes.begin(), r.sizes.end(), [](const size_row& s) {
    return std::any_of(s.devices.begin(), s.devices.end(), [](const device_row& d) { return d.usd_per_sector_hour.has_value(); });
  });
  md << "| sector | layers | device | " << kRateColumns << " | bound |" << (cost ? " USD per sector/hour |" : "")
     << "\n|---|---|---|---|---|---|---|---|---|" << (cost ? "---|" : "") << "\n";
  for (const auto& s : r.sizes) {
    std::vector<rate_row> earlier;
    for (const auto& d : s.devices) {
      const rate_row cells{&d.pc1_seconds, &d.sectors_at_once, &d.sectors_per_hour, &d.batch_sectors, &d.pc1_seconds_at_rate,
                           short_name(d.device)};
      md << "| " << size_text(s.sector_size) << " | " << s.layers << " | " << d.device << " | " << rate_cells(cells, earlier)
         << " | " << (d.bound.empty() ? "—" : d.bound) << " |";
      if (cost) md << " " << (d.usd_per_sector_hour ? format_number(*d.usd_per_sector_hour) : "—") << " |";
      md << "\n";
      earlier.push_back(cells);
    }
  }
  const bool checks = std::any_of(r.sizes.begin(), r.sizes.end(), [](const size_row& s) { return !s.model_checks.empty(); });
  if (checks) {
    md << "\nThe GPU model against the measured GPUs (model / measurement; 1 is exact, above 1 the model is slower "
          "for PC1 and faster for sectors per hour):\n\n| sector | measured | PC1, one sector | sectors / hour |\n|---|---|---|---|\n";
    auto opt = [](const std::optional<double>& v) { return v ? format_number(*v) : std::string("—"); };
    for (const auto& s : r.sizes)
      for (const auto& m : s.model_checks)
        md << "| " << size_text(s.sector_size) << " | " << m.measured << " | " << opt(m.pc1_ratio) << " | " << opt(m.per_hour_ratio) << " |\n";
  }
  md << "\nAt 32GiB and 64GiB a sector's two layers outgrow most RAM: the whole CPU's sectors per hour there is the "
        "storage model's (docs/scaling.md, \"The storage model\"): the smallest of its measured one-core rate at the "
        "32GiB node window times the hashing cores, its disk's measured random reads over the reads per label counted "
        "on the graph, and what its RAM and disk hold (11 layers per sector on disk); the bound column names the one "
        "that binds.\n";
  md << "\n## In plain words\n\n" << plain_words(r);
  reference_machines_markdown(r, md);
  machines_markdown(r, md);
  md << "\n## The sealing pipeline: PC1, then PC2\n\nPC2 (tree_c, tree_r_last, comm_r: Poseidon over BLS12-381) "
        "is parallel work; a phase's sectors per hour is the device's best rate for it. Phases on one device take "
        "turns; on two devices they overlap and the slower sets the pace.\n\n"
        "| sector | layers | mix | PC1, one sector | PC2, one sector | sectors / hour | bottleneck |\n"
        "|---|---|---|---|---|---|---|\n";
  for (const auto& s : r.sizes)
    for (const auto& p : s.pipeline)
      md << "| " << size_text(s.sector_size) << " | " << s.layers << " | " << p.mix << " | "
         << cell(p.pc1_seconds, format_seconds) << " | " << cell(p.pc2_seconds, format_seconds) << " | "
         << cell(p.sectors_per_hour, format_number) << " | " << (p.bottleneck.empty() ? "—" : p.bottleneck) << " |\n";
  for (const auto& s : r.sizes)
    for (const auto& p : s.machine_pipeline)
      md << "| " << size_text(s.sector_size) << " | " << s.layers << " | " << p.mix << " | "
         << cell(p.pc1_seconds, format_seconds) << " | " << cell(p.pc2_seconds, format_seconds) << " | "
         << cell(p.sectors_per_hour, format_number) << " | " << (p.bottleneck.empty() ? "—" : p.bottleneck) << " |\n";
  md << "\nCPU cores whose PC1 keeps one GPU's PC2 busy: ";
  for (std::size_t i = 0; i < r.sizes.size(); ++i)
    md << (i ? "; " : "") << size_text(r.sizes[i].sector_size) << " " << cell(r.sizes[i].cores_per_gpu, format_number);
  md << ".\n";
  md << "\n## Crossover: sectors the GPU must label at once to pass the whole CPU\n\n| sector | crossover |\n|---|---|\n";
  for (const auto& s : r.sizes) md << "| " << size_text(s.sector_size) << " | " << s.crossover_text << " |\n";
  md << "\n## Notes\n\n";
  for (const auto& n : r.notes) md << "- " << n << "\n";
  md << "\n## Sources\n\n";
  for (const auto& s : r.sizes) {
    for (const auto& d : s.devices) {
      md << "- " << size_text(s.sector_size) << ", " << d.device << ": PC1 " << d.pc1_seconds.from.text()
         << "; at once " << d.sectors_at_once.from.text() << "; per hour " << d.sectors_per_hour.from.text() << "\n";
    }
    md << "- " << size_text(s.sector_size) << ", crossover: " << s.crossover_sectors.from.text() << "\n";
    for (const auto& p : s.pipeline)
      md << "- " << size_text(s.sector_size) << ", pipeline " << p.mix << ": PC2 " << p.pc2_seconds.from.text() << "\n";
    for (const auto& p : s.machine_pipeline)
      md << "- " << size_text(s.sector_size) << ", pipeline " << p.mix << ": PC2 " << p.pc2_seconds.from.text()
         << "; per hour " << p.sectors_per_hour.from.text() << "\n";
  }
  return md.str();
}

namespace {

json figure_json(const figure& f) {
  return {{"value", f.value ? json(*f.value) : json(nullptr)}, {"source", status_name(f.from.status)}, {"detail", f.from.detail}};
}

json opt_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json machines_json(const std::vector<machine_row>& rows) {
  json out = json::array();
  for (const auto& m : rows)
    out.push_back({{"machine", m.machine},
                   {"part", m.part},
                   {"kind", kDeviceKinds.name(m.kind)},
                   {"pc1_seconds", figure_json(m.pc1_seconds)},
                   {"sectors_at_once", figure_json(m.sectors_at_once)},
                   {"sectors_per_hour", figure_json(m.sectors_per_hour)},
                   {"batch_sectors", figure_json(m.batch_sectors)},
                   {"pc1_seconds_at_rate", figure_json(m.pc1_seconds_at_rate)},
                   {"usd_per_sector_hour", opt_json(m.usd_per_sector_hour)},
                   {"joules_per_sector", opt_json(m.joules_per_sector)},
                   {"energy_usd_per_sector", opt_json(m.energy_usd_per_sector)},
                   {"bound", m.bound}});
  return out;
}

json contest_json(const contest& c) {
  if (c.why_not) return {{"judged", false}, {"why_not", *c.why_not}};
  return {{"judged", true},          {"winner", c.winner},           {"winner_kind", kDeviceKinds.name(c.winner_kind)},
          {"winner_source", status_name(c.winner_source)}, {"winner_value", c.winner_value}, {"loser", c.loser},
          {"loser_kind", kDeviceKinds.name(c.loser_kind)}, {"loser_source", status_name(c.loser_source)}, {"loser_value", c.loser_value},
          {"factor", c.factor}, {"winner_reference", c.winner_reference}, {"loser_reference", c.loser_reference}};
}


}  // namespace

json model_checks_json(const std::vector<model_check>& rows) {
  json out = json::array();
  for (const auto& m : rows)
    out.push_back({{"measured", m.measured}, {"pc1_ratio", opt_json(m.pc1_ratio)}, {"per_hour_ratio", opt_json(m.per_hour_ratio)}});
  return out;
}

json pipeline_json(const std::vector<pipeline_row>& rows) {
  json out = json::array();
  for (const auto& p : rows)
    out.push_back({{"mix", p.mix},
                   {"pc1_device", p.pc1_device},
                   {"pc2_device", p.pc2_device},
                   {"pc1_seconds", figure_json(p.pc1_seconds)},
                   {"pc2_seconds", figure_json(p.pc2_seconds)},
                   {"sectors_per_hour", figure_json(p.sectors_per_hour)},
                   {"bottleneck", p.bottleneck}});
  return out;
}

json to_json(const report& r) {
  json sizes = json::array();
  for (const auto& s : r.sizes) {
    json devs = json::array();
    for (const auto& d : s.devices)
      devs.push_back({{ctx::device, d.device},
                      {"kind", kDeviceKinds.name(d.kind)},
                      {"name", d.name},
                      {"reference", d.reference},
                      {"pc1_seconds", figure_json(d.pc1_seconds)},
                      {"sectors_at_once", figure_json(d.sectors_at_once)},
                      {"sectors_per_hour", figure_json(d.sectors_per_hour)},
                      {"batch_sectors", figure_json(d.batch_sectors)},
                      {"pc1_seconds_at_rate", figure_json(d.pc1_seconds_at_rate)},
                      {"usd_per_sector_hour", d.usd_per_sector_hour ? json(*d.usd_per_sector_hour) : json(nullptr)},
                      {"bound", d.bound}});
    sizes.push_back({{"proof", s.proof},
                     {axis::sector_size, s.sector_size},
                     {axis::layers, s.layers},
                     {"nodes", s.nodes},
                     {"devices", devs},
                     {"crossover_sectors", figure_json(s.crossover_sectors)},
                     {"crossover", s.crossover_text},
                     {"one_sector", contest_json(s.one_sector)},
                     {"throughput", contest_json(s.throughput)},
                     {"machines", machines_json(s.machines)},
                     {"model_checks", model_checks_json(s.model_checks)},
                     {"pipeline", pipeline_json(s.pipeline)},
                     {"machine_pipeline", pipeline_json(s.machine_pipeline)},
                     {"reference_machines", machines_json(s.reference_machines)},
                     {"reference_pipeline", pipeline_json(s.reference_pipeline)},
                     {"cores_per_gpu", figure_json(s.cores_per_gpu)}});
  }
  return {{"schema", kVerdictSchema}, {"dirs", r.dirs}, {"sizes", sizes}, {"notes", r.notes}};
}

bool write_report_files(const fs::path& dir, bool when_usable, const reference_inputs& references) {
  try {
    report r;
    try {
      r = compute({dir}, {}, {}, 0, references);
    } catch (const no_usable_record&) {
      if (when_usable) return true;
      throw;
    }
    write_file_atomic(dir / "verdict.md", to_markdown(r));
    write_file_atomic(dir / "verdict.json", to_json(r).dump(2) + "\n");
    std::cerr << "report: " << (dir / "verdict.md").string() << ", " << (dir / "verdict.json").string() << "\n";
    return true;
  } catch (const std::exception& e) {
    std::cerr << "warning: verdict report not written: " << e.what() << "\n";
    return false;
  }
}

}  // namespace poreplab::verdict
