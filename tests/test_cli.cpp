// The built `poreplab` binary: hash output against coreutils, error reporting, info,
// --version and selftest.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support.hpp"

namespace fs = std::filesystem;

namespace {

using poreplab::test::poreplab_command;
using poreplab::test::run_result;
using poreplab::test::shell_quote;
using poreplab::test::temp_dir;

// Runs a shell command line, output captured; a command ended by a signal fails the test.
run_result sh(const temp_dir& dir, const std::string& cmd) {
  auto r = poreplab::test::run_shell(cmd, dir);
  REQUIRE(r.status < 128);
  return r;
}

bool have_tool(const temp_dir& dir, const std::string& tool) {
  return sh(dir, "command -v " + tool).status == 0;
}

void check_one_line_error(const run_result& r) {
  INFO("stderr: " << r.err);
  CHECK(r.status != 0);
  CHECK(r.err.rfind("poreplab: error:", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK((!r.err.empty() && r.err.back() == '\n'));
}

// Files: an empty one, a short text, ~3 MB of pattern bytes, and a name with a space.
std::vector<std::string> make_inputs(const temp_dir& dir) {
  std::string big(3 * 1024 * 1024 + 17, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 37 + 11) % 256);
  const std::pair<const char*, std::string> files[] = {
      {"empty.bin", ""}, {"hello.txt", "hello\n"}, {"big.bin", big}, {"with space.txt", "abc"}};
  std::vector<std::string> paths;
  for (const auto& [name, data] : files) {
    poreplab::test::write_text(dir / name, data);
    paths.push_back((dir / name).string());
  }
  return paths;
}

std::string quoted_list(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) {
    s += ' ';
    s += shell_quote(x);
  }
  return s;
}

}  // namespace

TEST_CASE("poreplab hash matches sha256sum and b2sum", "[cli]") {
  temp_dir dir("cli");
  const auto inputs = make_inputs(dir);
  const std::string files = quoted_list(inputs);

  const run_result want = sh(dir, "sha256sum" + files);
  REQUIRE(want.status == 0);
  for (const char* args : {"hash", "hash --algo sha256", "hash -a sha256"}) {
    INFO(args);
    const run_result got = sh(dir, poreplab_command(args) + files);
    CHECK(got.status == 0);
    CHECK(got.err.empty());
    CHECK(got.out == want.out);
  }

  SECTION("standard input") {
    const std::string big = shell_quote(inputs[2]);
    const run_result want_stdin = sh(dir, "sha256sum - <" + big);
    REQUIRE(want_stdin.status == 0);
    CHECK(sh(dir, poreplab_command("hash - <") + big).out == want_stdin.out);
    CHECK(sh(dir, poreplab_command("hash <") + big).out == want_stdin.out);
    CHECK(sh(dir, "cat " + big + " | " + poreplab_command("hash -")).out == want_stdin.out);
  }

  SECTION("blake2b against b2sum") {
    if (!have_tool(dir, "b2sum")) {
      WARN("b2sum not installed; skipping the blake2b CLI comparison");
      return;
    }
    const run_result b512 = sh(dir, "b2sum" + files), b256 = sh(dir, "b2sum -l 256" + files);
    REQUIRE(b512.status == 0);
    REQUIRE(b256.status == 0);
    CHECK(sh(dir, poreplab_command("hash --algo blake2b-512") + files).out == b512.out);
    CHECK(sh(dir, poreplab_command("hash --algo blake2b-256") + files).out == b256.out);
    CHECK(sh(dir, poreplab_command("hash --algo blake2b-512 - <") + shell_quote(inputs[1])).out ==
          sh(dir, "b2sum - <" + shell_quote(inputs[1])).out);
  }
}

TEST_CASE("poreplab hash errors", "[cli]") {
  temp_dir dir("cli");
  const auto inputs = make_inputs(dir);

  SECTION("unknown algorithm") {
    const run_result r = sh(dir, poreplab_command("hash --algo md5 ") + shell_quote(inputs[1]));
    check_one_line_error(r);
    CHECK(r.err.find("md5") != std::string::npos);
    CHECK(r.out.empty());
  }
  SECTION("unknown flag") {
    const run_result r = sh(dir, poreplab_command("hash --no-such-flag ") + shell_quote(inputs[1]));
    check_one_line_error(r);
    CHECK(r.out.empty());
  }
  SECTION("missing file: the other files are still hashed") {
    const std::string missing = (dir / "missing.bin").string();
    const run_result r = sh(dir, poreplab_command("hash ") + shell_quote(inputs[0]) + " " + shell_quote(missing) + " " + shell_quote(inputs[1]));
    check_one_line_error(r);
    CHECK(r.err.find(missing) != std::string::npos);
    CHECK(r.out == sh(dir, "sha256sum " + shell_quote(inputs[0]) + " " + shell_quote(inputs[1])).out);
  }
  SECTION("a directory is not readable as a file") {
    const run_result r = sh(dir, poreplab_command("hash ") + shell_quote(dir.path.string()));
    check_one_line_error(r);
    CHECK(r.out.empty());
  }
}

TEST_CASE("poreplab --version, info, info --json, selftest", "[cli]") {
  temp_dir dir("cli");
  {
    const run_result r = sh(dir, poreplab_command("--version"));
    CHECK(r.status == 0);
    CHECK(r.out == std::string("poreplab ") + POREPLAB_VERSION + "\n");
  }
  {
    const run_result r = sh(dir, poreplab_command("info"));
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("\ncpu:") != std::string::npos);
    CHECK(r.out.find("\ncuda:") != std::string::npos);
  }
  {
    const run_result r = sh(dir, poreplab_command("info --json"));
    CHECK(r.status == 0);
    nlohmann::json j;
    REQUIRE_NOTHROW(j = nlohmann::json::parse(r.out));
    REQUIRE(j.is_object());
    for (const char* key : {"cpu", "cuda", "build"}) {
      INFO(key);
      CHECK(j.contains(key));
    }
  }
  {
    const run_result r = sh(dir, poreplab_command("selftest"));
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("selftest passed") != std::string::npos);
  }
  {
    const run_result r = sh(dir, poreplab_command(""));
    check_one_line_error(r);
  }
}
