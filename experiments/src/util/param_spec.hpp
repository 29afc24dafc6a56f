#pragma once
// One parameter of a measurement, described once: a backend's knob (backends/), a runner
// axis (runner/kinds.hpp) and a `bench` flag are the same spec, with one check of a value
// against it and one flag derived from its name.
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace poreplab {

enum class param_type {
  text,   // a string from choices()
  size,   // bytes: "2KiB" or an integer; normalised to the integer
  count,  // a non-negative integer in [min, max]
};

struct param_spec {
  std::string name;  // the config key; the flag is flag_of(name)
  param_type type = param_type::text;
  nlohmann::json fallback;  // the value when nobody sets it
  std::string help;
  std::uint64_t min = 0;
  std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  // 2 or 8: the value is a power of it (counts: or 0, where min is 0: auto or whole);
  // 0: any value in range.
  unsigned power_of = 0;
  // Counts whose min is 0: a nonzero value's least (a window of at least 64 nodes).
  std::uint64_t least_nonzero = 0;
  std::function<std::vector<std::string>()> choices;  // text: the accepted values
  // A backend knob: the backends that read it, and the work it acts on (knob_work bits);
  // a runner's own axis has no backends.
  std::vector<std::string> backends;
  unsigned works = 1;
  // Axes: what the value "all" stands for, given the axes before this one (empty
  // function: "all" is not accepted).
  std::function<std::vector<std::string>(const nlohmann::json& axes)> all;
  // Whether the axis means anything given the point's other axes; a point where it does
  // not gets null for it, so that the cross product holds no duplicate measurements.
  std::function<bool(const nlohmann::json& axes)> applies;
  // Absent from points (and their records) unless the config names it: a knob added to a
  // kind leaves the records of configs that do not use it as they were.
  bool optional = false;
};

param_spec text_param(std::string name, std::string fallback, std::function<std::vector<std::string>()> choices,
                      std::string help);
param_spec count_param(std::string name, std::uint64_t fallback, std::uint64_t min, std::uint64_t max, std::string help);
param_spec size_param(std::string name, std::uint64_t fallback, std::uint64_t min, bool power_of_two, std::string help);

// The command-line flag of a parameter: --name with '_' as '-'.
std::string flag_of(std::string_view name);

// `v` as a value of `p`, normalised (a size's text to its bytes); throws
// std::invalid_argument naming the problem (the caller adds where the value came from).
nlohmann::json param_value(const param_spec& p, const nlohmann::json& v);

}  // namespace poreplab
