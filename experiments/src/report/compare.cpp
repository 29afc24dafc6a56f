// `poreplab compare` (compare.hpp): matching, bootstrap ratios, verdicts and the setup table.
#include "report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "poreplab/stats.hpp"
#include "records/environment.hpp"
#include "records/records.hpp"
#include "records/schema.hpp"
#include "report/amax.hpp"
#include "util/text.hpp"

namespace poreplab::compare {

namespace key = records::key;
namespace rate = records::rate;

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr double kLevel = 0.95;

struct point_side {
  json record;
  json header;
  std::string where;
  std::vector<double> samples;
};

struct side_data {
  side meta;
  std::vector<std::string> order;
  std::map<std::string, point_side> points;
  std::vector<json> headers;  // distinct headers the points came from, in order
};

std::string point_key(const json& rec) {
  return rec.value(key::experiment, "") + " " + rec.value(key::axes, json::object()).dump();
}

std::vector<double> samples_of(const json& rec) {
  std::vector<double> out;
  if (const auto it = rec.find(key::samples); it != rec.end() && it->is_array())
    for (const auto& s : *it)
      if (s.is_number() && std::isfinite(s.get<double>())) out.push_back(s.get<double>());
  if (out.empty()) {
    // A record without its samples still has its median.
    const std::string metric = rec.value(key::metric, "");
    const json rates = rec.value(key::rates, json::object());
    if (!metric.empty() && rates.contains(metric) && rates[metric].is_number()) out.push_back(rates[metric].get<double>());
  }
  return out;
}

// The result directories a path stands for: itself when it holds records.jsonl, else its
// subdirectories that do (a machine's data set, docs/results/<cpu>-<date>/), by name.
std::vector<std::pair<std::string, fs::path>> result_dirs_of(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || fs::exists(dir / "records.jsonl", ec)) return {{"", dir}};
  std::vector<std::pair<std::string, fs::path>> subs;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory(ec) && fs::exists(e.path() / "records.jsonl", ec)) subs.emplace_back(e.path().filename().string(), e.path());
  if (subs.empty()) return {{"", dir}};  // load_result_dirs names what is missing
  std::sort(subs.begin(), subs.end());
  return subs;
}

side_data load_side(const fs::path& dir) {
  side_data s;
  s.meta.path = dir.string();
  fs::path name = dir;
  if (name.filename().empty()) name = name.parent_path();
  s.meta.label = name.filename().string();
  if (s.meta.label.empty() || s.meta.label == ".") s.meta.label = fs::absolute(dir).lexically_normal().filename().string();
  std::set<std::string> seen_headers;
  for (const auto& [set_name, set_dir] : result_dirs_of(dir)) {
    const records::result_set in = records::load_result_set({set_dir});
    s.meta.duplicates.insert(s.meta.duplicates.end(), in.duplicates.begin(), in.duplicates.end());
    for (const auto& r : in.records) {
      json rec = r.point;
      // A machine's data sets: points match within the data set of the same name.
      if (!set_name.empty()) {
        rec[key::experiment] = set_name + "/" + rec.value(key::experiment, "");
        rec[key::description] = set_name + "/" + rec.value(key::description, "");
      }
      const std::string key = point_key(rec);
      point_side p{rec, r.header, r.where, samples_of(rec)};
      if (s.points.emplace(key, std::move(p)).second) s.order.push_back(key);
      const std::string h = r.header.dump();
      if (seen_headers.insert(h).second) s.headers.push_back(r.header);
    }
  }
  return s;
}

// ---------------------------------------------------------------- setup

std::string gib_text(double bytes) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(1);
  o << bytes / double(1ull << 30) << " GiB";
  return o.str();
}

std::string caches_text(const std::vector<records::cache_facts>& caches) {
  std::vector<std::string> parts;
  for (const auto& c : caches) {
    if (c.type == "instruction") continue;
    parts.push_back("L" + std::to_string(c.level) + (c.type == "data" ? "d " : " ") + format_size(c.bytes));
  }
  return join(parts, ", ");
}

