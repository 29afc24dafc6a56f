#pragma once
// The device a backend or benchmark was asked for, or a std::runtime_error saying why
// it cannot be used (no driver, no device, index out of range). Internal.
#include "poreplab/cuda/devices.hpp"

namespace poreplab::cuda::detail {

// `who` starts the message, e.g. "cuda backend". Makes the device current.
device_info require_device(int index, const char* who);

}  // namespace poreplab::cuda::detail
