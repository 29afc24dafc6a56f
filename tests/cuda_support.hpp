#pragma once
// The [cuda] tests' gate: run on a usable device, else skip with a warning saying why,
// or fail when POREPLAB_REQUIRE_CUDA=1 asks for a device (the GPU study sets it, so a
// device run can never pass by skipping).
#ifdef POREPLAB_WITH_CUDA
#include <catch2/catch.hpp>
#include <string>

#include "poreplab/cuda/devices.hpp"

namespace poreplab::test {

inline bool usable_cuda_device() {
  const auto r = cuda::query_devices();
  const std::string why = !r.available ? r.reason : r.devices.front().unsupported;
  if (why.empty()) return true;
  if (cuda::cuda_required()) FAIL("POREPLAB_REQUIRE_CUDA is set but no CUDA device is usable: " << why);
  WARN("skipped: no usable CUDA device (" << why << ")");
  return false;
}

}  // namespace poreplab::test
#endif
