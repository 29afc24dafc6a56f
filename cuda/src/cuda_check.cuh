#pragma once
// CUDA error checking and owners of device resources. CUDA-only (not installed).
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace poreplab::cuda::detail {

[[noreturn]] inline void fail(cudaError_t err, const char* what, const char* file, int line) {
  // Clear a non-sticky error so that a later, unrelated call does not report it again.
  cudaGetLastError();
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + what + " failed: " +
                           cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

inline void check(cudaError_t err, const char* what, const char* file, int line) {
  if (err != cudaSuccess) fail(err, what, file, line);
}

}  // namespace poreplab::cuda::detail

// Wraps a CUDA runtime call; a failure throws std::runtime_error with file:line, the
// call, and CUDA's error name and string.
#define POREPLAB_CUDA_CHECK(call) ::poreplab::cuda::detail::check((call), #call, __FILE__, __LINE__)

namespace poreplab::cuda::detail {

// Device memory. Freed without checking: a destructor may run while an exception from
// an earlier CUDA error unwinds, and cudaFree would then only report that error again.
class device_memory {
 public:
  device_memory() = default;
  explicit device_memory(std::uint64_t bytes) {
    if (bytes != 0) POREPLAB_CUDA_CHECK(cudaMalloc(&p_, bytes));
  }
  device_memory(device_memory&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  device_memory& operator=(device_memory&& o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  device_memory(const device_memory&) = delete;
  device_memory& operator=(const device_memory&) = delete;
  ~device_memory() {
    if (p_ != nullptr) cudaFree(p_);
  }
  template <class T = std::uint8_t>
  T* get() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
};

// Page-locked host memory: the only source from which a host-to-device copy is truly
// asynchronous.
class pinned_memory {
 public:
  pinned_memory() = default;
  explicit pinned_memory(std::uint64_t bytes) {
    if (bytes != 0) POREPLAB_CUDA_CHECK(cudaMallocHost(&p_, bytes));
  }
  pinned_memory(pinned_memory&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  pinned_memory& operator=(pinned_memory&& o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  pinned_memory(const pinned_memory&) = delete;
  pinned_memory& operator=(const pinned_memory&) = delete;
  ~pinned_memory() {
    if (p_ != nullptr) cudaFreeHost(p_);
  }
  template <class T = std::uint8_t>
  T* get() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
};

class stream {
 public:
  stream() { POREPLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  ~stream() { cudaStreamDestroy(s_); }
  cudaStream_t get() const { return s_; }
  void synchronize() const { POREPLAB_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

class event {
 public:
  explicit event(bool timing = false) {
    POREPLAB_CUDA_CHECK(cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming));
  }
  event(event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  event& operator=(event&&) = delete;
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  ~event() {
    if (e_ != nullptr) cudaEventDestroy(e_);
  }
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) const { POREPLAB_CUDA_CHECK(cudaEventRecord(e_, s)); }
  void synchronize() const { POREPLAB_CUDA_CHECK(cudaEventSynchronize(e_)); }

 private:
  cudaEvent_t e_ = nullptr;
};

// Seconds between two recorded timing events.
inline double elapsed_s(const event& start, const event& stop) {
  float ms = 0;
  POREPLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return static_cast<double>(ms) * 1e-3;
}

}  // namespace poreplab::cuda::detail
