// Amax tables from experiment records and the custom-hardware data file (amax.hpp).
#include "backends/device_class.hpp"
#include "report/amax.hpp"

#include "poreplab/cpu/reference.hpp"
#include "poreplab/hash/algo.hpp"
#include "poreplab/hash/family.hpp"
#include "report/report2019.hpp"
#include "report/verdict.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "poreplab/file_io.hpp"
#include "poreplab/json_input.hpp"
#include "records/environment.hpp"
#include "records/records.hpp"
#include "records/schema.hpp"
#include "util/json_check.hpp"
#include "util/share_dir.hpp"
#include "util/text.hpp"

namespace poreplab::amax {

namespace key = records::key;
namespace axis = records::axis;
namespace ctx = records::ctx;

using nlohmann::json;
namespace fs = std::filesystem;

// ---------------------------------------------------------------- names

const std::vector<std::string>& hash_names() {
  static const std::vector<std::string> names = kHashFamilies.names();
  return names;
}

std::optional<std::string> canonical_hash(std::string_view name) {
  if (name == "sha-256") return std::string(hash_family_name(hash_family::sha256));  // the 2019 report's spelling
  if (kHashFamilies.has(name)) return std::string(name);
  for (const auto& d : kDigests)
    if (d.name == name) return std::string(hash_family_name(d.family));
  return std::nullopt;
}

std::size_t block_bytes_of(const std::string& hash) { return compression_block_bytes(parse_hash_family(hash)); }

std::string architecture_spec::text() const {
  if (type.empty()) return "-";
  char f[32] = "";
  if (factor) std::snprintf(f, sizeof f, "%g", *factor);
  if (type == "unrolled" && factor) return "unrolled x" + std::string(f);
  if (type == "folded" && factor) return "folded /" + std::string(f);
  if (type == "pipelined" && factor) return "pipelined, " + std::string(f) + " stages";
  return type;
}

namespace {

// ---------------------------------------------------------------- the data file

const std::vector<std::string> kArchitectures = {"iterative", "unrolled", "folded", "pipelined"};
const std::vector<std::string> kAreaUnits = {"um2", "mm2", "GE", "LUT", "ALM", "LE", "slices"};

// A figure is only as good as the worst of its parts: weaker() (figure.hpp) combines them.

std::string fmt_number(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

struct checker : json_checker<std::invalid_argument> {
  using json_checker::json_checker;
  using json_checker::positive;
  using json_checker::text;

  std::string text(const json& obj, const std::string& ptr, const std::string& key, bool required) const {
    if (!obj.contains(key)) {
      if (required) fail(ptr, "missing required key \"" + key + "\"");
      return {};
    }
    const std::string v = text(obj.at(key), ptr + "/" + key);
    if (required && v.empty()) fail(ptr + "/" + key, "must not be empty");
    return v;
  }
  double positive(const json& obj, const std::string& ptr, const std::string& key) const {
    return positive(require(obj, ptr, key), ptr + "/" + key);
  }
  // The data file's statuses: quoted, derived or assumed (its figures are not measured here).
  figure_status status(const json& obj, const std::string& ptr, const std::string& key,
                       std::optional<figure_status> fallback) const {
    const std::string s = obj.contains(key) || !fallback ? text(obj, ptr, key, true) : status_name(*fallback);
    const bool known = kFigureStatuses.has(s);
    const figure_status f = known ? kFigureStatuses.parse(s) : figure_status::none;
    if (!known || (f != figure_status::quoted && f != figure_status::derived && f != figure_status::assumed))
      fail(ptr + "/" + key, "\"" + s + "\" is not a status (quoted: from the cited source; derived: from another "
                            "entry by a stated model; assumed: not published, give the reason)");
    return f;
  }
  // The source of a figure: the pointer named is the missing key's own.
  std::string figure_source(const json& obj, const std::string& ptr, const std::string& what) const {
    if (!obj.contains("source"))
      fail(ptr + "/source", "missing: every " + what + " figure needs its source (a URL at a commit, or a document "
                            "and its section)");
    return text(obj, ptr, "source", true);
  }

  architecture_spec architecture(const json& a, const std::string& ptr) const {
    object(a, ptr, "an object {\"type\", \"factor\"}");
    only_keys(a, ptr, {"type", "factor", "note"});
    architecture_spec out;
    out.type = text(a, ptr, "type", true);
    if (std::find(kArchitectures.begin(), kArchitectures.end(), out.type) == kArchitectures.end())
      fail(ptr + "/type", "unknown architecture \"" + out.type + "\" (known: " + join(kArchitectures) + ")");
    if (a.contains("factor")) {
      const json& f = a.at("factor");
      if (!f.is_number() || !std::isfinite(f.get<double>()) || f.get<double>() < 1)
        fail(ptr + "/factor", "expected a number >= 1 (rounds per cycle, cycles per round or pipeline stages), got " +
                                  (f.is_number() ? f.dump() : show(f)));
      out.factor = f.get<double>();
    }
    if (out.type == "iterative" && out.factor && *out.factor != 1)
      fail(ptr + "/factor", "an iterative core does one round per cycle: factor 1, got " + a.at("factor").dump());
    if ((out.type == "unrolled" || out.type == "pipelined") && !out.factor)
      fail(ptr, "missing required key \"factor\" (" +
                    std::string(out.type == "unrolled" ? "rounds per cycle" : "pipeline stages") + ")");
    if (out.type == "pipelined" && *out.factor != std::floor(*out.factor))
      fail(ptr + "/factor", "pipeline stages must be a whole number, got " + a.at("factor").dump());
    if (out.type == "iterative") out.factor = 1.0;
    out.note = text(a, ptr, "note", false);
    return out;
  }

  sourced_figure area(const json& a, const std::string& ptr) const {
    object(a, ptr, "an object {\"value\", \"unit\", \"technology\", \"source\", \"status\"}");
    only_keys(a, ptr, {"value", "unit", "technology", "source", "status", "note"});
    sourced_figure out;
    out.source = figure_source(a, ptr, "area");
    out.value = positive(a, ptr, "value");
    out.unit = text(a, ptr, "unit", true);
    if (std::find(kAreaUnits.begin(), kAreaUnits.end(), out.unit) == kAreaUnits.end())
      fail(ptr + "/unit", "unknown area unit \"" + out.unit + "\" (known: " + join(kAreaUnits) + ")");
    out.technology = text(a, ptr, "technology", true);
    out.status = sourced_status(a, ptr);
    out.note = text(a, ptr, "note", false);
    return out;
  }

  sourced_figure power(const json& p, const std::string& ptr) const {
    object(p, ptr, "an object {\"watts\" or \"mw\", \"source\", \"status\"}");
    only_keys(p, ptr, {"watts", "mw", "source", "status", "note"});
    sourced_figure out;
    out.source = figure_source(p, ptr, "power");
    if (p.contains("watts") == p.contains("mw")) fail(ptr, "give exactly one of \"watts\" and \"mw\"");
    out.value = p.contains("watts") ? positive(p, ptr, "watts") : positive(p, ptr, "mw") / 1e3;
    out.unit = "W";
    out.status = sourced_status(p, ptr);
    out.note = text(p, ptr, "note", false);
    return out;
  }

 private:
  figure_status sourced_status(const json& obj, const std::string& ptr) const {
    if (!obj.contains("status")) fail(ptr + "/status", "missing: quoted, derived or assumed");
    const figure_status s = status(obj, ptr, "status", std::nullopt);
    if (s == figure_status::assumed && text(obj, ptr, "note", false).empty())
      fail(ptr, "status \"assumed\" needs a \"note\" with the reason");
    return s;
  }
};

// The base entry's index from "/entries/N".
std::size_t base_index(const checker& c, const json& d, const std::string& ptr, std::size_t count) {
  const std::string from = c.text(d, ptr, "from", true);
  const std::string prefix = "/entries/";
  std::size_t n = 0;
  bool ok = from.size() > prefix.size() && from.compare(0, prefix.size(), prefix) == 0 &&
            from.size() - prefix.size() <= 6;
  for (std::size_t i = prefix.size(); ok && i < from.size(); ++i) {
    ok = std::isdigit(static_cast<unsigned char>(from[i])) != 0;
    n = n * 10 + static_cast<std::size_t>(from[i] - '0');
  }
  if (!ok || n >= count)
    c.fail(ptr + "/from", "\"" + from + "\" is not the pointer of an entry of this file (\"/entries/0\" .. \"/entries/" +
                              std::to_string(count - 1) + "\")");
  return n;
}

// A derived entry's figures must be what its derivation gives from its base: the file
// states them for the reader, the check keeps them honest.
void check_derivation(const checker& c, const json& d, const std::string& entry_ptr, custom_entry& x,
                      const std::vector<custom_entry>& all, std::size_t self) {
  const std::string ptr = entry_ptr + "/derivation";
  derivation_spec& v = *x.derivation;
  v.from = base_index(c, d, ptr, all.size());
  v.from_pointer = "/entries/" + std::to_string(v.from);
  const custom_entry& base = all[v.from];
  if (v.from == self) c.fail(ptr + "/from", "an entry cannot be derived from itself");
  if (base.derivation) c.fail(ptr + "/from", v.from_pointer + " is itself derived: derive from a published entry");
  if (base.hash != x.hash || base.kind != x.kind)
    c.fail(ptr + "/from", v.from_pointer + " is a " + base.hash + " " + base.kind + " design, this entry a " + x.hash +
                              " " + x.kind + " one");
  if (v.base_round_cycles > base.cycles_per_block)
    c.fail(ptr + "/base_round_cycles", fmt_number(v.base_round_cycles) + " is more than the " +
                                           fmt_number(base.cycles_per_block) + " cycles per block of " + v.from_pointer);
  const double merged = v.base_round_cycles / x.cycles_per_block;
  if (merged < 1 || std::fabs(merged - std::round(merged)) > 1e-9)
    c.fail(ptr + "/base_round_cycles", "the " + fmt_number(v.base_round_cycles) + " round cycles of " + v.from_pointer +
                                           " are not a whole number of this entry's " +
                                           fmt_number(x.cycles_per_block) + " cycles per block");
  const double base_ns = 1e3 / base.clock_mhz, reg_ns = v.register_overhead * base_ns;
  const double model_mhz = 1e3 / (std::round(merged) * (base_ns - reg_ns) + reg_ns);
  if (std::fabs(x.clock_mhz / model_mhz - 1) > 0.005)
    c.fail(entry_ptr + "/clock_mhz",
           fmt_number(x.clock_mhz) + " MHz does not follow from the derivation (its model gives " +
               fmt_number(model_mhz) + " MHz)");
  if (x.area && x.area->status == figure_status::derived) {
    if (!base.area || base.area->unit != x.area->unit)
      c.fail(entry_ptr + "/area", "a derived area needs an area of " + v.from_pointer +
                                                          " in the same unit");
    const double model = std::round(merged) * base.area->value;
    if (std::fabs(x.area->value / model - 1) > 0.005)
      c.fail(entry_ptr + "/area/value",
             fmt_number(x.area->value) + " does not follow from the derivation (" + fmt_number(std::round(merged)) +
                 " x the base's " + fmt_number(base.area->value) + " = " + fmt_number(model) + ")");
  }
  v.basis_status = weaker(base.status, base.clock_status);
  v.basis_reason = base.status == figure_status::assumed ? base.reason : base.clock_reason;
}

}  // namespace

custom_data parse_custom_hardware(std::string_view text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {  // malformed, or a number it cannot hold (1e400)
    throw std::invalid_argument(source + ": " + json_reason(e));
  }
  const checker c{source};
  if (!doc.is_object()) c.fail("", "expected a JSON object with \"schema\" and \"entries\", got " + show(doc));
  c.only_keys(doc, "", {"schema", "note", "entries"});
  const std::string schema = c.text(doc, "", "schema", true);
  if (schema != kCustomSchema)
    c.fail("/schema", "unsupported schema \"" + schema + "\" (this poreplab reads \"" + std::string(kCustomSchema) + "\")");
  custom_data out;
  out.file = source;
  out.note = c.text(doc, "", "note", false);
  const json& entries = c.require(doc, "", "entries");
  if (!entries.is_array()) c.fail("/entries", "expected a list of designs, got " + show(entries));
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string ptr = "/entries/" + std::to_string(i);
    const json& e = entries[i];
    if (!e.is_object()) c.fail(ptr, "expected an object (one design), got " + show(e));
    c.only_keys(e, ptr,
                {"hash", "kind", "design", "device",  // the design file's keys, not record keys
                 "cycles_per_block", "block_bytes", "clock_mhz", "cost_usd", "source", "status", "reason", "clock_status",
                 "clock_reason", "note", "architecture", "area", "power", "derivation"});
    custom_entry x;
    x.where = source + ": " + ptr;
    const std::string h = c.text(e, ptr, "hash", true);
    const auto canon = canonical_hash(h);
    if (!canon) c.fail(ptr + "/hash", "unknown hash \"" + h + "\" (known: " + join(hash_names()) + ")");
    x.hash = *canon;
    x.kind = c.text(e, ptr, "kind", true);
    if (x.kind != "fpga" && x.kind != "asic") c.fail(ptr + "/kind", "unknown kind \"" + x.kind + "\" (known: fpga, asic)");
    x.design = c.text(e, ptr, "design", true);
    x.device = c.text(e, ptr, "device", true);  // not a record key
    x.cycles_per_block = c.positive(e, ptr, "cycles_per_block");
    const double bb = c.positive(e, ptr, "block_bytes");
    if (bb != std::floor(bb) || bb > 1e6 || static_cast<std::size_t>(bb) != block_bytes_of(x.hash))
      c.fail(ptr + "/block_bytes", e.at("block_bytes").dump() + " is not the " + x.hash + " block size " +
                                       std::to_string(block_bytes_of(x.hash)));
    x.block_bytes = static_cast<std::size_t>(bb);
    x.clock_mhz = c.positive(e, ptr, "clock_mhz");
    if (e.contains("cost_usd") && !e.at("cost_usd").is_null()) x.cost_usd = c.positive(e, ptr, "cost_usd");
    x.source = c.text(e, ptr, "source", true);
    x.status = c.status(e, ptr, "status", std::nullopt);
    x.reason = c.text(e, ptr, "reason", false);
    if (x.status == figure_status::assumed && x.reason.empty()) c.fail(ptr, "status \"assumed\" needs a \"reason\"");
    x.clock_status = c.status(e, ptr, "clock_status", x.status);
    x.clock_reason = c.text(e, ptr, "clock_reason", false);
    if (x.clock_status == figure_status::assumed && x.clock_reason.empty() && x.reason.empty())
      c.fail(ptr, "an assumed clock needs a \"clock_reason\"");
    x.note = c.text(e, ptr, "note", false);
    if (e.contains("architecture")) x.architecture = c.architecture(e.at("architecture"), ptr + "/architecture");
    if (e.contains("area")) x.area = c.area(e.at("area"), ptr + "/area");
    if (e.contains("power")) x.power = c.power(e.at("power"), ptr + "/power");
    if (e.contains("derivation") != (x.status == figure_status::derived))
      c.fail(ptr + "/derivation", x.status == figure_status::derived
                                      ? "missing: a derived entry states how its figures follow from a published one"
                                      : "only an entry with status \"derived\" has a derivation");
    if (x.clock_status == figure_status::derived && x.status != figure_status::derived)
      c.fail(ptr + "/clock_status", "a derived clock needs a derived entry (status \"derived\" and its \"derivation\")");
    if (x.status == figure_status::derived) {
      const std::string dp = ptr + "/derivation";
      const json& d = c.object(e.at("derivation"), dp, "an object {\"from\", \"base_round_cycles\", ...}");
      c.only_keys(d, dp, {"from", "base_round_cycles", "register_overhead", "text", "source"});
      if (x.architecture.type.empty()) c.fail(ptr, "missing required key \"architecture\" (a derived entry states it)");
      derivation_spec v;
      v.source = c.figure_source(d, dp, "derivation");
      v.text = c.text(d, dp, "text", true);
      v.base_round_cycles = c.positive(d, dp, "base_round_cycles");
      v.register_overhead = c.positive(d, dp, "register_overhead");
      if (v.register_overhead >= 1)
        c.fail(dp + "/register_overhead", "expected a fraction of the base clock period in (0, 1), got " +
                                              d.at("register_overhead").dump());
      x.derivation = std::move(v);
    }
    out.entries.push_back(std::move(x));
  }
  // Derivations name other entries, so they are checked once every entry is read.
  for (std::size_t i = 0; i < out.entries.size(); ++i)
    if (out.entries[i].derivation)
      check_derivation(c, entries[i].at("derivation"), "/entries/" + std::to_string(i), out.entries[i],
                       out.entries, i);
  return out;
}

custom_data load_custom_hardware(const fs::path& file) {
  return parse_custom_hardware(read_small_file(file, {.max_bytes = 64 << 20}), file.string());
}

fs::path default_custom_hardware_file() { return require_share_dir() / "data" / "custom-hardware.json"; }

// ---------------------------------------------------------------- records

// ---------------------------------------------------------------- the table

std::pair<std::string, double> parse_cost(const std::string& text) {
  const auto eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw std::invalid_argument("--cost " + text + ": expected DEVICE=USD, e.g. --cost 'EPYC=2500'");
  const std::string num = text.substr(eq + 1);
  char* end = nullptr;
  const double usd = std::strtod(num.c_str(), &end);
  if (end == num.c_str() || *end != '\0' || !(usd > 0) || !std::isfinite(usd))
    throw std::invalid_argument("--cost " + text + ": \"" + num + "\" is not a positive number of USD");
  return {text.substr(0, eq), usd};
}

namespace {

double number_at(const json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || !obj.at(key).is_number()) return 0;
  return obj.at(key).get<double>();
}

std::string text_at(const json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || !obj.at(key).is_string()) return {};
  return obj.at(key).get<std::string>();
}

