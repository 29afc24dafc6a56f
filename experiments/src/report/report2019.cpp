#include "report/report2019.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "backends/device_class.hpp"
#include "poreplab/cpu/engines.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/stats.hpp"
#include "records/environment.hpp"
#include "records/records.hpp"
#include "records/schema.hpp"
#include "util/text.hpp"

namespace poreplab::report2019 {

namespace key = records::key;

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string fix(double v, int decimals) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

[[noreturn]] void fail(const std::string& source, const std::string& where, const std::string& what) {
  std::string m = source;
  m += ": ";
  m += where;
  m += ": ";
  m += what;
  throw std::invalid_argument(m);
}

void need(const json& o, const std::string& key, bool number, const std::string& source, const std::string& where) {
  if (!o.is_object()) fail(source, where, "expected an object");
  if (!o.contains(key)) fail(source, where + "/" + key, "missing");
  const json& v = o.at(key);
  if (number ? !(v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= 0) : !v.is_string())
    fail(source, where + "/" + key, number ? "expected a non-negative number, got " + show(v) : "expected text, got " + show(v));
}

const json& array_at(const json& o, const std::string& key, const std::string& source, const std::string& where) {
  if (!o.contains(key) || !o.at(key).is_array() || o.at(key).empty())
    fail(source, where + "/" + key, "expected a non-empty list");
  return o.at(key);
}

// The CPU a record ran on: its model, with the microarchitecture its CPUID names where the
// record carries it (two AMD EPYC kinds read alike by model).
std::string cpu_of(const records::result_record& r) {
  const records::machine_facts m = records::machine_facts_of(r.header);
  std::string name = m.cpu_model.value_or("this CPU");
  if (!m.microarchitecture.empty()) name += " (" + m.microarchitecture + ")";
  return name;
}

double rate(const json& p, const char* key) {
  const json r = p.value(key::rates, json::object());
  return r.contains(key) && r[key].is_number() ? r[key].get<double>() : 0.0;
}

// One measured single stream: a hash point in mode chain.
struct stream {
  std::string hash, engine, device;
  bool gpu = false;
  double gb_per_s = 0, cycles_per_byte = 0;
  std::string where;
};

std::vector<stream> streams(const records::result_set& in) {
  std::map<std::string, stream> best;  // hash|engine|device -> fastest record
  for (const auto& r : in.records) {
    const json& p = r.point;
    if (!records::is_ok(p, records::record_kind::hash)) continue;
    const json axes = p.value(key::axes, json::object());
    if (axes.value("mode", "") != "chain") continue;
    const auto hash = amax::canonical_hash(axes.value("algo", ""));
    if (!hash) continue;
    const json ctx = p.value(key::context, json::object());
    const double lane_ns = rate(p, "lane_ns_per_block");
    const double block = ctx.value("block_bytes", 0.0);
    if (lane_ns <= 0 || block <= 0) continue;
    // A single stream is a one-lane engine; a lane of a multi-buffer engine runs slower
    // than its own single chain would, so it is no off-the-shelf latency figure.
    const bool gpu = backend_is(axes.value(records::axis::backend, ""), device_class::gpu);
    if (!gpu && ctx.value("lanes", 1.0) != 1.0) continue;
    stream s;
    s.hash = *hash;
    s.engine = ctx.value(records::ctx::engine, axes.value(records::axis::engine, "?"));
    s.gpu = gpu;
    s.device = s.gpu ? ctx.value(records::ctx::device, "GPU") : cpu_of(r);
    s.gb_per_s = block / lane_ns;
    s.cycles_per_byte = rate(p, "cycles_per_byte");
    s.where = r.where;
    const std::string key = s.hash + "|" + s.engine + "|" + s.device;
    if (!best.count(key) || best[key].gb_per_s < s.gb_per_s) best[key] = s;
  }
  std::vector<stream> v;
  for (auto& [k, s] : best) v.push_back(s);
  return v;
}


void compute_section(const json& data, const records::result_set& in, std::ostringstream& md) {
  md << "### Hardware compute table\n\n"
     << "Quoted rows: the 2019 report (single-threaded latency figures, its clocks, its costs). Rows marked "
        "**measured** are one dependent chain of compressions on this machine (`hash` points, mode chain), at its "
        "own clock; their cost column is left empty.\n\n"
     << "| hash | compute engine | clock (MHz) | c/B | single-stream GB/s | cost | $ / GB/s | fixed cost | figure |\n"
     << "|---|---|---|---|---|---|---|---|---|\n";
  const auto measured = streams(in);
  for (const std::string& h : amax::hash_names()) {
    for (const auto& r : data["compute"]) {
      if (r["hash"] != h) continue;
      md << "| " << h << " | " << r["engine"].get<std::string>() << " | "  // the data file's, not a record key
         << fix(r["clock_mhz"].get<double>(), 0)
         << " | " << format_number(r["cycles_per_byte"].get<double>(), 3) << " | "
         << format_number(r["gb_per_s"].get<double>(), 3) << " | " << r["cost"].get<std::string>() << " | "
         << fix(r["usd_per_gb_per_s"].get<double>(), 2) << " | " << r["fixed_cost"].get<std::string>() << " | quoted ("
         << r["kind"].get<std::string>() << ") |\n";
    }
    for (const auto& s : measured) {
      if (s.hash != h) continue;
      std::string label = s.engine;
      if (h == "sha256" && !s.gpu) label += cpu::sha256_engine_uses_sha_ni(s.engine) ? " (SHA-NI)" : " (no SHA-NI)";
      md << "| " << h << " | " << s.device << ": " << label << " | - | "
         << (s.cycles_per_byte > 0 ? format_number(s.cycles_per_byte, 3) : "-") << " | "
         << format_number(s.gb_per_s, 3) << " | - | - | - | measured (" << s.where << ") |\n";
    }
  }
  md << "\nMeasured rows: one-lane engines only (a lane of a multi-buffer engine is no single-stream figure); c/B "
        "in TSC cycles per byte (the TSC's rate, not the core's boost clock). The printed c/B of the custom rows are "
        "rounded: their own GB/s imply 0.32 c/B (BLAKE2s) and 0.192 c/B (BLAKE2b).\n\n";
}

// Median core clock per CPU: the add-chain calibration that label and limits records carry.
std::map<std::string, double> core_clocks(const records::result_set& in) {
  std::map<std::string, std::vector<double>> seen;
  for (const auto& r : in.records) {
    const json& p = r.point;
    if (!records::is_ok(p)) continue;
    const double hz = p.value(key::context, json::object()).value(records::ctx::core_hz, 0.0);
    if (hz > 0) seen[cpu_of(r)].push_back(hz);
  }
  std::map<std::string, double> out;
  for (auto& [cpu, v] : seen) out[cpu] = median(v);
  return out;
}

// SDR's sequential floor of one node per measured CPU: 20 (or, with the header block
// compressed ahead, 19) dependent compressions on its fastest one-lane SHA-256 chain.
void floor_section(const records::result_set& in, std::ostringstream& md) {
  std::map<std::string, const stream*> fastest;
  const auto measured = streams(in);
  for (const auto& s : measured)
    if (s.hash == "sha256" && !s.gpu && (!fastest.count(s.device) || fastest[s.device]->gb_per_s < s.gb_per_s))
      fastest[s.device] = &s;
  if (fastest.empty()) return;
  const auto clocks = core_clocks(in);
  md << "### SDR's sequential floor per measured CPU\n\n"
     << "One node's label is 20 dependent SHA-256 compressions, 19 when its parent-free header block is compressed "
        "ahead (the cpu labeler's `header_ahead`). Measured: each CPU's fastest one-lane chain (`hash` points, mode "
        "chain); cycles at the core clock its records measured (add-chain calibration), where they carry one. What an "
        "adversary's custom chain is set against (the Amax above) is this floor, per CPU kind.\n\n"
     << "| CPU | engine | ns per compression | core GHz | 20-block floor: ns (cycles) per node | 19-block floor: ns "
        "(cycles) per node | figure |\n"
     << "|---|---|---|---|---|---|---|\n";
  for (const auto& [cpu, s] : fastest) {
    const double ns = 64.0 / s->gb_per_s;  // one 64-byte block per compression
    const auto it = clocks.find(cpu);
    const double ghz = it != clocks.end() ? it->second / 1e9 : 0;
    auto floor = [&](int blocks) {
      std::string t = format_number(blocks * ns, 4);
      if (ghz > 0) t += " (" + format_number(blocks * ns * ghz, 4) + ")";
      return t;
    };
    md << "| " << cpu << " | " << s->engine << " | " << format_number(ns, 4) << " | "
       << (ghz > 0 ? format_number(ghz, 3) : std::string("not measured")) << " | " << floor(20) << " | " << floor(19)
       << " | measured (" << s->where << ") |\n";
  }
  md << "\n";
}

void amax_section(const json& data, const records::result_set& in, std::ostringstream& md) {
  md << "### Amax\n\n"
     << "Quoted: the report's table. *From rows*: the best custom over the best off-the-shelf GB/s of the compute "
        "table as printed. Measured: the fastest one-lane single stream on this machine (CPU with and without "
        "SHA-NI; GPU when measured), and the report's custom figure over the fastest of them.\n\n"
     << "| hash | off-the-shelf GB/s (quoted) | custom GB/s (quoted) | Amax (quoted) | Amax from rows | "
        "best here, SHA-NI / SIMD GB/s | best here, no SHA-NI GB/s | GPU GB/s | Amax vs here |\n"
     << "|---|---|---|---|---|---|---|---|---|\n";
  const auto measured = streams(in);
  for (const auto& a : data["amax"]) {
    const std::string h = a["hash"];
    double off = 0, custom = 0;
    for (const auto& r : data["compute"]) {
      if (r["hash"] != h) continue;
      double& best = r["class"] == "custom" ? custom : off;
      best = std::max(best, r["gb_per_s"].get<double>());
    }
    double cpu_best = 0, no_shani = 0, gpu = 0;
    for (const auto& s : measured) {
      if (s.hash != h) continue;
      if (s.gpu)
        gpu = std::max(gpu, s.gb_per_s);
      else if (h == "sha256" && !cpu::sha256_engine_uses_sha_ni(s.engine))
        no_shani = std::max(no_shani, s.gb_per_s);
      else
        cpu_best = std::max(cpu_best, s.gb_per_s);
    }
    if (h != "sha256") no_shani = cpu_best;  // BLAKE2 engines need no SHA extensions
    const double here = std::max({cpu_best, no_shani, gpu});
    auto cell = [](double v) { return v > 0 ? format_number(v, 3) : std::string("not measured"); };
    md << "| " << h << " | " << format_number(a["off_the_shelf_gb_per_s"].get<double>(), 3) << " | "
       << format_number(a["custom_gb_per_s"].get<double>(), 3) << " | " << format_number(a["amax"].get<double>(), 3)
       << " | " << (off > 0 ? format_number(custom / off, 3) : "-") << " | " << cell(cpu_best) << " | "
       << cell(no_shani) << " | " << cell(gpu) << " | "
       << (here > 0 ? format_number(a["custom_gb_per_s"].get<double>() / here, 3) : "-") << " |\n";
  }
  md << "\nThe BLAKE2b row: the printed 20.8 / 1.7 = 12.2, not the printed 12.5; the unrounded rows (4000 MHz / "
        "0.192 c/B = 20.83 GB/s over 5000 MHz / 3 c/B = 1.667 GB/s) give 12.5, so the printed Amax was computed "
        "before rounding. The SHA-256 Amax (3) takes the Ryzen SHA-NI row as off-the-shelf; against the AVX2 (no "
        "SHA-NI) row it would be 7.5 / 0.7 = 10.7.\n\n";
  floor_section(in, md);
}

struct step_cell {
  double cpb = 0;
  bool core = false;  // core cycles (perf counter) rather than TSC ticks
  std::string where, knobs;
};

void steps_section(const json& data, const records::result_set& in, std::ostringstream& md) {
  const json& sum = data["summary"];
  md << "### " << sum["title"].get<std::string>() << "\n\n"
     << "Quoted: " << sum["workload"].get<std::string>() << ", " << sum["cpu"].get<std::string>()
     << ". Here: `label` points of experiment `step-<id>-<scheme>`, one sector, core cycles per hashed byte (perf "
        "counter; TSC ticks, marked *tsc*, where it is unavailable), each step adding its switch to the previous ones; "
        "the switches each point set are listed.\n\n";
  std::map<std::string, step_cell> cells;
  std::string cpu;
  for (const auto& r : in.records) {
    const json& p = r.point;
    if (!records::is_ok(p, records::record_kind::label)) continue;
    const std::string e = p.value(key::experiment, "");
    if (e.rfind("step-", 0) != 0) continue;
    step_cell c;
    // Core cycles count only while the thread runs, so a busy machine's preemption does
    // not inflate them as it does TSC ticks; TSC where the counter is unavailable.
    c.cpb = rate(p, "cycles_per_byte_core");
    c.core = c.cpb > 0;
    if (!c.core) c.cpb = rate(p, "cycles_per_byte");
    c.where = r.where;
    const json axes = p.value(key::axes, json::object());
    for (const char* k : {records::axis::engine, "assembly", "prefetch_distance", "encoding", "huge_pages"})
      if (axes.contains(k) && !axes[k].is_null()) {
        if (!c.knobs.empty()) c.knobs += " ";
        c.knobs += k;
        c.knobs += "=";
        c.knobs += axes[k].is_string() ? axes[k].get<std::string>() : axes[k].dump();
      }
    cells[e.substr(5)] = c;
    cpu = cpu_of(r);
  }
  md << "| step | quoted c/B (i9-9900K, ZigZag/BLAKE2s) | quoted gain | ZigZag/BLAKE2s c/B here | gain here | "
        "SDR/SHA-256 c/B here | gain here | what the step sets here |\n"
     << "|---|---|---|---|---|---|---|---|\n";
  double prev_q = 0, prev_z = 0, prev_s = 0;
  auto gain = [](double prev, double now) {
    return prev > 0 && now > 0 ? fix(100.0 * (prev - now) / prev, 1) + "%" : std::string("-");
  };
  for (const auto& s : sum["steps"]) {
    const std::string id = s["id"];
    const double q = s["quoted_cycles_per_byte"];
    const step_cell z = cells.count(id + "-zigzag-blake2s") ? cells[id + "-zigzag-blake2s"] : step_cell{};
    const step_cell x = cells.count(id + "-sdr-sha256") ? cells[id + "-sdr-sha256"] : step_cell{};
    auto c = [](const step_cell& v) {
      return v.cpb <= 0 ? std::string("not measured") : format_number(v.cpb, 3) + (v.core ? "" : " *tsc*");
    };
    md << "| " << s["step"].get<std::string>() << " | " << fix(q, 2) << " | " << gain(prev_q, q) << " | " << c(z)
       << " | " << gain(prev_z, z.cpb) << " | " << c(x) << " | " << gain(prev_s, x.cpb) << " | "
       << s["poreplab"].get<std::string>();
    if (!z.knobs.empty()) md << "; ZigZag: `" << z.knobs << "`";
    if (!x.knobs.empty()) md << "; SDR: `" << x.knobs << "`";
    md << " |\n";
    prev_q = q;
    prev_z = z.cpb;
    prev_s = x.cpb;
  }
  md << "\nMeasured on " << (cpu.empty() ? std::string("(no step points)") : cpu)
     << "; the quoted column is the report's, on its CPU.\n\n";
  // Switches measured outside the cumulative steps (huge pages on/off on the final state).
  bool any = false;
  for (const auto& [k, c] : cells) {
    bool is_step = false;
    for (const auto& s : sum["steps"]) is_step = is_step || k.rfind(s["id"].get<std::string>() + "-", 0) == 0;
    if (is_step) continue;
    if (!any) md << "| other A/B point | c/B here | switches |\n|---|---|---|\n";
    any = true;
    md << "| " << k << " | " << format_number(c.cpb, 3) << (c.core ? "" : " *tsc*") << " | `" << c.knobs << "` |\n";
  }
  if (any) md << "\n";
}

// The report timed each layer with the TSC to compare forward and reverse traversal, and
// found the last memory-bound share of its hash (LLC misses) in the reverse direction only.
void direction_section(const json& data, const records::result_set& in, std::ostringstream& md) {
  md << "### Forward and reverse layers\n\n"
     << "Quoted: " << data["direction"]["detail"].get<std::string>() << " (" << data["direction"]["source"].get<std::string>()
     << "). Here: each `label` point's layer times (host clock at each layer's end, ns per node, medians over samples, "
        "mean over the group's layers): ZigZag's odd layers walk the graph forward and its even layers in reverse; "
        "SDR has no reverse layer, so its layer 1 (base parents only) stands beside layers 2+ (expander parents read "
        "from the previous layer).\n\n";
  bool any = false;
  for (const auto& r : in.records) {
    const json& p = r.point;
    if (!records::is_ok(p, records::record_kind::label)) continue;
    const json c = p.value(key::context, json::object());
    if (!c.contains("layer_groups_ns_per_node") || !c["layer_groups_ns_per_node"].is_object()) continue;
    const json g = c["layer_groups_ns_per_node"];
    const bool zig = g.contains("forward") && g.contains("reverse");
    const bool sdr = g.contains("layer 1") && g.contains("layers 2+");
    if (!zig && !sdr) continue;
    const json& ja = g[zig ? "forward" : "layer 1"];
    const json& jb = g[zig ? "reverse" : "layers 2+"];
    if (!ja.is_number() || !jb.is_number()) continue;
    const double a = ja.get<double>(), b = jb.get<double>();
    if (!any)
      md << "| point | scheme | forward / layer 1, ns/node | reverse / layers 2+, ns/node | second / first |\n"
         << "|---|---|---|---|---|\n";
    any = true;
    // Points of one experiment differ by their switches: name the prefetch distance.
    std::string name = p.value(key::experiment, "");
    const json axes = p.value(key::axes, json::object());
    if (axes.contains("prefetch_distance") && axes["prefetch_distance"].is_number())
      name += " (prefetch " + axes["prefetch_distance"].dump() + ")";
    md << "| " << name << " | " << c.value(records::ctx::scheme, "") << " | " << format_number(a, 4) << " | "
       << format_number(b, 4) << " | " << (a > 0 ? fix(b / a, 3) : std::string("-")) << " |\n";
  }
  if (!any) md << "No label point with per-layer times in these records.\n";
  md << "\n";
  // The profile's memory-bound share per direction: its fetch phase (every load of parent
  // memory, TSC-timed), and LLC misses where the PMU counts them.
  bool prof = false;
  std::string counter;
  for (const auto& r : in.records) {
    const json& p = r.point;
    if (!records::is_ok(p, records::record_kind::profile)) continue;
    const json c = p.value(key::context, json::object());
    if (!c.contains("directions") || !c["directions"].is_array()) continue;
    if (!prof)
      md << "Profile (`profile` points, timed run, fenced TSC): each group's share of its layers' time in fetch (the "
            "loads of parent memory: the memory-bound share by the clock) and in hash, and last-level-cache misses "
            "per node where the CPU's counters are exposed.\n\n"
         << "| point | scheme | group | layers | fetch share | hash share | ns/node | LLC misses/node |\n"
         << "|---|---|---|---|---|---|---|---|\n";
    prof = true;
    if (c.value("llc_counter", json()).is_string()) counter = c["llc_counter"].get<std::string>();
    for (const auto& d : c["directions"]) {
      if (!d.is_object() || !d.value("group", json()).is_string() || !d.value(records::axis::layers, json()).is_number_unsigned() ||
          !d.value("fetch_share", json()).is_number() || !d.value("hash_share", json()).is_number() ||
          !d.value("ns_per_node", json()).is_number())
        continue;
      const json miss = d.value("llc_misses_per_node", json(nullptr));
      md << "| " << p.value(key::experiment, "") << " | " << c.value(records::ctx::scheme, "") << " | " << d.value("group", "") << " | "
         << d.value(records::axis::layers, 0) << " | " << fix(100 * d.value("fetch_share", 0.0), 2) << "% | "
         << fix(100 * d.value("hash_share", 0.0), 2) << "% | " << format_number(d.value("ns_per_node", 0.0), 4) << " | "
         << (miss.is_number() ? format_number(miss.get<double>(), 3) : std::string("not counted")) << " |\n";
    }
  }
  if (prof) md << "\nLLC miss counter: " << (counter.empty() ? std::string("not recorded") : counter) << ".\n\n";
}

void padding_section(const json& data, const records::result_set& in, std::ostringstream& md) {
  const json& mp = data["merkle_padding"];
  md << "### Padding precompute (64-byte messages)\n\n"
     << "Quoted: " << mp["source"].get<std::string>() << ": " << mp["detail"].get<std::string>() << " (gain "
     << fix(100.0 * mp["gain"].get<double>(), 0) << "%). Here: `tree_d` points (every parent a 64-byte message), "
     << "pad_precompute 0 against 1, per engine and sector size.\n\n";
  std::map<std::string, std::map<int, std::pair<double, std::string>>> ab;  // engine|size -> pad -> ns/node
  for (const auto& r : in.records) {
    const json& p = r.point;
    if (!records::is_ok(p, records::record_kind::tree_d)) continue;
    const json axes = p.value(key::axes, json::object());
    if (!axes.contains("pad_precompute") || !axes["pad_precompute"].is_number()) continue;
    const std::string key = axes.value(records::axis::engine, "library") + " | " +
                            format_size(axes.value(records::axis::sector_size, std::uint64_t{0})) + " | " +
                            (axes.value(records::axis::threads, std::uint64_t{0}) == 1 ? "1 thread" : "all threads");
    ab[key][axes["pad_precompute"].get<int>()] = {rate(p, "ns_per_node"), r.where};
  }
  if (ab.empty()) {
    md << "No tree_d pad_precompute points in these records.\n\n";
    return;
  }
  md << "| engine | sector | threads | ns/node, schedule computed | ns/node, precomputed | time saved |\n"
     << "|---|---|---|---|---|---|\n";
  for (const auto& [k, m] : ab) {
    const double off = m.count(0) ? m.at(0).first : 0, on = m.count(1) ? m.at(1).first : 0;
    md << "| " << k << " | " << (off > 0 ? format_number(off, 4) : "-") << " | " << (on > 0 ? format_number(on, 4) : "-")
       << " | " << (off > 0 && on > 0 ? fix(100.0 * (off - on) / off, 1) + "%" : std::string("-")) << " |\n";
  }
  md << "\nThe time saved counts the whole tree build (loads, stores, the data block's compression), as the "
        "quoted figure counts the whole Merkle-root computation.\n\n";
}

}  // namespace

