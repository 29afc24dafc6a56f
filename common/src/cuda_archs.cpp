#include <sstream>

#include "poreplab/cuda/archs.hpp"

namespace poreplab::cuda {

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

bool runs_sass(int major, int minor, const build_archs& b) {
  for (const int a : b.sass)
    if (a / 10 == major && a % 10 <= minor) return true;
  return false;
}

std::string unsupported_reason(int major, int minor, const build_archs& b) {
  if (!b.known) return {};
  const int cc = major * 10 + minor;
  if (runs_sass(major, minor, b)) return {};
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

}  // namespace poreplab::cuda
