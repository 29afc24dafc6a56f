#include "runner/config.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "default_config_json.hpp"
#include "poreplab/hash/algo.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/json_input.hpp"
#include "report/registry.hpp"
#include "runner/kinds.hpp"
#include "runner/param_renames.hpp"
#include "util/json_check.hpp"
#include "util/text.hpp"

namespace poreplab::runner {

using nlohmann::json;

namespace {

std::string child(const std::string& ptr, const std::string& key) { return json_pointer_child(ptr, key); }
std::string child(const std::string& ptr, std::size_t i) { return json_pointer_child(ptr, i); }

std::string format_count(double n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", n);
  return buf;
}

// An experiment's name is in every record, file name of its plots and table row.
constexpr std::size_t kMaxNameBytes = 128;

// Every message reads "<source>: <pointer>: <problem>".
struct validator : json_checker<config_error> {
  using json_checker::json_checker;
  // What was read under another name than the one written (kParamRenames), one line each.
  mutable std::vector<std::string> renames;

  std::string string_value(const json& v, const std::string& ptr) const { return text(v, ptr); }
  std::uint64_t integer_value(const json& v, const std::string& ptr, std::uint64_t lo, std::uint64_t hi,
                              const std::string& what) const {
    return integer(v, ptr, lo, hi, what);
  }

  json axis_value(const param_spec& ax, const json& v, const std::string& ptr) const {
    try {
      return param_value(ax, v);
    } catch (const std::invalid_argument& e) {
      fail(ptr, e.what());
    }
  }

  json experiment_json(const json& e, const std::string& ptr) const {
    if (!e.is_object()) fail(ptr, "expected an object (one experiment), got " + show(e));
    only_keys(e, ptr, {"name", "kind", "description", "axes", "warmup", "samples", "time_budget_s", "ci_target"});
    json out = json::object();

    const std::string name = string_value(require(e, ptr, "name"), child(ptr, "name"));
    if (name.size() > kMaxNameBytes)
      fail(child(ptr, "name"), "a name of " + std::to_string(name.size()) + " bytes, more than the " +
                                   std::to_string(kMaxNameBytes) + " allowed");
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
        }))
      fail(child(ptr, "name"), "\"" + name + "\" is not a name (letters, digits, - and _ only)");
    out["name"] = name;

    const std::string kind = string_value(require(e, ptr, "kind"), child(ptr, "kind"));
    const kind_spec* ks = find_kind(kind);
    if (ks == nullptr) fail(child(ptr, "kind"), "unknown kind \"" + kind + "\" (known: " + join(kind_names()) + ")");
    out["kind"] = kind;

    if (e.contains("description"))
      out["description"] = string_value(e.at("description"), child(ptr, "description"));

    out["warmup"] = e.contains("warmup")
                        ? integer_value(e.at("warmup"), child(ptr, "warmup"), 0, 1000000, "an integer >= 0")
                        : 1;
    out["samples"] = e.contains("samples")
                         ? integer_value(e.at("samples"), child(ptr, "samples"), 1, 1000000, "an integer >= 1")
                         : 5;
    if (e.contains("time_budget_s")) {
      const json& t = e.at("time_budget_s");
      const std::string tp = child(ptr, "time_budget_s");
      if (!t.is_number()) fail(tp, "expected a number of seconds, got " + show(t));
      if (!(t.get<double>() > 0) || !std::isfinite(t.get<double>()))
        fail(tp, "expected a positive, finite number of seconds, got " + t.dump());
      out["time_budget_s"] = t.get<double>();
    }
    if (e.contains("ci_target")) {
      const json& t = e.at("ci_target");
      const std::string tp = child(ptr, "ci_target");
      if (!ks->run_sampled)
        fail(tp, "kind " + kind + " has no stopping rule (ci_target applies to: " + join(stopping_kinds()) + ")");
      if (!t.is_number()) fail(tp, "expected a fraction of the median such as 0.02, got " + show(t));
      if (!(t.get<double>() > 0 && t.get<double>() < 1))
        fail(tp, "expected a fraction of the median above 0 and below 1 (0.02 = +-2%), got " + t.dump());
      out["ci_target"] = t.get<double>();
    }