// The setup of one run, as the fields a reader checks before trusting a ratio.
std::vector<std::pair<std::string, std::string>> setup_of(const json& h) {
  const records::machine_facts m = records::machine_facts_of(h);
  std::vector<std::pair<std::string, std::string>> f;
  auto add = [&](const std::string& name, const std::string& value) { f.emplace_back(name, value); };
  add("CPU", m.cpu_model.value_or(""));
  add("CPU vendor", m.cpu_vendor);
  add("logical cores", m.logical_cores ? std::to_string(*m.logical_cores) : "");
  add("CPU features", join(m.features, ", "));
  add("caches", m.caches ? caches_text(*m.caches) : "");
  add("TSC", m.tsc_hz ? format_number(*m.tsc_hz / 1e6, 5) + " MHz" : "");
  add("memory", m.memory_total_bytes ? gib_text(*m.memory_total_bytes) : "");
  {
    std::vector<std::string> gpus;
    for (const auto& g : m.gpus) gpus.push_back(g.recorded && g.name ? *g.name : g.text);
    add("GPU", gpus.empty() ? (m.has_cuda ? "none" : "") : join(gpus, ", "));
  }
  add("compiler", m.compiler.value_or(""));
  add("flags", m.flags.value_or(""));
  add("revision", m.git_revision.value_or(""));
  add("backends built", join(m.backends, ", "));
  add("host", m.host.value_or(""));
  {
    const std::string src = h.value(key::source, "");
    const std::string digest = h.value(key::config_digest, "");
    add("config", src.empty() && digest.empty() ? "" : src + (digest.empty() ? "" : " (" + digest.substr(0, 12) + ")"));
  }
  return f;
}

std::vector<setup_field> setup_table(const std::vector<side_data>& sides) {
  std::vector<setup_field> out;
  for (std::size_t i = 0; i < sides.size(); ++i) {
    std::vector<std::pair<std::string, std::vector<std::string>>> values;  // field -> distinct values
    for (const auto& h : sides[i].headers)
      for (const auto& field : setup_of(h)) {
        auto it = std::find_if(values.begin(), values.end(), [&](const auto& v) { return v.first == field.first; });
        if (it == values.end()) it = values.insert(values.end(), {field.first, {}});
        if (!field.second.empty() && std::find(it->second.begin(), it->second.end(), field.second) == it->second.end())
          it->second.push_back(field.second);
      }
    for (const auto& field : values) {
      auto it = std::find_if(out.begin(), out.end(), [&](const setup_field& f) { return f.name == field.first; });
      if (it == out.end())
        it = out.insert(out.end(), setup_field{field.first, std::vector<std::string>(sides.size()), false});
      it->values[i] = join(field.second, " / ");
    }
  }
  for (auto& f : out)
    f.differs = std::any_of(f.values.begin(), f.values.end(), [&](const std::string& v) { return v != f.values[0]; });
  // Fields no side recorded say nothing.
  std::erase_if(out, [](const setup_field& f) {
    return std::all_of(f.values.begin(), f.values.end(), [](const std::string& v) { return v.empty(); });
  });
  return out;
}

// ---------------------------------------------------------------- points

std::string status_text(const json& rec) {
  const std::string status = rec.value(key::status, "?");
  const std::string reason = rec.value("reason", rec.value("error", ""));
  return reason.empty() ? status : status + " (" + reason + ")";
}

// Per experiment, the axes whose values differ between its points on either side: a
// point's label names only those (a description names every axis).
using varying_axes = std::map<std::string, std::set<std::string>>;

