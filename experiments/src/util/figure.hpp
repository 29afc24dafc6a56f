#pragma once
// A figure and where it comes from, as every report states it. Statuses: measured (a
// record of this size and machine), extrapolated (a measured figure carried to another
// size or machine), modeled (computed by a model: shown MODELED), quoted (a published
// figure, its source named), assumed (a stated assumption), none (no figure, and why).
#include <optional>
#include <string>

namespace poreplab {

struct provenance {
  std::string status;
  std::string detail;  // "record DIR/records.jsonl:12", a citation, a reason
  std::string text() const;  // "measured (record DIR/records.jsonl:12)"
};

struct figure {
  std::optional<double> value;
  provenance from;
};

// How a table cell names a status: "MODELED" stands out, the others as they are.
std::string status_tag(const std::string& status);

}  // namespace poreplab