    out["axes"] = axes_json(*ks, e, ptr);
    return out;
  }

  // The experiment's axes, normalised: renamed ones under their names, every value checked,
  // a non-optional axis left out given its fallback, the cross product bounded.
  json axes_json(const kind_spec& ks, const json& e, const std::string& ptr) const {
    const std::string aptr = child(ptr, "axes");
    const json written = e.contains("axes") ? e.at("axes") : json::object();
    if (!written.is_object()) fail(aptr, "expected an object mapping axis names to lists, got " + show(written));
    std::vector<std::string> names;
    for (const auto& ax : ks.axes) names.push_back(ax.name);
    json axes = json::object();
    for (const auto& [k, v] : written.items()) {
      const std::string now(renamed_param(k));
      if (now != k && std::find(names.begin(), names.end(), now) != names.end()) {
        if (written.contains(now)) fail(child(aptr, k), "axis \"" + k + "\" is \"" + now + "\", which is given too");
        renames.push_back(source() + ": " + child(aptr, k) + ": axis \"" + k + "\" is now \"" + now + "\" (read as it)");
      }
      if (std::find(names.begin(), names.end(), now) == names.end())
        fail(child(aptr, k), "unknown axis \"" + k + "\" for kind " + ks.name + " (axes: " + join(names) + ")");
      axes[now] = v;
    }
    json norm_axes = json::object();
    for (const auto& ax : ks.axes) {
      const std::string p = child(aptr, ax.name);
      if (!axes.contains(ax.name)) {
        if (!ax.optional) norm_axes[ax.name] = json::array({ax.fallback});
        continue;
      }
      const json& list = axes.at(ax.name);
      if (!list.is_array()) fail(p, "expected a list of values, got " + show(list));
      if (list.empty()) fail(p, "empty axis: give at least one value");
      json values = json::array();
      for (std::size_t i = 0; i < list.size(); ++i) {
        const json& v = list[i];
        // "all" stays symbolic: it stands for every value that fits the point's other axes.
        const json nv = ax.all && v == "all" ? json("all") : axis_value(ax, v, child(p, i));
        if (std::find(values.begin(), values.end(), nv) != values.end())
          fail(child(p, i), "duplicate value " + v.dump());
        values.push_back(nv);
      }
      norm_axes[ax.name] = values;
    }
    // The cross product is bounded before anything expands it: a short config can list
    // enough values to ask for 10^20 points. "all" counts as every choice of its axis.
    double points = 1;
    for (const auto& ax : ks.axes) {
      if (!norm_axes.contains(ax.name)) continue;
      double n = 0;
      for (const auto& v : norm_axes[ax.name])
        n += ax.all && v == "all" && ax.choices ? static_cast<double>(ax.choices().size()) : 1.0;
      points *= n;
    }
    if (points > static_cast<double>(kMaxPoints))
      fail(aptr, "expands to about " + format_count(points) + " points, more than the " + std::to_string(kMaxPoints) +
                     " one experiment may have");
    return norm_axes;
  }

  json config_json(const json& doc) const {
    bounded(doc, "", json_bounds{});
    if (!doc.is_object()) fail("", "expected a JSON object with \"schema\" and \"experiments\", got " + show(doc));
    only_keys(doc, "", {"schema", "description", "experiments", "reports"});
    const std::string schema = string_value(require(doc, "", "schema"), "/schema");
    if (schema != kConfigSchema)
      fail("/schema", "unsupported schema \"" + schema + "\" (this poreplab reads \"" + std::string(kConfigSchema) +
                          "\")");
    json out = {{"schema", schema}};
    if (doc.contains("description")) out["description"] = string_value(doc.at("description"), "/description");
    const json& exps = require(doc, "", "experiments");
    if (!exps.is_array()) fail("/experiments", "expected a list of experiments, got " + show(exps));
    if (exps.empty()) fail("/experiments", "no experiments: give at least one");
    json list = json::array();
    std::set<std::string> seen;
    for (std::size_t i = 0; i < exps.size(); ++i) {
      json e = experiment_json(exps[i], child("/experiments", i));
      const std::string name = e["name"];
      if (!seen.insert(name).second)
        fail(child(child("/experiments", i), "name"), "duplicate experiment name \"" + name + "\"");
      list.push_back(std::move(e));
    }
    out["experiments"] = list;
    // Only when given, so that configs without it keep their digest.
    if (doc.contains("reports")) out["reports"] = reports_json(doc.at("reports"));
    return out;
  }

  json reports_json(const json& v) const {
    if (!v.is_array()) fail("/reports", "expected a list of report names, got " + show(v));
    json out = json::array();
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string p = child("/reports", i);
      const std::string name = string_value(v[i], p);
      const auto& known = report_names();
      if (std::find(known.begin(), known.end(), name) == known.end())
        fail(p, "unknown report \"" + name + "\" (known: " + join(known) + ")");
      if (std::find(out.begin(), out.end(), json(name)) != out.end()) fail(p, "duplicate report \"" + name + "\"");
      out.push_back(name);
    }
    return out;
  }
};

