// One writer per output, and a seal that resumes from every instant. Each test runs the
// real CLI: a second `seal`, `pc2` or `unseal` while the first holds its output, and a
// seal killed (POREPLAB_TEST_KILL_AT, crash_point.hpp) at each of its named points, then
// run again with the same command.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "poreplab/crash_point.hpp"
#include "poreplab/seal/seal.hpp"
#include "poreplab/seal/vector_file.hpp"
#include "poreplab/writer_lock.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace poreplab;

namespace {

using test::temp_dir;

constexpr const char* kProverId = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20";
constexpr const char* kTicket = "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";
constexpr const char* kOtherTicket = "1111111111111111111111111111111111111111111111111111111111111111";

// `poreplab seal` of a 2KiB sector: a custom porep id with 2 layers and api 1.1.0, as the
// sweep sealed 2GiB; `extra` adds flags (--memory-limit, --force).
std::vector<std::string> seal_args(const temp_dir& dir, const fs::path& out, const std::string& ticket = kTicket,
                                   std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"seal", "--porep-id", "0500000000000000000000000000000000000000000000000000000000000000",
                                "--api-version", "1.1.0", "--layers", "2", "--prover-id", kProverId, "--sector-id", "7",
                                "--ticket", ticket, "--data", (dir / "data.bin").string(), "--parent-cache",
                                (dir / "cache").string(), "--out", out.string()};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

using outcome = test::run_result;

// Starts poreplab with `args` and the environment variables `env` (output to files in dir).
pid_t launch(const temp_dir& dir, const std::vector<std::string>& args,
             const std::vector<std::pair<std::string, std::string>>& env = {}, const std::string& tag = "a") {
  const pid_t pid = test::spawn_poreplab(args, env, dir / (tag + ".out"), dir / (tag + ".err"));
  REQUIRE(pid >= 0);
  return pid;
}

outcome finish(const temp_dir& dir, pid_t pid, const std::string& tag = "a") {
  int st = 0;
  REQUIRE(::waitpid(pid, &st, 0) == pid);
  outcome o{WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), "", test::read_text(dir / (tag + ".err"))};
  fs::remove(dir / (tag + ".out"));
  fs::remove(dir / (tag + ".err"));
  return o;
}

outcome run(const temp_dir& dir, const std::vector<std::string>& args,
            const std::vector<std::pair<std::string, std::string>>& env = {}) {
  return finish(dir, launch(dir, args, env, "run"), "run");
}

// Waits until `pid` stops itself (POREPLAB_TEST_STOP_AT): from then on it holds its lock.
void wait_stopped(pid_t pid) {
  int st = 0;
  REQUIRE(::waitpid(pid, &st, WUNTRACED) == pid);
  REQUIRE(WIFSTOPPED(st));
}

// One line on stderr, "poreplab: error: " first, exit status 1, `words` in it.
void check_error(const outcome& r, const std::string& words) {
  INFO("status " << r.status << ", stderr: " << r.err);
  test::check_refused(r, words);
  CHECK(r.err.rfind("poreplab: error: ", 0) == 0);
}

// Every file of a directory, name to bytes.
std::map<std::string, std::string> contents(const fs::path& dir) {
  std::map<std::string, std::string> m;
  if (!fs::exists(dir)) return m;
  for (const auto& e : fs::directory_iterator(dir)) m[e.path().filename().string()] = test::read_text(e.path());
  return m;
}

// Without the lock file: a killed writer's, which the next writer rewrites with its pid.
std::map<std::string, std::string> results_in(const fs::path& dir) {
  auto m = contents(dir);
  m.erase(kLockFile);
  return m;
}

// The same names with the same bytes, and seal.json's commitments named when they differ.
void check_same_seal(const fs::path& got, const fs::path& want) {
  const auto a = contents(got), b = contents(want);
  std::vector<std::string> names_a, names_b;
  for (const auto& [n, _] : a) names_a.push_back(n);
  for (const auto& [n, _] : b) names_b.push_back(n);
  CHECK(names_a == names_b);
  for (const auto& [n, bytes] : b) {
    INFO(n);
    CHECK((a.count(n) != 0 && a.at(n) == bytes));
  }
  if (a.count(seal::kSealManifest) == 0 || b.count(seal::kSealManifest) == 0) return;
  const json ja = json::parse(a.at(seal::kSealManifest)), jb = json::parse(b.at(seal::kSealManifest));
  for (const char* k : {"comm_d", "replica_id"}) CHECK(ja.at(k) == jb.at(k));
  if (jb.contains("pc2"))
    for (const char* k : {"comm_c", "comm_r_last", "comm_r"}) CHECK(ja.at("pc2").at(k) == jb.at("pc2").at(k));
}

