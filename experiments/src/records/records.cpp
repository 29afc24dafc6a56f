#include "records/records.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "poreplab/checked.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/json_input.hpp"
#include "poreplab/memory_check.hpp"
#include "poreplab/sampling.hpp"
#include "poreplab/sdr/window_store.hpp"
#include "poreplab/stats.hpp"
#include "records/schema.hpp"
#include "util/text.hpp"

namespace poreplab::records {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail_errno(const std::string& what, const fs::path& p) {
  throw std::runtime_error(what + " " + p.string() + ": " + std::strerror(errno));
}

void write_all(int fd, std::string_view data, const fs::path& p) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno("cannot write", p);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string cell_text(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return format_number(v.get<double>(), 6);
  return v.dump();
}

}  // namespace

sample_stats compute_stats(std::vector<double> samples) {
  sample_stats s;
  s.n = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.median = sorted_median(samples);
  s.spread = s.median > 0 ? (s.max - s.min) / s.median : 0;
  const interval ci = bootstrap_median_interval(samples);
  s.ci_lo = ci.lo;
  s.ci_hi = ci.hi;
  return s;
}

json stats_json(const sample_stats& s) {
  return {{"n", s.n},           {"min", s.min},   {"median", s.median}, {"max", s.max},
          {"spread", s.spread}, {"ci95", {s.ci_lo, s.ci_hi}}};
}

namespace {

[[noreturn]] void fail_at(const std::string& where, const std::string& ptr, const std::string& what) {
  throw std::runtime_error(where + ": " + ptr + ": " + what);
}

// What a run can measure, in a point's metric (ns a node, a block, an iteration; reads a
// second; seconds): a sample spans 1 ns to 1e7 s of the clock, and a per-unit figure
// divides that by the units timed, which bring GPU hash blocks to 0.05 ns. 5e-324 and
// 1e308 pass "positive and finite" and make every ratio to them -100% or inf.
constexpr double kMinTiming = 1e-6, kMaxTiming = 1e16;

// A timing: positive, finite and within what a run can measure (a zero or negative one
// would make any ratio meaningless).
void check_timing(const json& v, const std::string& where, const std::string& ptr) {
  if (!v.is_number()) fail_at(where, ptr, "expected a number, got " + v.dump());
  const double x = v.get<double>();
  if (!(x > 0) || !std::isfinite(x)) fail_at(where, ptr, v.dump() + " is not a timing (positive and finite)");
  if (x < kMinTiming || x > kMaxTiming)
    fail_at(where, ptr, v.dump() + " is not a timing a run can measure (1e-06 to 1e+16 in the metric's unit)");
}

// The fields readers take as text, objects or flags have those types: a number where a
// name belongs is an error naming it here, not a library exception in a report later.
void check_types(const json& rec, const std::string& where, std::initializer_list<const char*> texts,
                 std::initializer_list<const char*> objects, std::initializer_list<const char*> flags) {
  const auto need = [&](const char* key, bool ok, const char* what) {
    if (rec.contains(key) && !ok)
      fail_at(where, std::string("/") + key, std::string("expected ") + what + ", got " + rec[key].dump());
  };
  for (const char* k : texts) need(k, rec.contains(k) && rec[k].is_string(), "a string");
  for (const char* k : objects) need(k, rec.contains(k) && rec[k].is_object(), "an object");
  for (const char* k : flags) need(k, rec.contains(k) && rec[k].is_boolean(), "true or false");
}

std::string text_of(const json& rec, const char* key) {
  return rec.contains(key) && rec[key].is_string() ? rec[key].get<std::string>() : std::string();
}

// A point's identity, field types and timings.
void check_point(const json& rec, const std::string& where) {
  if (!rec.contains(key::experiment)) fail_at(where, "/experiment", "missing");
  if (!rec.contains(key::axes)) fail_at(where, "/axes", "missing");
  check_types(rec, where, {key::experiment, key::kind, key::status, key::metric, key::description, key::reason, key::digest},
              {key::axes, key::stats, key::rates, key::context}, {key::noisy, key::verified});
  if (rec.contains(key::repeat) && !rec[key::repeat].is_number_unsigned())
    fail_at(where, "/repeat", "expected a whole number, got " + rec[key::repeat].dump());
  if (rec.contains(key::stats) && rec[key::stats].contains("n") && !rec[key::stats]["n"].is_number_unsigned())
    fail_at(where, "/stats/n", "expected a whole number, got " + rec[key::stats]["n"].dump());
  if (rec.contains(key::samples)) {
    const json& samples = rec[key::samples];
    if (!samples.is_array()) fail_at(where, "/samples", "expected a list of numbers");
    // No run takes more (sampling.hpp's cap): more would only make every reader slow.
    if (samples.size() > kMaxSamples)
      fail_at(where, "/samples",
              std::to_string(samples.size()) + " samples, more than the " + std::to_string(kMaxSamples) +
                  " a run takes of one point");
    for (std::size_t i = 0; i < samples.size(); ++i) check_timing(samples[i], where, "/samples/" + std::to_string(i));
  }
  if (const std::string status = text_of(rec, key::status); !status.empty() && !kPointStatuses.has(status))
    fail_at(where, "/status", "unknown point status \"" + status + "\" (valid: " + kPointStatuses.valid() + ")");
  if (!is_ok(rec)) return;
  if (const auto st = rec.find(key::stats); st != rec.end() && st->value("n", 0) > 0)
    for (const char* k : {"min", "median", "max"})
      if (st->contains(k)) check_timing((*st)[k], where, std::string("/stats/") + k);
  const std::string metric = text_of(rec, key::metric);
  if (const auto r = rec.find(key::rates); r != rec.end() && !metric.empty() && r->contains(metric))
    check_timing((*r)[metric], where, "/rates/" + metric);
}

// Lines in, records out: a bad line is an error only once another line follows it (the
// last one may be cut short by a crash).
class records_parser {
 public:
  explicit records_parser(fs::path file) : file_(std::move(file)) {}

