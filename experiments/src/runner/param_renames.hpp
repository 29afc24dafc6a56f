#pragma once
// Parameters known by an older name: a config axis, a `--set` or a flag that still spells
// it reads as the current one, and its reader reports the rename (one line on standard
// error). A parameter folded into another is not a rename: backends.cpp's retired knobs.
#include <string_view>

#include "records/payload_keys.hpp"

namespace poreplab::runner {

struct param_rename {
  std::string_view old_name, name;
};
inline constexpr param_rename kParamRenames[] = {{"window", records::axis::window_nodes}};

// The current name of `name` (itself when it was never renamed).
inline std::string_view renamed_param(std::string_view name) {
  for (const auto& r : kParamRenames)
    if (r.old_name == name) return r.name;
  return name;
}

}  // namespace poreplab::runner
