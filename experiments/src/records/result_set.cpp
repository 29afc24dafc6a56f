#include "records/result_set.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "records/records.hpp"
#include "records/schema.hpp"

namespace poreplab::records {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// The header of the run that measured the point at `line` (runs are numbered in file
// order; a merge renumbers both), else the latest header before it; {} when none.
json header_of(const records_log& log, const json& point, std::size_t line) {
  const json run = point.value(key::run, json());
  std::size_t before = 0;  // headers before the point
  while (before < log.headers.size() && log.header_lines[before] < line) ++before;
  for (std::size_t h = before; h-- > 0;)
    if (run.is_null() || log.headers[h].value(key::run, json()) == run) return log.headers[h];
  return before > 0 ? log.headers[before - 1] : json::object();
}

// A record of one pass of a `--repeat` run that measured its point: ok, with a median.
bool is_measured_repeat(const json& point) {
  return point.contains(key::repeat) && records::is_ok(point) && point.contains(key::stats) &&
         point[key::stats].is_object() && point[key::stats].value("median", 0.0) > 0;
}

// Of a point's passes, the one whose median sample is the median of theirs (the lower of
// the two middle ones): one noisy pass does not decide a report.
std::size_t median_pass(const std::vector<result_record>& passes) {
  std::vector<std::size_t> order(passes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto median_of = [&](std::size_t i) { return passes[i].point[key::stats].value("median", 0.0); };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return median_of(a) < median_of(b); });
  return order[(order.size() - 1) / 2];
}

}  // namespace

result_set load_result_set(const std::vector<fs::path>& dirs, std::uint64_t per_byte) {
  if (dirs.empty()) throw std::invalid_argument("give at least one result directory");
  {
    std::vector<fs::path> files;
    for (const auto& d : dirs) files.push_back(d / "records.jsonl");
    require_records_memory(files, per_byte);
  }
  result_set in;
  for (const auto& d : dirs) {
    std::error_code ec;
    if (!fs::exists(d, ec)) throw std::runtime_error("result directory " + d.string() + " does not exist");
    if (!fs::is_directory(d, ec)) throw std::runtime_error(d.string() + " is not a directory");
    const fs::path f = d / "records.jsonl";
    if (!fs::exists(f, ec))
      throw std::runtime_error(d.string() + " holds no records.jsonl (not a directory of poreplab run or merge)");
    records_log log = read_records(f, false);
    in.dirs.push_back(d.string());
    in.duplicates.insert(in.duplicates.end(), log.duplicates.begin(), log.duplicates.end());
    std::map<std::string, std::size_t> latest;  // point key -> index into in.records
    // point key -> its measured passes, while every record of it so far is one
    std::map<std::string, std::vector<result_record>> passes;
    for (std::size_t i = 0; i < log.points.size(); ++i) {
      result_record r;
      r.where = f.string() + ":" + std::to_string(log.point_lines[i]);
      r.header = header_of(log, log.points[i], log.point_lines[i]);
      const std::string point_key = log.points[i][key::experiment].get<std::string>() + " " + log.points[i][key::axes].dump();
      r.point = std::move(log.points[i]);
      const bool pass = is_measured_repeat(r.point);
      if (const auto it = latest.find(point_key); it != latest.end()) {
        auto& mine = passes[point_key];
        if (pass && !mine.empty()) mine.push_back(r);
        else mine.clear();  // a record that is no measured pass ends the series: the latest counts
        in.records[it->second] = std::move(r);
      } else {
        if (pass) passes[point_key].push_back(r);
        latest[point_key] = in.records.size();
        in.records.push_back(std::move(r));
      }
    }
    for (auto& [point_key, mine] : passes)
      if (mine.size() > 1) in.records[latest[point_key]] = std::move(mine[median_pass(mine)]);
  }
  return in;
}

}  // namespace poreplab::records
