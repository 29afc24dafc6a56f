#pragma once
// Host-callable CUDA device queries; no CUDA header leaks out of the backend.
#include <cstdint>
#include <string>
#include <vector>

#include "poreplab/cuda/archs.hpp"

namespace poreplab::cuda {

struct device_info {
  int index = 0;
  std::string name;
  int sm_major = 0, sm_minor = 0;
  int multiprocessors = 0;
  int clock_khz = 0;         // SM clock
  int memory_clock_khz = 0;
  unsigned long long total_memory = 0;
  unsigned long long free_memory = 0;  // only for the device a query opened (else 0)
  std::string unsupported;   // why this build's kernels cannot run on it ("" when they can)
};

struct device_report {
  bool available = false;
  std::string reason;        // why no device is usable, when !available
  int driver_version = 0;    // e.g. 12040; 0 when no driver
  int runtime_version = 0;
  std::vector<device_info> devices;
};

// Never throws: no driver, no device or a broken install end up in `reason`. Reads
// properties only, creating no context, except on `open_device` (>= 0), whose free
// memory it reports. Leaves no CUDA error pending for later calls to report.
device_report query_devices(int open_device = -1);

// The architectures this build's kernels were compiled for (parse_archs and
// unsupported_reason are in archs.hpp).
build_archs compiled_archs();

// POREPLAB_REQUIRE_CUDA=1 in the environment: a missing or unusable device is an error
// (tests fail, runner points fail) instead of a skip.
bool cuda_required();

}  // namespace poreplab::cuda
