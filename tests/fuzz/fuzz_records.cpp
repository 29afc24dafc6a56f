// libFuzzer target: the records.jsonl reader every records reader goes through (resume,
// merge, compare, the reports; experiments/src/records/records.cpp). Anything but
// std::runtime_error escaping is a bug, and so is a log it accepts with a point that lacks
// its identity, with a non-positive or non-finite sample, or with line numbers that do not
// match its records.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "records/records.hpp"

namespace {

bool timings_ok(const nlohmann::json& point) {
  if (!point.contains("samples")) return true;
  for (const auto& s : point["samples"])
    if (!s.is_number() || !(s.get<double>() > 0) || !std::isfinite(s.get<double>())) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto log = poreplab::records::parse_records(text, "records.jsonl");
    if (log.points.size() != log.point_lines.size() || log.headers.size() != log.header_lines.size() ||
        log.truncated_bytes > size)
      std::abort();
    for (const auto& p : log.points) {
      if (!p["experiment"].is_string() || !p["axes"].is_object() || !timings_ok(p)) std::abort();
      (void)poreplab::records::record_key(p);
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
