#include "util/param_spec.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "util/text.hpp"

namespace poreplab {

using nlohmann::json;

param_spec text_param(std::string name, std::string fallback, std::function<std::vector<std::string>()> choices,
                      std::string help) {
  param_spec p;
  p.name = std::move(name);
  p.fallback = std::move(fallback);
  p.choices = std::move(choices);
  p.help = std::move(help);
  return p;
}

param_spec count_param(std::string name, std::uint64_t fallback, std::uint64_t min, std::uint64_t max, std::string help) {
  param_spec p;
  p.name = std::move(name);
  p.type = param_type::count;
  p.fallback = fallback;
  p.min = min;
  p.max = max;
  p.help = std::move(help);
  return p;
}

param_spec size_param(std::string name, std::uint64_t fallback, std::uint64_t min, bool power_of_two, std::string help) {
  param_spec p = count_param(std::move(name), fallback, min, std::numeric_limits<std::uint64_t>::max(), std::move(help));
  p.type = param_type::size;
  p.power_of = power_of_two ? 2 : 0;
  return p;
}

std::string flag_of(std::string_view name) {
  std::string f = "--" + std::string(name);
  std::replace(f.begin(), f.end(), '_', '-');
  return f;
}

namespace {

std::string power_name(unsigned base) { return base == 2 ? "two" : std::to_string(base); }

// Whether x is a power of base (2 or 8; any x for base 0).
bool power_of(std::uint64_t x, unsigned base) {
  if (base == 0) return true;
  if (x == 0 || (x & (x - 1)) != 0) return false;
  return base == 2 || __builtin_ctzll(x) % 3 == 0;
}

json text_value(const param_spec& p, const json& v) {
  if (!v.is_string()) throw std::invalid_argument("expected text, got " + show(v));
  const std::string s = v.get<std::string>();
  const auto ok = p.choices ? p.choices() : std::vector<std::string>{};
  if (std::find(ok.begin(), ok.end(), s) != ok.end()) return s;
  auto shown = ok;
  if (p.all) shown.push_back("all");
  throw std::invalid_argument("unknown " + p.name + " \"" + s + "\" (known: " + names_text(shown) + ")");
}

json size_value(const param_spec& p, const json& v) {
  std::uint64_t bytes = 0;
  if (v.is_string()) {
    const auto parsed = parse_size(v.get<std::string>());
    if (!parsed) throw std::invalid_argument(v.dump() + " is not a size (write e.g. 2KiB, 8MiB, 32GiB or a byte count)");
    bytes = *parsed;
  } else if (v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
    bytes = v.get<std::uint64_t>();
  } else {
    throw std::invalid_argument("expected a size such as \"2KiB\" or a byte count, got " + show(v));
  }
  if (!power_of(bytes, p.power_of))
    throw std::invalid_argument(v.dump() + " is not a power-of-" + power_name(p.power_of) + " size");
  if (bytes < p.min) throw std::invalid_argument(v.dump() + " is below the smallest " + p.name + " " + format_size(p.min));
  if (bytes > p.max) throw std::invalid_argument(v.dump() + " is above the largest " + p.name + " " + format_size(p.max));
  return bytes;
}

json count_value(const param_spec& p, const json& v) {
  std::string what = "an integer";
  if (p.max != std::numeric_limits<std::uint64_t>::max())
    what += " from " + std::to_string(p.min) + " to " + std::to_string(p.max);
  else
    what += " >= " + std::to_string(p.min);
  if (p.power_of != 0) {
    what += (p.min == 0 ? ", 0 or a power of " : ", a power of ") + power_name(p.power_of);
  }
  if (p.least_nonzero != 0) what += " from " + std::to_string(p.least_nonzero);
  std::uint64_t x = 0;
  if (v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
    x = v.get<std::uint64_t>();
  } else if (v.is_number_integer()) {
    throw std::invalid_argument("expected " + what + ", got " + v.dump());  // negative
  } else if (v.is_number_float()) {
    // A whole number written with a point (JSON has one number type).
    const double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || d < 0 || d > 9007199254740992.0)
      throw std::invalid_argument("expected " + what + ", got " + v.dump());
    x = static_cast<std::uint64_t>(d);
  } else {
    throw std::invalid_argument("expected " + what + ", got " + show(v));
  }
  if (x < p.min || x > p.max || (x != 0 && (!power_of(x, p.power_of) || x < p.least_nonzero)))
    throw std::invalid_argument("expected " + what + ", got " + v.dump());
  return x;
}

}  // namespace

json param_value(const param_spec& p, const json& v) {
  switch (p.type) {
    case param_type::text:
      return text_value(p, v);
    case param_type::size:
      return size_value(p, v);
    case param_type::count:
      return count_value(p, v);
  }
  throw std::logic_error("param_value: unknown type of " + p.name);
}

}  // namespace poreplab
