#pragma once
// Checked arithmetic for sizes that come from files, flags and configs: a product that
// does not fit in 64 bits is an error naming what was computed, never a wrapped value
// that then passes a size check (nodes = 2^59 makes nodes * 32 == 0).
#include <cstdint>
#include <stdexcept>
#include <string_view>

namespace poreplab {

// A size computed from input that does not fit in 64 bits.
struct size_overflow : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

[[noreturn]] void throw_size_overflow(std::uint64_t a, std::uint64_t b, char op, std::string_view what);

// a * b; throws size_overflow "<what>: <a> * <b> does not fit in 64 bits".
inline std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, std::string_view what) {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw_size_overflow(a, b, '*', what);
  return r;
}

// a + b; throws size_overflow "<what>: <a> + <b> does not fit in 64 bits".
inline std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, std::string_view what) {
  std::uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw_size_overflow(a, b, '+', what);
  return r;
}

}  // namespace poreplab