fs::path default_data_file() {
  return amax::default_custom_hardware_file().parent_path() / "report-2019.json";
}

json parse_data(const std::string& text, const std::string& source) {
  json d;
  try {
    d = json::parse(text);
  } catch (const json::parse_error& e) {
    throw std::invalid_argument(source + ": parse error at byte " + std::to_string(e.byte));
  }
  if (!d.is_object() || d.value("schema", "") != kDataSchema) fail(source, "/schema", std::string("expected ") + kDataSchema);
  need(d, "source", false, source, "");
  if (!d.contains("summary")) fail(source, "/summary", "missing");
  for (const char* k : {"title", "cpu", "workload"}) need(d["summary"], k, false, source, "/summary");
  const json& steps = array_at(d["summary"], "steps", source, "/summary");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::string w = "/summary/steps/" + std::to_string(i);
    for (const char* k : {"id", "step", "poreplab"}) need(steps[i], k, false, source, w);
    need(steps[i], "quoted_cycles_per_byte", true, source, w);
  }
  const json& rows = array_at(d, "compute", source, "");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string w = "/compute/" + std::to_string(i);
    for (const char* k : {"hash", "engine", "class", "cost", "fixed_cost", "kind"})  // the data file's, not record keys
      need(rows[i], k, false, source, w);
    for (const char* k : {"clock_mhz", "cycles_per_byte", "gb_per_s", "usd_per_gb_per_s"}) need(rows[i], k, true, source, w);
    if (!amax::canonical_hash(rows[i]["hash"].get<std::string>())) fail(source, w + "/hash", "unknown hash");
    if (rows[i]["class"] != "custom" && rows[i]["class"] != "off-the-shelf")
      fail(source, w + "/class", "expected custom or off-the-shelf");
    if (rows[i]["kind"] != "measured-by-source" && rows[i]["kind"] != "estimate")
      fail(source, w + "/kind", "expected measured-by-source or estimate");
  }
  const json& am = array_at(d, "amax", source, "");
  for (std::size_t i = 0; i < am.size(); ++i) {
    const std::string w = "/amax/" + std::to_string(i);
    need(am[i], "hash", false, source, w);
    for (const char* k : {"off_the_shelf_gb_per_s", "custom_gb_per_s", "amax"}) need(am[i], k, true, source, w);
  }
  if (!d.contains("direction")) fail(source, "/direction", "missing");
  need(d["direction"], "source", false, source, "/direction");
  need(d["direction"], "detail", false, source, "/direction");
  need(d["direction"], "memory_bound_share", true, source, "/direction");
  if (!d.contains("merkle_padding")) fail(source, "/merkle_padding", "missing");
  need(d["merkle_padding"], "source", false, source, "/merkle_padding");
  need(d["merkle_padding"], "detail", false, source, "/merkle_padding");
  need(d["merkle_padding"], "gain", true, source, "/merkle_padding");
  return d;
}