std::string cpu_model(const json& header) {
  const std::string m = records::machine_facts_of(header).cpu_model.value_or("");
  return m.empty() ? std::string("CPU (model not recorded)") : m;
}

bool is_gpu_record(const json& p) {
  const json axes = p.value(key::axes, json::object());
  return backend_is(text_at(axes, axis::backend), device_class::gpu) ||
         backend_is(text_at(p.value(key::context, json::object()), ctx::backend), device_class::gpu);
}

// One chain's bytes per ns (= GB/s) of a `hash` record in mode chain.
double single_stream_gb_per_s(const json& p, const std::string& hash) {
  const json rates = p.value(key::rates, json::object());
  const json ctx = p.value(key::context, json::object());
  double block = number_at(ctx, "block_bytes");
  if (block <= 0) block = static_cast<double>(block_bytes_of(hash));
  double lane_ns = number_at(rates, "lane_ns_per_block");
  if (lane_ns <= 0) lane_ns = number_at(ctx, "lane_ns_per_block");
  if (lane_ns <= 0) {
    double ns = number_at(rates, "ns_per_block");
    if (ns <= 0) ns = number_at(p.value(key::stats, json::object()), "median");
    const double lanes = number_at(ctx, "lanes");
    lane_ns = ns * (lanes > 0 ? lanes : 1.0);
  }
  return lane_ns > 0 ? block / lane_ns : 0;
}

