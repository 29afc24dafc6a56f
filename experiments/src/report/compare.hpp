#pragma once
// `poreplab compare`: two or more result directories side by side, point by point. Points
// are matched by experiment and axis values; each matched point gets the ratio of its
// metric's medians with a bootstrap interval drawn from the samples of both sides, and a
// verdict from that interval (faster, slower, within noise), not from a fixed threshold.
// What differs between the sides' machines and builds comes from the records' headers.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace poreplab::compare {

inline constexpr const char* kCompareSchema = "poreplab-compare/1";

// One metric of one point matched on both sides. `ratio` is other / baseline of the
// metric's medians; lo/hi its 95% bootstrap interval (both sides resampled).
struct row {
  std::string key;          // experiment + axes
  std::string description;  // the baseline record's
  std::string label;        // experiment and the axes that vary within it, from the description
  std::string experiment, kind, metric;
  bool lower_is_better = true;
  double base_median = 0, other_median = 0;
  std::size_t base_n = 0, other_n = 0;
  double ratio = 1, lo = 1, hi = 1;
  bool interval = false;  // false: a side has one sample, so lo = hi = ratio
  bool noisy = false;     // either record flagged its own samples noisy
  std::string verdict;    // "faster", "slower", "within noise" (other against baseline)
  bool regression = false;  // slower by more than --fail-on-regression across the whole interval
};

// A point present on both sides that cannot be compared (a side skipped or failed it, or
// the metric differs).
struct unmatched {
  std::string key, description, label, why;
};

// One field of the sides' setup (CPU, compiler, flags, ...): each side's value(s).
struct setup_field {
  std::string name;
  std::vector<std::string> values;  // one per side
  bool differs = false;
};

struct comparison {
  std::size_t other = 1;  // index into result::sides; the baseline is sides[0]
  std::vector<row> rows;
  std::vector<unmatched> only_baseline, only_other, not_comparable;
  std::size_t faster = 0, slower = 0, within = 0, regressions = 0;
};

struct side {
  std::string label;  // the directory's name, made unique
  std::string path;
  std::vector<std::string> duplicates;  // points its records hold ok twice (FILE:LINE: ...)
};

struct result {
  std::vector<side> sides;
  std::vector<setup_field> setup;
  std::vector<comparison> comparisons;  // sides[1..] each against sides[0]
  std::optional<double> fail_on_regression_pct;
  std::size_t regressions = 0;
};

// Reads DIR/records.jsonl of each path (a directory of `poreplab run` or `merge`; a
// directory without one stands for its subdirectories that have one, e.g. a machine's
// data sets docs/results/<cpu>-<date>/, whose points match within the data set of the
// same name) and compares sides[1..] against sides[0]. Throws std::runtime_error with one line for fewer
// than two paths, a missing or damaged records file (naming file and line), a records
// schema this poreplab does not read, or two sides with no point in common.
result compare(const std::vector<std::filesystem::path>& dirs, std::optional<double> fail_on_regression_pct = {});

// The ratio of medians other / base with its percentile-bootstrap 95% interval (fixed
// seed). Both sample sets non-empty; a set of one sample is not resampled.
struct ratio_interval {
  double ratio = 1, lo = 1, hi = 1;
};
ratio_interval median_ratio(const std::vector<double>& base, const std::vector<double>& other);

// Whether a smaller value of the metric is better (times, cycles) or a larger (rates).
bool lower_is_better(const std::string& metric);

std::string to_markdown(const result& r);
nlohmann::json to_json(const result& r);

}  // namespace poreplab::compare
