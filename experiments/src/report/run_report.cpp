#include "report/run_report.hpp"

#include <algorithm>
#include <optional>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "poreplab/file_io.hpp"
#include "poreplab/json_input.hpp"
#include "poreplab/memory_check.hpp"
#include "records/environment.hpp"
#include "records/records.hpp"
#include "records/schema.hpp"
#include "util/text.hpp"

namespace poreplab::report {

namespace key = records::key;
namespace axis = records::axis;
namespace ctx = records::ctx;
namespace rate = records::rate;

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string cell_text(const json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number()) return format_number(v.get<double>());
  return v.dump();
}

std::string md_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

// Axis values as shown in tables: sizes in binary units, n/a as "-".
std::string axis_text(const std::string& axis, const json& v, const size_axis_test& is_size) {
  const bool count = v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
  if (count && is_size(axis)) return format_size(v.get<std::uint64_t>());
  if (v.is_number_integer()) return v.dump();
  return cell_text(v);
}

// Units of the sampled metrics and the derived rates, for table headers.
std::string header_with_unit(const std::string& name) {
  static const std::map<std::string, std::string> units = {
      {rate::ns_per_node_layer, "ns/node/layer"},
      {rate::labels_per_s, "labels/s"},
      {"gb_per_s", "GB/s"},
      {"cycles_per_byte", "cycles/B"},
      {"ns_per_byte", "ns/B"},
      {rate::efficiency, "floor/actual"},
      {"bytes_per_node", "B/node"},
      {"ns_per_node", "ns/node"},
      {"seconds", "s"},
      {"ns_per_block", "ns/block"},
      {"lane_ns_per_block", "ns/block"},
      {"cycles_per_block", "cycles/block"},
      {"cycles_per_byte_core", "cycles/B"},
      {"floor_ns_per_node_layer", "ns/node/layer"},
      {"chain_floor_ns_per_node_layer", "ns/node/layer, 19 blocks"},
      {"chain_efficiency", "19-block floor/actual"},
      {"critical_path_cycles_per_byte", "cycles/B"},
      {"measured_cycles_per_byte", "core cycles/B, 1 chain"},
      {"limit_cycles_per_byte", "core cycles/B, 1 chain"},
      {"ratio", "measured/limit"},
      {"bound_cycles_per_byte", "core cycles/B, 1 chain, latency or ports"},
      {"bound_ratio", "measured/bound"},
      {"single_stream_gb_per_s", "GB/s, 1 chain"}};
  const auto it = units.find(name);
  return it == units.end() ? name : name + " (" + it->second + ")";
}

std::string row(const std::vector<std::string>& cells) {
  std::string s = "|";
  for (const auto& c : cells) {
    s += ' ';
    s += md_escape(c);
    s += " |";
  }
  return s + "\n";
}

// A header row and its rule: the first `text_columns` left-aligned, the rest right.
std::string head(const std::vector<std::string>& cells, std::size_t text_columns) {
  std::string s = row(cells) + "|";
  for (std::size_t i = 0; i < cells.size(); ++i) s += i < text_columns ? " --- |" : " ---: |";
  return s + "\n";
}

json value_or(const json& o, const char* key) {
  return o.is_object() && o.contains(key) ? o[key] : json();
}

std::string status_text(const json& p) {
  const std::string status = p.value(key::status, "?");
  if (status == "ok") return p.value(key::noisy, false) ? "ok (noisy)" : "ok";
  return status + ": " + p.value("reason", "");
}

