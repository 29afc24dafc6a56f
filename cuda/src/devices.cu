#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "cuda_check.cuh"
#include "poreplab/cuda/devices.hpp"
#include "poreplab/require_cuda.hpp"
#include "poreplab/unavailable.hpp"
#include "require_device.hpp"

namespace poreplab::cuda {

namespace {

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// The call's error (or "") with nothing left pending for the next call to report.
std::string failed(cudaError_t err) {
  cudaGetLastError();
  return err == cudaSuccess ? std::string() : std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
}

}  // namespace

device_report query_devices(int open_device) {
  device_report r;
  cudaRuntimeGetVersion(&r.runtime_version);
  if (cudaDriverGetVersion(&r.driver_version) != cudaSuccess || r.driver_version == 0) {
    failed(cudaSuccess);
    r.reason = "no CUDA driver is installed (libcuda not found)";
    return r;
  }
  int count = 0;
  if (const std::string err = failed(cudaGetDeviceCount(&count)); !err.empty()) {
    r.reason = "no CUDA device: " + err;
    if (r.driver_version / 1000 < r.runtime_version / 1000)
      r.reason += " (the driver supports CUDA " + version_text(r.driver_version) + ", this build needs CUDA " +
                  version_text(r.runtime_version) + ": update the driver)";
    return r;
  }
  if (count == 0) {
    r.reason = "no CUDA device";
    return r;
  }
  const build_archs archs = compiled_archs();
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (!failed(cudaGetDeviceProperties(&p, i)).empty()) continue;
    device_info d;
    d.index = i;
    d.name = p.name;
    d.sm_major = p.major;
    d.sm_minor = p.minor;
    d.multiprocessors = p.multiProcessorCount;
    if (!failed(cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, i)).empty()) d.clock_khz = 0;
    if (!failed(cudaDeviceGetAttribute(&d.memory_clock_khz, cudaDevAttrMemoryClockRate, i)).empty())
      d.memory_clock_khz = 0;
    d.total_memory = p.totalGlobalMem;
    d.unsupported = unsupported_reason(p.major, p.minor, archs);
    if (i == open_device) {
      size_t free_b = 0, total_b = 0;
      if (failed(cudaSetDevice(i)).empty() && failed(cudaMemGetInfo(&free_b, &total_b)).empty()) d.free_memory = free_b;
    }
    r.devices.push_back(d);
  }
  r.available = !r.devices.empty();
  if (!r.available) r.reason = "no usable CUDA device";
  return r;
}

build_archs compiled_archs() {
#ifdef POREPLAB_CUDA_ARCHS
  return parse_archs(POREPLAB_CUDA_ARCHS);
#else
  return parse_archs("");
#endif
}

bool cuda_required() { return cuda_required_by_environment(); }

namespace detail {

device_info require_device(int index, const char* who) {
  const device_report r = query_devices(index);
  if (!r.available) throw unavailable_error(std::string(who) + " unavailable: " + r.reason);
  for (const auto& d : r.devices)
    if (d.index == index) {
      if (!d.unsupported.empty())
        throw unavailable_error(std::string(who) + " unavailable: CUDA device " + std::to_string(index) + " (" +
                                 d.name + ") " + d.unsupported);
      POREPLAB_CUDA_CHECK(cudaSetDevice(index));
      return d;
    }
  throw unavailable_error(std::string(who) + ": CUDA device " + std::to_string(index) + " does not exist (" +
                           std::to_string(r.devices.size()) + " usable device" + (r.devices.size() == 1 ? "" : "s") +
                           ")");
}

}  // namespace detail

}  // namespace poreplab::cuda
