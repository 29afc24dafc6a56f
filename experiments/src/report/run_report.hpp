#pragma once
// report.md of a results directory: the one Markdown view of a run or a merge. The run's
// environment, the figures plot.py drew (plots/index.json), the study tables (hash
// limits, replication and profile), the amax and verdict reports when the directory has
// them, and one table per experiment. Data files (results.json, results.csv) are the
// records printers' (records/records.hpp); this is the only writer of run Markdown.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace poreplab::report {

// `results` as make_results() builds it; `dir` is where plots/, amax.md and verdict.md
// are looked for.
std::string run_report_markdown(const nlohmann::json& results, const std::filesystem::path& dir);

// Writes dir/report.md atomically from dir/results.json (or `results` when given).
void write_run_report(const std::filesystem::path& dir, const nlohmann::json& results);
void write_run_report(const std::filesystem::path& dir);

}  // namespace poreplab::report
