#include "util/text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace poreplab {

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

std::string names_text(const std::vector<std::string>& names, std::size_t shown, std::size_t longest) {
  std::vector<std::string> first;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i)
    first.push_back(names[i].size() > longest && longest > 3 ? names[i].substr(0, longest - 3) + "..." : names[i]);
  std::string out = join(first);
  if (names.size() > first.size()) out += (out.empty() ? "" : " and ") + std::to_string(names.size() - first.size()) + " more";
  return out;
}

std::string show(const nlohmann::json& v) {
  using t = nlohmann::json::value_t;
  switch (v.type()) {
    case t::string: return "string " + v.dump();
    case t::boolean: return "boolean " + v.dump();
    case t::null: return "null";
    case t::array: return "an array";
    case t::object: return "an object";
    default: return "number " + v.dump();
  }
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<std::uint64_t> parse_size(std::string_view text) {
  std::size_t i = 0;
  std::uint64_t n = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    const std::uint64_t d = static_cast<std::uint64_t>(text[i] - '0');
    if (n > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return std::nullopt;
    n = n * 10 + d;
    ++i;
  }
  if (i == 0) return std::nullopt;
  const std::string_view unit = text.substr(i);
  int shift = 0;
  if (unit.empty() || unit == "B")
    shift = 0;
  else if (unit == "KiB")
    shift = 10;
  else if (unit == "MiB")
    shift = 20;
  else if (unit == "GiB")
    shift = 30;
  else if (unit == "TiB")
    shift = 40;
  else
    return std::nullopt;
  if (shift > 0 && n > (std::numeric_limits<std::uint64_t>::max() >> shift)) return std::nullopt;
  return n << shift;
}

std::optional<std::uint64_t> parse_count(std::string_view text) {
  static constexpr std::string_view kUnits[] = {"Ki", "Mi", "Gi", "Ti"};
  int shift = 0;
  for (std::size_t u = 0; u < std::size(kUnits); ++u)
    if (text.ends_with(kUnits[u])) {
      text.remove_suffix(2);
      shift = 10 * static_cast<int>(u + 1);
      break;
    }
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  const auto n = parse_size(text);
  if (!n || *n > (std::numeric_limits<std::uint64_t>::max() >> shift)) return std::nullopt;
  return *n << shift;
}

std::string format_count(std::uint64_t n) {
  static constexpr const char* kUnits[] = {"", "Ki", "Mi", "Gi", "Ti"};
  int u = 0;
  while (u < 4 && n != 0 && n % 1024 == 0) {
    n /= 1024;
    ++u;
  }
  return std::to_string(n) + kUnits[u];
}

std::string format_size(std::uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return std::to_string(bytes) + units[u];
}

std::string format_number(double v, int digits) {
  if (!std::isfinite(v)) return v != v ? "nan" : (v > 0 ? "inf" : "-inf");
  char buf[64];
  const double a = std::fabs(v);
  if (a != 0 && (a >= 1e7 || a < 1e-3))
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  else {
    // Fixed notation with `digits` significant digits (0.00108, not 0.00), no trailing
    // zeros past the point.
    const int magnitude = a == 0 ? 0 : static_cast<int>(std::floor(std::log10(a)));
    const int decimals = std::max(0, digits - 1 - magnitude);
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    std::string s = buf;
    if (s.find('.') != std::string::npos) {
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
    }
    return s;
  }
  return buf;
}

std::string format_seconds(double s) {
  std::ostringstream o;
  o.precision(3);
  if (s < 1e-3) o << s * 1e6 << " us";
  else if (s < 1) o << s * 1e3 << " ms";
  else if (s < 120) o << s << " s";
  else if (s < 7200) o << s / 60 << " min";
  else if (s < 3 * 86400) o << s / 3600 << " h";
  else o << s / 86400 << " days";
  return o.str();
}

}  // namespace poreplab