void environment_lines(const json& results, std::ostringstream& md) {
  const json& runs = results.contains("runs") ? results["runs"] : json::array();
  // The environment of the latest run that measured something (a merge header has none).
  records::machine_facts m;
  for (const auto& r : runs)
    if (r.contains(key::environment)) m = records::machine_facts_of(r);
  auto text = [](const auto& v) { return v ? std::to_string(*v) : std::string(); };
  if (m.recorded) {
    if (m.has_cpu) {
      std::vector<std::string> feats;
      for (const auto& f : m.features)
        if (std::set<std::string>{"sha_ni", "avx2", "avx512f", "avx512vl", "bmi2"}.count(f)) feats.push_back(f);
      md << "- CPU: " << m.cpu_model.value_or("?") << ", " << static_cast<int>(m.logical_cores.value_or(0))
         << " logical cores, TSC " << format_number(m.tsc_hz.value_or(0) / 1e9, 3) << " GHz, features: "
         << (feats.empty() ? std::string("none of sha_ni/avx2/avx512") : join(feats)) << "\n";
    }
    if (m.has_cuda) {
      if (m.cuda_available) {
        for (const auto& g : m.gpus)
          md << "- GPU: " << g.name.value_or("?") << " (sm_" << g.compute_capability << ", " << text(g.multiprocessors)
             << " SMs, " << (g.total_memory_bytes >> 20) << " MiB), driver " << text(m.driver_version) << "\n";
      } else {
        md << "- GPU: none; " << m.cuda_reason.value_or("unavailable") << "\n";
      }
    }
    if (m.has_build)
      md << "- build: poreplab " << m.version.value_or("?") << ", git " << m.git_revision.value_or("?") << ", "
         << m.compiler.value_or("?") << ", flags `" << m.flags.value_or("") << "`\n";
    if (m.host || m.date) md << "- host " << m.host.value_or("?") << ", " << m.date.value_or("?") << "\n";
  }
  std::string argv;
  for (const auto& r : runs)
    if (r.contains(key::argv) && r[key::argv].is_array() && !r[key::argv].empty()) {
      argv.clear();
      for (const auto& a : r[key::argv]) {
        if (!argv.empty()) argv += ' ';
        argv += cell_text(a);
      }
    }
  if (!argv.empty()) md << "- command: `" << argv << "`\n";
  if (runs.size() > 1) md << "- " << runs.size() << " runs recorded (resumed runs, shards or a merge)\n";
  if (results.contains(key::config_digest))
    md << "- config digest `" << results[key::config_digest].get<std::string>().substr(0, 16) << "`"
       << (results.contains("source") ? " (" + results["source"].get<std::string>() + ")" : std::string()) << "\n";
}