  void line(std::string_view text, std::uint64_t offset) {
    ++line_no_;
    throw_if_bad_line_pending();
    if (text.empty()) return;
    json j;
    try {
      j = json::parse(text);
    } catch (const json::exception& e) {
      bad_reason_ = ": " + json_reason(e);
    }
    if (!j.is_object()) {
      bad_line_ = line_no_;
      bad_offset_ = offset;
      return;
    }
    add(std::move(j));
  }
  // After the last complete line, which `tail` bytes of an unfinished one follow: what is
  // cut off is that unfinished line, or a bad last line.
  records_log finish(std::uint64_t size, std::uint64_t tail) {
    if (tail != 0) throw_if_bad_line_pending();
    log_.truncated_bytes = static_cast<std::size_t>(bad_line_ != 0 ? size - bad_offset_ : tail);
    return std::move(log_);
  }

 private:
  std::string where(std::size_t line) const { return file_.string() + ":" + std::to_string(line); }
  void throw_if_bad_line_pending() const {
    if (bad_line_ != 0)
      throw std::runtime_error(where(bad_line_) + ": not a JSON record" + bad_reason_ +
                               " (the file is damaged; move it away or fix the line)");
  }
  void add(json j) {
    const std::string type = text_of(j, "type");
    if (type == "header") {
      check_types(j, where(line_no_), {key::source, key::config_digest}, {key::environment}, {});
      // Another schema means records this poreplab would misread.
      if (const auto it = j.find(key::schema); it != j.end() && *it != kRecordsSchema)
        throw std::runtime_error(where(line_no_) + ": records schema " + it->dump() + ", this poreplab reads \"" +
                                 std::string(kRecordsSchema) + "\" (written by another version)");
      log_.headers.push_back(std::move(j));
      log_.header_lines.push_back(line_no_);
      return;
    }
    if (type != "point")
      throw std::runtime_error(where(line_no_) + ": unknown record type " + j.value(key::type, json()).dump());
    check_point(j, where(line_no_));
    if (is_ok(j)) note_duplicate(record_key(j));
    log_.points.push_back(std::move(j));
    log_.point_lines.push_back(line_no_);
  }
  void note_duplicate(const std::string& key) {
    const auto [it, fresh] = ok_lines_.try_emplace(key, line_no_);
    if (fresh) return;
    log_.duplicates.push_back(where(line_no_) + ": " + key + " was recorded ok at line " + std::to_string(it->second) +
                              " already (the later record is used)");
    it->second = line_no_;
  }

