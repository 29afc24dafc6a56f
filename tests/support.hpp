#pragma once
// Helpers shared by the test files: the test data (tests/data) and its JSON files, scratch
// directories, whole-file text I/O, and running the built `poreplab` binary and checking
// what it did.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "poreplab/hex.hpp"
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace poreplab::test {
// The checkout the tests were built from and the poreplab binary built beside them
// (tests/paths.cpp: the one unit that knows them).
const char* source_dir();
const char* binary_path();
}  // namespace poreplab::test
#define POREPLAB_SOURCE_DIR (::poreplab::test::source_dir())
#define POREPLAB_BINARY (::poreplab::test::binary_path())

namespace poreplab::test {

// The ASan+UBSan build (POREPLAB_SANITIZE): a test whose cost is arithmetic over a large
// input runs a smaller one there; the release build runs it whole. Memory and undefined-
// behaviour errors show at any size.
#if defined(POREPLAB_SANITIZED_TESTS)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// tests/data of the source tree the tests were built from: reference vectors in vectors/,
// hash known-answer tests in kat/. POREPLAB_TEST_DATA names another copy (the GPU bundle
// carries the test binary away from its source tree).
inline std::filesystem::path data_dir() {
  namespace fs = std::filesystem;
  const char* env = std::getenv("POREPLAB_TEST_DATA");
  const fs::path dir = env != nullptr && *env != '\0' ? fs::path(env) : fs::path(POREPLAB_SOURCE_DIR) / "tests" / "data";
  if (!fs::is_directory(dir / "kat") || !fs::is_directory(dir / "vectors"))
    throw std::runtime_error("cannot find the test data in " + dir.string());
  return dir;
}

inline nlohmann::json load_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  if (!in) throw std::runtime_error("cannot open " + p.string());
  return nlohmann::json::parse(in);
}

// A fresh directory under the system temp directory, poreplab-<tag>-<pid>-<time>-<n>
// (ctest runs test cases in parallel processes), removed with its contents at scope exit.
struct temp_dir {
  std::filesystem::path path;
  explicit temp_dir(const std::string& tag = "test") {
    static std::atomic<int> counter{0};
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path = std::filesystem::temp_directory_path() / ("poreplab-" + tag + "-" + std::to_string(::getpid()) + "-" +
                                                     std::to_string(stamp) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  std::filesystem::path operator/(const std::string& name) const { return path / name; }
};

// The whole file as bytes ("" when it cannot be read).
inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  if (!out.good()) throw std::runtime_error("cannot write " + p.string());
}

// The whole file as bytes (empty when it cannot be read), and bytes written as a file.
inline std::vector<std::uint8_t> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

inline void write_bytes(const std::filesystem::path& p, const std::vector<std::uint8_t>& d) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(d.data()), static_cast<std::streamsize>(d.size()));
  if (!out.good()) throw std::runtime_error("cannot write " + p.string());
}

// s as one word of a POSIX shell command line.
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}
inline std::string quote(const std::string& s) { return shell_quote(s); }
inline std::string quote(const std::filesystem::path& p) { return shell_quote(p.string()); }

struct run_result {
  int status = -1;  // the exit status, or 128 + the signal that ended it
  std::string out, err;
};

// Runs a shell command line, its stdout and stderr captured through files in `dir`.
inline run_result run_shell(const std::string& cmd, const temp_dir& dir) {
  const auto out = dir / "stdout.txt", err = dir / "stderr.txt";
  const int raw = std::system((cmd + " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string())).c_str());
  if (raw == -1) throw std::runtime_error("cannot run a shell for: " + cmd);
  run_result r{WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw), read_text(out), read_text(err)};
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

// A shell command line under `timeout` (a hang fails the test instead of stalling it), its
// stdin /dev/null, its stdout and stderr captured through files in `dir`.
inline run_result run_shell_timed(const temp_dir& dir, const std::string& cmd, int timeout_s = 120) {
  const auto o = dir / ".stdout", e = dir / ".stderr";
  const std::string line = "timeout -s KILL " + std::to_string(timeout_s) + " sh -c " + shell_quote(cmd) + " >" +
                           shell_quote(o.string()) + " 2>" + shell_quote(e.string()) + " </dev/null";
  const int raw = std::system(line.c_str());
  REQUIRE(raw != -1);
  REQUIRE(WIFEXITED(raw));
  run_result r{WEXITSTATUS(raw), read_text(o), read_text(e)};
  std::filesystem::remove(o);
  std::filesystem::remove(e);
  return r;
}

// `poreplab ARGS`, the binary these tests were built with, as a shell command line.
// poreplab with `args` (argv without the program) as a child process, the environment
// variables `env` set in it, its output to the files `out` and `err`; -1 when fork fails.
// The caller waits for the returned pid.
inline pid_t spawn_poreplab(const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& env,
                            const std::filesystem::path& out, const std::filesystem::path& err) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(o, 1);
    ::dup2(e, 2);
    std::vector<char*> argv{const_cast<char*>(POREPLAB_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(POREPLAB_BINARY, argv.data());
    ::_exit(127);
  }
  return pid;
}

// `poreplab run CONFIG -o OUT --no-plots` as a child process with its output discarded
// (for tests that signal or race it); the caller waits for the returned pid.
inline pid_t spawn_poreplab_run(const std::filesystem::path& config, const std::filesystem::path& out) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    ::execl(POREPLAB_BINARY, POREPLAB_BINARY, "run", config.c_str(), "-o", out.c_str(), "--no-plots",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

inline std::string poreplab_command(const std::string& args) { return shell_quote(POREPLAB_BINARY) + " " + args; }

inline run_result run_poreplab(const std::string& args, const temp_dir& dir) {
  return run_shell(poreplab_command(args), dir);
}

// A command refused: exit status 1, one line on stderr, and each of `says` in it.
inline void check_refused(const run_result& r, std::initializer_list<std::string> says) {
  CHECK(r.status == 1);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  for (const auto& s : says) CHECK_THAT(r.err, Catch::Contains(s));
}

inline void check_refused(const run_result& r, const std::string& says) { check_refused(r, {says}); }

// A finished `poreplab run`: the process and the results.json it wrote.
struct config_run {
  run_result run;
  nlohmann::json results;
};

// `poreplab run` of the experiments file `config`, written as dir/<file>, into dir/out
// without plots; the run must succeed.
inline config_run run_config(const temp_dir& dir, const std::string& file, const std::string& config) {
  write_text(dir / file, config);
  run_result r = run_poreplab("run " + shell_quote((dir / file).string()) + " -o " + shell_quote((dir / "out").string()) +
                                  " --no-plots",
                              dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return {std::move(r), load_json(dir / "out" / "results.json")};
}

// Sets (or, for nullptr, clears) an environment variable for one scope, restoring what was there.
struct scoped_env {
  std::string name;
  std::optional<std::string> saved;
  scoped_env(const char* var, const char* value) : name(var) {
    if (const char* old = std::getenv(var)) saved = old;
    if (value != nullptr)
      ::setenv(var, value, 1);
    else
      ::unsetenv(var);
  }
  ~scoped_env() {
    if (saved)
      ::setenv(name.c_str(), saved->c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;
};

}  // namespace poreplab::test
