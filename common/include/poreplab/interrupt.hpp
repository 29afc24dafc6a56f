#pragma once
// Cooperative interruption. SIGINT and SIGTERM only record the signal; long operations
// (a seal, between its layers) call throw_if_interrupted(), so that the stack unwinds
// and every temporary file and scratch directory is removed on the way out.
#include <csignal>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace poreplab {

// Thrown by throw_if_interrupted(); the process should exit with 128 + signal.
// what(): "interrupted by SIGINT; " + what was done about it (default: temporary files
// removed).
struct interrupted : std::runtime_error {
  explicit interrupted(int sig, const std::string& outcome = "temporary files removed");
  int signal;
};

// Records `sig` (async-signal-safe).
void request_interrupt(int sig) noexcept;
// The first signal recorded since the last clear_interrupt(), 0 when none.
int interrupt_signal() noexcept;
// How many signals were recorded since the last clear_interrupt().
int interrupt_count() noexcept;
void clear_interrupt() noexcept;
// Throws interrupted when a signal was recorded.
void throw_if_interrupted();
// "SIGINT", "SIGTERM", or "signal N".
std::string signal_name(int sig);

// While alive, SIGINT and SIGTERM call request_interrupt() and print one note; a second
// one ends the process at once (the default action). Restores the previous handlers.
class interrupt_scope {
 public:
  interrupt_scope();
  ~interrupt_scope();
  interrupt_scope(const interrupt_scope&) = delete;
  interrupt_scope& operator=(const interrupt_scope&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// A path that remove_registered_paths() deletes (recursively) while it is registered:
// the cleanup a process still does when it has to end before its stack unwinds.
class registered_path {
 public:
  explicit registered_path(std::filesystem::path p);
  ~registered_path();
  registered_path(const registered_path&) = delete;
  registered_path& operator=(const registered_path&) = delete;

 private:
  std::filesystem::path path_;
};

// Removes every registered path (not async-signal-safe: call it from a thread).
void remove_registered_paths() noexcept;
bool any_registered_paths() noexcept;

}  // namespace poreplab