// A 2KiB sector's data (pattern37) at dir/data.bin, the input of seal_args.
void write_sector_data(const temp_dir& dir) { test::write_bytes(dir / "data.bin", seal::generate_data("pattern37", 2048)); }

std::string holder(pid_t pid) { return "is being written by process " + std::to_string(pid); }

}  // namespace

// ---- one writer per output ----

TEST_CASE("seal: a second seal into a directory a seal holds is refused and touches nothing, and the first finishes",
          "[reliability][seal][writers]") {
  // The sweep's "resume that did not resume": the same command run again while the first
  // was still writing resumed from its state, created layer 2 anew and renamed it into
  // place, and the first then failed with "sc-02-data-layer-2.dat.tmp: cannot open".
  temp_dir dir;
  write_sector_data(dir);
  REQUIRE(run(dir, seal_args(dir, dir / "whole")).status == 0);

  const pid_t first = launch(dir, seal_args(dir, dir / "out"), {{"POREPLAB_TEST_STOP_AT", "layer-created:2"}});
  wait_stopped(first);
  const auto held = contents(dir / "out");
  check_error(run(dir, seal_args(dir, dir / "out")), (dir / "out").string() + " " + holder(first));
  CHECK(contents(dir / "out") == held);
  check_error(run(dir, seal_args(dir, dir / "out", kOtherTicket, {"--force"})),
              (dir / "out").string() + " " + holder(first));
  check_error(run(dir, {"pc2", "--sealed", (dir / "out").string(), "--force"}),
              (dir / "out").string() + " " + holder(first));
  CHECK(contents(dir / "out") == held);

  ::kill(first, SIGCONT);
  const outcome done = finish(dir, first);
  INFO(done.err);
  CHECK(done.status == 0);
  check_same_seal(dir / "out", dir / "whole");
}

TEST_CASE("seal --force: a second seal --force is refused, and the previous seal and its PC2 stay until the first commits",
          "[reliability][seal][writers]") {
  // Before: both failed, the previous seal's PC2 files were gone and seal.json's MAC
  // verified over a layer 1 of the other run.
  temp_dir dir;
  write_sector_data(dir);
  for (const char* out : {"out", "whole"}) {
    REQUIRE(run(dir, seal_args(dir, dir / out, kOtherTicket)).status == 0);
    REQUIRE(run(dir, {"pc2", "--sealed", (dir / out).string()}).status == 0);
  }
  const auto previous = contents(dir / "out");
  REQUIRE(previous.count("sc-02-data-tree-r-last.dat") == 1);

  const pid_t first =
      launch(dir, seal_args(dir, dir / "out", kTicket, {"--force"}), {{"POREPLAB_TEST_STOP_AT", "manifest-written"}});
  wait_stopped(first);
  const auto held = contents(dir / "out");
  check_error(run(dir, seal_args(dir, dir / "out", kTicket, {"--force"})), (dir / "out").string() + " " + holder(first));
  CHECK(contents(dir / "out") == held);
  for (const auto& [name, bytes] : previous) {
    INFO(name);
    CHECK(held.at(name) == bytes);  // the previous seal, whole, until the first one's commit
  }
  ::kill(first, SIGCONT);
  const outcome done = finish(dir, first);
  INFO(done.err);
  CHECK(done.status == 0);
  REQUIRE(run(dir, seal_args(dir, dir / "whole", kTicket, {"--force"})).status == 0);
  check_same_seal(dir / "out", dir / "whole");
  CHECK_FALSE(fs::exists(dir / "out" / "sc-02-data-tree-r-last.dat"));
}

