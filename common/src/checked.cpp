#include "poreplab/checked.hpp"

#include <string>

namespace poreplab {

void throw_size_overflow(std::uint64_t a, std::uint64_t b, char op, std::string_view what) {
  throw size_overflow(std::string(what) + ": " + std::to_string(a) + " " + op + " " + std::to_string(b) +
                      " does not fit in 64 bits");
}

}  // namespace poreplab