config build(const json& normalized, const std::string& source) {
  config c;
  c.source = source;
  c.normalized = normalized;
  c.description = normalized.value("description", "");
  if (normalized.contains("reports")) c.reports = normalized["reports"].get<std::vector<std::string>>();
  const std::string text = normalized.dump();
  c.digest = to_hex(hash_bytes(hash_algo::sha256, text.data(), text.size()));
  for (const auto& e : normalized["experiments"]) {
    experiment x;
    x.name = e["name"];
    x.kind = e["kind"];
    x.description = e.value("description", "");
    x.warmup = e["warmup"];
    x.samples = e["samples"];
    if (e.contains("time_budget_s")) x.time_budget_s = e["time_budget_s"].get<double>();
    if (e.contains("ci_target")) x.ci_target = e["ci_target"].get<double>();
    for (const auto& ax : find_kind(x.kind)->axes)
      if (e["axes"].contains(ax.name)) x.axes.emplace_back(ax.name, e["axes"][ax.name].get<std::vector<json>>());
    c.experiments.push_back(std::move(x));
  }
  return c;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

bool all_digits(const std::string& v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Digits only, as a number; nullopt when not digits or past 2^64.
std::optional<std::uint64_t> digits_value(const std::string& v) {
  if (!all_digits(v)) return std::nullopt;
  std::uint64_t x = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size()) return std::nullopt;
  return x;
}

// A value typed on the command line, as JSON for the axis it goes to. Digits past 2^64
// are an error here; anything else that is not a value of the axis is left to the
// validator, which names the axis.
json typed_value(const param_spec& ax, const std::string& v, const std::string& set) {
  if ((ax.type == param_type::count || ax.type == param_type::size) && all_digits(v)) {
    if (const auto x = digits_value(v)) return *x;
    throw config_error("--set " + set + ": " + v + " does not fit in 64 bits");
  }
  return v;
}

std::string value_text(const param_spec& ax, const json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (ax.type == param_type::size && v.is_number_unsigned()) return format_size(v.get<std::uint64_t>());
  return v.dump();
}

}  // namespace

std::vector<std::string> stopping_kinds() {
  std::vector<std::string> out;
  for (const auto& k : kinds())
    if (k.run_sampled) out.push_back(k.name);
  return out;
}

const std::vector<std::string>& report_names() {
  static const std::vector<std::string> names = reports::kConfigReports.names();
  return names;
}

config parse_config(std::string_view text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    // Malformed JSON, or a number the parser cannot hold (1e400): "parse error at line L,
    // column C: ..." or "number overflow parsing '1e400'", without nlohmann's tag.
    throw config_error(source + ": " + json_reason(e));
  }
  const validator v{source};
  config c = build(v.config_json(doc), source);
  c.renames = v.renames;
  return c;
}

config load_config_file(const std::string& path) {
  if (std::error_code ec; !std::filesystem::exists(path, ec))
    throw std::runtime_error("cannot open config file " + path + ": " + std::strerror(ENOENT));
  // A regular file or a pipe (run <(...)); a directory or device is an error naming it.
  return parse_config(read_small_file(path, {.max_bytes = 64 << 20, .streams = true}), path);
}

config embedded_default_config() { return parse_config(kDefaultConfigJson, "(embedded default.json)"); }

config config_from_json(const json& normalized, const std::string& source, const std::string& where) {
  return build(validator{where.empty() ? source : where}.config_json(normalized), source);
}

