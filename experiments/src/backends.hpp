#pragma once
// Labeling backends by name: reference, cpu, cuda-emu, cuda.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "poreplab/sdr/backend.hpp"

namespace poreplab {

struct backend_options {
  std::string engine = "auto";          // cpu: SHA-256 engine
  int threads = 0;                      // cpu: 0 = OpenMP default
  std::string layout = "sector-minor";  // cuda, cuda-emu: sector-minor | sector-major
  std::uint32_t threads_per_block = 32;  // cuda, cuda-emu: label kernel block size
  std::string kernel = "standard";       // cuda, cuda-emu: sdr/sha256 kernel variant
};

// Every backend name this build knows, available here or not.
const std::vector<std::string>& backend_names();

// Throws std::invalid_argument for an unknown name (listing the valid ones) and
// std::runtime_error when the backend cannot run here, with the reason.
std::unique_ptr<sdr::backend> make_backend(const std::string& name, const backend_options& opt = {});

}  // namespace poreplab
