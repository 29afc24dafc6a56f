#pragma once
// A figure and where it comes from, as every report states it.
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "poreplab/name_table.hpp"

namespace poreplab {

// Ordered from the most to the least trusted: combining figures keeps the later status.
// measured: a record of this size and machine; extrapolated: a measured figure carried to
// another size or machine; quoted: a published figure, its source named; derived: computed
// from a quoted figure by a stated model; modeled: computed by this project's models (shown
// MODELED); assumed: a stated assumption; none: no figure, and why.
enum class figure_status { measured, extrapolated, quoted, derived, modeled, assumed, none };

inline constexpr name_table kFigureStatuses{
    "figure status", std::array{named<figure_status>{figure_status::measured, "measured"},
                                named<figure_status>{figure_status::extrapolated, "extrapolated"},
                                named<figure_status>{figure_status::quoted, "quoted"},
                                named<figure_status>{figure_status::derived, "derived"},
                                named<figure_status>{figure_status::modeled, "modeled"},
                                named<figure_status>{figure_status::assumed, "assumed"},
                                named<figure_status>{figure_status::none, "none"}}};

inline std::string status_name(figure_status s) { return std::string(kFigureStatuses.name(s)); }
// The less trusted of two statuses.
constexpr figure_status weaker(figure_status a, figure_status b) { return b > a ? b : a; }
// How a table cell names a status: MODELED stands out, the others as they are.
std::string status_tag(figure_status s);

struct provenance {
  figure_status status = figure_status::none;
  std::string detail;        // "record DIR/records.jsonl:12", a citation, a reason
  std::string text() const;  // "measured (record DIR/records.jsonl:12)"
};

// Whether a figure says where it comes from (a row of text alone does not).
inline bool stated(const provenance& p) { return p.status != figure_status::none || !p.detail.empty(); }

// The less trusted of two provenances, with both details.
provenance weakest(const provenance& a, const provenance& b);

struct figure {
  std::optional<double> value;
  provenance from;
};

}  // namespace poreplab