config apply_overrides(const config& c, const std::vector<std::string>& sets) {
  json doc = c.normalized;
  std::vector<std::string> renames = c.renames;
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw config_error("--set " + s + ": expected AXIS=V1,V2 or EXPERIMENT.AXIS=V1,V2");
    std::string target = s.substr(0, eq);
    const std::string values = s.substr(eq + 1);
    std::string only;
    if (const auto dot = target.find('.'); dot != std::string::npos) {
      only = target.substr(0, dot);
      target = target.substr(dot + 1);
    }
    if (values.empty()) throw config_error("--set " + s + ": empty axis: give at least one value");
    bool matched_experiment = only.empty();
    bool applied = false;
    for (auto& e : doc["experiments"]) {
      if (!only.empty() && e["name"] != only) continue;
      matched_experiment = true;
      if (target == "warmup" || target == "samples") {
        const auto x = digits_value(values);
        if (!x) throw config_error("--set " + s + ": " + target + " takes one integer (digits only, below 2^64)");
        e[target] = *x;
        applied = true;
        continue;
      }
      if (target == "time_budget_s") {
        char* end = nullptr;
        const double t = std::strtod(values.c_str(), &end);
        if (end == values.c_str() || *end != '\0' || !(t > 0) || !std::isfinite(t))
          throw config_error("--set " + s + ": time_budget_s takes one positive, finite number of seconds");
        e[target] = t;
        applied = true;
        continue;
      }
      if (target == "ci_target") {
        // Only experiments whose kind has a stopping rule; naming one that has none is
        // left to the validator, which says so.
        if (only.empty() && !find_kind(e["kind"].get<std::string>())->run_sampled) continue;
        char* end = nullptr;
        const double t = std::strtod(values.c_str(), &end);
        if (end == values.c_str() || *end != '\0' || !(t > 0 && t < 1))
          throw config_error("--set " + s + ": ci_target takes one fraction above 0 and below 1 (0.02 = +-2%)");
        e[target] = t;
        applied = true;
        continue;
      }
      const kind_spec* ks = find_kind(e["kind"].get<std::string>());
      const auto ax = std::find_if(ks->axes.begin(), ks->axes.end(),
                                   [&](const param_spec& a) { return a.name == renamed_param(target); });
      if (ax == ks->axes.end()) {
        if (!only.empty())
          throw config_error("--set " + s + ": experiment " + only + " (kind " + ks->name + ") has no axis \"" +
                             target + "\"");
        continue;
      }
      json list = json::array();
      for (const auto& v : split(values, ',')) list.push_back(typed_value(*ax, v, s));
      e["axes"][ax->name] = list;
      applied = true;
    }
    if (!matched_experiment) throw config_error("--set " + s + ": no experiment named \"" + only + "\"");
    if (!applied && target == "ci_target")
      throw config_error("--set " + s + ": no experiment in the config has a stopping rule (ci_target applies to: " +
                         join(stopping_kinds()) + ")");
    if (!applied) throw config_error("--set " + s + ": no experiment in the config has an axis \"" + target + "\"");
    if (renamed_param(target) != target)
      renames.push_back("--set " + s + ": axis \"" + target + "\" is now \"" + std::string(renamed_param(target)) +
                        "\" (read as it)");
  }
  try {
    config out = build(validator{"--set"}.config_json(doc), c.source);
    out.renames = std::move(renames);
    return out;
  } catch (const config_error& e) {
    std::string what = e.what();
    throw config_error(what + " (after --set " + join(sets, " ") + ")");
  }
}

std::vector<point> expand_points(const config& c) {
  std::vector<point> out;
  for (std::size_t ei = 0; ei < c.experiments.size(); ++ei) {
    const experiment& e = c.experiments[ei];
    const kind_spec* ks = find_kind(e.kind);
    std::set<std::string> seen;
    auto emit = [&](json axes) {
      for (const auto& ax : ks->axes)
        if (axes.contains(ax.name) && ax.applies && !ax.applies(axes)) axes[ax.name] = nullptr;
      point p;
      p.experiment_index = ei;
      p.experiment = e.name;
      p.kind = e.kind;
      p.axes = std::move(axes);
      if (seen.insert(p.key()).second) {
        p.index = out.size();
        out.push_back(std::move(p));
      }
    };
    // Depth-first over the axes in the kind's order, so the last axis varies fastest;
    // "all" becomes the values that fit the axes chosen before it.
    std::function<void(std::size_t, json&)> walk = [&](std::size_t a, json& axes) {
      if (a == e.axes.size()) {
        emit(axes);
        return;
      }
      const auto& [name, values] = e.axes[a];
      const std::string& wanted = name;  // clang 14 cannot capture a structured binding
      const param_spec& ax =
          *std::find_if(ks->axes.begin(), ks->axes.end(), [&](const param_spec& x) { return x.name == wanted; });
      for (const auto& v : values) {
        if (ax.all && v == "all") {
          for (const auto& x : ax.all(axes)) {
            axes[name] = x;
            walk(a + 1, axes);
          }
        } else {
          axes[name] = v;
          walk(a + 1, axes);
        }
      }
      axes.erase(name);
    };
    json axes = json::object();
    walk(0, axes);
  }
  for (std::size_t i = 0; i < out.size(); ++i) out[i].index = i;
  return out;
}

std::vector<point> repeat_points(const std::vector<point>& points, std::size_t passes) {
  if (passes <= 1) return points;
  std::vector<point> out;
  out.reserve(points.size() * passes);
  for (std::size_t r = 1; r <= passes; ++r)
    for (point p : points) {
      p.repeat = r;
      out.push_back(std::move(p));
    }
  return out;
}

std::string point::key() const {
  return experiment + " " + axes.dump() + (repeat ? " #" + std::to_string(*repeat) : std::string());
}

std::string point::describe() const {
  std::string s = experiment;
  const kind_spec* ks = find_kind(kind);
  for (const auto& ax : ks->axes) {
    if (!axes.contains(ax.name) || axes[ax.name].is_null()) continue;
    s += " " + ax.name + "=" + value_text(ax, axes[ax.name]);
  }
  if (repeat) s += " (repeat " + std::to_string(*repeat) + ")";
  return s;
}

}  // namespace poreplab::runner
