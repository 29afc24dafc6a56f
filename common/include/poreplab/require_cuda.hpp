#pragma once
// POREPLAB_REQUIRE_CUDA=1 (set by the GPU study): an unusable CUDA device is an error
// everywhere (tests fail, runner points fail) instead of a skip.
#include <cstdlib>
#include <string_view>

namespace poreplab {

inline bool cuda_required_by_environment() {
  const char* v = std::getenv("POREPLAB_REQUIRE_CUDA");
  return v != nullptr && *v != '\0' && std::string_view(v) != "0";
}

}  // namespace poreplab