varying_axes varying(const side_data& a, const side_data& b) {
  std::map<std::string, std::map<std::string, std::set<std::string>>> values;
  for (const side_data* s : {&a, &b})
    for (const auto& [key, p] : s->points) {
      const json axes = p.record.value(key::axes, json::object());
      for (const auto& [axis, v] : axes.items()) values[p.record.value(key::experiment, "")][axis].insert(v.dump());
    }
  varying_axes out;
  for (const auto& [exp, axes] : values)
    for (const auto& [axis, vals] : axes)
      if (vals.size() > 1) out[exp].insert(axis);
  return out;
}

std::string label_of(const json& rec, const varying_axes& vary) {
  const std::string exp = rec.value(key::experiment, "");
  const std::string desc = rec.value(key::description, "");
  const auto it = vary.find(exp);
  std::string out = exp;
  std::istringstream words(desc);
  for (std::string w; words >> w;) {
    const auto eq = w.find('=');
    if (eq != std::string::npos && it != vary.end() && it->second.contains(w.substr(0, eq))) out += " " + w;
  }
  return out;
}

comparison compare_pair(const side_data& base, const side_data& other, std::size_t other_index,
                        std::optional<double> fail_pct) {
  comparison c;
  c.other = other_index;
  const varying_axes vary = varying(base, other);
  for (const auto& key : base.order) {
    const point_side& b = base.points.at(key);
    const std::string desc = b.record.value(key::description, key);
    const std::string label = label_of(b.record, vary);
    const auto it = other.points.find(key);
    if (it == other.points.end()) {
      c.only_baseline.push_back({key, desc, label, status_text(b.record)});
      continue;
    }
    const point_side& o = it->second;
    const std::string bs = b.record.value(key::status, ""), os = o.record.value(key::status, "");
    const std::string bm = b.record.value(key::metric, ""), om = o.record.value(key::metric, "");
    std::string why;
    if (bs != "ok" || os != "ok")
      why = base.meta.label + ": " + status_text(b.record) + "; " + other.meta.label + ": " + status_text(o.record);
    else if (bm.empty() || bm != om)
      why = "metric " + (bm.empty() ? std::string("(none)") : bm) + " against " + (om.empty() ? std::string("(none)") : om);
    else if (b.samples.empty() || o.samples.empty())
      why = "no samples";
    if (!why.empty()) {
      c.not_comparable.push_back({key, desc, label, why});
      continue;
    }
    row r;
    r.key = key;
    r.description = desc;
    r.label = label;
    r.experiment = b.record.value(key::experiment, "");
    r.kind = b.record.value(key::kind, "");
    r.metric = bm;
    r.lower_is_better = lower_is_better(bm);
    r.base_median = median(b.samples);
    r.other_median = median(o.samples);
    r.base_n = b.samples.size();
    r.other_n = o.samples.size();
    const ratio_interval ri = median_ratio(b.samples, o.samples);
    r.ratio = ri.ratio;
    r.lo = ri.lo;
    r.hi = ri.hi;
    r.interval = r.base_n > 1 && r.other_n > 1;
    r.noisy = b.record.value(key::noisy, false) || o.record.value(key::noisy, false);
    // Faster: the whole interval on the good side of 1.
    const bool below = r.hi < 1, above = r.lo > 1;
    if (!below && !above)
      r.verdict = "within noise";
    else
      r.verdict = (below == r.lower_is_better) ? "faster" : "slower";
    if (fail_pct) {
      const double limit = 1 + *fail_pct / 100;
      r.regression = r.lower_is_better ? r.lo > limit : r.hi * limit < 1;
    }
    (r.verdict == "faster" ? c.faster : r.verdict == "slower" ? c.slower : c.within) += 1;
    c.regressions += r.regression ? 1 : 0;
    c.rows.push_back(std::move(r));
  }
  for (const auto& key : other.order)
    if (!base.points.contains(key)) {
      const json& rec = other.points.at(key).record;
      c.only_other.push_back({key, rec.value(key::description, key), label_of(rec, vary), status_text(rec)});
    }
  return c;
}