std::string fmt(double v, const char* f = "%.4g") {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string clock_text(double hz) {
  if (!(hz > 0)) return "-";
  if (hz >= 1e9) return fmt(hz / 1e9, "%.3f") + " GHz";
  return fmt(hz / 1e6, "%.4g") + " MHz";
}

std::string md(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

json provenance_json(const provenance& p) { return {{"status", status_name(p.status)}, {"detail", p.detail}, {"text", p.text()}}; }

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

namespace {

using clock_map = std::map<std::string, std::pair<double, std::string>>;

// Core clocks measured by `limits` records (the add-chain calibration), per CPU model.
clock_map measured_core_clocks(const records::result_set& in) {
  clock_map cpu_clock;
  for (const auto& rec : in.records) {
    const json& p = rec.point;
    if (!records::is_ok(p, records::record_kind::limits)) continue;
    const double hz = number_at(p.value(key::context, json::object()), ctx::core_hz);
    if (hz > 0) cpu_clock[cpu_model(rec.header)] = {hz, rec.where};
  }
  return cpu_clock;
}

// The fastest single-stream figure per hash and device, measured (`hash` records in mode
// chain, `limits` records); throws when the records hold none.
std::map<std::pair<std::string, std::string>, row> fastest_single_streams(const records::result_set& in, const clock_map& cpu_clock) {
  std::map<std::pair<std::string, std::string>, row> best;
  std::size_t used = 0;
  for (const auto& rec : in.records) {
    const json& p = rec.point;
    // Modeled figures (kind gpu-model, "modeled": true) are not measurements.
    if (!records::is_ok(p) || p.value(key::modeled, false)) continue;
    const auto kind = records::kind_of(p);
    const json axes = p.value(key::axes, json::object());
    const json ctx = p.value(key::context, json::object());
    const json rates = p.value(key::rates, json::object());
    const auto hash = canonical_hash(text_at(axes, "algo"));
    if (!hash) continue;
    row x;
    x.hash = *hash;
    x.source = {figure_status::measured, "record " + rec.where};
    std::string engine = text_at(ctx, ctx::engine);
    if (engine.empty()) engine = text_at(axes, axis::engine);
    if (kind == records::record_kind::limits) {
      x.kind = "cpu";
      x.device = cpu_model(rec.header);
      x.implementation = engine;
      x.gb_per_s = number_at(rates, "single_stream_gb_per_s");
      x.cycles_per_byte = number_at(rates, "measured_cycles_per_byte");
      x.clock_hz = number_at(ctx, ctx::core_hz);
      x.clock_source = {figure_status::measured, "record " + rec.where + ", add-chain calibration"};
      x.note = "limit " + fmt(number_at(rates, "limit_cycles_per_byte")) + " c/B, ratio " +
               fmt(number_at(rates, "ratio"), "%.3g");
    } else if (kind == records::record_kind::hash && text_at(axes, "mode") == "chain") {
      x.gb_per_s = single_stream_gb_per_s(p, x.hash);
      x.implementation = cpu::find_reference(engine) != nullptr ? engine + " (EVP)" : engine;
      if (is_gpu_record(p)) {
        x.kind = "gpu";
        x.device = text_at(ctx, ctx::device);
        if (x.device.empty()) x.device = "GPU (name not recorded)";
        double mhz = number_at(ctx, "clock_mhz");
        if (mhz <= 0) mhz = number_at(ctx, "device_clock_mhz");
        if (mhz > 0) {
          x.clock_hz = mhz * 1e6;
          x.clock_source = {figure_status::quoted, "the device's rated SM clock (CUDA device properties), record " + rec.where};
        }
      } else {
        x.kind = "cpu";
        x.device = cpu_model(rec.header);
        if (const auto it = cpu_clock.find(x.device); it != cpu_clock.end()) {
          x.clock_hz = it->second.first;
          x.clock_source = {figure_status::measured, "record " + it->second.second + ", add-chain calibration"};
        } else {
          const double tsc = records::machine_facts_of(rec.header).tsc_hz.value_or(0);
          if (tsc > 0) {
            x.clock_hz = tsc;
            x.clock_source = {figure_status::assumed, "the TSC rate of the run header: no limits record measured this CPU's core "
                                         "clock, which may differ (turbo)"};
          }
        }
      }
      if (x.clock_hz > 0 && x.gb_per_s > 0) x.cycles_per_byte = x.clock_hz / (x.gb_per_s * 1e9);
    } else {
      continue;
    }
    if (!(x.gb_per_s > 0)) continue;
    ++used;
    const auto key = std::make_pair(x.hash, x.device);
    const auto it = best.find(key);
    if (it == best.end() || x.gb_per_s > it->second.gb_per_s) best[key] = std::move(x);
  }
  if (used == 0) {
    std::size_t ok = 0;
    for (const auto& rec : in.records) ok += records::is_ok(rec.point) ? 1 : 0;
    throw std::runtime_error("no usable records in " + names_text(in.dirs, kNamesShown, std::string::npos) + ": " + std::to_string(in.records.size()) +
                             " point records (" + std::to_string(ok) +
                             " ok), none an ok `hash` record in mode chain or an ok `limits` record");
  }
  return best;
}

// Costs of off-the-shelf devices (--cost NAME=USD): an exact name, else a part of exactly
// one name.
std::map<std::string, std::pair<double, std::string>> device_costs(
    const std::map<std::pair<std::string, std::string>, row>& best, const cost_map& costs) {
  std::set<std::string> devices;
  for (const auto& [k, x] : best) devices.insert(x.device);
  std::map<std::string, std::pair<double, std::string>> device_cost;
  for (const auto& [name, usd] : costs) {
    std::vector<std::string> hits;
    if (devices.count(name)) {
      hits.push_back(name);
    } else {
      for (const auto& d : devices)
        if (lower(d).find(lower(name)) != std::string::npos) hits.push_back(d);
    }
    if (hits.empty())
      throw std::runtime_error("--cost " + name + "=" + fmt(usd) + ": no measured device matches \"" + name +
                               "\" (devices: " + join(std::vector<std::string>(devices.begin(), devices.end()), "; ") + ")");
    if (hits.size() > 1)
      throw std::runtime_error("--cost " + name + "=" + fmt(usd) + ": \"" + name + "\" matches several devices (" +
                               join(hits, "; ") + "): give more of the name");
    device_cost[hits.front()] = {usd, "given with --cost " + name + "=" + fmt(usd)};
  }
  return device_cost;
}

// Entry i of the custom-hardware data as a row of its hash's table, its Amax against the
// best off-the-shelf single stream.
row custom_row(const custom_data& custom, std::size_t i, const std::optional<double>& best_gb_per_s) {
  const custom_entry& e = custom.entries[i];
  row x;
  x.hash = e.hash;
  x.custom = true;
  x.kind = e.kind;
  x.device = e.device;
  x.implementation = e.design;
  x.cycles_per_byte = e.cycles_per_block / static_cast<double>(e.block_bytes);
  x.clock_hz = e.clock_mhz * 1e6;
  x.gb_per_s = static_cast<double>(e.block_bytes) * x.clock_hz / e.cycles_per_block / 1e9;
  x.ns_per_block = e.cycles_per_block / e.clock_mhz * 1e3;
  if (e.derivation) {
    const derivation_spec& d = *e.derivation;
    const custom_entry& base = custom.entries[d.from];
    x.source = {figure_status::derived, d.text + "; base " + d.from_pointer + ": " + base.source + "; model: " + d.source};
    x.clock_source = d.basis_status == figure_status::assumed
                         ? provenance{figure_status::assumed, "derived from the assumed figures of " + d.from_pointer + ": " +
                                                     d.basis_reason}
                         : provenance{figure_status::derived, "register overhead " + fmt(d.register_overhead * 100, "%.3g") +
                                                     "% of the base period, see the derivation"};
  } else {
    x.source = e.status == figure_status::quoted ? provenance{figure_status::quoted, e.source}
                                    : provenance{figure_status::assumed, e.reason + "; based on " + e.source};
    x.clock_source = e.clock_status == figure_status::quoted
                         ? provenance{figure_status::quoted, e.source}
                         : provenance{figure_status::assumed, e.clock_reason.empty() ? e.reason : e.clock_reason};
  }
  if (e.cost_usd) {
    x.cost_usd = e.cost_usd;
    x.cost_source = status_name(e.status == figure_status::quoted ? figure_status::quoted : figure_status::assumed) + " (" + e.where + ")";
  }
  if (best_gb_per_s) x.amax = x.gb_per_s / *best_gb_per_s;
  x.note = e.note;
  x.architecture = e.architecture;
  if (e.architecture.type == "pipelined") x.independent_gb_per_s = *e.architecture.factor * x.gb_per_s;
  if (e.area) {
    x.area = e.area;
    // Each row in its own unit: LUTs, slices and square millimetres do not convert.
    const bool silicon = e.area->unit == "um2" || e.area->unit == "mm2";
    const double per = e.area->unit == "um2" ? e.area->value / 1e6 : silicon ? e.area->value : e.area->value / 1e3;
    x.area_per = silicon ? "mm2" : "1000 " + e.area->unit;
    x.gb_per_s_per_area = x.gb_per_s / per;
  }
  if (e.power) {
    x.power = e.power;
    x.gb_per_s_per_watt = x.gb_per_s / e.power->value;
  }
  x.status = weaker(weaker(x.source.status, x.clock_source.status),
                   e.derivation ? e.derivation->basis_status : figure_status::quoted);
  return x;
}

}  // namespace

report compute(const records::result_set& in, const custom_data& custom, const cost_map& costs) {
  report r;
  r.dirs = in.dirs;
  r.custom_file = custom.file;
  r.custom_note = custom.note;

  const clock_map cpu_clock = measured_core_clocks(in);

  std::map<std::pair<std::string, std::string>, row> best = fastest_single_streams(in, cpu_clock);
  const auto device_cost = device_costs(best, costs);

  for (const auto& h : hash_names()) {
    hash_table t;
    t.hash = h;
    for (auto& [k, x] : best)
      if (k.first == h) {
        if (const auto it = device_cost.find(x.device); it != device_cost.end()) {
          x.cost_usd = it->second.first;
          x.cost_source = it->second.second;
        }
        t.rows.push_back(x);
      }
    std::sort(t.rows.begin(), t.rows.end(), [](const row& a, const row& b) { return a.gb_per_s > b.gb_per_s; });
    if (!t.rows.empty()) {
      t.rows.front().best = true;
      t.best_gb_per_s = t.rows.front().gb_per_s;
      t.best_label = t.rows.front().device + " (" + t.rows.front().implementation + ")";
    }
    std::vector<row> customs;
    for (std::size_t i = 0; i < custom.entries.size(); ++i) {
      const custom_entry& e = custom.entries[i];
      if (e.hash != h) continue;
      row x = custom_row(custom, i, t.best_gb_per_s);
      customs.push_back(std::move(x));
    }
    std::stable_sort(customs.begin(), customs.end(), [](const row& a, const row& b) { return a.gb_per_s > b.gb_per_s; });
    // The range: the low-area cores as published against the fastest single chain.
    auto end_of = [](const row& x) {
      return range_end{x.implementation + " (" + x.kind + ")", x.architecture.text(), x.gb_per_s, x.ns_per_block,
                       x.amax, x.status};
    };
    for (const auto& x : customs) {
      if (!t.high || x.ns_per_block < t.high->ns_per_block) t.high = end_of(x);
      const bool latency_design = x.architecture.type == "unrolled" || x.architecture.type == "pipelined";
      if (!latency_design && (!t.low || x.ns_per_block < t.low->ns_per_block)) t.low = end_of(x);
    }
    t.rows.insert(t.rows.end(), customs.begin(), customs.end());
    for (auto& x : t.rows) {
      if (x.cost_usd && x.gb_per_s > 0) x.usd_per_gb_per_s = *x.cost_usd / x.gb_per_s;
      if (!x.custom) {
        x.status = x.source.status;
        if (x.clock_hz > 0 && x.clock_source.status == figure_status::assumed) x.status = figure_status::assumed;
        if (x.gb_per_s > 0) x.ns_per_block = static_cast<double>(block_bytes_of(h)) / x.gb_per_s;
      }
    }
    if (t.rows.empty()) continue;
    if (!t.best_gb_per_s)
      r.notes.push_back(h + ": no off-the-shelf measurement in the records, so no Amax (run a `hash` experiment in "
                            "mode chain or a `limits` experiment for it)");
    if (!customs.size())
      r.notes.push_back(h + ": no custom-hardware entry in " + custom.file + ", so no Amax");
    bool latency_core = false;
    for (const auto& x : customs)
      latency_core = latency_core || x.architecture.type == "unrolled" || x.architecture.type == "pipelined";
    if (!customs.empty() && !latency_core)
      r.notes.push_back(h + ": no unrolled or pipelined core in " + custom.file +
                        ", so the high end of the range is a low-area core");
    r.tables.push_back(std::move(t));
  }
  bool sized = false;
  for (const auto& e : custom.entries) sized = sized || e.area || e.power;
  if (sized)
    r.notes.push_back("Area and power of the off-the-shelf rows are left blank (—): the records hold no die area and "
                      "no power figure for them, and none is made up; GB/s per area and per W compare custom rows, "
                      "each in its own unit (square millimetres of one process, or LUTs of one FPGA family, do not "
                      "convert into each other).");
  return r;
}

std::string to_markdown(const report& r) {
  std::ostringstream o;
  o << "# Amax: custom hardware against the best off-the-shelf device, one hash chain\n\n"
    << "Single stream = one dependent chain of compressions, the pattern of PoRep labeling (each block waits for "
       "the one before); for a multi-lane engine, one lane's time per block. "
       "Amax = custom single-stream GB/s / best off-the-shelf single-stream GB/s for the same hash "
       "(GB/s = 10^9 bytes/s; cycles/B = clock cycles per byte of one chain). Every figure says where it comes "
       "from: *measured* (a record of these results), *quoted* (a published figure, cited), *derived* (computed "
       "from a quoted entry by a stated model), *assumed* (not published; the reason is given).\n\n"
    << "Results: " << join(r.dirs) << ". Custom hardware: " << r.custom_file << ".\n";
  bool any_range = false;
  for (const auto& t : r.tables) any_range = any_range || t.low || t.high;
  if (any_range) {
    o << "\n## Amax range\n\n"
      << "Low: the fastest low-area core as published (iterative or folded, one round per cycle or slower). "
         "High: the core that finishes one block of one chain in the fewest ns (unrolled and pipelined cores by "
         "their latency: a pipeline adds throughput for independent messages, not speed for one chain). "
         "Status: the worst of the figure's parts.\n\n"
      << "| hash | best off-the-shelf GB/s | low: core | architecture | GB/s | Amax | status | high: core | "
         "architecture | ns/block | GB/s | Amax | status |\n"
      << "|---|---:|---|---|---:|---:|---|---|---|---:|---:|---:|---|\n";
    auto amax_text = [](const std::optional<double>& a) { return a ? fmt(*a, "%.3g") : std::string("-"); };
    for (const auto& t : r.tables) {
      if (!t.low && !t.high) continue;
      o << "| " << t.hash << " | " << (t.best_gb_per_s ? fmt(*t.best_gb_per_s) : "-") << " | ";
      if (t.low)
        o << md(t.low->label) << " | " << t.low->architecture << " | " << fmt(t.low->gb_per_s) << " | "
          << amax_text(t.low->amax) << " | " << status_name(t.low->status) << " | ";
      else
        o << "- | - | - | - | - | ";
      o << md(t.high->label) << " | " << t.high->architecture << " | " << fmt(t.high->ns_per_block, "%.4g") << " | "
        << fmt(t.high->gb_per_s) << " | " << amax_text(t.high->amax) << " | " << status_name(t.high->status) << " |\n";
    }
  }
  for (const auto& t : r.tables) {
    o << "\n## " << t.hash << "\n\n";
    if (t.best_gb_per_s)
      o << "Best off-the-shelf: " << md(t.best_label) << ", " << fmt(*t.best_gb_per_s) << " GB/s.\n\n";
    o << "| device | type | implementation | cycles/B | clock | GB/s (1 stream) | cost (USD) | USD per GB/s | Amax | "
         "source |\n"
      << "|---|---|---|---:|---:|---:|---:|---:|---:|---|\n";
    for (const auto& x : t.rows) {
      std::string src = x.source.text();
      if (x.clock_hz > 0 && x.clock_source.text() != x.source.text()) src += "; clock " + x.clock_source.text();
      if (x.cost_usd) src += "; cost " + x.cost_source;
      if (!x.note.empty()) src += "; " + x.note;
      std::string amax = "-";
      if (x.amax)
        amax = fmt(*x.amax, "%.3g");
      else if (x.best)
        amax = "1 (best)";
      o << "| " << md(x.device) << " | " << x.kind << (x.custom ? "" : " (off-the-shelf)") << " | "
        << md(x.implementation) << " | " << (x.cycles_per_byte > 0 ? fmt(x.cycles_per_byte) : "-") << " | "
        << clock_text(x.clock_hz) << " | " << fmt(x.gb_per_s) << " | " << (x.cost_usd ? fmt(*x.cost_usd, "%.0f") : "-")
        << " | " << (x.usd_per_gb_per_s ? fmt(*x.usd_per_gb_per_s, "%.4g") : "-") << " | " << amax << " | "
        << md(src) << " |\n";
    }
    bool any_custom = false;
    for (const auto& x : t.rows) any_custom = any_custom || x.custom;
    if (!any_custom) continue;
    o << "\nDesign space (area and power as published, each row in its own unit; — = not known):\n\n"
      << "| device | implementation | architecture | ns/block (1 chain) | GB/s (1 stream) | area | GB/s per area | "
         "power | GB/s per W | status |\n"
      << "|---|---|---|---:|---:|---:|---:|---:|---:|---|\n";
    for (const auto& x : t.rows) {
      if (!x.custom && !x.best) continue;  // the best off-the-shelf row is the yardstick
      std::string area = "—", per_area = "—", power = "—", per_watt = "—";
      if (x.area) {
        area = fmt(x.area->value, "%.6g") + " " + x.area->unit + " (" + x.area->technology + "; " + status_name(x.area->status) + ")";
        per_area = fmt(*x.gb_per_s_per_area, "%.4g") + " per " + x.area_per;
      }
      if (x.power) {
        power = fmt(x.power->value, "%.4g") + " W (" + status_name(x.power->status) + ")";
        per_watt = fmt(*x.gb_per_s_per_watt, "%.4g");
      }
      std::string arch = x.custom ? x.architecture.text() : "—";
      if (x.independent_gb_per_s) arch += " (" + fmt(*x.independent_gb_per_s) + " GB/s over independent messages)";
      o << "| " << md(x.device) << " | " << md(x.implementation) << " | " << md(arch) << " | "
        << (x.ns_per_block > 0 ? fmt(x.ns_per_block, "%.4g") : "-") << " | " << fmt(x.gb_per_s) << " | " << md(area)
        << " | " << per_area << " | " << md(power) << " | " << per_watt << " | " << status_name(x.status) << " |\n";
    }
  }
  if (!r.notes.empty() || !r.custom_note.empty()) {
    o << "\n## Notes\n\n";
    for (const auto& n : r.notes) o << "- " << md(n) << "\n";
    if (!r.custom_note.empty()) o << "- Custom-hardware data (" << r.custom_file << "): " << md(r.custom_note) << "\n";
  }
  return o.str();
}

json to_json(const report& r) {
  json tables = json::array();
  for (const auto& t : r.tables) {
    json rows = json::array();
    for (const auto& x : t.rows) {
      auto figure = [](const std::optional<sourced_figure>& f) -> json {
        if (!f) return nullptr;
        return {{"value", f->value},   {"unit", f->unit},     {"technology", f->technology},
                {"source", f->source}, {"status", status_name(f->status)}, {"note", f->note}};
      };
      json arch = nullptr;
      if (!x.architecture.type.empty())
        arch = {{"type", x.architecture.type}, {"factor", opt(x.architecture.factor)}, {"text", x.architecture.text()},
                {"note", x.architecture.note}};
      json per_area = nullptr;
      if (x.gb_per_s_per_area) per_area = {{"value", *x.gb_per_s_per_area}, {"per", x.area_per}};
      rows.push_back({{"category", x.custom ? "custom" : "off-the-shelf"},
                      {"kind", x.kind},
                      {ctx::device, x.device},
                      {"implementation", x.implementation},
                      {"cycles_per_byte", x.cycles_per_byte > 0 ? json(x.cycles_per_byte) : json(nullptr)},
                      {"clock_hz", x.clock_hz > 0 ? json(x.clock_hz) : json(nullptr)},
                      {"gb_per_s", x.gb_per_s},
                      {"gb_per_s_status", status_name(x.status)},  // the worst of the speed's parts
                      {"cost_usd", opt(x.cost_usd)},
                      {"cost_source", x.cost_usd ? json(x.cost_source) : json(nullptr)},
                      {"usd_per_gb_per_s", opt(x.usd_per_gb_per_s)},
                      {"amax", opt(x.amax)},
                      {"best_off_the_shelf", x.best},
                      {"source", provenance_json(x.source)},
                      {"clock_source", x.clock_hz > 0 ? provenance_json(x.clock_source) : json(nullptr)},
                      {"note", x.note},
                      {"architecture", arch},
                      {"ns_per_block", x.ns_per_block > 0 ? json(x.ns_per_block) : json(nullptr)},
                      {"independent_gb_per_s", opt(x.independent_gb_per_s)},
                      {"area", figure(x.area)},
                      {"gb_per_s_per_area", per_area},
                      {"power", figure(x.power)},
                      {"gb_per_s_per_watt", opt(x.gb_per_s_per_watt)}});
    }
    auto end_json = [](const std::optional<range_end>& e) -> json {
      if (!e) return nullptr;
      return {{"core", e->label},         {"architecture", e->architecture}, {"gb_per_s", e->gb_per_s},
              {"ns_per_block", e->ns_per_block}, {"amax", opt(e->amax)},      {"status", status_name(e->status)}};
    };
    tables.push_back({{"hash", t.hash},
                      {"best_off_the_shelf_gb_per_s", opt(t.best_gb_per_s)},
                      {"best_off_the_shelf", t.best_label.empty() ? json(nullptr) : json(t.best_label)},
                      {"range", {{"low", end_json(t.low)}, {"high", end_json(t.high)}}},
                      {"rows", rows}});
  }
  return {{"schema", kAmaxSchema}, {"results", r.dirs},        {"custom_file", r.custom_file},
          {"custom_note", r.custom_note}, {"hashes", tables}, {"notes", r.notes}};
}

bool write_report_files(const fs::path& dir) {
  try {
    const report r = compute(records::load_result_set({dir}), load_custom_hardware(default_custom_hardware_file()));
    write_file_atomic(dir / "amax.md", to_markdown(r));
    write_file_atomic(dir / "amax.json", to_json(r).dump(2) + "\n");
    std::cerr << "report: " << (dir / "amax.md").string() << ", " << (dir / "amax.json").string() << "\n";
    return true;
  } catch (const std::exception& e) {
    std::cerr << "poreplab: warning: amax report not written: " << e.what() << "\n";
    return false;
  }
}

}  // namespace poreplab::amax
