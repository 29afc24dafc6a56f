#include "util/figure.hpp"

#include <cctype>

namespace poreplab {

std::string status_tag(figure_status s) {
  std::string name = status_name(s);
  if (s == figure_status::modeled)
    for (char& c : name) c = char(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

std::string provenance::text() const { return detail.empty() ? status_name(status) : status_name(status) + " (" + detail + ")"; }

provenance weakest(const provenance& a, const provenance& b) {
  provenance p = b.status > a.status ? b : a;
  p.detail = a.detail + "; " + b.detail;
  return p;
}

}  // namespace poreplab