std::string experiments_of(const side_data& s) {
  std::vector<std::string> names;  // in the order first seen
  std::set<std::string> seen;
  for (const auto& key : s.order) {
    std::string e = s.points.at(key).record.value(key::experiment, "");
    if (seen.insert(e).second) names.push_back(std::move(e));
  }
  return names.empty() ? "no points" : names_text(names);
}

}  // namespace

bool lower_is_better(const std::string& metric) {
  // Rates and efficiencies grow with speed; times, cycles and bytes per unit shrink.
  return !(metric.find("per_s") != std::string::npos || metric.find(rate::efficiency) != std::string::npos ||
           metric.find("speedup") != std::string::npos || metric.find("throughput") != std::string::npos);
}

ratio_interval median_ratio(const std::vector<double>& base, const std::vector<double>& other) {
  ratio_interval r;
  const double mb = median(base), mo = median(other);
  r.ratio = mb != 0 ? mo / mb : 1;
  r.lo = r.hi = r.ratio;
  if (base.size() < 2 || other.size() < 2) return r;
  splitmix64 rng(kBootstrapSeed);
  std::vector<double> ratios, db(base.size()), dout(other.size());
  ratios.reserve(kBootstrapResamples);
  for (std::size_t k = 0; k < kBootstrapResamples; ++k) {
    for (auto& d : db) d = base[rng.below(base.size())];
    for (auto& d : dout) d = other[rng.below(other.size())];
    std::sort(db.begin(), db.end());
    std::sort(dout.begin(), dout.end());
    const double b = sorted_median(db);
    if (b != 0) ratios.push_back(sorted_median(dout) / b);
  }
  if (ratios.empty()) return r;
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1 - kLevel) / 2;
  r.lo = std::min(r.ratio, sorted_quantile(ratios, tail));
  r.hi = std::max(r.ratio, sorted_quantile(ratios, 1 - tail));
  return r;
}

result compare(const std::vector<fs::path>& dirs, std::optional<double> fail_pct) {
  if (dirs.size() < 2) throw std::runtime_error("compare needs two or more result directories");
  if (fail_pct && !(*fail_pct >= 0 && *fail_pct < 1e4))
    throw std::runtime_error("--fail-on-regression " + format_number(*fail_pct) + ": expected a percentage from 0 to 10000");
  {
    // Every side's records together, at compare's own factor, before the first is read.
    std::vector<fs::path> files;
    for (const auto& d : dirs)
      for (const auto& sub : result_dirs_of(d)) files.push_back(sub.second / "records.jsonl");
    records::require_records_memory(files, records::kCompareMemoryPerByte);
  }
  std::vector<side_data> sides;
  for (const auto& d : dirs) sides.push_back(load_side(d));
  // Two directories of one name (xeon/scaling and epyc/scaling) are named with their parent
  // directory, and if that is not enough, with their position.
  auto with_parent = [](const fs::path& dir) {
    const fs::path abs = fs::absolute(dir).lexically_normal();
    const fs::path p = abs.filename().empty() ? abs.parent_path() : abs;
    return (p.parent_path().filename() / p.filename()).string();
  };
  for (std::size_t i = 0; i < sides.size(); ++i)
    for (std::size_t j = i + 1; j < sides.size(); ++j)
      if (sides[j].meta.label == sides[i].meta.label) {
        sides[i].meta.label = with_parent(dirs[i]);
        sides[j].meta.label = with_parent(dirs[j]);
      }
  for (std::size_t i = 0; i < sides.size(); ++i)
    for (std::size_t j = i + 1; j < sides.size(); ++j)
      if (sides[j].meta.label == sides[i].meta.label) sides[j].meta.label += " (" + std::to_string(j + 1) + ")";
  result r;
  r.fail_on_regression_pct = fail_pct;
  for (const auto& s : sides) r.sides.push_back(s.meta);
  r.setup = setup_table(sides);
  for (std::size_t i = 1; i < sides.size(); ++i) {
    comparison c = compare_pair(sides[0], sides[i], i, fail_pct);
    if (c.rows.empty() && c.not_comparable.empty())
      throw std::runtime_error("no point in common between " + sides[0].meta.path + " (" + experiments_of(sides[0]) +
                               ") and " + sides[i].meta.path + " (" + experiments_of(sides[i]) +
                               "): points match by experiment name and axis values");
    r.regressions += c.regressions;
    r.comparisons.push_back(std::move(c));
  }
  return r;
}

