#include "records/records.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "poreplab/file_io.hpp"
#include "poreplab/stats.hpp"
#include "util/text.hpp"

namespace poreplab::runner {

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

dir_lock::dir_lock(const fs::path& dir) {
  const fs::path file = dir / ".lock";
  // Truncated below: never through a link planted at its name, never a FIFO that blocks.
  fd_ = open_own_file(file, O_RDWR | O_CREAT).release();
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    char buf[32] = {};
    const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    ::close(fd_);
    fd_ = -1;
    if (e != EWOULDBLOCK) {
      errno = e;
      fail_errno("cannot lock", file);
    }
    std::string pid(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    throw std::runtime_error("results directory " + dir.string() + " is in use by another run (pid " +
                             (pid.empty() ? std::string("unknown") : pid) + ")");
  }
  // Without the pid the lock still holds; only a second run's message loses it.
  const std::string me = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) {
    const ssize_t written = ::pwrite(fd_, me.data(), me.size(), 0);
    (void)written;
  }
}

dir_lock::~dir_lock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

records_log read_records(const fs::path& file, bool repair) {
  records_log log;
  std::ifstream in(file, std::ios::binary);
  if (!in) fail_errno("cannot open", file);
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  in.close();

  std::size_t pos = 0, line_no = 0, good_end = 0;
  while (pos < text.size()) {
    ++line_no;
    const std::size_t nl = text.find('\n', pos);
    const bool complete = nl != std::string::npos;
    const std::string line = text.substr(pos, (complete ? nl : text.size()) - pos);
    const std::size_t next = complete ? nl + 1 : text.size();
    json j;
    bool ok = true;
    try {
      j = json::parse(line);
    } catch (const json::exception&) {
      ok = false;
    }
    const bool last = next >= text.size();
    if (!complete || !ok || !j.is_object()) {
      // Only the last line can be cut short by a crash; anything else is damage.
      if (last) {
        log.truncated_bytes = text.size() - pos;
        break;
      }
      if (line.empty()) {
        pos = next;
        good_end = pos;
        continue;
      }
      throw std::runtime_error(file.string() + ":" + std::to_string(line_no) +
                               ": not a JSON record (the file is damaged; move it away or fix the line)");
    }
    const std::string type = j.value("type", "");
    if (type == "header")
      log.headers.push_back(std::move(j));
    else if (type == "point")
      log.points.push_back(std::move(j));
    else
      throw std::runtime_error(file.string() + ":" + std::to_string(line_no) + ": unknown record type \"" + type +
                               "\"");
    pos = next;
    good_end = pos;
  }
  if (repair && log.truncated_bytes > 0) {
    if (::truncate(file.c_str(), static_cast<off_t>(good_end)) != 0) fail_errno("cannot truncate", file);
  }
  return log;
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
  std::string k = record.at("experiment").get<std::string>() + " " + record.at("axes").dump();
  if (record.contains("repeat")) k += " #" + record["repeat"].dump();
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
    if (!p.contains("repeat") || p.value("status", "") != "ok") continue;
    const std::string key = p.at("experiment").get<std::string>() + " " + p.at("axes").dump();
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
    const std::string metric = p.value("metric", "");
    const json st = p.value("stats", json::object());
    if (!metric.empty() && st.contains("median") && st.value("n", 0) > 0)
      add(metric, st["median"].get<double>(), st.value("ci95", json()));
    const json ctx = p.value("context", json::object());
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
    std::string description = g.first.value("description", key);
    if (const auto at = description.rfind(" (repeat "); at != std::string::npos) description.erase(at);
    for (const auto& name : g.order) {
      const metric_values& m = g.metrics.at(name);
      if (m.values.size() < 2) continue;
      std::vector<double> widths;
      for (double w : m.widths)
        if (w >= 0) widths.push_back(w);
      const double spread = relative_spread(m.values);
      json e = {{"experiment", g.first["experiment"]}, {"axes", g.first["axes"]}, {"description", description},
                {"metric", name},                        {"values", m.values},      {"median", median(m.values)},
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
  json counts = {{"expected", expected.size()}, {"ok", 0}, {"skipped", 0}, {"failed", 0}, {"missing", 0}, {"noisy", 0}};
  for (const auto& e : expected) {
    const std::string key = record_key(e);
    expected_keys.insert(key);
    const auto it = latest.find(key);
    if (it == latest.end()) {
      missing.push_back(e);
      counts["missing"] = counts["missing"].get<int>() + 1;
      continue;
    }
    json p = *it->second;
    p["index"] = e.at("index");  // the index in this run's ordered list
    const std::string status = p.value("status", "failed");
    counts[status] = counts.value(status, 0) + 1;
    if (p.value("noisy", false)) counts["noisy"] = counts["noisy"].get<int>() + 1;
    points.push_back(std::move(p));
  }
  std::size_t extra_records = 0;
  for (const auto& [k, r] : latest)
    if (!expected_keys.count(k)) ++extra_records;
  json out = {{"schema", kResultsSchema}, {"config_digest", config_digest}, {"config", config}, {"runs", runs},
              {"counts", counts},       {"points", points},               {"missing", missing}};
  if (extra_records) out["records_not_in_config"] = extra_records;
  if (std::any_of(points.begin(), points.end(), [](const json& p) { return p.contains("repeat"); }))
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
    for (const auto& [k, v] : p["axes"].items()) add(axes, k);
    if (p.contains("rates"))
      for (const auto& [k, v] : p["rates"].items()) add(rates, k);
    if (p.contains("context"))
      for (const auto& [k, v] : p["context"].items())
        if (!v.is_structured()) add(context, k);
  }
  std::ostringstream out;
  const bool repeats = std::any_of(results["points"].begin(), results["points"].end(),
                                   [](const json& p) { return p.contains("repeat"); });
  std::vector<std::string> head = {"index", "experiment", "kind", "status"};
  if (repeats) head.emplace_back("repeat");
  for (const auto& a : axes) head.push_back(a);
  for (const auto& h : {"metric", "n", "min", "median", "max", "spread", "noisy"}) head.emplace_back(h);
  for (const auto& r : rates) head.push_back(r);
  // Context fields are prefixed: some share a name with a rate (at bench time's median).
  for (const auto& c : context) head.push_back("context." + c);
  for (const auto& h : {"verified", "digest", "reason"}) head.emplace_back(h);
  for (std::size_t i = 0; i < head.size(); ++i) out << (i ? "," : "") << csv_field(head[i]);
  out << "\n";
  for (const auto& p : results["points"]) {
    std::vector<std::string> row = {cell_text(p["index"]), cell_text(p["experiment"]), cell_text(p["kind"]),
                                    cell_text(p["status"])};
    if (repeats) row.push_back(p.contains("repeat") ? cell_text(p["repeat"]) : "");
    for (const auto& a : axes) row.push_back(p["axes"].contains(a) ? cell_text(p["axes"][a]) : "");
    const json st = p.value("stats", json::object());
    row.push_back(p.value("metric", ""));
    for (const auto& k : {"n", "min", "median", "max", "spread"}) row.push_back(st.contains(k) ? cell_text(st[k]) : "");
    row.push_back(p.contains("noisy") ? cell_text(p["noisy"]) : "");
    const json r = p.value("rates", json::object());
    for (const auto& k : rates) row.push_back(r.contains(k) ? cell_text(r[k]) : "");
    const json c = p.value("context", json::object());
    for (const auto& k : context) row.push_back(c.contains(k) ? cell_text(c[k]) : "");
    row.push_back(p.contains("verified") ? cell_text(p["verified"]) : "");
    row.push_back(p.value("digest", ""));
    row.push_back(p.value("reason", ""));
    for (std::size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << csv_field(row[i]);
    out << "\n";
  }
  return out.str();
}

void write_result_files(const fs::path& dir, const json& results) {
  write_file_atomic(dir / "results.json", results.dump(2) + "\n");
  write_file_atomic(dir / "results.csv", results_csv(results));
}

}  // namespace poreplab::runner
