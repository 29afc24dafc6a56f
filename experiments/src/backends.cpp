#include "backends.hpp"

#include <stdexcept>

#include "poreplab/cpu/labeler.hpp"

namespace poreplab {

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names = {"reference", "cpu"};
  return names;
}

std::unique_ptr<sdr::backend> make_backend(const std::string& name, const backend_options& opt) {
  if (name == "reference") return sdr::make_reference_backend();
  if (name == "cpu") {
    cpu::labeler_options o;
    o.engine = opt.engine;
    o.threads = opt.threads;
    return cpu::make_cpu_backend(o);
  }
  std::string valid;
  for (const auto& n : backend_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown backend '" + name + "' (valid: " + valid + ")");
}

}  // namespace poreplab
