// share_dir(), plot_python(), default_layer_dir() and run_program() (share_dir.hpp).
#include "util/share_dir.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <system_error>

extern char** environ;

namespace poreplab {

namespace fs = std::filesystem;

namespace {

bool path_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

// A set, non-empty environment variable.
std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

}  // namespace

std::optional<fs::path> share_dir() {
  if (const auto dir = env("POREPLAB_SHARE_DIR")) {
    if (!path_exists(fs::path(*dir) / "data" / "custom-hardware.json"))
      throw std::runtime_error("POREPLAB_SHARE_DIR=" + *dir + " holds no data/custom-hardware.json");
    return fs::path(*dir);
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (fs::path p = exe.parent_path(); !p.empty(); p = p.parent_path()) {
      if (path_exists(p / "experiments" / "data")) return p / "experiments";
      if (path_exists(p / "share" / "poreplab" / "data")) return p / "share" / "poreplab";
      if (p == p.root_path()) break;
    }
#ifdef POREPLAB_SOURCE_ROOT
  if (const fs::path configured = fs::path(POREPLAB_SOURCE_ROOT) / "experiments"; path_exists(configured / "data"))
    return configured;
#endif
  return std::nullopt;
}

fs::path default_layer_dir() {
  const auto dir = env(kLayerDirEnv);
  return dir ? fs::path(*dir) : fs::path("/var/tmp");
}

fs::path require_share_dir() {
  if (auto dir = share_dir()) return *dir;
  throw std::runtime_error(
      "poreplab's share directory (configs/, data/, plots/) not found: neither experiments/ of a checkout above the "
      "executable nor ../share/poreplab beside it; set POREPLAB_SHARE_DIR");
}

std::optional<fs::path> plot_python() {
  if (const auto python = env("POREPLAB_PYTHON")) return fs::path(*python);
  if (const auto share = share_dir(); share && share->filename() == "experiments") {
    const fs::path venv = share->parent_path() / ".venv" / "bin" / "python";
    if (::access(venv.c_str(), X_OK) == 0) return venv;
  }
  // A python3 without matplotlib would only fail later in plot.py with a traceback.
  if (run_program({"python3", "-c", "import matplotlib"}, true) == 0) return fs::path("python3");
  return std::nullopt;
}

int run_program(const std::vector<std::string>& argv, bool quiet) {
  if (argv.empty()) return -1;
  std::vector<std::string> args = argv;  // posix_spawn takes char*, not const char*
  std::vector<char*> ptrs;
  for (auto& a : args) ptrs.push_back(a.data());
  ptrs.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  if (posix_spawn_file_actions_init(&actions) != 0) return -1;
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  }
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, ptrs[0], &actions, nullptr, ptrs.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace poreplab