// A file another step wrote into the directory, or nothing when it is absent or not a
// regular file of at most 16 MiB: what is included is optional.
std::optional<std::string> optional_text(const fs::path& file) {
  try {
    return read_small_file(file, {.max_bytes = 16 << 20});
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
}

// The figures plot.py listed in DIR/plots/index.json (an empty array when there are none).
json figure_index(const fs::path& dir) {
  const auto text = optional_text(dir / "plots" / "index.json");
  if (!text) return json::array();
  try {
    json figs = json::parse(*text);
    if (figs.is_array()) return figs;
  } catch (const json::exception&) {
    // plot.py writes it whole; anything else is not ours to trust
  }
  return json::array();
}

void figure(const json& f, std::ostringstream& md) {
  const std::string title = f.value("title", "");
  md << "### " << title << "\n\n![" << title << "](" << f.value("png", "") << ")\n\n"
     << f.value("caption", "") << " ([SVG](" << f.value("svg", "") << "))\n\n";
}

// The verdict's own figure goes with the verdict.
constexpr const char* kVerdictFigure = "verdict_pc1";

void figures(const fs::path& dir, std::ostringstream& md) {
  bool any = false;
  for (const auto& f : figure_index(dir)) {
    if (!f.is_object() || f.value("name", "") == kVerdictFigure) continue;
    if (!any) md << "## Figures\n\n";
    any = true;
    figure(f, md);
  }
}

std::vector<const json*> points_of(const json& results, records::record_kind kind) {
  std::vector<const json*> out;
  for (const auto& p : results["points"])
    if (records::kind_of(p) == kind) out.push_back(&p);
  return out;
}

// Each engine's critical-path limit against its single-stream speed (`limits` kind).
void limits_section(const json& results, std::ostringstream& md) {
  const auto pts = points_of(results, records::record_kind::limits);
  if (pts.empty()) return;
  static const std::map<std::string, int> algo_order = {{"sha256", 0}, {"blake2s", 1}, {"blake2b", 2}};
  std::vector<const json*> ok;
  for (const json* p : pts)
    if (p->value(key::status, "") == "ok") ok.push_back(p);
  auto order = [&](const json* p) {
    const auto it = algo_order.find(p->at(key::axes).value("algo", ""));
    const json r = p->value(key::rates, json::object());
    return std::make_pair(it == algo_order.end() ? 9 : it->second, r.value("measured_cycles_per_byte", 0.0));
  };
  std::stable_sort(ok.begin(), ok.end(), [&](const json* a, const json* b) { return order(a) < order(b); });
  md << "## Hash c/B vs limit\n\n"
     << "Core cycles per byte of one dependent chain (the labeling pattern). *limit*: the engine's critical path "
        "from instruction latencies measured on this CPU (docs/hash-limits.md); *measured*: the engine hashing one "
        "chain per lane (bench_hash, mode chain), converted with the same add-chain clock calibration. A ratio near "
        "1 means latency-bound; well above 1, bound by something else (issue width, shuffles, message loads). *port "
        "bound* (SHA-256): the larger of the limit and the throughput of the engine's instruction mix issued without "
        "dependencies (`bench latency`), per byte of one chain: several chains can fill a port before their "
        "latency binds.\n\n";
  if (!ok.empty()) {
    md << head({"algo", ctx::engine, "lanes", "limit c/B", "measured c/B", "measured / limit",
                "port bound c/B (limited by)", "measured / bound", "GB/s (1 chain)", "core clock",
                "latencies used (cycles)"},
               2);
    for (const json* p : ok) {
      const json r = p->value(key::rates, json::object());
      const json c = p->value(key::context, json::object());
      std::string lat;
      const json latencies = c.value("latencies", json::object());
      for (const auto& [k, v] : latencies.items())
        lat += (lat.empty() ? "" : ", ") + k + " " + cell_text(v);
      const double hz = c.value(ctx::core_hz, 0.0);
      md << row({cell_text(value_or(p->at(key::axes), "algo")), cell_text(value_or(p->at(key::axes), axis::engine)),
                 cell_text(value_or(c, "lanes")), cell_text(value_or(r, "limit_cycles_per_byte")),
                 cell_text(value_or(r, "measured_cycles_per_byte")), cell_text(value_or(r, "ratio")),
                 r.contains("bound_cycles_per_byte")
                     ? cell_text(r["bound_cycles_per_byte"]) + " (" + c.value("limited_by", std::string("-")) + ")"
                     : "-",
                 cell_text(value_or(r, "bound_ratio")), cell_text(value_or(r, "single_stream_gb_per_s")), hz > 0 ? format_number(hz / 1e9, 4) + " GHz" : "-",
                 lat.empty() ? "-" : lat});
    }
    md << "\n";
  }
  std::string others;
  for (const json* p : pts)
    if (p->value(key::status, "") != "ok")
      others += std::string(others.empty() ? "" : "; ") + cell_text(value_or(p->at(key::axes), "algo")) + " " +
                cell_text(value_or(p->at(key::axes), axis::engine)) + " (" + status_text(*p) + ")";
  if (!others.empty()) md << "Not measured here: " << md_escape(others) << ".\n\n";
}

// `label` points with the scheme axes beside the `profile` points on the same axes.
void replication_section(const json& results, const size_axis_test& is_size, std::ostringstream& md) {
  std::vector<const json*> labels;
  for (const json* p : points_of(results, records::record_kind::label))
    if (p->at(key::axes).contains(axis::variant) || p->at(key::axes).contains("hash")) labels.push_back(p);
  const auto profiles = points_of(results, records::record_kind::profile);
  if (labels.empty() && profiles.empty()) return;
  std::vector<std::string> keys;
  for (const char* k : {axis::variant, "hash", axis::backend, axis::engine, axis::sector_size, axis::sectors, axis::layers}) {
    auto has = [&](const json* p) { return p->at(key::axes).contains(k); };
    if (std::any_of(labels.begin(), labels.end(), has) || std::any_of(profiles.begin(), profiles.end(), has))
      keys.emplace_back(k);
  }
  static const char* kShares[] = {"share_hash", "share_fetch", "share_encode", "share_io", "share_other", "overhead"};
  std::vector<std::string> shares;
  for (const char* s : kShares)
    if (std::any_of(profiles.begin(), profiles.end(),
                    [&](const json* p) { return p->value(key::rates, json::object()).contains(s); }))
      shares.emplace_back(s);
  // A profile matches a label point on the axes the profile has.
  auto matches = [&](const json& label, const json& prof) {
    for (const auto& k : keys)
      if (prof[key::axes].contains(k) && value_or(label[key::axes], k.c_str()) != prof[key::axes][k]) return false;
    return true;
  };
  auto scheme = [](const json* p, const json* prof) {
    std::string st = value_or(p->value(key::context, json::object()), ctx::scheme_status).is_string()
                         ? p->at(key::context)[ctx::scheme_status].get<std::string>()
                         : std::string();
    if (st.empty() && prof != nullptr && prof->contains(key::context) && prof->at(key::context).contains(ctx::scheme_status))
      st = prof->at(key::context)[ctx::scheme_status].get<std::string>();
    return st == "what-if" ? std::string("**what-if**") : st.empty() ? std::string("-") : st;
  };
  md << "## Replication c/B and profile\n\n"
     << "SDR labeling (and its variants) per hash: time per node per layer, labels per second, cycles per byte "
        "hashed; where a `profile` record matches (same axes), where the time goes. Rows marked **what-if** are not "
        "Filecoin's scheme (another hash or variant, run for comparison).\n\n";
  std::vector<std::string> h = keys;
  for (const char* c : {ctx::scheme, "status", "ns/node/layer", "labels/s", "cycles/B"}) h.emplace_back(c);
  for (const auto& s : shares) h.push_back(s);
  md << head(h, keys.size() + 2);
  std::set<const json*> used;
  auto emit = [&](const json* p, const json* prof, bool profile_row) {
    const json r = p->value(key::rates, json::object());
    const json pr = prof != nullptr ? prof->value(key::rates, json::object()) : json::object();
    std::vector<std::string> cells;
    for (const auto& k : keys) cells.push_back(axis_text(k, value_or(p->at(key::axes), k.c_str()), is_size));
    cells.push_back(scheme(p, prof));
    cells.push_back(status_text(*p) + (profile_row ? " (profile)" : ""));
    cells.push_back(cell_text(value_or(r, rate::ns_per_node_layer)));
    cells.push_back(profile_row ? "-" : cell_text(value_or(r, rate::labels_per_s)));
    cells.push_back(cell_text(value_or(r, "cycles_per_byte")));
    for (const auto& s : shares) cells.push_back(cell_text(value_or(profile_row ? r : pr, s.c_str())));
    md << row(cells);
  };
  for (const json* p : labels) {
    const json* prof = nullptr;
    for (const json* q : profiles)
      if (q->value(key::status, "") == "ok" && matches(*p, *q)) {
        prof = q;
        used.insert(q);
        break;
      }
    emit(p, prof, false);
  }
  for (const json* q : profiles)
    if (!used.count(q)) emit(q, nullptr, true);
  md << "\n";
}

// Label points of a data-scaling experiment (those naming the window_nodes axis): the
// 2019 report's Data Scaling columns, with time and efficiency beside them.
void scaling_section(const json& results, const size_axis_test& is_size, std::ostringstream& md) {
  std::vector<const json*> pts;
  for (const json* p : points_of(results, records::record_kind::label))
    if (p->at(key::axes).contains(axis::window_nodes)) pts.push_back(p);
  if (pts.empty()) return;
  std::stable_sort(pts.begin(), pts.end(), [](const json* a, const json* b) {
    return std::make_pair(a->at(key::axes).value(axis::backend, ""), a->at(key::axes).value(axis::sector_size, 0.0)) <
           std::make_pair(b->at(key::axes).value(axis::backend, ""), b->at(key::axes).value(axis::sector_size, 0.0));
  });
  md << "## Data scaling\n\n"
     << "One sector, labeling only (layers in RAM, nothing on disk), per sector size. *max RSS*: the process's peak "
        "resident set while the point ran (VmHWM, reset as it starts: parent table, both layers, everything; the "
        "reference check's own buffers come after). *RAM B/node* = max RSS / nodes, measured; *disk B/node*: 0, "
        "labeling writes no file (a seal's layer files are counted by `seal`). Window rows time a node window of a "
        "full-size sector (docs/scaling.md): their memory is the window's, not a sector's, so no B/node is given. "
        "*porep_id*: custom sizes use the 32GiB V1_1 porep_id on a graph of that size (not a Filecoin proof).\n\n";
  md << head({axis::backend, "sector size", "nodes", "porep_id", "timed", "max RSS", "RAM B/node", "disk B/node",
              "ns/node/layer", rate::efficiency, key::verified, key::status},
             5);
  double largest_size = 0;
  std::string largest;
  for (const json* p : pts) {
    const json& ax = p->at(key::axes);
    const json c = p->value(key::context, json::object());
    const json r = p->value(key::rates, json::object());
    const auto window = ax.value(axis::window_nodes, std::uint64_t{0});
    const double nodes = c.value("nodes", 0.0);
    const double rss = c.value("max_rss_bytes", 0.0);
    std::string timed = "whole sector";
    if (window > 0) {
      timed = "window ";
      timed += std::to_string(window);
      timed += " @ ";
      timed += cell_text(value_or(c, "window_first_node"));
      timed += ", ";
      timed += c.value(ctx::window_backing, std::string("?"));
    }
    std::string bpn = "-";
    if (window == 0 && rss > 0 && nodes > 0) {
      bpn = format_number(rss / nodes, 3);
      if (ax.value(axis::sector_size, 0.0) >= largest_size) {
        largest_size = ax.value(axis::sector_size, 0.0);
        largest = bpn + " B/node at " + axis_text(axis::sector_size, ax[axis::sector_size], is_size);
      }
    }
    std::string src = c.value("porep_id_source", std::string("-"));
    if (src.rfind("custom", 0) == 0) src = "**custom**";
    md << row({axis_text(axis::backend, value_or(ax, axis::backend), is_size), axis_text(axis::sector_size, value_or(ax, axis::sector_size), is_size),
               cell_text(value_or(c, "nodes")), md_escape(src), timed,
               rss > 0 && window == 0 ? byte_size_text(static_cast<std::uint64_t>(rss)) : "-", bpn,
               window == 0 ? "0" : "-", cell_text(value_or(r, rate::ns_per_node_layer)), cell_text(value_or(r, rate::efficiency)),
               c.value("verified_by", std::string("-")), status_text(*p)});
  }
  md << "\n";
  if (!largest.empty())
    md << "The 2019 Supranational PoRep report (Data Scaling section) quotes about 200 B/node for a seal; labeling "
          "here measured "
       << largest
       << " (table 56 B + two layers 64 B a node, plus the process), with the other layers left out: a seal that keeps "
          "every layer adds 32 B/node per layer, on disk or in RAM.\n\n";
}

// "0.876 [0.861, 0.889]" from a median and a [lo, hi] pair; "-" without them.
std::string with_interval(const json& median, const json& ci) {
  if (!median.is_number()) return "-";
  std::string s = format_number(median.get<double>());
  if (ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number())
    s += " [" + format_number(ci[0].get<double>()) + ", " + format_number(ci[1].get<double>()) + "]";
  return s;
}

// Points measured as interleaved floor/label pairs, or with the core clock tracked: how
// far each ratio can be trusted (docs/measurement.md).
void intervals_section(const json& results, std::ostringstream& md) {
  std::vector<const json*> pts;
  for (const auto& p : results["points"]) {
    const json c = p.value(key::context, json::object());
    if (records::is_ok(p) && (c.contains("efficiency_ci95") || c.contains(ctx::core_hz))) pts.push_back(&p);
  }
  if (pts.empty()) return;
  md << "## Intervals and clock\n\n"
     << "Each labeling sample is timed beside its own hash-only floor (floor, label, floor, label...); efficiency is "
        "the median of the pairs' floor / label with a bootstrap 95% interval, and *pair spread* is (max - min) / "
        "median of those ratios. *Core clock*: the median of add-chain calibrations run between samples; a sample "
        "taken where a reading beside it was more than 3% off that median is counted under *clock off*; one during "
        "which the timing thread ran on a core for less than 95% of the wall time (another process had its core) "
        "under *preempted*. "
        "*Stopped by*: the sample count, the interval target (`ci_target`) or the time budget "
        "(docs/measurement.md).\n\n";
  md << head({"point", "efficiency [95%]", "+-", "pairs", "pair spread", "ns/node/layer [95%]", "core clock",
              "clock off", "preempted", "cycles/B TSC", "cycles/B core", "stopped by"},
             1);
  for (const json* pp : pts) {
    const json& p = *pp;
    const json c = p.value(key::context, json::object());
    const json r = p.value(key::rates, json::object());
    const json st = p.value(key::stats, json::object());
    std::string half = "-";
    if (c.contains("efficiency_ci95") && c.value(ctx::efficiency, 0.0) > 0)
      half = format_number(100 * (c["efficiency_ci95"][1].get<double>() - c["efficiency_ci95"][0].get<double>()) / 2 /
                               c[ctx::efficiency].get<double>(),
                           2) +
             "%";
    const double hz = c.value(ctx::core_hz, 0.0);
    // "-", "0", or "**2** (#0, #3)": a count of flagged samples and which.
    auto flagged = [&](const char* count, const char* which) {
      if (!c.contains(count)) return std::string("-");
      std::string out = cell_text(c[count]);
      if (c.value(count, 0) > 0 && c.contains(which)) {
        std::string list;
        for (const auto& i : c[which]) list += (list.empty() ? "#" : ", #") + i.dump();
        out = "**" + out + "** (" + list + ")";
      }
      return out;
    };
    md << row({p.value(key::description, records::record_key(p)), with_interval(value_or(c, ctx::efficiency), value_or(c, "efficiency_ci95")),
               half, c.contains("efficiency_pairs") ? std::to_string(c["efficiency_pairs"].size()) : "-",
               c.contains("efficiency_spread") ? format_number(100 * c["efficiency_spread"].get<double>(), 2) + "%" : "-",
               with_interval(value_or(st, "median"), value_or(st, "ci95")),
               hz > 0 ? format_number(hz / 1e9, 4) + " GHz" : "-", flagged("clock_flagged", "clock_flagged_samples"),
               flagged("preempted", "preempted_samples"), cell_text(value_or(r, "cycles_per_byte")),
               cell_text(value_or(r, "cycles_per_byte_core")), cell_text(value_or(p, key::stopped_by))});
  }
  md << "\n";
}

// Label points of more than one layer: each layer group's time per node (sdr layer 1
// against the layers that read expander parents from the previous layer; zigzag forward
// against reverse layers), and their ratio.
void layers_section(const json& results, std::ostringstream& md) {
  std::vector<const json*> pts;
  for (const auto& p : results["points"]) {
    const json c = p.value(key::context, json::object());
    if (records::is_ok(p) && c.contains("layer_groups_ns_per_node") &&
        c["layer_groups_ns_per_node"].is_object() && c["layer_groups_ns_per_node"].size() == 2)
      pts.push_back(&p);
  }
  if (pts.empty()) return;
  md << "## Per layer and direction\n\n"
     << "Each layer's time per node from the host clock at the layer's end (every sector's label of the node "
        "included; medians over samples, then the mean over the group's layers). SDR layer 1 reads base parents only; "
        "layers 2+ also read 8 expander parents from the previous layer. ZigZag's odd layers walk the graph forward, "
        "its even layers in reverse. On `cuda` a layer ends when it reaches the host.\n\n";
  md << head({"point", ctx::scheme, "group A", "ns/node A", "group B", "ns/node B", "B / A", "per layer ns/node"}, 2);
  for (const json* pp : pts) {
    const json& p = *pp;
    const json c = p.value(key::context, json::object());
    // Named: items() must not outlive it.
    const json g = c["layer_groups_ns_per_node"];
    std::vector<std::pair<std::string, double>> v;
    for (const auto& [k, x] : g.items()) v.emplace_back(k, x.is_number() ? x.get<double>() : 0.0);
    // A fixed order: layer 1 / forward first.
    if (v[0].first == "layers 2+" || v[0].first == "reverse") std::swap(v[0], v[1]);
    std::string per;
    for (const auto& x : c.value("layer_ns_per_node", json::array())) {
      if (!per.empty()) per += ", ";
      per += x.is_number() ? format_number(x.get<double>(), 4) : "-";
    }
    md << row({p.value(key::description, records::record_key(p)), c.value(ctx::scheme, ""), v[0].first, format_number(v[0].second, 4),
               v[1].first, format_number(v[1].second, 4), v[0].second > 0 ? format_number(v[1].second / v[0].second, 3) : "-",
               per});
  }
  md << "\n";
}

// `run --repeat N`: each metric's run-to-run spread against the interval its records claimed.
void repeat_section(const json& results, std::ostringstream& md) {
  const json& spreads = results.contains("repeat_spread") ? results["repeat_spread"] : json::array();
  if (!spreads.is_array() || spreads.empty()) return;
  std::size_t exceeding = 0;
  for (const auto& e : spreads) exceeding += e.value("exceeds", false) ? 1 : 0;
  md << "## Run-to-run spread\n\n"
     << "The config was run several times (`--repeat`), one pass over every point after another. *Spread*: (max - "
        "min) / median of the repeats' values; *claimed*: the median over the repeats of their own 95% interval's "
        "width, relative to the value. A spread wider than the claim (**exceeds**) means the runs disagree by more "
        "than each said it could be off: the machine changed between passes, or the interval is too optimistic. "
     << exceeding << " of " << spreads.size() << " exceed their claim.\n\n";
  md << head({"point", key::metric, "values", "median", "spread", "claimed", ""}, 2);
  for (const auto& e : spreads) {
    std::string values;
    for (const auto& v : e.value("values", json::array())) values += (values.empty() ? "" : ", ") + cell_text(v);
    const bool has_claim = e.contains("claimed");
    md << row({e.value(key::description, ""), e.value(key::metric, ""), values, cell_text(value_or(e, "median")),
               format_number(100 * e.value("spread", 0.0), 2) + "%",
               has_claim ? format_number(100 * e["claimed"].get<double>(), 2) + "%" : "-",
               e.value("exceeds", false) ? "**exceeds**" : ""});
  }
  md << "\n";
}

// A report another command wrote into the directory, its headings one level down.
void included_report(const fs::path& file, std::ostringstream& md) {
  const auto text = optional_text(file);
  if (!text) return;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) md << (line.rfind('#', 0) == 0 ? "#" : "") << line << "\n";
  md << "\n";
}

