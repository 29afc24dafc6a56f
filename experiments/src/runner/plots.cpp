// Runs the figure script (experiments/plots/plot.py) on a result directory with the
// project's .venv, found next to the source tree of the running executable.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <optional>
#include <system_error>

#include "runner/runner.hpp"

extern char** environ;

namespace poreplab::runner {

namespace fs = std::filesystem;

namespace {

bool is_source_root(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p / "experiments" / "plots" / "plot.py", ec);
}

// The checkout holding experiments/plots: above the executable (build dirs live inside
// the checkout), else the tree this binary was configured from.
std::optional<fs::path> source_root() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path p = exe.parent_path(); !p.empty(); p = p.parent_path()) {
      if (is_source_root(p)) return p;
      if (p == p.root_path()) break;
    }
  }
#ifdef POREPLAB_SOURCE_ROOT
  if (is_source_root(POREPLAB_SOURCE_ROOT)) return fs::path(POREPLAB_SOURCE_ROOT);
#endif
  return std::nullopt;
}

int run_python(const fs::path& python, const fs::path& script, const fs::path& dir) {
  std::string a0 = python.string(), a1 = script.string(), a2 = dir.string();
  char* args[] = {a0.data(), a1.data(), a2.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, a0.c_str(), nullptr, nullptr, args, environ) != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

bool make_plots(const fs::path& dir) {
  const auto root = source_root();
  if (!root) {
    std::cerr << "note: plots skipped: experiments/plots not found beside this executable; results are in "
              << dir.string() << "\n";
    return true;
  }
  const fs::path python = *root / ".venv" / "bin" / "python";
  if (::access(python.c_str(), X_OK) != 0) {
    std::cerr << "note: plots skipped: no Python venv at " << python.string() << " (run " << (*root / "scripts" / "setup").string()
              << "); results are in " << dir.string() << "\n";
    return true;
  }
  const fs::path script = *root / "experiments" / "plots" / "plot.py";
  const int rc = run_python(python, script, dir);
  if (rc != 0) {
    std::cerr << "poreplab: warning: " << script.string() << " failed (exit status " << rc << ")\n";
    return false;
  }
  return true;
}

}  // namespace poreplab::runner
