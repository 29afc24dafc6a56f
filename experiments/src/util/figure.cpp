#include "util/figure.hpp"

namespace poreplab {

std::string provenance::text() const { return detail.empty() ? status : status + " (" + detail + ")"; }

std::string status_tag(const std::string& status) { return status == "modeled" ? "MODELED" : status; }

}  // namespace poreplab
