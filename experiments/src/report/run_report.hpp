#pragma once
// report.md of a results directory: the one Markdown view of a run or a merge. The run's
// environment, the figures plot.py drew (plots/index.json), the study tables (hash
// limits, replication and profile), the amax and verdict reports when the directory has
// them, and one table per experiment. Data files (results.json, results.csv) are the
// records printers' (records/records.hpp); this is the only writer of run Markdown.
#include <filesystem>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace poreplab::report {

// Whether an axis holds a size in bytes, shown as 2MiB rather than 2097152. The runner's
// kinds declare their axes' types (runner::is_size_axis); the report is handed the test.
using size_axis_test = std::function<bool(const std::string& axis)>;

// `results` as make_results() builds it; `dir` is where plots/, amax.md and verdict.md
// are looked for.
std::string run_report_markdown(const nlohmann::json& results, const std::filesystem::path& dir,
                                const size_axis_test& is_size);

// Writes dir/report.md atomically from dir/results.json (or `results` when given).
void write_run_report(const std::filesystem::path& dir, const nlohmann::json& results, const size_axis_test& is_size);
void write_run_report(const std::filesystem::path& dir, const size_axis_test& is_size);

}  // namespace poreplab::report
