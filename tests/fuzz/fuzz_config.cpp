// libFuzzer target: the experiment config reader and validator (experiments/src/runner/config.cpp)
// and the point expansion. The input is a config; bytes after a NUL are --set arguments,
// one per NUL-separated piece. Anything but config_error escaping is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runner/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string_view text = input.substr(0, nul);
  std::vector<std::string> sets;
  if (nul != std::string_view::npos) {
    std::string_view rest = input.substr(nul + 1);
    while (!rest.empty()) {
      const std::size_t next = rest.find('\0');
      sets.emplace_back(rest.substr(0, next));
      rest = next == std::string_view::npos ? std::string_view() : rest.substr(next + 1);
    }
  }
  try {
    auto c = poreplab::runner::parse_config(text, "fuzz.json");
    if (!sets.empty()) c = poreplab::runner::apply_overrides(c, sets);
    const auto points = poreplab::runner::expand_points(c);
    for (const auto& p : points) (void)p.describe();
  } catch (const poreplab::runner::config_error&) {
  }
  return 0;
}
