#pragma once
// The checks every JSON input of poreplab shares (configs, the custom-hardware file, the
// GPU latency table): each problem is one exception "<source>: <JSON pointer>: <problem>"
// of the reader's own error type.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/text.hpp"

namespace poreplab {

// RFC 6901: "~" and "/" in a key are written "~0" and "~1".
inline std::string json_pointer_child(const std::string& ptr, const std::string& key) {
  std::string out = ptr + "/";
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}
inline std::string json_pointer_child(const std::string& ptr, std::size_t index) {
  return ptr + "/" + std::to_string(index);
}

// How large a JSON input's parts may be. A config is echoed into every record, results.json
// and report.md: an unbounded string (a 10^7-letter name) was copied once a point, into
// gigabytes of output, and made a run slow to stop.
struct json_bounds {
  std::size_t max_string = 4096;  // bytes of a string value or an object key
  std::size_t max_array = 100000;  // items of one array
  std::size_t max_depth = 16;      // arrays and objects nested
};

template <class Error>
class json_checker {
 public:
  explicit json_checker(std::string source) : source_(std::move(source)) {}
  const std::string& source() const { return source_; }

  [[noreturn]] void fail(const std::string& ptr, const std::string& what) const {
    throw Error(source_ + ": " + (ptr.empty() ? std::string("(top level)") : ptr) + ": " + what);
  }

  const nlohmann::json& object(const nlohmann::json& v, const std::string& ptr, const std::string& what) const {
    if (!v.is_object()) fail(ptr, "expected " + what + ", got " + show(v));
    return v;
  }

  void only_keys(const nlohmann::json& obj, const std::string& ptr, const std::vector<std::string>& allowed) const {
    for (const auto& [k, v] : obj.items())
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
        fail(json_pointer_child(ptr, k), "unknown key \"" + k + "\" (allowed: " + join(allowed) + ")");
  }

  const nlohmann::json& require(const nlohmann::json& obj, const std::string& ptr, const std::string& key) const {
    if (!obj.is_object()) fail(ptr, "expected an object, got " + show(obj));
    if (!obj.contains(key)) fail(ptr, "missing required key \"" + key + "\"");
    return obj.at(key);
  }

  std::string text(const nlohmann::json& v, const std::string& ptr) const {
    if (!v.is_string()) fail(ptr, "expected a string, got " + show(v));
    return v.get<std::string>();
  }

  double positive(const nlohmann::json& v, const std::string& ptr) const {
    if (!v.is_number()) fail(ptr, "expected a positive number, got " + show(v));
    const double x = v.get<double>();
    if (!(x > 0) || !std::isfinite(x)) fail(ptr, "expected a positive number, got " + v.dump());
    return x;
  }

  // A number within what the field can plausibly hold: 5e-324 or 1e308 pass positive()
  // and turn a model's rates into 0 or inf. "expected <what> from <lo> to <hi>, got <v>".
  double between(const nlohmann::json& v, const std::string& ptr, double lo, double hi, const std::string& what) const {
    const double x = positive(v, ptr);
    if (x < lo || x > hi) fail(ptr, "expected " + what + " from " + format_number(lo) + " to " + format_number(hi) + ", got " + v.dump());
    return x;
  }

  // Exact: a JSON integer, or a float that is an integer no larger than 2^53 (1e3 is
  // 1000). 1.5, -1, 1e20, 1e300 and integers past 2^64 (which the parser keeps as
  // floats) are errors; a cast would turn them into other numbers, often 0.
  std::uint64_t integer(const nlohmann::json& v, const std::string& ptr, std::uint64_t lo, std::uint64_t hi,
                        const std::string& what) const {
    std::uint64_t x = 0;
    if (v.is_number_unsigned()) {
      x = v.get<std::uint64_t>();
    } else if (v.is_number_integer()) {
      fail(ptr, "expected " + what + ", got " + v.dump());  // negative
    } else if (v.is_number_float()) {
      const double d = v.get<double>();
      if (!std::isfinite(d) || d != std::floor(d) || d < 0 || d > 9007199254740992.0)
        fail(ptr, "expected " + what + ", got " + v.dump());
      x = static_cast<std::uint64_t>(d);
    } else {
      fail(ptr, "expected " + what + ", got " + show(v));
    }
    if (x < lo || x > hi) fail(ptr, "expected " + what + ", got " + v.dump());
    return x;
  }

  // Every string, key, array and nesting level of v within `limits`; a problem names the
  // first pointer past its limit. Recursion stops at the depth limit.
  void bounded(const nlohmann::json& v, const std::string& ptr, const json_bounds& limits,
               std::size_t depth = 0) const {
    if (v.is_string() && v.get_ref<const std::string&>().size() > limits.max_string)
      fail(ptr, too_long("a string", v.get_ref<const std::string&>().size(), "bytes", limits.max_string));
    if (!v.is_array() && !v.is_object()) return;
    if (depth >= limits.max_depth)
      fail(ptr, "nested more than " + std::to_string(limits.max_depth) + " arrays or objects deep");
    if (v.is_array()) {
      if (v.size() > limits.max_array) fail(ptr, too_long("an array", v.size(), "items", limits.max_array));
      for (std::size_t i = 0; i < v.size(); ++i) bounded(v[i], json_pointer_child(ptr, i), limits, depth + 1);
      return;
    }
    for (const auto& [k, item] : v.items()) {
      // The key is not echoed: it is what is too long.
      if (k.size() > limits.max_string)
        fail(ptr, too_long("a key", k.size(), "bytes", limits.max_string));
      bounded(item, json_pointer_child(ptr, k), limits, depth + 1);
    }
  }

 private:
  static std::string too_long(const std::string& what, std::size_t n, const std::string& unit, std::size_t limit) {
    return what + " of " + std::to_string(n) + " " + unit + ", more than the " + std::to_string(limit) + " allowed";
  }
  std::string source_;
};

}  // namespace poreplab
