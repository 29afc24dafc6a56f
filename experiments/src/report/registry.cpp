#include "report/registry.hpp"

#include <algorithm>
#include <iostream>
#include <stdexcept>

#include "report/amax.hpp"
#include "report/report2019.hpp"
#include "report/verdict.hpp"

namespace poreplab::reports {

namespace {

struct report_writer {
  config_report report;
  bool (*write)(const std::filesystem::path& dir, const verdict::reference_inputs& references);
};

using paths = verdict::reference_inputs;
constexpr report_writer kWriters[] = {
    {config_report::amax, [](const std::filesystem::path& dir, const paths&) { return amax::write_report_files(dir); }},
    {config_report::verdict,
     [](const std::filesystem::path& dir, const paths& refs) { return verdict::write_report_files(dir, false, refs); }},
    {config_report::report_2019, [](const std::filesystem::path& dir, const paths&) { return report2019::write_report_file(dir); }},
};
static_assert(std::size(kWriters) == kConfigReports.entries.size(), "every report has its writer");

}  // namespace

bool write_report(config_report r, const std::filesystem::path& dir, const verdict::reference_inputs& references) {
  for (const auto& w : kWriters)
    if (w.report == r) return w.write(dir, references);
  throw std::logic_error("report without a writer");
}

bool write_config_reports(const std::vector<std::string>& reports, const std::filesystem::path& dir,
                          const verdict::reference_inputs& references) {
  bool ok = true;
  const std::string verdict(kConfigReports.name(config_report::verdict));
  // Every run whose records can be judged states the answer, asked for or not.
  if (std::find(reports.begin(), reports.end(), verdict) == reports.end()) ok = verdict::write_report_files(dir, true, references);
  for (const auto& name : reports) {
    if (!kConfigReports.has(name)) {
      std::cerr << "poreplab: warning: unknown report \"" << name << "\" not written\n";
      ok = false;
      continue;
    }
    ok = write_report(kConfigReports.parse(name), dir, references) && ok;
  }
  return ok;
}

}  // namespace poreplab::reports