json load_data(const fs::path& file) {
  return parse_data(read_small_file(file, {.max_bytes = 64 << 20}), file.string());
}

std::string amax_markdown(const json& data, const records::result_set& in) {
  std::ostringstream md;
  md << "## The 2019 report's compute and Amax tables\n\nSource of quoted figures: " << data["source"].get<std::string>()
     << ".\n\n";
  compute_section(data, in, md);
  amax_section(data, in, md);
  return md.str();
}

std::string markdown(const json& data, const records::result_set& in) {
  std::ostringstream md;
  md << "## The 2019 report beside this machine\n\nSource of quoted figures: " << data["source"].get<std::string>()
     << ". Quoted figures are the report's (its CPUs, clocks and costs); measured ones come from this run's "
        "records. See docs/report-2019.md for what agrees, what differs and why.\n\n";
  steps_section(data, in, md);
  compute_section(data, in, md);
  amax_section(data, in, md);
  direction_section(data, in, md);
  padding_section(data, in, md);
  return md.str();
}

bool write_report_file(const fs::path& dir) {
  try {
    const json data = load_data(default_data_file());
    write_file_atomic(dir / "report-2019.md", markdown(data, records::load_result_set({dir})));
    std::cerr << "report: " << (dir / "report-2019.md").string() << "\n";
    return true;
  } catch (const std::exception& e) {
    std::cerr << "poreplab: warning: report-2019 not written: " << e.what() << "\n";
    return false;
  }
}

}  // namespace poreplab::report2019
