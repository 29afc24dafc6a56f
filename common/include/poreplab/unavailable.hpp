#pragma once
// "This backend, engine or device cannot run here": not compiled into this build, no
// usable device, an instruction set this CPU lacks. Every backend throws it for that and
// for nothing else, so that the runner can record such a point as skipped by its type;
// any other exception is a failure, whatever its message says.
#include <stdexcept>

namespace poreplab {

struct unavailable_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace poreplab
