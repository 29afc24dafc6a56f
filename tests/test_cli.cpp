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

namespace fs = std::filesystem;

namespace {

// A fresh directory under the system temp dir, removed with its contents on scope exit.
struct temp_dir {
  fs::path path;
  temp_dir() {
    static std::atomic<int> counter{0};
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path = fs::temp_directory_path() / ("poreplab-cli-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(stamp) + "-" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  fs::path operator/(const std::string& name) const { return path / name; }
};

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const fs::path& p, const std::string& data) {
  std::ofstream out(p, std::ios::binary);
  out << data;
  REQUIRE(out.good());
}

struct result {
  int status;
  std::string out, err;
};

// Runs a shell command line with stdout/stderr captured to files in `dir`.
result sh(const temp_dir& dir, const std::string& cmd) {
  const fs::path o = dir / "stdout.txt", e = dir / "stderr.txt";
  const int raw = std::system((cmd + " >" + quote(o.string()) + " 2>" + quote(e.string())).c_str());
  REQUIRE(raw != -1);
  REQUIRE(WIFEXITED(raw));
  result r{WEXITSTATUS(raw), read_file(o), read_file(e)};
  fs::remove(o);
  fs::remove(e);
  return r;
}

std::string poreplab(const std::string& args) { return quote(POREPLAB_BINARY) + " " + args; }

bool have_tool(const temp_dir& dir, const std::string& tool) {
  return sh(dir, "command -v " + tool).status == 0;
}

void check_one_line_error(const result& r) {
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
    write_file(dir / name, data);
    paths.push_back((dir / name).string());
  }
  return paths;
}

std::string quoted_list(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) {
    s += ' ';
    s += quote(x);
  }
  return s;
}

}  // namespace

TEST_CASE("poreplab hash matches sha256sum and b2sum", "[cli]") {
  temp_dir dir;
  const auto inputs = make_inputs(dir);
  const std::string files = quoted_list(inputs);

  const result want = sh(dir, "sha256sum" + files);
  REQUIRE(want.status == 0);
  for (const char* args : {"hash", "hash --algo sha256", "hash -a sha256"}) {
    INFO(args);
    const result got = sh(dir, poreplab(args) + files);
    CHECK(got.status == 0);
    CHECK(got.err.empty());
    CHECK(got.out == want.out);
  }

  SECTION("standard input") {
    const std::string big = quote(inputs[2]);
    const result want_stdin = sh(dir, "sha256sum - <" + big);
    REQUIRE(want_stdin.status == 0);
    CHECK(sh(dir, poreplab("hash - <") + big).out == want_stdin.out);
    CHECK(sh(dir, poreplab("hash <") + big).out == want_stdin.out);
    CHECK(sh(dir, "cat " + big + " | " + poreplab("hash -")).out == want_stdin.out);
  }

  SECTION("blake2b against b2sum") {
    if (!have_tool(dir, "b2sum")) {
      WARN("b2sum not installed; skipping the blake2b CLI comparison");
      return;
    }
    const result b512 = sh(dir, "b2sum" + files), b256 = sh(dir, "b2sum -l 256" + files);
    REQUIRE(b512.status == 0);
    REQUIRE(b256.status == 0);
    CHECK(sh(dir, poreplab("hash --algo blake2b-512") + files).out == b512.out);
    CHECK(sh(dir, poreplab("hash --algo blake2b-256") + files).out == b256.out);
    CHECK(sh(dir, poreplab("hash --algo blake2b-512 - <") + quote(inputs[1])).out ==
          sh(dir, "b2sum - <" + quote(inputs[1])).out);
  }
}

TEST_CASE("poreplab hash errors", "[cli]") {
  temp_dir dir;
  const auto inputs = make_inputs(dir);

  SECTION("unknown algorithm") {
    const result r = sh(dir, poreplab("hash --algo md5 ") + quote(inputs[1]));
    check_one_line_error(r);
    CHECK(r.err.find("md5") != std::string::npos);
    CHECK(r.out.empty());
  }
  SECTION("unknown flag") {
    const result r = sh(dir, poreplab("hash --no-such-flag ") + quote(inputs[1]));
    check_one_line_error(r);
    CHECK(r.out.empty());
  }
  SECTION("missing file: the other files are still hashed") {
    const std::string missing = (dir / "missing.bin").string();
    const result r = sh(dir, poreplab("hash ") + quote(inputs[0]) + " " + quote(missing) + " " + quote(inputs[1]));
    check_one_line_error(r);
    CHECK(r.err.find(missing) != std::string::npos);
    CHECK(r.out == sh(dir, "sha256sum " + quote(inputs[0]) + " " + quote(inputs[1])).out);
  }
  SECTION("a directory is not readable as a file") {
    const result r = sh(dir, poreplab("hash ") + quote(dir.path.string()));
    check_one_line_error(r);
    CHECK(r.out.empty());
  }
}

TEST_CASE("poreplab --version, info, info --json, selftest", "[cli]") {
  temp_dir dir;
  {
    const result r = sh(dir, poreplab("--version"));
    CHECK(r.status == 0);
    CHECK(r.out == std::string("poreplab ") + POREPLAB_VERSION + "\n");
  }
  {
    const result r = sh(dir, poreplab("info"));
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("\ncpu:") != std::string::npos);
    CHECK(r.out.find("\ncuda:") != std::string::npos);
  }
  {
    const result r = sh(dir, poreplab("info --json"));
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
    const result r = sh(dir, poreplab("selftest"));
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("selftest passed") != std::string::npos);
  }
  {
    const result r = sh(dir, poreplab(""));
    check_one_line_error(r);
  }
}