// ---------------------------------------------------------------- output

namespace {

constexpr std::size_t kListedPoints = 30;  // longer lists are counted per experiment

std::string pct_text(double ratio) {
  const double p = (ratio - 1) * 100;
  std::string s = format_number(std::fabs(p), 3);
  return (p >= 0 ? "+" : "−") + s + "%";
}

std::string md_cell(std::string s) {
  for (std::size_t p = 0; (p = s.find('|', p)) != std::string::npos; p += 2) s.replace(p, 1, "\\|");
  return s;
}

// Points a side's records hold ok twice: measured twice, which no run or resume does (a
// concatenated or hand-edited file); the later record is the one compared.
void duplicates_section(const result& r, std::ostringstream& o) {
  if (std::all_of(r.sides.begin(), r.sides.end(), [](const side& s) { return s.duplicates.empty(); })) return;
  o << "\n## Duplicate points\n\nRecorded ok more than once; the later record is compared:\n\n";
  for (const auto& s : r.sides)
    for (const auto& d : s.duplicates) o << "- " << md_cell(d) << "\n";
}

}  // namespace

std::string to_markdown(const result& r) {
  std::ostringstream o;
  const std::string& base = r.sides[0].label;
  o << "# Comparison against " << base << "\n\n";
  o << "Sides: ";
  for (std::size_t i = 0; i < r.sides.size(); ++i)
    o << (i ? ", " : "") << "**" << r.sides[i].label << "** (`" << r.sides[i].path << "`" << (i == 0 ? ", baseline" : "")
      << ")";
  o << ". Points match by experiment and axis values. Each ratio is other / baseline of the point's metric "
       "(medians); its interval is a 95% bootstrap of both sides' samples, and the verdict follows the interval: "
       "faster or slower when all of it lies on one side of 1, else within noise. A side with one sample gives no "
       "interval (marked 1 sample).\n\n";
  o << "## Setup\n\n| field |";
  for (const auto& s : r.sides) o << " " << md_cell(s.label) << " |";
  o << " differs |\n|---|";
  for (std::size_t i = 0; i < r.sides.size(); ++i) o << "---|";
  o << "---|\n";
  for (const auto& f : r.setup) {
    o << "| " << f.name << " |";
    for (const auto& v : f.values) o << " " << md_cell(v.empty() ? "—" : v) << " |";
    o << (f.differs ? " **yes** |" : " |") << "\n";
  }
  duplicates_section(r, o);
  for (const auto& c : r.comparisons) {
    const std::string& other = r.sides[c.other].label;
    o << "\n## " << other << " against " << base << "\n\n";
    o << c.rows.size() << " points compared: " << c.faster << " faster, " << c.slower << " slower, " << c.within
      << " within noise";
    if (r.fail_on_regression_pct)
      o << "; " << c.regressions << " regression" << (c.regressions == 1 ? "" : "s") << " beyond "
        << format_number(*r.fail_on_regression_pct) << "%";
    o << ".\n\n";
    if (!c.rows.empty()) {
      o << "| point | metric | " << md_cell(base) << " | " << md_cell(other) << " | ratio | 95% interval | change | verdict |\n"
        << "|---|---|---:|---:|---:|---|---:|---|\n";
      for (const auto& w : c.rows) {
        std::string verdict = w.verdict;
        if (!w.interval) verdict += " (1 sample)";
        if (w.noisy) verdict += " (noisy)";
        if (w.regression) verdict = "**" + verdict + ": regression**";
        o << "| " << md_cell(w.label) << " | " << w.metric << (w.lower_is_better ? " (lower is better)" : " (higher is better)")
          << " | " << format_number(w.base_median) << " (n=" << w.base_n << ") | " << format_number(w.other_median)
          << " (n=" << w.other_n << ") | " << format_number(w.ratio, 3) << " | "
          << (w.interval ? "[" + format_number(w.lo, 3) + ", " + format_number(w.hi, 3) + "]" : std::string("—"))
          << " | " << pct_text(w.ratio) << " | " << verdict << " |\n";
      }
    }
    auto list = [&o](const std::string& title, const std::vector<unmatched>& items) {
      if (items.empty()) return;
      o << "\n" << title << " (" << items.size() << "):\n\n";
      if (items.size() <= kListedPoints) {
        for (const auto& u : items) o << "- " << u.label << ": " << u.why << "\n";
        return;
      }
      // Many (a whole data set on one side): counted per experiment, each in the JSON.
      std::vector<std::pair<std::string, std::size_t>> per;
      for (const auto& u : items) {
        const std::string exp = u.label.substr(0, u.label.find(' '));
        auto it = std::find_if(per.begin(), per.end(), [&](const auto& e) { return e.first == exp; });
        if (it == per.end()) per.emplace_back(exp, 1);
        else ++it->second;
      }
      for (const auto& [exp, n] : per) o << "- " << exp << ": " << n << " point" << (n == 1 ? "" : "s") << "\n";
    };
    list("Not comparable", c.not_comparable);
    list("Only in " + base, c.only_baseline);
    list("Only in " + other, c.only_other);
  }
  return o.str();
}

