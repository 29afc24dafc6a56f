#pragma once
// The reports a run's config may ask for ("reports": [...]), each named once with the
// function that writes it into a result directory.
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "poreplab/name_table.hpp"
#include "report/reference.hpp"

namespace poreplab::reports {

enum class config_report { amax, verdict, report_2019 };
inline constexpr name_table kConfigReports{
    "report", std::array{named<config_report>{config_report::amax, "amax"},
                         named<config_report>{config_report::verdict, "verdict"},
                         named<config_report>{config_report::report_2019, "report-2019"}}};

// Writes one report into `dir`; false after a warning on stderr. `references`: the reference
// datasets the verdict shows beside the model where no GPU was measured (report/reference.hpp).
bool write_report(config_report r, const std::filesystem::path& dir, const verdict::reference_inputs& references = {});

// The reports of a config (names checked by the config reader) for the result directory
// `dir`, and the verdict whenever the records can be judged even if not asked for. Returns
// false (after a warning on stderr) when one could not be written.
bool write_config_reports(const std::vector<std::string>& reports, const std::filesystem::path& dir,
                          const verdict::reference_inputs& references = {});

}  // namespace poreplab::reports
