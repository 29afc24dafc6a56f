#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "cuda_check.cuh"
#include "poreplab/cuda/devices.hpp"
#include "require_device.hpp"

namespace poreplab::cuda {

device_report query_devices() {
  device_report r;
  cudaRuntimeGetVersion(&r.runtime_version);
  if (cudaDriverGetVersion(&r.driver_version) != cudaSuccess || r.driver_version == 0) {
    r.reason = "no CUDA driver is installed (libcuda not found)";
    return r;
  }
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    r.reason = std::string("no CUDA device: ") + cudaGetErrorString(err);
    cudaGetLastError();  // clear the sticky error so later queries start clean
    return r;
  }
  if (count == 0) {
    r.reason = "no CUDA device";
    return r;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    device_info d;
    d.index = i;
    d.name = p.name;
    d.sm_major = p.major;
    d.sm_minor = p.minor;
    d.multiprocessors = p.multiProcessorCount;
    cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, i);
    cudaDeviceGetAttribute(&d.memory_clock_khz, cudaDevAttrMemoryClockRate, i);
    d.total_memory = p.totalGlobalMem;
    size_t free_b = 0, total_b = 0;
    if (cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
      d.free_memory = free_b;
    r.devices.push_back(d);
  }
  r.available = !r.devices.empty();
  if (!r.available) r.reason = "no usable CUDA device";
  return r;
}

namespace detail {

device_info require_device(int index, const char* who) {
  const device_report r = query_devices();
  if (!r.available) throw std::runtime_error(std::string(who) + " unavailable: " + r.reason);
  for (const auto& d : r.devices)
    if (d.index == index) {
      POREPLAB_CUDA_CHECK(cudaSetDevice(index));
      return d;
    }
  throw std::runtime_error(std::string(who) + ": CUDA device " + std::to_string(index) + " does not exist (" +
                           std::to_string(r.devices.size()) + " usable device" + (r.devices.size() == 1 ? "" : "s") +
                           ")");
}

}  // namespace detail

}  // namespace poreplab::cuda
