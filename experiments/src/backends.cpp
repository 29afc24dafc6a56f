#include "backends.hpp"

#include <stdexcept>

#include "poreplab/interrupt.hpp"
#include "poreplab/sdr/scheme.hpp"

#include "poreplab/cpu/labeler.hpp"
#include "poreplab/sdr/emulated_backend.hpp"
#include "poreplab/sdr/label_kernel.hpp"
#include "text.hpp"
#ifdef POREPLAB_WITH_CUDA
#include "poreplab/cuda/backend.hpp"
#endif

namespace poreplab {

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names = {"reference", "cpu", "cuda-emu", "cuda"};
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
  if (name == "cuda-emu") {
    sdr::emulation_options o;
    o.layout = sdr::parse_sector_layout(opt.layout);
    o.threads_per_block = opt.threads_per_block;
    o.kernel = sdr::parse_kernel_variant(opt.kernel);
    return sdr::make_emulated_backend(o);
  }
  if (name == "cuda") {
#ifdef POREPLAB_WITH_CUDA
    cuda::backend_options o;
    o.layout = sdr::parse_sector_layout(opt.layout);
    o.threads_per_block = opt.threads_per_block;
    o.kernel = sdr::parse_kernel_variant(opt.kernel);
    o.stop_requested = [] { return interrupt_signal() != 0; };  // Ctrl-C, Slurm's SIGTERM: stop between launches
    return cuda::make_cuda_backend(o);
#else
    throw std::runtime_error("cuda backend unavailable: built without CUDA (POREPLAB_CUDA=OFF or no nvcc)");
#endif
  }
  throw std::invalid_argument("unknown backend '" + name + "' (valid: " + join(backend_names()) + ")");
}

}  // namespace poreplab