// The answer first: the verdict (verdict.md, written for every run whose records it can
// judge) with its figure.
void cpu_vs_gpu_section(const fs::path& dir, std::ostringstream& md) {
  const auto text = optional_text(dir / "verdict.md");
  if (!text) return;
  std::istringstream in(*text);
  // The figure after the table and its plain words, before the details.
  std::ostringstream fig;
  for (const auto& f : figure_index(dir))
    if (f.is_object() && f.value("name", "") == kVerdictFigure) figure(f, fig);
  bool shown = false;
  std::string line;
  while (std::getline(in, line)) {
    if (!shown && line.rfind("## Crossover", 0) == 0) {
      md << fig.str();
      shown = true;
    }
    md << (line.rfind('#', 0) == 0 ? "#" : "") << line << "\n";
  }
  if (!shown) md << fig.str();
  md << "\n";
}

void experiment_table(const std::vector<const json*>& pts, const size_axis_test& is_size, std::ostringstream& md) {
  std::vector<std::string> axes;  // the axes that vary, in the first point's order
  for (const auto& [k, v] : (*pts.front())[key::axes].items()) {
    std::set<std::string> values;
    for (const json* p : pts) values.insert(value_or((*p)[key::axes], k.c_str()).dump());
    if (values.size() > 1) axes.push_back(k);
  }
  // Axes constant across the experiment are stated once above the table.
  std::string fixed;
  for (const auto& [k, v] : (*pts.front())[key::axes].items()) {
    if (std::find(axes.begin(), axes.end(), k) != axes.end() || v.is_null()) continue;
    fixed += (fixed.empty() ? "" : ", ") + k + "=" + axis_text(k, v, is_size);
  }
  if (!fixed.empty()) md << "Fixed: " << fixed << ".\n\n";
  std::string metric;
  std::vector<std::string> rates;
  for (const json* p : pts) {
    if (metric.empty() && p->contains(key::metric)) metric = (*p)[key::metric];
    if (p->contains(key::rates))
      for (const auto& [k, v] : (*p)[key::rates].items())
        if (k != metric && std::find(rates.begin(), rates.end(), k) == rates.end()) rates.push_back(k);
  }
  const bool repeats = std::any_of(pts.begin(), pts.end(), [](const json* p) { return p->contains(key::repeat); });
  std::vector<std::string> h = axes;
  if (repeats) h.emplace_back(key::repeat);
  h.emplace_back("engine used");
  h.emplace_back("status");
  h.push_back(metric.empty() ? "median" : "median " + header_with_unit(metric));
  h.emplace_back("spread");
  for (const auto& r : rates) h.push_back(header_with_unit(r));
  h.emplace_back(key::verified);
  md << head(h, axes.size() + (repeats ? 3 : 2));
  for (const json* pp : pts) {
    const json& p = *pp;
    std::vector<std::string> cells;
    for (const auto& a : axes) cells.push_back(axis_text(a, value_or(p[key::axes], a.c_str()), is_size));
    if (repeats) cells.push_back(cell_text(value_or(p, key::repeat)));
    cells.push_back(cell_text(value_or(p.value(key::context, json::object()), ctx::engine)));
    cells.push_back(status_text(p));
    const json st = p.value(key::stats, json::object());
    if (st.contains("median") && st.value("n", 0) > 0) {
      cells.push_back(format_number(st["median"].get<double>()));
      cells.push_back(format_number(100 * st["spread"].get<double>(), 2) + "%");
    } else {
      cells.insert(cells.end(), {"-", "-"});
    }
    const json r = p.value(key::rates, json::object());
    for (const auto& k : rates) cells.push_back(r.contains(k) && r[k].is_number() ? format_number(r[k].get<double>()) : "-");
    const bool ok = records::is_ok(p);
    cells.push_back(!ok                         ? "-"
                    : p.value(key::modeled, false)  ? "modeled"
                    : p.value(key::verified, false) ? "yes"
                                                 : "**no**");
    md << row(cells);
  }
  md << "\n";
}

}  // namespace