TEST_CASE("pc2 and unseal: refused while another process holds their output, which they leave as it was",
          "[reliability][seal][writers]") {
  temp_dir dir;
  write_sector_data(dir);
  REQUIRE(run(dir, seal_args(dir, dir / "sealed")).status == 0);
  const auto sealed = contents(dir / "sealed");
  {
    // This process as the other writer: the lock is the same flock on the same file.
    writer_lock held(dir / "sealed" / kLockFile, [](const std::string&) { return std::string("held"); },
                     writer_lock::file_after::removed);
    auto with_lock = sealed;
    with_lock[kLockFile] = std::to_string(::getpid()) + "\n";
    check_error(run(dir, {"pc2", "--sealed", (dir / "sealed").string()}),
                (dir / "sealed").string() + " " + holder(::getpid()));
    check_error(run(dir, seal_args(dir, dir / "sealed", kTicket, {"--force"})),
                (dir / "sealed").string() + " " + holder(::getpid()));
    CHECK(contents(dir / "sealed") == with_lock);
  }
  CHECK(contents(dir / "sealed") == sealed);  // the lock file goes with the lock
  {
    writer_lock held(dir / "back.bin.lock", [](const std::string&) { return std::string("held"); },
                     writer_lock::file_after::removed);
    check_error(run(dir, {"unseal", "--sealed", (dir / "sealed").string(), "--out", (dir / "back.bin").string()}),
                (dir / "back.bin").string() + " " + holder(::getpid()));
    CHECK_FALSE(fs::exists(dir / "back.bin"));
  }
  CHECK_FALSE(fs::exists(dir / "back.bin.lock"));
  const outcome u = run(dir, {"unseal", "--sealed", (dir / "sealed").string(), "--out", (dir / "back.bin").string()});
  INFO(u.err);
  CHECK(u.status == 0);
  CHECK(test::read_text(dir / "back.bin") == test::read_text(dir / "data.bin"));
  CHECK_FALSE(fs::exists(dir / "back.bin.lock"));
  // A lock file a killed writer left is no lock: the next one takes it and removes it.
  test::write_text(dir / "sealed" / kLockFile, "999999\n");
  const outcome p = run(dir, {"pc2", "--sealed", (dir / "sealed").string()});
  INFO(p.err);
  CHECK(p.status == 0);
  CHECK_FALSE(fs::exists(dir / "sealed" / kLockFile));
}

// ---- resume at every instant ----

namespace {

// Every crash point of a fresh 2-layer seal, with how many times it is reached: tree_d, the
// state file staged and renamed (tree_d's, each layer's, the committing one), each layer
// created and labeled, the replica, seal.json, the commit's four renames and seal.json's.
std::vector<std::string> crash_specs() {
  const std::map<crash_point, int> reached = {
      {crash_point::tree_d_written, 1},  {crash_point::state_staged, 4},     {crash_point::state_written, 4},
      {crash_point::layer_created, 2},   {crash_point::layer_labeled, 2},    {crash_point::replica_written, 1},
      {crash_point::manifest_written, 1}, {crash_point::file_renamed, 4},    {crash_point::manifest_renamed, 1}};
  std::vector<std::string> specs;
  for (const auto& e : kCrashPoints.entries)
    for (int n = 1; n <= reached.at(e.value); ++n) specs.push_back(std::string(e.name) + ":" + std::to_string(n));
  return specs;
}

}  // namespace

TEST_CASE("seal killed at each crash point: the same command resumes and writes an uninterrupted seal's files",
          "[reliability][seal][resume][writers]") {
  temp_dir dir;
  write_sector_data(dir);
  // In memory; bounded with the previous layer in memory (4x the sector does not fit
  // 11000 bytes, the layer and its margin do); bounded with it left to the page cache.
  const std::vector<std::pair<std::string, std::vector<std::string>>> modes = {
      {"in memory", {}}, {"bounded, resident", {"--memory-limit", "11000"}}, {"bounded", {"--memory-limit", "4096"}}};
  for (const auto& [mode, flags] : modes) {
    const fs::path whole = dir / ("whole " + mode);
    REQUIRE(run(dir, seal_args(dir, whole, kTicket, flags)).status == 0);
    for (const std::string& spec : crash_specs()) {
      INFO(mode << ", killed at " << spec);
      const fs::path out = dir / "out";
      fs::remove_all(out);
      const outcome killed = run(dir, seal_args(dir, out, kTicket, flags), {{"POREPLAB_TEST_KILL_AT", spec}});
      INFO(killed.err);
      REQUIRE(killed.status == 128 + SIGKILL);  // the point was reached
      std::size_t recorded = 0;
      if (fs::exists(out / seal::kSealState))
        recorded = json::parse(test::read_text(out / seal::kSealState)).at("layers").size();
      const outcome again = run(dir, seal_args(dir, out, kTicket, flags));
      INFO(again.err);
      REQUIRE(again.status == 0);
      if (recorded > 0) CHECK(again.err.find("resuming after layer " + std::to_string(recorded)) != std::string::npos);
      check_same_seal(out, whole);
    }
  }
}