json to_json(const result& r) {
  json j;
  j["schema"] = kCompareSchema;
  j["sides"] = json::array();
  for (std::size_t i = 0; i < r.sides.size(); ++i)
    j["sides"].push_back({{"label", r.sides[i].label},
                          {"path", r.sides[i].path},
                          {"baseline", i == 0},
                          {"duplicates", r.sides[i].duplicates}});
  j["setup"] = json::array();
  for (const auto& f : r.setup) j["setup"].push_back({{"field", f.name}, {"values", f.values}, {"differs", f.differs}});
  j["fail_on_regression_pct"] = r.fail_on_regression_pct ? json(*r.fail_on_regression_pct) : json();
  j["regressions"] = r.regressions;
  j["comparisons"] = json::array();
  auto items = [](const std::vector<unmatched>& v) {
    json a = json::array();
    for (const auto& u : v)
      a.push_back({{"key", u.key}, {"description", u.description}, {"label", u.label}, {"why", u.why}});
    return a;
  };
  for (const auto& c : r.comparisons) {
    json cj{{"baseline", r.sides[0].label},
            {"other", r.sides[c.other].label},
            {"counts", {{"faster", c.faster}, {"slower", c.slower}, {"within_noise", c.within}, {"regressions", c.regressions}}},
            {"points", json::array()},
            {"not_comparable", items(c.not_comparable)},
            {"only_baseline", items(c.only_baseline)},
            {"only_other", items(c.only_other)}};
    for (const auto& w : c.rows)
      cj["points"].push_back({{"key", w.key},
                              {"description", w.description},
                              {"label", w.label},
                              {key::experiment, w.experiment},
                              {"kind", w.kind},
                              {key::metric, w.metric},
                              {"lower_is_better", w.lower_is_better},
                              {"baseline_median", w.base_median},
                              {"other_median", w.other_median},
                              {"baseline_n", w.base_n},
                              {"other_n", w.other_n},
                              {"ratio", w.ratio},
                              {"ci95", w.interval ? json::array({w.lo, w.hi}) : json()},
                              {key::noisy, w.noisy},
                              {"verdict", w.verdict},
                              {"regression", w.regression}});
    j["comparisons"].push_back(std::move(cj));
  }
  return j;
}

}  // namespace poreplab::compare
