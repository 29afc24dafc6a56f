#pragma once
// The cuda backend's PC2 hasher (pc2.cu). Internal.
#include <memory>

#include "poreplab/cuda/backend.hpp"
#include "poreplab/cuda/devices.hpp"
#include "poreplab/sdr/pc2_build.hpp"

namespace poreplab::cuda {

// On `device` (already checked usable); std::runtime_error when its buffers do not fit.
std::unique_ptr<sdr::pc2_hasher> make_cuda_pc2_hasher(const backend_options& opt, const device_info& device);

}  // namespace poreplab::cuda