TEST_CASE("seal --force over a previous seal killed at each crash point: the same command writes the new seal",
          "[reliability][seal][resume][writers]") {
  temp_dir dir;
  write_sector_data(dir);
  REQUIRE(run(dir, seal_args(dir, dir / "whole")).status == 0);
  for (const std::string& spec : crash_specs()) {
    INFO("killed at " << spec);
    const fs::path out = dir / "out";
    fs::remove_all(out);
    REQUIRE(run(dir, seal_args(dir, out, kOtherTicket)).status == 0);
    const outcome killed = run(dir, seal_args(dir, out, kTicket, {"--force"}), {{"POREPLAB_TEST_KILL_AT", spec}});
    REQUIRE(killed.status == 128 + SIGKILL);
    const outcome again = run(dir, seal_args(dir, out, kTicket, {"--force"}));
    INFO(again.err);
    REQUIRE(again.status == 0);
    check_same_seal(out, dir / "whole");
  }
}

TEST_CASE("seal: a state file beside a complete seal.json that it does not say it committed is refused as before",
          "[reliability][seal][resume][writers]") {
  temp_dir dir;
  write_sector_data(dir);
  REQUIRE(run(dir, seal_args(dir, dir / "out")).status == 0);
  // Killed after seal.json's rename: the committing state stays, and the same command
  // finishes; a state that is not committing beside it is a complete seal's neighbour.
  REQUIRE(run(dir, seal_args(dir, dir / "again"), {{"POREPLAB_TEST_KILL_AT", "manifest-renamed"}}).status ==
          128 + SIGKILL);
  json state = json::parse(test::read_text(dir / "again" / seal::kSealState));
  CHECK(state.at("committing") == true);
  state.erase("committing");
  state.erase("mac");
  test::write_text(dir / "again" / seal::kSealState, state.dump());
  const auto before = results_in(dir / "again");
  check_error(run(dir, seal_args(dir, dir / "again")), (dir / "again").string() + ": not empty (holds ");
  CHECK(results_in(dir / "again") == before);
}

TEST_CASE("crash points: an unknown point or count is one error naming the variable", "[reliability][seal][writers]") {
  temp_dir dir;
  write_sector_data(dir);
  check_error(run(dir, seal_args(dir, dir / "out"), {{"POREPLAB_TEST_KILL_AT", "layer-done"}}),
              "POREPLAB_TEST_KILL_AT: unknown crash point 'layer-done' (valid: tree-d-written, ");
  CHECK_FALSE(fs::exists(dir / "out"));
  check_error(run(dir, seal_args(dir, dir / "out"), {{"POREPLAB_TEST_STOP_AT", "layer-created:0"}}),
              "POREPLAB_TEST_STOP_AT: '0' is not a count from 1");
  CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("seal: a resume refused before its work keeps the state and the files it records",
          "[reliability][seal][resume][writers]") {
  temp_dir dir;
  write_sector_data(dir);
  REQUIRE(run(dir, seal_args(dir, dir / "whole")).status == 0);
  REQUIRE(run(dir, seal_args(dir, dir / "out"), {{"POREPLAB_TEST_KILL_AT", "layer-created:2"}}).status ==
          128 + SIGKILL);
  fs::create_directory(dir / "out" / seal::kReplicaFile);
  const auto before = results_in(dir / "out");
  check_error(run(dir, seal_args(dir, dir / "out")), (dir / "out" / seal::kReplicaFile).string() + ": is a directory");
  CHECK(results_in(dir / "out") == before);  // before: seal-state.json removed
  fs::remove(dir / "out" / seal::kReplicaFile);
  const outcome again = run(dir, seal_args(dir, dir / "out"));
  INFO(again.err);
  REQUIRE(again.status == 0);
  CHECK(again.err.find("resuming after layer 1") != std::string::npos);
  check_same_seal(dir / "out", dir / "whole");
}
