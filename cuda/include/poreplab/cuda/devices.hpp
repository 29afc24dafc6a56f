#pragma once
// Host-callable CUDA device queries; no CUDA header leaks out of the backend.
#include <string>
#include <vector>

namespace poreplab::cuda {

struct device_info {
  int index = 0;
  std::string name;
  int sm_major = 0, sm_minor = 0;
  int multiprocessors = 0;
  int clock_khz = 0;         // SM clock
  int memory_clock_khz = 0;
  unsigned long long total_memory = 0;
  unsigned long long free_memory = 0;
};

struct device_report {
  bool available = false;
  std::string reason;        // why no device is usable, when !available
  int driver_version = 0;    // e.g. 12040; 0 when no driver
  int runtime_version = 0;
  std::vector<device_info> devices;
};

// Never throws: no driver, no device or a broken install end up in `reason`.
device_report query_devices();

}  // namespace poreplab::cuda
