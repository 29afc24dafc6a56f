#include <cuda_runtime.h>

#include <sstream>
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

build_archs parse_archs(const std::string& list) {
  build_archs b;
  std::string token;
  std::istringstream in(list);
  while (std::getline(in, token, list.find(';') != std::string::npos ? ';' : ',')) {
    if (token.empty()) continue;
    const auto dash = token.find('-');
    const std::string num = token.substr(0, dash), suffix = dash == std::string::npos ? "" : token.substr(dash + 1);
    if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos || num.size() > 4) {
      b.known = false;
      continue;
    }
    const int a = std::stoi(num);
    if (suffix != "virtual") b.sass.push_back(a);
    if (suffix != "real") b.ptx.push_back(a);
  }
  if (b.sass.empty() && b.ptx.empty()) b.known = false;
  return b;
}

build_archs compiled_archs() {
#ifdef POREPLAB_CUDA_ARCHS
  return parse_archs(POREPLAB_CUDA_ARCHS);
#else
  return parse_archs("");
#endif
}

std::string unsupported_reason(int major, int minor, const build_archs& b) {
  if (!b.known) return {};
  const int cc = major * 10 + minor;
  for (const int a : b.sass)
    if (a / 10 == major && a % 10 <= minor) return {};
  for (const int a : b.ptx)
    if (a <= cc) return {};
  std::string have;
  for (const int a : b.sass) have += (have.empty() ? "" : ", ") + std::string("sm_") + std::to_string(a);
  for (const int a : b.ptx) have += (have.empty() ? "" : ", ") + std::string("compute_") + std::to_string(a) + " (PTX)";
  std::string why = "compute capability " + std::to_string(major) + "." + std::to_string(minor) +
                    " cannot run this build's kernels (built for " + have + ")";
  if (cc < 80) why += "; poreplab needs sm_80 or newer";
  else why += "; rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(cc);
  return why;
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
