#pragma once
// doctor's findings as text (one table, a section per part of the machine) and as JSON.
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "doctor/checks.hpp"
#include "doctor/facts.hpp"
#include "doctor/plan.hpp"

namespace poreplab::doctor {

// {"plan": {...}, "layer_dir", "parent_cache_dir", "checks": [{"id", "section", "title",
// "status", "found", "cost", "fix", "values"}], "counts": {"ok", "warn", "fail", "skip"},
// "status", "exit_status"}
nlohmann::json report_json(const seal_plan& p, const request& r, const system_facts& f,
                           const std::vector<finding>& findings);

// Lines wrapped at `width` columns.
void print_report(std::ostream& out, const seal_plan& p, const request& r, const std::vector<finding>& findings,
                  std::size_t width = 110);

}  // namespace poreplab::doctor
