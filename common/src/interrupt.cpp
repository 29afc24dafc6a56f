#include "poreplab/interrupt.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

namespace poreplab {

namespace {

std::atomic<int> g_signal{0};
std::atomic<int> g_count{0};

extern "C" void on_interrupt_signal(int sig) {
  request_interrupt(sig);
  static const char note[] = "\nporeplab: interrupted: stopping after the current step (again to stop at once)\n";
  const ssize_t n = ::write(STDERR_FILENO, note, sizeof note - 1);
  (void)n;
}

std::mutex& paths_mutex() {
  static std::mutex m;
  return m;
}

std::vector<std::filesystem::path>& paths() {
  static std::vector<std::filesystem::path> v;
  return v;
}

}  // namespace

interrupted::interrupted(int sig, const std::string& outcome)
    : std::runtime_error("interrupted by " + signal_name(sig) + "; " + outcome), signal(sig) {}

void request_interrupt(int sig) noexcept {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
  g_count.fetch_add(1);
}

int interrupt_signal() noexcept { return g_signal.load(); }
int interrupt_count() noexcept { return g_count.load(); }

void clear_interrupt() noexcept {
  g_signal = 0;
  g_count = 0;
}

void throw_if_interrupted() {
  if (const int sig = g_signal.load(); sig != 0) throw interrupted(sig);
}

std::string signal_name(int sig) {
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(sig);
}

interrupt_scope::interrupt_scope() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // a second signal takes the default action
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
}

interrupt_scope::~interrupt_scope() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

registered_path::registered_path(std::filesystem::path p) : path_(std::move(p)) {
  std::lock_guard<std::mutex> lock(paths_mutex());
  paths().push_back(path_);
}

registered_path::~registered_path() {
  std::lock_guard<std::mutex> lock(paths_mutex());
  auto& v = paths();
  if (const auto it = std::find(v.begin(), v.end(), path_); it != v.end()) v.erase(it);
}

bool any_registered_paths() noexcept {
  std::lock_guard<std::mutex> lock(paths_mutex());
  return !paths().empty();
}

void remove_registered_paths() noexcept {
  std::lock_guard<std::mutex> lock(paths_mutex());
  for (const auto& p : paths()) {
    // A thread still writing there may add a file between the listing and the rmdir.
    for (int attempt = 0; attempt < 3; ++attempt) {
      std::error_code ec;
      std::filesystem::remove_all(p, ec);
      if (!ec && !std::filesystem::exists(p, ec)) break;
    }
  }
}

}  // namespace poreplab