std::string run_report_markdown(const json& results, const fs::path& dir, const size_axis_test& is_size) {
  std::ostringstream md;
  md << "# poreplab experiment report\n\n";
  const json cfg = results.value("config", json::object());
  if (cfg.contains(key::description)) md << cfg[key::description].get<std::string>() << "\n\n";
  if (results.contains("counts")) {
    const json& c = results["counts"];
    md << "**" << c["expected"] << " points**: " << c["ok"] << " ok, " << c["skipped"] << " skipped, " << c["failed"]
       << " failed, " << c["missing"] << " missing; " << c[key::noisy] << " noisy (spread > "
       << static_cast<int>(records::kNoisySpread * 100) << "%).\n\n";
  }
  if (results.value("interrupted", false))
    md << "**Interrupted**: the remaining points were not run (`poreplab run --resume` continues).\n\n";
  cpu_vs_gpu_section(dir, md);
  environment_lines(results, md);
  md << "\n";
  figures(dir, md);
  limits_section(results, md);
  replication_section(results, is_size, md);
  scaling_section(results, is_size, md);
  intervals_section(results, md);
  layers_section(results, md);
  repeat_section(results, md);
  included_report(dir / "amax.md", md);
  included_report(dir / "report-2019.md", md);

  md << "## Results\n\n"
     << "Medians over the samples; spread is (max - min) / median; rates derive from the median. `verified`: the "
        "output digest matched an independent implementation; `modeled`: a figure of `poreplab model gpu` (kind "
        "gpu-model), computed, not measured.\n\n";
  std::vector<std::string> order;
  std::map<std::string, std::vector<const json*>> by_exp;
  for (const auto& p : results["points"]) {
    const std::string e = p[key::experiment];
    if (!by_exp.count(e)) order.push_back(e);
    by_exp[e].push_back(&p);
  }
  std::map<std::string, std::string> descriptions;
  for (const auto& e : cfg.value("experiments", json::array()))
    if (e.is_object() && e.contains(key::description)) descriptions[e.value("name", "")] = e[key::description];
  for (const auto& e : order) {
    md << "### " << e << " (" << (*by_exp[e].front())[key::kind].get<std::string>() << ")\n\n";
    if (descriptions.count(e)) md << descriptions[e] << "\n\n";
    experiment_table(by_exp[e], is_size, md);
  }
  if (results.contains("missing") && !results["missing"].empty()) {
    md << "## Missing points\n\n";
    for (const auto& m : results["missing"])
      md << "- [" << m["index"] << "] " << md_escape(m.value(key::description, records::record_key(m))) << "\n";
    md << "\n";
  }
  return md.str();
}

void write_run_report(const fs::path& dir, const json& results, const size_axis_test& is_size) {
  write_file_atomic(dir / "report.md", run_report_markdown(results, dir, is_size));
}

void write_run_report(const fs::path& dir, const size_axis_test& is_size) {
  const fs::path file = dir / "results.json";
  if (std::error_code ec; !fs::exists(fs::symlink_status(file, ec)))
    throw std::runtime_error(dir.string() + " holds no results.json");
  const json results = parse_json(read_small_file(file, {.max_bytes = records::kMaxRecordsBytes}), file.string());
  bool ok = results.is_object() && results.value("schema", "") == records::kResultsSchema && results.contains("points") &&
            results["points"].is_array();
  for (std::size_t i = 0; ok && i < results["points"].size(); ++i) {
    const json& p = results["points"][i];
    ok = p.is_object() && p.contains(key::experiment) && p[key::experiment].is_string() && p.contains(key::kind) &&
         p[key::kind].is_string() && p.contains(key::axes) && p[key::axes].is_object();
  }
  if (!ok) throw std::runtime_error(file.string() + ": not a " + std::string(records::kResultsSchema) + " file");
  write_run_report(dir, results, is_size);
}

}  // namespace poreplab::report