  fs::path file_;
  records_log log_;
  std::size_t line_no_ = 0, bad_line_ = 0;  // bad_line_ 0: none
  std::uint64_t bad_offset_ = 0;
  std::string bad_reason_;
  std::map<std::string, std::size_t> ok_lines_;
};

// Feeds `parser` the lines of `text` starting at file offset `base`; returns the bytes of
// an unfinished last line left over.
std::size_t feed_lines(records_parser& parser, std::string_view text, std::uint64_t base) {
  std::size_t pos = 0;
  for (std::size_t nl; (nl = text.find('\n', pos)) != std::string_view::npos; pos = nl + 1)
    parser.line(text.substr(pos, nl - pos), base + pos);
  return text.size() - pos;
}

void refuse_oversized(const fs::path& file, std::uint64_t size) {
  if (size > kMaxRecordsBytes)
    throw std::runtime_error(file.string() + ": " + std::to_string(size) + " bytes, more than the " +
                             byte_size_text(kMaxRecordsBytes) + " a records file may hold here");
}

}  // namespace

records_log parse_records(std::string_view text, const fs::path& file) {
  records_parser parser(file);
  const std::size_t tail = feed_lines(parser, text, 0);
  return parser.finish(text.size(), tail);
}

records_log read_records(const fs::path& file, bool repair) {
  // A file resumed into is appended to: not through a link planted at its name.
  const unique_fd fd = open_regular_for_reading(file, !repair);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail_errno("cannot stat", file);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  refuse_oversized(file, size);
  require_memory(checked_mul(size, kRecordsMemoryPerByte, "records memory"), file.string());
  records_parser parser(file);
  std::string buf;  // the unfinished line so far, then the next chunk
  std::vector<char> chunk(1 << 20);
  for (std::uint64_t at = 0; at < size;) {
    const std::uint64_t n = std::min<std::uint64_t>(chunk.size(), size - at);
    pread_exact(fd.get(), chunk.data(), n, at, file);
    buf.append(chunk.data(), static_cast<std::size_t>(n));
    at += n;
    buf.erase(0, buf.size() - feed_lines(parser, buf, at - buf.size()));
  }
  records_log log = parser.finish(size, buf.size());
  if (repair && log.truncated_bytes > 0 && ::truncate(file.c_str(), static_cast<off_t>(size - log.truncated_bytes)) != 0)
    fail_errno("cannot truncate", file);
  return log;
}

