#pragma once
// Checked arithmetic for sizes that come from files, flags and configs: a product that
// does not fit in 64 bits is an error naming what was computed, never a wrapped value
// that then passes a size check (nodes = 2^59 makes nodes * 32 == 0).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
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

// The longest duration taken from input (a flag, a config), in seconds: longer than any
// run measures, and far inside a clock's 64-bit count of nanoseconds.
inline constexpr double kMaxInputSeconds = 1e7;

// `seconds` from input as a deadline after `start`; throws std::invalid_argument "<what>:
// <seconds> s is not a duration from 0 to 1e7 s" for NaN, infinities, negative and longer
// durations, which would otherwise overflow the clock's count and end at once.
template <class TimePoint>
TimePoint checked_deadline(TimePoint start, double seconds, std::string_view what) {
  using duration = typename TimePoint::duration;
  char shown[32];
  std::snprintf(shown, sizeof shown, "%.6g", seconds);
  if (!(seconds >= 0 && seconds <= kMaxInputSeconds))
    throw std::invalid_argument(std::string(what) + ": " + shown + " s is not a duration from 0 to 1e7 s");
  const auto span = std::chrono::duration_cast<duration>(std::chrono::duration<double>(seconds));
  typename duration::rep end = 0;
  if (__builtin_add_overflow(start.time_since_epoch().count(), span.count(), &end))
    throw std::invalid_argument(std::string(what) + ": " + shown + " s from now is past the clock's range");
  return TimePoint(duration(end));
}

}  // namespace poreplab
