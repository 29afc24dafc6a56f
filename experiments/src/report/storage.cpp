#include "report/storage.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "backends/device_class.hpp"
#include "poreplab/cpu/placed_backend.hpp"
#include "records/environment.hpp"
#include "records/records.hpp"
#include "records/schema.hpp"
#include "util/text.hpp"

namespace poreplab::verdict {

namespace key = records::key;
namespace axis = records::axis;
namespace ctx = records::ctx;
namespace rate = records::rate;

using nlohmann::json;

namespace {

// A core's labeling rate: one core alone, or one of `cores` hashing together (the record's
// labels/s shared among them, each with `sectors` of its own).
struct rate_record {
  const records::result_record* rec = nullptr;
  double labels = 0, hz = 0;
  std::uint32_t sectors = 1, cores = 1;
  std::uint64_t size = 0, window = 0;
  // With coordinators: how many ran, and the hashers one can feed (labels: counted per core
  // with k_max hashers to one coordinator); the lanes of one coordinator's team, what it cost
  // a node (its busy share of the node time; 0: not recorded), and the record's design (a
  // coordinator's cost differs with the headers it makes and the pages it reads).
  struct teams {
    std::uint32_t coordinators = 0, k_max = 0;
    std::uint32_t team_lanes = 0;
    double ns_per_node = 0;
    std::string design;
    std::string k_from;  // how k_max was found, where the cost at wider teams set it
  } coordinated;
};

double number_at(const json& j, std::initializer_list<const char*> path) {
  const json* at = &j;
  for (const char* k : path) {
    if (!at->is_object() || !at->contains(k)) return 0;
    at = &(*at)[k];
  }
  return at->is_number() ? at->get<double>() : 0;
}

// Filecoin's scheme on this CPU: parents read in place, or gathered by coordinators whose
// record counts them (coordinators, hashers, hashers_per_coordinator_max).
bool cpu_label_record(const records::result_record& r, const std::string& device) {
  const json& p = r.point;
  if (!records::is_ok(p, records::record_kind::label)) return false;
  const json axes = p.value(key::axes, json::object()), ctx = p.value(key::context, json::object());
  if (!backend_is(axes.value(axis::backend, ""), device_class::host_cpu) || ctx.value(ctx::scheme, "sdr/sha256") != "sdr/sha256" ||
      ctx.value(ctx::device, "") != device)
    return false;
  return records::record_producer(ctx) == cpu::parent_producer::off || ctx.value(ctx::coordinators, 0u) > 0;
}

// The threads that labeled: the record's thread map (role "label"), else its threads axis,
// else (0: every core) the machine's logical cores.
std::uint32_t labeling_threads(const records::result_record& r) {
  const json ctx = r.point.value(key::context, json::object());
  std::uint32_t n = 0;
  if (ctx.contains(ctx::thread_map) && ctx[ctx::thread_map].is_array())
    for (const auto& t : ctx[ctx::thread_map])
      if (t.is_object() && t.value("role", "") == cpu::kThreadRoles.name(cpu::thread_role::label)) ++n;
  if (n > 0) return n;
  const json axes = r.point.value(key::axes, json::object());
  if (axes.contains(axis::threads) && axes[axis::threads].is_number() && axes[axis::threads].get<double>() >= 1)
    return axes[axis::threads].get<std::uint32_t>();
  return static_cast<std::uint32_t>(records::machine_facts_of(r.header).logical_cores.value_or(0));
}

// One core's rate from record r: one thread (or one sector, one stream whatever the
// threads), or a node window with several threads each hashing sectors of its own. With
// coordinators, a hashing core's rate, the hashers one coordinator was measured able to feed
// at their floor (k_max: the model gives each that many a coordinator core), and what the
// coordinator cost a node (fed_hashers reads k_max from that at wider teams).
bool core_rate(const records::result_record& r, const std::string& device, rate_record& out) {
  if (!cpu_label_record(r, device)) return false;
  const json& p = r.point;
  const json axes = p.value(key::axes, json::object()), ctx = p.value(key::context, json::object());
  const auto sectors = static_cast<std::uint32_t>(axes.value(axis::sectors, 1u));
  const std::uint64_t window = axes.value(axis::window_nodes, std::uint64_t{0});
  const auto coordinators = ctx.value(ctx::coordinators, 0u);
  const std::uint32_t threads = coordinators > 0 ? ctx.value(ctx::hashers, 0u) : sectors == 1 ? 1 : labeling_threads(r);
  if (threads == 0 || (threads > 1 && (window == 0 || sectors < threads))) return false;
  const double labels = number_at(p, {key::rates, rate::labels_per_s}) / threads;
  out = {&r, labels, ctx.value(ctx::core_hz, 0.0), sectors / threads, threads, axes.value(axis::sector_size, std::uint64_t{0}), window, {}};
  if (coordinators > 0) {
    const double busy = ctx.value(ctx::coordinator_busy_share, 0.0), node_ns = ctx.value(ctx::ns_per_node_layer, 0.0);
    out.coordinated = {coordinators,
                       std::max(1u, ctx.value(ctx::hashers_per_coordinator_max, 1u)),
                       sectors / coordinators,
                       busy > 0 && busy <= 1 && node_ns > 0 ? busy * node_ns : 0,
                       std::to_string(out.size) + "/" + std::to_string(window > 0) + "/" +
                           std::to_string(axes.value("header_ahead", 1)) + records::record_window_pages_text(ctx),
                       {}};
  }
  return out.labels > 0 && out.size > 0;
}

// A coordinator's cost a node at each team width measured in one design: the median over
// the records at that width.
using cost_curve = std::map<std::uint32_t, double>;

std::map<std::string, cost_curve> coordinator_costs(const std::vector<rate_record>& rates) {
  std::map<std::string, std::map<std::uint32_t, std::vector<double>>> seen;
  for (const auto& r : rates)
    if (r.coordinated.ns_per_node > 0) seen[r.coordinated.design][r.coordinated.team_lanes].push_back(r.coordinated.ns_per_node);
  std::map<std::string, cost_curve> out;
  for (auto& [design, widths] : seen)
    for (auto& [lanes, costs] : widths) {
      std::sort(costs.begin(), costs.end());
      const std::size_t n = costs.size();
      out[design][lanes] = n % 2 == 1 ? costs[n / 2] : (costs[n / 2 - 1] + costs[n / 2]) / 2;
    }
  return out;
}

// The coordinator's cost a node at `lanes`, never below what was measured: the cost measured
// at the nearest width at or above it (the cost grows with the width), or beyond the widest
// measured, that one's cost in proportion (a row's fixed cost, its page walk and miss,
// shared by its lanes, makes the cost grow slower than that).
double cost_at(const cost_curve& c, std::uint32_t lanes) {
  if (const auto it = c.lower_bound(lanes); it != c.end()) return it->second;
  const auto& [widest, cost] = *c.rbegin();
  return cost * lanes / widest;
}

// The hashers of `r`'s rate one coordinator keeps fed: the most k whose team of k x r's lanes
// the coordinator serves a node within one hasher's measured node time, from its cost
// measured at the wider teams of the same design. Without a wider measurement, the record's
// own k_max.
void fed_hashers(rate_record& r, const std::map<std::string, cost_curve>& costs) {
  auto& t = r.coordinated;
  const auto it = costs.find(t.design);
  if (t.coordinators == 0 || r.labels <= 0 || it == costs.end() || it->second.rbegin()->first <= t.team_lanes) return;
  const cost_curve& c = it->second;
  const std::uint32_t per_hasher = std::max(1u, r.sectors);
  const double hasher_ns = 1e9 * per_hasher / r.labels;
  std::uint32_t k = 1;
  while (k < 64 && cost_at(c, (k + 1) * per_hasher) <= hasher_ns) ++k;
  t.k_max = k;
  std::string widths;
  for (const auto& [lanes, cost] : c)
    widths += (widths.empty() ? "" : ", ") + std::to_string(lanes) + " lanes " + format_number(cost, 3) + " ns";
  t.k_from = "; k = " + std::to_string(k) + " from the coordinator's cost a node measured at its team's widths (" + widths +
             ") against a hasher's " + format_number(hasher_ns, 3) + " ns a node";
}

// A core measured beside others working (hashing, or coordinating: they count among the cores).
bool together(const rate_record& r) { return r.cores + r.coordinated.coordinators > 1; }

// Windows before whole sectors, then the nearest size (the smaller on a tie), then a core
// measured beside the others hashing (what a whole CPU gets per core, its shared caches,
// memory and clock included) before one alone, then labels/s.
bool better(const rate_record& a, const rate_record& b, std::uint64_t size) {
  const auto dist = [&](const rate_record& r) {
    const double d = std::log2(double(r.size)) - std::log2(double(size));
    return d <= 0 ? -d : d + 0.5;
  };
  if ((a.window > 0) != (b.window > 0)) return a.window > 0;
  if (dist(a) != dist(b)) return dist(a) < dist(b);
  if (together(a) != together(b)) return together(a);
  return a.labels > b.labels;
}

storage_model::hash_rate to_hash_rate(const rate_record& r, std::uint64_t size) {
  const bool here = r.window > 0 && r.size == size;
  const std::string on =
      r.coordinated.coordinators > 0
          ? " sectors a core on each of " + std::to_string(r.cores) + " hashing cores fed by " +
                std::to_string(r.coordinated.coordinators) + " coordinator" + (r.coordinated.coordinators > 1 ? "s" : "") +
                ", each able to feed " + std::to_string(r.coordinated.k_max) + " at that rate" + r.coordinated.k_from + ", "
      : r.cores > 1 ? " sectors a core on each of " + std::to_string(r.cores) + " cores hashing together (" +
                          format_number(r.labels * r.cores, 4) + " labels/s in all), "
                    : " sectors on one core, ";
  const std::string how = format_number(r.labels, 4) + " labels/s with " + std::to_string(r.sectors) + on +
                          (r.window > 0 ? "a " + std::to_string(r.window) + "-node window of " : "a whole ") +
                          format_size(r.size) + " sector" +
                          records::record_window_pages_text(r.rec->point.value(key::context, json::object())) +
                          (r.hz > 0 ? " at " + format_number(r.hz / 1e9, 4) + " GHz" : "") +
                          " (record " + r.rec->where + ")";
  return {r.labels, r.sectors, r.hz, {here ? figure_status::measured : figure_status::extrapolated, here ? how : how + ", used at " + format_size(size)},
          0, {}, r.coordinated.k_max, {}};
}

std::optional<storage_model::disk_array> disk_of(const records::result_set& in, const std::string& device) {
  std::optional<storage_model::disk_array> out;
  for (const auto& r : in.records) {
    const json& p = r.point;
    if (!records::is_ok(p, records::record_kind::disk)) continue;
    if (records::machine_facts_of(r.header).cpu_model.value_or("") != device) continue;
    const json ctx = p.value(key::context, json::object());
    storage_model::disk_array d;
    d.count = 1;
    d.iops_each = number_at(p, {key::stats, "median"});
    d.capacity_each = ctx.value("free_bytes", 0.0);
    d.model = ctx.value("disk_model", std::string());
    if (d.model.empty()) d.model = ctx.value("disk_device", std::string("unknown disk"));
    d.from = {figure_status::measured, format_number(d.iops_each, 3) + " random 4 KiB reads/s at depth " +
                              std::to_string(ctx.value("queue_depth", 0)) + " (" + ctx.value(ctx::engine, std::string()) +
                              ", O_DIRECT) and " + format_size(static_cast<std::uint64_t>(d.capacity_each)) +
                              " free in " + ctx.value("dir", std::string()) + " on " + d.model + " (record " + r.where + ")"};
    if (d.iops_each > 0) out = d;
  }
  return out;
}

}  // namespace

cpu_evidence cpu_evidence_of(const records::result_set& in, const std::string& device, std::uint64_t size) {
  cpu_evidence e;
  std::optional<rate_record> best, single;
  // The best of each sector count a core and hashers a coordinator feeds (k_max): a slower
  // hasher whose coordinator feeds more of them may seal more with the same cores.
  std::map<std::pair<std::uint32_t, std::uint32_t>, rate_record> by_sectors;
  std::vector<rate_record> rates;
  for (const auto& r : in.records) {
    rate_record x;
    if (core_rate(r, device, x)) rates.push_back(std::move(x));
  }
  const auto costs = coordinator_costs(rates);
  for (auto& x : rates) {
    fed_hashers(x, costs);
    if (!best || better(x, *best, size)) best = x;
    if (x.sectors == 1 && (!single || better(x, *single, size))) single = x;
    const std::pair<std::uint32_t, std::uint32_t> arrangement{x.sectors, x.coordinated.k_max};
    auto it = by_sectors.find(arrangement);
    if (it == by_sectors.end()) by_sectors.emplace(arrangement, x);
    else if (better(x, it->second, size)) it->second = x;
  }
  if (!best) return e;
  e.hash = to_hash_rate(*best, size);
  // Other arrangements a core, measured as the best one was (beside the others or alone).
  for (const auto& [arrangement, x] : by_sectors)
    if (arrangement != std::pair{best->sectors, best->coordinated.k_max} && arrangement.first != 1 &&
        together(x) == together(*best)) {
      const std::uint32_t sectors = arrangement.first;
      const auto h = to_hash_rate(x, size);
      e.hash->other_lanes.push_back({sectors, h.labels_per_s, h.clock_hz, h.from, h.hashers_per_coordinator});
    }
  if (single) {
    const auto one = to_hash_rate(*single, size);
    e.hash->single_labels_per_s = one.labels_per_s;
    e.hash->single_from = one.from;
  }
  const records::machine_facts facts = records::machine_facts_of(best->rec->header);
  auto& m = e.machine;
  m.name = device;
  m.threads = static_cast<std::uint32_t>(facts.logical_cores.value_or(0));
  m.cores = static_cast<std::uint32_t>(facts.cores);
  if (m.cores == 0) m.cores = m.threads;
  m.clock_hz = best->hz;
  m.clock_from = {figure_status::measured, "the core clock beside record " + best->rec->where};
  m.ram_bytes = facts.memory_total_bytes.value_or(0);
  m.ram_from = {figure_status::measured, "the RAM of the machine of record " + best->rec->where};
  if (auto d = disk_of(in, device)) m.disks.push_back(*d);
  return e;
}

storage_model::cpu_machine model_machine(const machine& m) {
  storage_model::cpu_machine c;
  c.name = m.name;
  c.cores = m.cores;
  c.threads = m.threads;
  c.clock_hz = m.all_core_hz;
  c.clock_from = {figure_status::quoted, m.clock_source.empty() ? m.file : m.clock_source};
  if (m.ccx_cores > 0) c.ccx_cores = m.ccx_cores;
  c.ram_bytes = m.ram_bytes;
  c.ram_from = {figure_status::quoted, m.file};
  for (const auto& d : m.disks)
    c.disks.push_back({d.count, d.random_read_iops, d.capacity_bytes, d.model, {figure_status::quoted, d.source}});
  return c;
}

std::optional<storage_model::hash_rate> machine_hash_rate(const machine& m,
                                                          const std::optional<storage_model::hash_rate>& measured,
                                                          rate_source prefer) {
  const bool quoted = m.hashing && m.all_core_hz > 0;
  if (quoted && (prefer == rate_source::quoted || !measured)) {
    const auto& h = *m.hashing;
    storage_model::hash_rate r{h.sectors_per_core * m.all_core_hz / h.cycles_per_node, h.sectors_per_core, m.all_core_hz,
                               {figure_status::quoted, std::to_string(h.sectors_per_core) + " sectors per core in " +
                                              format_number(h.cycles_per_node, 4) + " cycles per node (" + h.source + ")" +
                                              (prefer == rate_source::measured ? "; no measured rate in the results" : "")},
                               0, {}, 0, {}};
    if (h.one_sector_cycles_per_node > 0) {
      r.single_labels_per_s = m.all_core_hz / h.one_sector_cycles_per_node;
      r.single_from = {figure_status::quoted, "one sector in " + format_number(h.one_sector_cycles_per_node, 4) + " cycles per node (" +
                                     h.source + ")"};
    }
    return r;
  }
  if (!measured) return std::nullopt;
  storage_model::hash_rate r = *measured;
  r.from = {figure_status::extrapolated, measured->from.text() + "; assumes " + m.name + "'s cores take as many cycles per label" +
                                (m.microarchitecture.empty() ? "" : " (" + m.microarchitecture + ")") +
                                (prefer == rate_source::quoted ? "; the file quotes no rate" : "")};
  return r;
}

}  // namespace poreplab::verdict