void require_records_memory(const std::vector<fs::path>& files, std::uint64_t per_byte) {
  std::uint64_t total = 0;
  std::vector<std::string> names;
  for (const auto& f : files) {
    struct stat st {};
    if (::stat(f.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    refuse_oversized(f, static_cast<std::uint64_t>(st.st_size));  // the file's own limit named first
    total = checked_add(total, static_cast<std::uint64_t>(st.st_size), "records size");
    names.push_back(f.string());
  }
  if (total == 0) return;
  require_memory(checked_mul(total, per_byte, "records memory"),
                 names_text(names, kNamesShown, std::string::npos) + ": " + byte_size_text(total) + " of records, taking " + std::to_string(per_byte) +
                     " bytes of memory per byte in this command");
}

records_writer::records_writer(const fs::path& file) : path_(file) {
  // Appended to: never through a link planted at its name, never a FIFO.
  fd_ = open_own_file(file, O_WRONLY | O_CREAT | O_APPEND).release();
}

records_writer::~records_writer() {
  if (fd_ >= 0) ::close(fd_);
}

void records_writer::append(const json& record) {
  // One write() of the whole line: a reader never sees a record split across lines, and
  // a crash leaves at worst an incomplete last line, which read_records cuts off.
  const std::string line = record.dump() + "\n";
  write_all(fd_, line, path_);
  if (::fsync(fd_) != 0) fail_errno("cannot fsync", path_);
}

std::string record_key(const json& record) {
  std::string k = record.at(key::experiment).get<std::string>() + " " + record.at(key::axes).dump();
  if (record.contains(key::repeat)) k += " #" + record[key::repeat].dump();
  return k;
}

json repeat_spread(const json& points) {
  struct metric_values {
    std::vector<double> values, widths;
  };
  struct group {
    json first;
    std::vector<std::string> order;  // metric names as first seen
    std::map<std::string, metric_values> metrics;
  };
  std::vector<std::string> order;
  std::map<std::string, group> groups;
  auto width = [](const json& ci, double v) {
    return ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number() && v != 0
               ? (ci[1].get<double>() - ci[0].get<double>()) / std::fabs(v)
               : -1.0;
  };
  for (const auto& p : points) {
    if (!p.contains(key::repeat) || !is_ok(p)) continue;
    const std::string key = p.at(key::experiment).get<std::string>() + " " + p.at(key::axes).dump();
    auto [it, fresh] = groups.try_emplace(key);
    group& g = it->second;
    if (fresh) {
      order.push_back(key);
      g.first = p;
    }
    auto add = [&](const std::string& name, double v, const json& ci) {
      if (!g.metrics.count(name)) g.order.push_back(name);
      auto& m = g.metrics[name];
      m.values.push_back(v);
      m.widths.push_back(width(ci, v));
    };
    const std::string metric = p.value(key::metric, "");
    const json st = p.value(key::stats, json::object());
    if (!metric.empty() && st.contains("median") && st.value("n", 0) > 0)
      add(metric, st["median"].get<double>(), st.value("ci95", json()));
    const json ctx = p.value(key::context, json::object());
    for (const auto& [k, ci] : ctx.items()) {
      const std::size_t cut = k.size() > 5 ? k.size() - 5 : 0;
      if (cut == 0 || k.compare(cut, 5, "_ci95") != 0) continue;
      const std::string base = k.substr(0, cut);
      if (base == metric || !ctx.contains(base) || !ctx[base].is_number()) continue;
      add(base, ctx[base].get<double>(), ci);
    }
  }
  json out = json::array();
  for (const auto& key : order) {
    const group& g = groups[key];
    std::string description = g.first.value(key::description, key);
    if (const auto at = description.rfind(" (repeat "); at != std::string::npos) description.erase(at);
    for (const auto& name : g.order) {
      const metric_values& m = g.metrics.at(name);
      if (m.values.size() < 2) continue;
      std::vector<double> widths;
      for (double w : m.widths)
        if (w >= 0) widths.push_back(w);
      const double spread = relative_spread(m.values);
      json e = {{key::experiment, g.first[key::experiment]}, {key::axes, g.first[key::axes]}, {key::description, description},
                {key::metric, name},                        {"values", m.values},      {"median", median(m.values)},
                {"spread", spread}};
      if (!widths.empty()) {
        e["claimed"] = median(widths);
        e["exceeds"] = spread > e["claimed"].get<double>();
      }
      out.push_back(std::move(e));
    }
  }
  return out;
}

json make_results(const json& config, const std::string& config_digest, const std::vector<json>& runs,
                  const std::vector<json>& expected, const std::vector<json>& records, const json& extra) {
  std::map<std::string, const json*> latest;
  for (const auto& r : records) latest[record_key(r)] = &r;
  json points = json::array();
  json missing = json::array();
  std::set<std::string> expected_keys;
  // Points per status, and the expected, missing and noisy ones.
  json counts = {{"expected", expected.size()}};
  for (const auto& status : kPointStatuses.names()) counts[status] = 0;
  counts["missing"] = 0;
  counts[key::noisy] = 0;
  for (const auto& e : expected) {
    const std::string point_key = record_key(e);
    expected_keys.insert(point_key);
    const auto it = latest.find(point_key);
    if (it == latest.end()) {
      missing.push_back(e);
      counts["missing"] = counts["missing"].get<int>() + 1;
      continue;
    }
    json p = *it->second;
    p["index"] = e.at("index");  // the index in this run's ordered list
    const std::string status = p.value(key::status, std::string(kPointStatuses.name(point_status::failed)));
    counts[status] = counts.value(status, 0) + 1;
    if (p.value(key::noisy, false)) counts[key::noisy] = counts[key::noisy].get<int>() + 1;
    points.push_back(std::move(p));
  }
  std::size_t extra_records = 0;
  for (const auto& [k, r] : latest)
    if (!expected_keys.count(k)) ++extra_records;
  json out = {{"schema", kResultsSchema}, {key::config_digest, config_digest}, {key::config, config}, {"runs", runs},
              {"counts", counts},       {"points", points},               {"missing", missing}};
  if (extra_records) out["records_not_in_config"] = extra_records;
  if (std::any_of(points.begin(), points.end(), [](const json& p) { return p.contains(key::repeat); }))
    out["repeat_spread"] = repeat_spread(points);
  for (const auto& [k, v] : extra.items()) out[k] = v;
  return out;
}

std::string results_csv(const json& results) {
  std::vector<std::string> axes, rates, context;
  auto add = [](std::vector<std::string>& v, const std::string& s) {
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
  };
  for (const auto& p : results["points"]) {
    for (const auto& [k, v] : p[key::axes].items()) add(axes, k);
    if (p.contains(key::rates))
      for (const auto& [k, v] : p[key::rates].items()) add(rates, k);
    if (p.contains(key::context))
      for (const auto& [k, v] : p[key::context].items())
        if (!v.is_structured()) add(context, k);
  }
  std::ostringstream out;
  const bool repeats = std::any_of(results["points"].begin(), results["points"].end(),
                                   [](const json& p) { return p.contains(key::repeat); });
  std::vector<std::string> head = {key::index, key::experiment, key::kind, key::status};
  if (repeats) head.emplace_back(key::repeat);
  for (const auto& a : axes) head.push_back(a);
  for (const auto& h : {key::metric, "n", "min", "median", "max", "spread", key::noisy}) head.emplace_back(h);
  for (const auto& r : rates) head.push_back(r);
  // Context fields are prefixed: some share a name with a rate (at bench time's median).
  for (const auto& c : context) head.push_back("context." + c);
  for (const auto& h : {key::verified, key::digest, key::reason}) head.emplace_back(h);
  for (std::size_t i = 0; i < head.size(); ++i) out << (i ? "," : "") << csv_field(head[i]);
  out << "\n";
  for (const auto& p : results["points"]) {
    std::vector<std::string> row = {cell_text(p[key::index]), cell_text(p[key::experiment]), cell_text(p[key::kind]),
                                    cell_text(p[key::status])};
    if (repeats) row.push_back(p.contains(key::repeat) ? cell_text(p[key::repeat]) : "");
    for (const auto& a : axes) row.push_back(p[key::axes].contains(a) ? cell_text(p[key::axes][a]) : "");
    const json st = p.value(key::stats, json::object());
    row.push_back(p.value(key::metric, ""));
    for (const auto& k : {"n", "min", "median", "max", "spread"}) row.push_back(st.contains(k) ? cell_text(st[k]) : "");
    row.push_back(p.contains(key::noisy) ? cell_text(p[key::noisy]) : "");
    const json r = p.value(key::rates, json::object());
    for (const auto& k : rates) row.push_back(r.contains(k) ? cell_text(r[k]) : "");
    const json c = p.value(key::context, json::object());
    for (const auto& k : context) row.push_back(c.contains(k) ? cell_text(c[k]) : "");
    row.push_back(p.contains(key::verified) ? cell_text(p[key::verified]) : "");
    row.push_back(p.value(key::digest, ""));
    row.push_back(p.value(key::reason, ""));
    for (std::size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << csv_field(row[i]);
    out << "\n";
  }
  return out.str();
}

void write_result_files(const fs::path& dir, const json& results) {
  write_file_atomic(dir / "results.json", results.dump(2) + "\n");
  write_file_atomic(dir / "results.csv", results_csv(results));
}

cpu::parent_producer record_producer(const nlohmann::json& context) {
  const auto it = context.find(ctx::producer);
  if (it == context.end() || !it->is_string()) return cpu::parent_producer::off;
  const std::string& name = it->get_ref<const std::string&>();
  return cpu::kParentProducers.has(name) ? cpu::kParentProducers.parse(name) : cpu::parent_producer::off;
}

std::string record_window_pages_text(const nlohmann::json& context) {
  const auto it = context.find(ctx::window_backing);
  if (it == context.end() || !it->is_string()) return {};
  const std::string& name = it->get_ref<const std::string&>();
  if (!sdr::kWindowBackings.has(name) || !sdr::window_backing_repeats(sdr::kWindowBackings.parse(name))) return {};
  const double period = context.value(ctx::window_alias_period_bytes, 0.0);
  // Records from before the page size was a choice lay on 2 MiB pages.
  const auto page = static_cast<std::uint64_t>(context.value(ctx::window_page_bytes, double(2u << 20)));
  return ", its layers on " + sdr::page_size_text(page) + " pages repeating every " +
         (period > 0 ? byte_size_text(static_cast<std::uint64_t>(period)) : std::string("period")) + " (" + name +
         " window backing)";
}

}  // namespace poreplab::records
