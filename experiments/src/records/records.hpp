#pragma once
// Experiment records: sample statistics, the crash-safe records.jsonl log, and the
// data printers that turn a set of records into results.json (the source of truth) and
// results.csv. Markdown is report/run_report.hpp's.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "poreplab/cpu/labeler.hpp"

namespace poreplab::records {

inline constexpr std::string_view kRecordsSchema = "poreplab-records/1";
inline constexpr std::string_view kResultsSchema = "poreplab-results/1";
// Relative spread (max - min) / median above which a point is flagged noisy.
inline constexpr double kNoisySpread = 0.05;

struct sample_stats {
  std::size_t n = 0;
  double min = 0, median = 0, max = 0;
  double spread = 0;  // (max - min) / median
  // Bootstrap 95% interval of the median (poreplab/stats.hpp; fixed seed): where the
  // median of another run like this one would likely fall, if the machine stays as it was.
  double ci_lo = 0, ci_hi = 0;
};
sample_stats compute_stats(std::vector<double> samples);
nlohmann::json stats_json(const sample_stats& s);

// records.jsonl: one JSON object per line, "type" "header" (a run: config, environment,
// argv, shard) or "point" (one measured or skipped point).
struct records_log {
  std::vector<nlohmann::json> headers;
  std::vector<nlohmann::json> points;
  std::vector<std::size_t> header_lines, point_lines;  // each record's line number, from 1
  std::size_t truncated_bytes = 0;  // an incomplete last line that was cut off
  // "FILE:LINE: KEY was recorded ok at line N already (the later record is used)": a
  // point measured twice, which no run or resume writes.
  std::vector<std::string> duplicates;
};

// What one records file may hold: a file past this is refused, not loaded (a run of the
// 100000 points a config may expand to takes about 300 MB).
inline constexpr std::uint64_t kMaxRecordsBytes = std::uint64_t{1} << 30;
// Memory the parsed records take per byte of the file, checked before reading
// (docs/reliability.md gives the measurement).
inline constexpr std::uint64_t kRecordsMemoryPerByte = 16;
// What a command takes in all per byte of the records files it loads (peak RSS over their
// size, measured: docs/reliability.md): the reports and the GPU model hold a result set
// (load_result_set); compare holds two or more and its tables of them.
inline constexpr std::uint64_t kReportMemoryPerByte = 32;
inline constexpr std::uint64_t kCompareMemoryPerByte = 48;

// Refuses, before the first is read, the records files a command loads together when
// their sizes summed, times `per_byte`, do not fit in memory (insufficient_memory naming
// the files, their size and the factor). A file that is not there counts nothing: its
// reader names it.
void require_records_memory(const std::vector<std::filesystem::path>& files, std::uint64_t per_byte);

// Records are data to validate, read line by line (the file is never held whole). Every
// line is a JSON object of type header or point; a point names its experiment (a string)
// and axes (an object); its timings (every sample, and for an ok point the median, min and
// max and the rate of its metric) are positive and finite; a file larger than
// kMaxRecordsBytes, or whose records would not fit in memory, is refused before it is
// read. Errors name the file, the line and the field: "r/records.jsonl:3: /samples/0: 0
// is not a timing (positive and finite)".
// An incomplete or damaged last line (a crash mid-write) is ignored, or cut off the file
// with repair; one before it is an error. A header of another records schema is an error.
records_log read_records(const std::filesystem::path& file, bool repair);
// The same from text in memory (the fuzz target's entry).
records_log parse_records(std::string_view text, const std::filesystem::path& file);

// Where a label record's producer thread ran (its context's ctx::producer, parsed once here); a
// record without one, or with a name no placement has, ran without.
cpu::parent_producer record_producer(const nlohmann::json& context);
// ", its layers on 2 MiB pages repeating every 4 GiB (aliased window backing)" for a label
// record whose window's layers repeat (ctx::window_backing, ctx::window_alias_period_bytes);
// empty for any other.
std::string record_window_pages_text(const nlohmann::json& context);

// Appends whole lines and fsyncs after each, so a finished point survives a crash.
class records_writer {
 public:
  explicit records_writer(const std::filesystem::path& file);
  ~records_writer();
  records_writer(const records_writer&) = delete;
  records_writer& operator=(const records_writer&) = delete;
  void append(const nlohmann::json& record);

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

// The result set of a run or a merge. `expected` is the ordered list of points the run
// was asked for ({"index","experiment","kind","axes","description"}); point records are
// matched to it by key, the last record of a key winning.
nlohmann::json make_results(const nlohmann::json& config, const std::string& config_digest,
                            const std::vector<nlohmann::json>& runs, const std::vector<nlohmann::json>& expected,
                            const std::vector<nlohmann::json>& records, const nlohmann::json& extra);

// Run-to-run spread of `run --repeat N` results: for each point (experiment + axes) with
// two or more ok repeats and each metric it claims an interval for (the sampled metric,
// stats.ci95; a context figure with a "<name>_ci95" beside it, e.g. efficiency): the
// repeats' values, their median, spread = (max - min) / median, claimed = the median over
// the repeats of their interval width (hi - lo) / value, and exceeds = spread > claimed
// (the repeats disagree by more than each said it could be off). A list in point order.
nlohmann::json repeat_spread(const nlohmann::json& points);

std::string results_csv(const nlohmann::json& results);
// results.json and results.csv in dir, each written atomically.
void write_result_files(const std::filesystem::path& dir, const nlohmann::json& results);

// Identity of a point record: experiment name + axis values (+ " #R" for repeat R of
// `run --repeat`), as point::key().
std::string record_key(const nlohmann::json& record);

}  // namespace poreplab::records
