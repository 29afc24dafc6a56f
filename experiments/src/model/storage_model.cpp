#include "model/storage_model.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>

#include "poreplab/sdr/parent_reads.hpp"
#include "util/text.hpp"

namespace poreplab::storage_model {

namespace {

constexpr double kGiB = double(1ull << 30);
// Assumed: reads in flight ahead of the hashers (supraseal's parents buffer).
constexpr double kReadAheadBytes = 1 * kGiB;
// Assumed: a GPU's memory besides its node cache (parent rows, pages in flight).
constexpr double kGpuBuffersBytes = 2 * kGiB;
constexpr double kParentRowBytes = 56;
constexpr std::uint32_t kPage = 4096;
constexpr std::uint32_t kRow = 32;
// PCIe transfers: payloads split at a 256-byte max payload (assumed, common on servers),
// each TLP carrying about 24 bytes of header, sequence number, LCRC and framing (Intel
// AN 708, "Understanding PCI Express Throughput": 5-7 dwords per TLP).
constexpr double kMaxPayload = 256;
constexpr double kTlpOverhead = 24;

constexpr link_spec kLinks[] = {
    {"pcie3x16", 15.75e9, "PCI Express Base Specification 3.0 (PCI-SIG): 8 GT/s per lane, 128b/130b, x16"},
    {"pcie4x16", 31.5e9, "PCI Express Base Specification 4.0 (PCI-SIG): 16 GT/s per lane, 128b/130b, x16"},
    {"pcie5x16", 63.0e9, "PCI Express Base Specification 5.0 (PCI-SIG): 32 GT/s per lane, 128b/130b, x16"},
};

// Payload share of a link carrying transfers of `bytes` each.
double link_efficiency(double bytes) {
  const double payload = std::min(bytes, kMaxPayload);
  return payload / (payload + kTlpOverhead);
}

std::string gib(double bytes) { return format_number(bytes / kGiB, 3) + " GiB"; }
std::string rate(double labels_per_s) { return format_number(labels_per_s, 3) + " labels/s"; }

// Why `need` bytes of `what` do not fit in `have`, or "".
std::string shortfall(const std::string& what, double need, double have) {
  if (need <= have) return {};
  return what + ": needs " + gib(need) + ", has " + gib(have);
}

std::string disks_text(const cpu_machine& m) {
  std::string t;
  for (const auto& d : m.disks)
    t += (t.empty() ? "" : "; ") + std::to_string(d.count) + "x " + d.model + ": " + d.from.text();
  return t;
}

// One design at one batch: its plan whether or not it fits (`why_not` says what does not).
struct trial {
  plan p;
  std::string why_not;
  double unconstrained = 0;  // labels/s if capacity and cores allowed it
};

// Hashing and other cores for `hashing` hashing cores: supraseal's topology (a coordinator
// per CCX of ccx_cores - 1 hashers, or per the fewer hashers one was measured to feed, plus
// writer, reader, orchestrator), or on a machine too small for it (under 5 cores) one core
// for all of those.
std::string place_cores(const cpu_machine& m, std::uint32_t hashers_per_coordinator, std::uint32_t hashing, plan& p) {
  std::uint32_t per_ccx = std::max(1u, m.ccx_cores - 1);
  if (hashers_per_coordinator > 0) per_ccx = std::min(per_ccx, hashers_per_coordinator);
  const std::uint32_t dedicated = (hashing + per_ccx - 1) / per_ccx + kIoCores;
  p.hashing_cores = hashing;
  if (hashing + dedicated <= m.cores) {
    p.other_cores = dedicated;
    return {};
  }
  if (m.cores < 1 + 1 + kIoCores && hashing + 1 <= m.cores) {
    p.other_cores = m.cores - hashing;
    return {};
  }
  return "cores: " + std::to_string(hashing) + " hashing + " + std::to_string(dedicated) +
         " for coordinators, reader, writer and orchestrator, has " + std::to_string(m.cores);
}

// `rate` (labels/s at `at_hz`) carried to the machine's clock by its cycles per label.
double at_clock(const cpu_machine& m, double rate, double at_hz, std::string& how) {
  if (m.clock_hz > 0 && at_hz > 0 && std::fabs(m.clock_hz / at_hz - 1) > 1e-6) {
    how += ", " + format_number(at_hz / rate, 4) + " cycles per label at " + format_number(at_hz / 1e9, 3) + " GHz, run at " +
           format_number(m.clock_hz / 1e9, 3) + " GHz (" + m.clock_from.text() + ")";
    return rate * m.clock_hz / at_hz;
  }
  return rate;
}

// The hash bound of a batch: k sectors per core at the rate measured with k (the record's
// count and every other one measured), or one sector per core; the count that labels most
// with the cores the machine has. Sets the plan's cores.
bound hash_bound(const cpu_machine& m, const hash_rate& h, std::uint32_t batch, plan& p, std::string& why_not) {
  std::vector<lane_rate> counts{{std::max(1u, h.sectors), h.labels_per_s, h.clock_hz, h.from, h.hashers_per_coordinator}};
  counts.insert(counts.end(), h.other_lanes.begin(), h.other_lanes.end());
  if (std::none_of(counts.begin(), counts.end(), [](const lane_rate& c) { return c.sectors == 1; }))
    counts.push_back({1, h.single_labels_per_s > 0 ? h.single_labels_per_s : h.labels_per_s / std::max(1u, h.sectors), h.clock_hz,
                      h.single_labels_per_s > 0 ? h.single_from
                                                : provenance{h.from.status, "the multi-sector rate / " + std::to_string(h.sectors)},
                      h.hashers_per_coordinator});
  std::optional<bound> best;
  plan best_plan = p;
  std::string first_why;
  for (const auto& c : counts) {
    const std::uint32_t k = std::max(1u, c.sectors);
    std::string how = rate(c.labels_per_s) + " a core with " + std::to_string(k) + (k == 1 ? " sector (" : " sectors (") +
                      c.from.text() + ")";
    const double labels = at_clock(m, c.labels_per_s, c.clock_hz, how) / k * batch;
    plan trial = p;
    const std::string why = place_cores(m, c.hashers_per_coordinator, (batch + k - 1) / k, trial);
    if (!why.empty()) {
      if (first_why.empty() || c.sectors == h.sectors) first_why = why;
      continue;
    }
    if (!best || labels > best->labels_per_s) {
      best = bound{"hash", labels,
                   std::to_string(trial.hashing_cores) + " cores with up to " + std::to_string(k) +
                       (k == 1 ? " sector each at " : " sectors each at ") + how};
      best_plan = trial;
      best_plan.sectors_per_core = k;
    }
  }
  if (best) {
    p = best_plan;
    why_not.clear();
    return *best;
  }
  // No count fits the cores: the record's own, and why.
  why_not = first_why;
  const std::uint32_t k = std::max(1u, h.sectors);
  std::string how = rate(h.labels_per_s) + " a core with " + std::to_string(k) + " sectors (" + h.from.text() + ")";
  const double labels = at_clock(m, h.labels_per_s, h.clock_hz, how) / k * batch;
  place_cores(m, h.hashers_per_coordinator, (batch + k - 1) / k, p);
  p.sectors_per_core = k;
  return {"hash", labels, std::to_string(p.hashing_cores) + " cores with up to " + std::to_string(k) + " sectors each at " + how};
}

void finish_rates(plan& p, const sizing& s, double labels, const std::string& status_detail) {
  p.labels_per_s = {labels, {figure_status::modeled, status_detail}};
  p.sectors_per_hour = {labels * 3600 / s.labels_per_sector(), p.labels_per_s.from};
  p.batch_seconds = {labels > 0 ? p.batch * s.labels_per_sector() / labels : 0, p.labels_per_s.from};
}

// The smallest bound and the list's text.
const bound& binding_of(const std::vector<bound>& bs) {
  return *std::min_element(bs.begin(), bs.end(), [](const bound& a, const bound& b) { return a.labels_per_s < b.labels_per_s; });
}

std::string bounds_text(const std::vector<bound>& bs) {
  std::string t;
  for (const auto& b : bs) t += (t.empty() ? "" : "; ") + b.name + " " + rate(b.labels_per_s) + " (" + b.why + ")";
  return t;
}

trial cpu_trial(const cpu_machine& m, const hash_rate& h, const sizing& s, const reads_fn& reads, std::uint32_t batch,
                bool on_disk) {
  trial t;
  plan& p = t.p;
  p.design = on_disk ? "layers on disk" : "layers in RAM";
  p.batch = batch;
  p.bounds.push_back(hash_bound(m, h, batch, p, t.why_not));
  const double layer_disk = double(s.layers) * double(s.sector_size) * batch;
  if (!m.disks.empty()) p.disk_bytes = {layer_disk, {figure_status::modeled, std::to_string(s.layers) + " layers x sector x batch"}};
  if (t.why_not.empty() && !m.disks.empty())
    t.why_not = shortfall("layer disk (" + gib(layer_disk / batch) + " a sector)", layer_disk, m.disk_bytes());
  if (on_disk) {
    p.cache_nodes = kNodeCacheNodes;
    const double cache = double(p.cache_nodes) * kRow * batch;
    p.ram_bytes = {cache + kReadAheadBytes, {figure_status::modeled, "node cache " + gib(cache) + " + read-ahead " + gib(kReadAheadBytes) +
                                                           " (assumed); parent table streamed; the OS's own not counted"}};
    p.huge_pages_1g = static_cast<std::uint32_t>(std::ceil((cache + kReadAheadBytes) / kGiB));
    p.reads_per_node = reads(batch, p.cache_nodes, kPage);
    const double per_node = p.reads_per_node.value.value_or(0);
    if (per_node > 0)
      p.bounds.push_back({"IOPS", m.iops() * batch / per_node,
                          format_number(m.iops(), 3) + " reads/s (" + disks_text(m) + ") over " +
                              format_number(per_node, 3) + " reads per node for " + std::to_string(batch) + " sectors"});
  } else {
    p.ram_bytes = {2.0 * double(s.sector_size) * batch + kParentRowBytes * double(s.nodes()),
                   {figure_status::modeled, "two layers per sector + the parent table; the OS's own not counted"}};
  }
  if (t.why_not.empty()) t.why_not = shortfall("RAM", *p.ram_bytes.value, m.ram_bytes);
  const bound& b = binding_of(p.bounds);
  t.unconstrained = b.labels_per_s;
  p.binding = b.name;
  if (on_disk && p.reads_per_node.value)
    p.iops_needed = {b.labels_per_s / batch * *p.reads_per_node.value,
                     {figure_status::modeled, "reads per node x nodes per second at the binding bound"}};
  p.feasible = t.why_not.empty();
  finish_rates(p, s, p.feasible ? b.labels_per_s : 0, bounds_text(p.bounds));
  return t;
}

// The best batch of one design: the highest labels/s that fits (the smaller batch on a
// tie); else the smallest batch, infeasible, saying why.
plan best_of(const std::vector<trial>& trials) {
  const trial* best = nullptr;
  std::size_t at = 0;
  for (std::size_t i = 0; i < trials.size(); ++i)
    if (trials[i].p.feasible && (best == nullptr || *trials[i].p.labels_per_s.value > *best->p.labels_per_s.value * (1 + 1e-9))) {
      best = &trials[i];
      at = i;
    }
  if (best == nullptr) {
    // What the machine would do with room: the batch its cores allow that labels most.
    const trial* room = &trials.front();
    for (const auto& t : trials)
      if (t.why_not.rfind("cores:", 0) != 0 && t.unconstrained > room->unconstrained * (1 + 1e-9)) room = &t;
    plan p = room->p;
    p.binding = "capacity";
    p.batch_limit = std::to_string(p.batch) + " sectors: " + room->why_not;
    p.labels_per_s.from.detail = "no batch fits: " + p.batch_limit + "; with room for it a batch of " +
                                 std::to_string(p.batch) + " would label " + rate(room->unconstrained) + " (" +
                                 bounds_text(p.bounds) + ")";
    p.sectors_per_hour.from = p.batch_seconds.from = p.labels_per_s.from;
    return p;
  }
  plan p = best->p;
  for (std::size_t i = at + 1; i < trials.size() && p.batch_limit.empty(); ++i)
    if (!trials[i].why_not.empty()) p.batch_limit = std::to_string(trials[i].p.batch) + " sectors: " + trials[i].why_not;
  if (p.batch_limit.empty() && at + 1 == trials.size()) p.batch_limit = "the largest batch of the batch sealer";
  return p;
}

double labels_of(const plan& p) { return p.labels_per_s.value.value_or(0); }

// A GPU's node cache: the largest power of two up to supraseal's that fits beside its buffers.
std::uint64_t gpu_cache_nodes(const gpu_part& g, std::uint32_t batch) {
  std::uint64_t cache = kNodeCacheNodes;
  while (cache > 0 && double(cache) * kRow * batch + kGpuBuffersBytes > g.memory_bytes) cache /= 2;
  return cache;
}

// Bytes crossing a GPU's link per label, and the bound it sets.
void add_link_bound(const gpu_part& g, plan& p, double bytes_per_label, const std::string& how) {
  p.bytes_per_label = bytes_per_label;
  const link_spec* l = find_link(g.link);
  if (l == nullptr) return;
  p.bounds.push_back({"PCIe", l->bytes_per_s / bytes_per_label,
                      std::string(l->name) + " " + format_number(l->bytes_per_s / 1e9, 3) + " GB/s (" +
                          std::string(l->source) + ") over " + format_number(bytes_per_label, 3) +
                          " bytes per label: " + how + "; TLP payloads of at most 256 bytes (assumed) with 24 bytes "
                          "of overhead each (Intel AN 708)"});
}

// Layers on NVMe, read by the GPU itself: 4 KiB pages of all sectors' rows.
void gpu_nvme(const cpu_machine& host, const gpu_part& g, const reads_fn& reads, trial& t) {
  plan& p = t.p;
  const double n = g.count;
  if (host.disks.empty() && t.why_not.empty()) t.why_not = "no layer disks described";
  p.reads_per_node = reads(p.batch, p.cache_nodes, kPage);
  const double pages = p.reads_per_node.value.value_or(0);
  if (pages <= 0) return;
  const std::string per = format_number(pages, 3) + " reads per node of " + std::to_string(p.batch) + " sectors";
  if (!host.disks.empty())
    p.bounds.push_back({"IOPS", host.iops() / n * p.batch / pages,
                        format_number(host.iops() / n, 3) + " reads/s of the host's disks per GPU over " + per});
  p.bounds.push_back({"GPU-initiated IOPS", kGpuInitiatedIops * p.batch / pages,
                      "at most " + format_number(kGpuInitiatedIops, 3) + " reads/s (" + kGpuInitiatedSource + ") over " + per});
  const double big = link_efficiency(kPage);
  add_link_bound(g, p, (pages * kPage + kRow * p.batch + kParentRowBytes) / (p.batch * big),
                 per + ", the label written, the parent row");
}

// Layers in host RAM: each missing parent's row (32 bytes x batch) read across the link.
void gpu_host_ram(const cpu_machine& host, const gpu_part& g, const sizing& s, const reads_fn& reads, trial& t) {
  plan& p = t.p;
  const double ram = g.count * 2.0 * double(s.sector_size) * p.batch + kParentRowBytes * double(s.nodes());
  p.ram_bytes = {ram, {figure_status::modeled, "two layers per sector of every GPU + the parent table; the OS's own not counted"}};
  if (t.why_not.empty()) t.why_not = shortfall("host RAM", ram, host.ram_bytes);
  p.reads_per_node = reads(1, p.cache_nodes, kRow);
  const double rows = p.reads_per_node.value.value_or(0);
  const double row_eff = link_efficiency(kRow * double(p.batch));
  add_link_bound(g, p, kRow * (rows + 1) / row_eff + kParentRowBytes / (p.batch * link_efficiency(kPage)),
                 format_number(rows, 3) + " parent rows per node not in the GPU's node cache, the label written, the "
                 "parent row");
}

trial gpu_trial(const cpu_machine& host, const gpu_part& g, const sizing& s, const reads_fn& reads, std::uint32_t batch,
                bool nvme) {
  trial t;
  plan& p = t.p;
  p.design = nvme ? "layers on NVMe, GPU-initiated reads" : "layers in host RAM";
  p.batch = batch;
  p.cache_nodes = gpu_cache_nodes(g, batch);
  const double device = double(p.cache_nodes) * kRow * batch + kGpuBuffersBytes;
  p.device_bytes = {device, {figure_status::modeled, "node cache of " + format_count(p.cache_nodes) + " nodes + " +
                                            gib(kGpuBuffersBytes) + " of buffers (assumed)"}};
  t.why_not = shortfall("GPU memory", device + (p.cache_nodes == 0 ? kRow * batch : 0), g.memory_bytes);
  const double layer_disk = g.count * double(s.layers) * double(s.sector_size) * batch;
  if (!host.disks.empty()) {
    p.disk_bytes = {layer_disk, {figure_status::modeled, std::to_string(s.layers) + " layers x sector x batch x GPUs"}};
    if (t.why_not.empty())
      t.why_not = shortfall("layer disk (" + gib(layer_disk / (g.count * batch)) + " a sector)", layer_disk, host.disk_bytes());
  }
  p.bounds.push_back({"GPU rate", std::min(batch * 1e9 / g.node_ns, g.peak_labels_per_s),
                      std::to_string(batch) + " sectors at " + format_number(g.node_ns, 4) + " ns per node each, at most " +
                          rate(g.peak_labels_per_s) + " (" + g.rate_from.text() + ")"});
  if (nvme) gpu_nvme(host, g, reads, t);
  else gpu_host_ram(host, g, s, reads, t);
  const bound& b = binding_of(p.bounds);
  t.unconstrained = b.labels_per_s * g.count;
  p.binding = b.name;
  p.feasible = t.why_not.empty();
  finish_rates(p, s, p.feasible ? b.labels_per_s * g.count : 0,
               bounds_text(p.bounds) + "; per GPU, x " + std::to_string(g.count) + " GPUs");
  return t;
}

}  // namespace

std::vector<std::uint32_t> batch_sizes() {
  std::vector<std::uint32_t> out;
  for (std::uint32_t b = 1; b <= 32; ++b) out.push_back(b);
  out.push_back(64);
  out.push_back(kMaxBatch);
  return out;
}

std::span<const link_spec> links() { return kLinks; }

const link_spec* find_link(std::string_view name) {
  for (const auto& l : kLinks)
    if (l.name == name) return &l;
  return nullptr;
}

std::vector<std::string> link_names() {
  std::vector<std::string> out;
  for (const auto& l : kLinks) out.emplace_back(l.name);
  return out;
}

double cpu_machine::iops() const {
  double sum = 0;
  for (const auto& d : disks) sum += d.count * d.iops_each;
  return sum;
}

double cpu_machine::disk_bytes() const {
  double sum = 0;
  for (const auto& d : disks) sum += d.count * d.capacity_each;
  return sum;
}

plan plan_cpu(const cpu_machine& m, const hash_rate& h, const sizing& s, const reads_fn& reads) {
  std::vector<plan> designs;
  for (const bool on_disk : {true, false}) {
    if (on_disk && m.disks.empty()) continue;
    std::vector<trial> trials;
    for (const auto b : batch_sizes()) trials.push_back(cpu_trial(m, h, s, reads, b, on_disk));
    designs.push_back(best_of(trials));
  }
  const plan* best = &designs.front();
  for (const auto& d : designs)
    if (labels_of(d) > labels_of(*best)) best = &d;
  return *best;
}

plan plan_gpu(const cpu_machine& host, const gpu_part& g, const sizing& s, const reads_fn& reads) {
  std::vector<plan> designs;
  for (const bool nvme : {false, true}) {
    std::vector<trial> trials;
    for (std::uint32_t b = 1; b <= (1u << 20); b *= 2) trials.push_back(gpu_trial(host, g, s, reads, b, nvme));
    designs.push_back(best_of(trials));
  }
  return labels_of(designs[1]) > labels_of(designs[0]) ? designs[1] : designs[0];
}

reads_fn counted_reads(const sizing& s) {
  return [s](std::uint32_t sectors, std::uint64_t cache, std::uint32_t page) -> figure {
    struct graph_sample {
      std::string graph;
      std::unique_ptr<sdr::parent_row_sample> rows;
    };
    static std::mutex m;
    static std::map<std::uint64_t, graph_sample> samples;
    static std::map<std::tuple<std::uint64_t, std::uint32_t, std::uint64_t, std::uint32_t, std::uint32_t>, figure> memo;
    const std::lock_guard<std::mutex> lock(m);
    const auto key = std::make_tuple(s.sector_size, sectors, cache, page, s.layers);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
    graph_sample& gs = samples[s.sector_size];
    if (!gs.rows) {
      const auto g = sdr::benchmark_graph(s.sector_size, &gs.graph);
      gs.rows = std::make_unique<sdr::parent_row_sample>(sdr::parent_row_sample::draw(g, {16, 4096, sdr::read_sample_plan{}.seed}));
    }
    const sdr::reads_estimate e = gs.rows->count({sectors, cache, page}, s.layers);
    figure f{e.mean(), {figure_status::measured, "counted on the graph (" + gs.graph + "), sampled: " + gs.rows->describe() + ": " +
                                        format_number(e.mean(), 3) + " ± " + format_number(e.half_width95, 2) +
                                        " reads of " + std::to_string(page) + " bytes per node over " +
                                        std::to_string(s.layers) + " layers, " + std::to_string(sectors) +
                                        " sectors, a cache of " + format_count(cache) + " nodes"}};
    memo[key] = f;
    return f;
  };
}

std::string plan::summary() const {
  if (!feasible) return "no batch fits (" + design + "): " + batch_limit;
  return binding + "-bound, " + std::to_string(batch) + " sectors, " + design +
         (batch_limit.empty() ? "" : "; first larger batch that does not fit: " + batch_limit);
}

std::string plan::text() const {
  const double per_hour = sectors_per_hour.value.value_or(0);
  std::string t = format_number(per_hour, 3) + " sectors/hour (MODELED), " + design + ", ";
  if (!feasible) return t + "no batch fits: " + batch_limit;
  t += std::to_string(batch) + " sectors at once, " + binding + "-bound";
  for (const auto& b : bounds)
    if (b.name == binding) t += ": " + b.why;
  if (!batch_limit.empty()) t += "; first larger batch that does not fit: " + batch_limit;
  return t;
}

}  // namespace poreplab::storage_model
