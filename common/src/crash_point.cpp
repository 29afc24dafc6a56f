#include "poreplab/crash_point.hpp"

#include <signal.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

namespace poreplab {

namespace {

struct crash_request {
  crash_point point{};
  std::uint64_t nth = 1;
  int signal = 0;
};

// "<point>[:<n>]" of the variable `var`.
std::optional<crash_request> request_from(const char* var, int sig) {
  const char* env = std::getenv(var);
  if (env == nullptr || *env == '\0') return std::nullopt;
  const std::string text = env;
  const std::size_t colon = text.find(':');
  crash_request r;
  r.signal = sig;
  try {
    r.point = kCrashPoints.parse(text.substr(0, colon));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(var) + ": " + e.what());
  }
  if (colon != std::string::npos) {
    const std::string n = text.substr(colon + 1);
    if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos || std::stoul(n) == 0)
      throw std::invalid_argument(std::string(var) + ": '" + n + "' is not a count from 1");
    r.nth = std::stoul(n);
  }
  return r;
}

}  // namespace

void reach(crash_point p) {
  static const std::optional<crash_request> kill_at = request_from("POREPLAB_TEST_KILL_AT", SIGKILL);
  static const std::optional<crash_request> stop_at = request_from("POREPLAB_TEST_STOP_AT", SIGSTOP);
  static std::array<std::atomic<std::uint64_t>, kCrashPoints.entries.size()> arrivals{};
  if (!kill_at && !stop_at) return;
  const std::uint64_t n = ++arrivals[static_cast<std::size_t>(p)];
  for (const auto& r : {kill_at, stop_at})
    if (r && r->point == p && r->nth == n) ::raise(r->signal);
}

}  // namespace poreplab
