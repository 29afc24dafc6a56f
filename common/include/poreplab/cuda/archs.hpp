#pragma once
// Which GPUs a build's kernels run on, from the architectures it was compiled for: pure
// host logic, no CUDA, so builds without the backend can say it too (poreplab doctor).
#include <string>
#include <vector>

namespace poreplab::cuda {

// Compute capabilities a build carries code for (x10: 80 = sm_80): SASS and PTX.
struct build_archs {
  std::vector<int> sass, ptx;
  bool known = true;  // false when the build's list could not be read ("native", "all")
};
// Parses CMake's CUDA_ARCHITECTURES list ("80;90", "80-real;90-virtual", "80,90").
build_archs parse_archs(const std::string& list);
// Whether `b` carries SASS that a device of compute capability major.minor runs as is: an
// arch of the same major and no newer minor. Without it the driver compiles PTX at first
// launch (JIT), when `b` has PTX for it.
bool runs_sass(int major, int minor, const build_archs& b);
// Why a device of compute capability major.minor cannot run code built for `b`, or ""
// when it can (runs_sass, or older PTX to JIT).
std::string unsupported_reason(int major, int minor, const build_archs& b);

}  // namespace poreplab::cuda
