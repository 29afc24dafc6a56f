// What poreplab writes and what it replaces (issue 63): --force replaces only a file
// poreplab could have written, a file size limit is an error with everything staged
// removed, numbers from flags and files are refused outside what they can be, doctor
// judges the parent cache's path as seal does, and errors name what happened.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "poreplab/hash/sha256.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/seal/seal.hpp"
#include "poreplab/seal/vector_file.hpp"
#include "records/schema.hpp"
#include "runner/kinds.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace poreplab;

namespace {

using test::temp_dir;

using test::quote;

using result = test::run_result;

result sh(const temp_dir& dir, const std::string& cmd, int timeout_s = 120) {
  return test::run_shell_timed(dir, cmd, timeout_s);
}
std::string cli(const std::string& args) { return test::poreplab_command(args); }

// `poreplab ARGS` under a file size limit of 1 KiB (bash counts ulimit -f in KiB), its
// stdout and stderr through pipes (the limit holds for every file the process writes) and
// its exit status kept (pipefail).
std::string limited(const std::string& args) {
  return "bash -o pipefail -c " +
         quote("{ (ulimit -f 1 && exec " + cli(args) + ") 2>&1 1>&3 3>&- | cat >&2; } 3>&1 | cat");
}

// One line on stderr, "poreplab: error: " first, exit status 1, and each of `words` in it.
void check_error(const result& r, std::initializer_list<std::string> words) {
  INFO("status " << r.status << ", stderr: " << r.err);
  test::check_refused(r, words);
  CHECK(r.err.rfind("poreplab: error: ", 0) == 0);
  for (const char* raw : {"std::", "filesystem error", ".tmp", "unknown reason"}) CHECK(r.err.find(raw) == std::string::npos);
}

// Every name under `dir` (recursively) that holds ".tmp": staging files left behind.
std::vector<std::string> staging_left(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".tmp") != std::string::npos) out.push_back(e.path().string());
  return out;
}

bool fifo_at(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

bool char_device_at(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

constexpr const char* kProverId = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20";
constexpr const char* kTicket = "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";

std::string seal_args(const fs::path& data, const fs::path& out, const fs::path& cache) {
  return "seal --proof StackedDrg2KiBV1_1 --prover-id " + std::string(kProverId) + " --sector-id 7 --ticket " + kTicket +
         " --data " + quote(data) + " --out " + quote(out) + " --parent-cache " + quote(cache);
}

// A 2KiB sector's data in dir/data.bin.
void write_data(const temp_dir& dir) {
  const auto d = seal::generate_data("pattern37", 2048);
  test::write_text(dir / "data.bin", std::string(d.begin(), d.end()));
}

// A sealed 2KiB sector in dir/sealed (its data dir/data.bin, its parent cache dir/cache),
// with the machine key in dir/state.
void seal_2kib(const temp_dir& dir) {
  write_data(dir);
  const result r = sh(dir, cli(seal_args(dir / "data.bin", dir / "sealed", dir / "cache")));
  INFO(r.err);
  REQUIRE(r.status == 0);
}

// A result directory dir/r that report verdict, report amax and compare read.
void write_results(const temp_dir& dir) {
  fs::create_directories(dir / "r");
  const json header = {{"type", "header"}, {"run", 0}, {"environment", {{"cpu", {{"model", "Test CPU"}, {"logical_cores", 2}}}}}};
  const json label = {{"type", "point"},
                      {"run", 0},
                      {"experiment", "e"},
                      {"kind", "label"},
                      {"status", "ok"},
                      {"axes",
                       {{"backend", "cpu"}, {"variant", "sdr"}, {"hash", "sha256"}, {"sector_size", 2048},
                        {"sectors", 1}, {"layers", 2}, {"threads", 1}}},
                      {"metric", "ns_per_node_layer"},
                      {"samples", {800, 810, 790}},
                      {"stats", {{"median", 800}, {"min", 790}, {"max", 810}, {"n", 3}}},
                      {"rates", {{"labels_per_s", 1.25e6}}},
                      {"context", {{"scheme", "sdr/sha256"}, {"device", "Test CPU"}}}};
  test::write_text(dir / "r" / "records.jsonl", header.dump() + "\n" + label.dump() + "\n");
}

fs::path machine_file() { return fs::path(POREPLAB_SOURCE_DIR) / "experiments" / "machines" / "supraseal-5975wx-12nvme.json"; }

// The commands that write a file the user names, each with `out` as that file (compare
// writes out's directory's compare.md).
std::vector<std::pair<std::string, std::string>> output_commands(const temp_dir& dir, const fs::path& out) {
  return {{"plan", "plan --machine " + quote(machine_file()) + " -o " + quote(out) + " --force"},
          {"report verdict", "report verdict " + quote(dir / "r") + " -o " + quote(out) + " --force"},
          {"report amax", "report amax " + quote(dir / "r") + " -o " + quote(out) + " --force"},
          {"unseal", "unseal --sealed " + quote(dir / "sealed") + " --out " + quote(out) + " --force"},
          {"compare", "compare " + quote(dir / "r") + " " + quote(dir / "r") + " -o " + quote(out.parent_path()) + " --force"}};
}

}  // namespace

// ---- A. --force replaces only what poreplab could have written ----

TEST_CASE("an output (-o) with --force: a FIFO at the output's name is refused by plan, report, unseal and compare, and stays",
          "[reliability][outputs]") {
  temp_dir dir;
  write_results(dir);
  seal_2kib(dir);
  fs::create_directories(dir / "o");
  const fs::path fifo = dir / "o" / "compare.md";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (const auto& [name, args] : output_commands(dir, fifo)) {
    INFO(name);
    // Before: renamed a regular file over the FIFO.
    check_error(sh(dir, cli(args), 60), {fifo.string() + ": is a FIFO, not an output file poreplab replaces", "even with --force"});
    CHECK(fifo_at(fifo));
    // Without --force: the same refusal, not "already exists".
    std::string plain = args.substr(0, args.size() - std::string(" --force").size());
    check_error(sh(dir, cli(plain), 60), {fifo.string() + ": is a FIFO"});
    CHECK(fifo_at(fifo));
  }
  CHECK(staging_left(dir.path).empty());
}

TEST_CASE("an output (-o) with --force: -o /dev/null is refused and /dev/null stays a character device", "[reliability][outputs]") {
  temp_dir dir;
  write_results(dir);
  seal_2kib(dir);
  REQUIRE(char_device_at("/dev/null"));
  for (const auto& [name, args] : output_commands(dir, "/dev/null")) {
    if (name == "compare") continue;  // compare names a directory: below, with a device in it
    INFO(name);
    check_error(sh(dir, cli(args), 60), {"/dev/null: is a character device, not an output file poreplab replaces", "even with --force"});
    REQUIRE(char_device_at("/dev/null"));
  }
  // A device node at compare's file name (made by root only).
  fs::create_directories(dir / "o");
  if (::mknod((dir / "o" / "compare.md").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    WARN("cannot make a device node here (needs root); compare's case skipped");
    return;
  }
  check_error(sh(dir, cli(output_commands(dir, dir / "o" / "compare.md").back().second), 60),
              {(dir / "o" / "compare.md").string() + ": is a character device"});
  CHECK(char_device_at(dir / "o" / "compare.md"));
}

TEST_CASE("an output (-o) with --force: a symbolic link at the output's name is replaced, never written through", "[reliability][outputs]") {
  temp_dir dir;
  write_results(dir);
  test::write_text(dir / "target.md", "not poreplab's");
  fs::create_symlink(dir / "target.md", dir / "link.md");
  const result r = sh(dir, cli("report verdict " + quote(dir / "r") + " -o " + quote(dir / "link.md") + " --force"));
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(fs::is_regular_file(fs::symlink_status(dir / "link.md")));
  CHECK(test::read_text(dir / "link.md").rfind("#", 0) == 0);
  CHECK(test::read_text(dir / "target.md") == "not poreplab's");
}

// ---- B. a file size limit is an error, not SIGXFSZ ----

TEST_CASE("file size limit: seal, unseal and pc2 fail with one line, leave no staging file, and rerun",
          "[reliability][outputs][seal]") {
  temp_dir dir;
  write_data(dir);
  const std::string seal = seal_args(dir / "data.bin", dir / "sealed", dir / "cache");
  // Before: killed by SIGXFSZ (exit 153), a .tmp left that made the rerun refuse "not empty".
  check_error(sh(dir, limited(seal)), {"file size limit"});
  CHECK(staging_left(dir.path).empty());
  // The parent cache now, so that the seal's own files meet the limit.
  REQUIRE(sh(dir, cli("parent-cache generate --proof StackedDrg2KiBV1_1 --dir " + quote(dir / "cache"))).status == 0);
  check_error(sh(dir, limited(seal)), {"file size limit"});
  CHECK(staging_left(dir.path).empty());
  const result again = sh(dir, cli(seal));
  INFO(again.err);
  REQUIRE(again.status == 0);

  // unseal: before, killed with OUT.tmp.PID left.
  check_error(sh(dir, limited("unseal --sealed " + quote(dir / "sealed") + " --out " + quote(dir / "back.bin"))),
              {(dir / "back.bin").string(), "file size limit"});
  CHECK_FALSE(fs::exists(dir / "back.bin"));
  CHECK(staging_left(dir.path).empty());
  REQUIRE(sh(dir, cli("unseal --sealed " + quote(dir / "sealed") + " --out " + quote(dir / "back.bin"))).status == 0);
  CHECK(test::read_text(dir / "back.bin") == test::read_text(dir / "data.bin"));

  const std::string manifest = test::read_text(dir / "sealed" / "seal.json");
  const result pc2 = sh(dir, limited("pc2 --sealed " + quote(dir / "sealed")));
  check_error(pc2, {"file size limit"});
  CHECK(test::read_text(dir / "sealed" / "seal.json") == manifest);
  CHECK(staging_left(dir.path).empty());
  const result pc2_again = sh(dir, cli("pc2 --sealed " + quote(dir / "sealed")));
  INFO(pc2_again.err);
  CHECK(pc2_again.status == 0);
}

TEST_CASE("file size limit: doctor, bench disk, bench disk-label and mmap-file windows end in an error, not SIGXFSZ",
          "[reliability][outputs]") {
  temp_dir dir;
  fs::create_directories(dir / "d");
  // doctor reports the disk test's failure as a finding.
  const result doctor = sh(dir, limited("doctor --for 2KiB --json --disk-seconds 0.3 --layer-dir " + quote(dir / "d") +
                                        " --parent-cache " + quote(dir / "cache")));
  INFO(doctor.err);
  CHECK((doctor.status == 0 || doctor.status == 1 || doctor.status == 2));
  CHECK(doctor.out.find("File too large") != std::string::npos);
  for (const auto& args :
       {"bench disk --seconds 0.2 --file-size 64KiB --buffered --dir " + quote(dir / "d"),
        "bench disk-label --sector-size 64KiB --sectors 1 --layers 2 --window-nodes 0 --samples 1 --probe-seconds 0 --buffered "
        "--layer-dir " + quote(dir / "d"),
        "bench label --sector-size 1MiB --window-nodes 64 --window-backing mmap-file --samples 1 --window-dir " +
            quote(dir / "d")}) {
    INFO(args);
    const result r = sh(dir, limited(args));
    INFO(r.out);
    check_error(r, {});
    CHECK(r.status != 128 + SIGXFSZ);
  }
  CHECK(fs::is_empty(dir / "d"));
}

TEST_CASE("seal: the staging files of a killed seal are cleaned by the next run, not a reason to refuse",
          "[reliability][outputs][seal]") {
  temp_dir dir;
  write_data(dir);
  fs::create_directories(dir / "sealed");
  test::write_text(dir / "sealed" / "replica.dat.tmp", "left by a kill");
  test::write_text(dir / "sealed" / "sc-02-data-layer-1.dat.tmp", "left by a kill");
  const result r = sh(dir, cli(seal_args(dir / "data.bin", dir / "sealed", dir / "cache")));
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(staging_left(dir / "sealed").empty());
  // Anything else there is still not the seal's to remove.
  fs::create_directories(dir / "other");
  test::write_text(dir / "other" / "notes.txt.tmp", "mine");
  const result other = sh(dir, cli(seal_args(dir / "data.bin", dir / "other", dir / "cache")));
  CHECK(other.status == 1);
  CHECK(other.err.find("not empty (holds notes.txt.tmp)") != std::string::npos);
  CHECK(test::read_text(dir / "other" / "notes.txt.tmp") == "mine");
}

// ---- C. numbers that passed their checks ----

TEST_CASE("float flags refuse NaN and infinities, range-checked ones too", "[reliability][outputs][cli]") {
  temp_dir dir;
  for (const std::string value : {"nan", "NaN", "inf", "-inf", "infinity"}) {
    const std::string quoted = quote(value);  // as the error quotes it: 'nan'
    for (const std::string flag : {"doctor --for 2KiB --disk-seconds ", "tune --check --tolerance ",
                                   "bench disk-label --probe-seconds "}) {
      INFO(flag << value);
      // CLI11's range names an infinity itself; NaN passes any range and is named here.
      check_error(sh(dir, cli(flag + quoted)), {value});
    }
  }
}

TEST_CASE("bench disk-label: a probe of 1e300 s and a node cache of 2^64 - 1 rows are refused, not wrapped",
          "[reliability][outputs]") {
  temp_dir dir;
  const std::string common = "bench disk-label --sector-size 64KiB --sectors 1 --layers 2 --window-nodes 0 --samples 1 "
                             "--buffered --layer-dir " + quote(dir.path);
  // Before: the probe's end time overflowed, its rate was reported and the exit was 0.
  check_error(sh(dir, cli(common + " --probe-seconds 1e300")), {"1e+300 s is not a duration from 0 to 1e7 s"});
  // Before: cache + lookahead wrapped to a small ring that passed the memory check.
  check_error(sh(dir, cli(common + " --probe-seconds 0 --cache-nodes 18446744073709551615")),
              {"node cache rows", "does not fit in 64 bits"});
  CHECK(fs::is_empty(dir.path));
}

TEST_CASE("machine files: absurd positive figures are refused naming the file and the field",
          "[reliability][outputs][plan]") {
  temp_dir dir;
  const json rig = test::load_json(machine_file());
  const std::vector<std::pair<std::string, json>> cases = {
      {"/pc1_hashing/cycles_per_node", 5e-324},
      {"/pc1_hashing/one_sector_cycles_per_node", 1e308},
      {"/disks/0/random_read_iops", 1e-300},
      {"/disks/0/capacity", 1},
      {"/power_watts", 1e308},
      {"/price_usd", 1e-300},
      {"/pc1_record/seconds", 1e-300},
      {"/pc1_record/seconds", 1e300},
      {"/cpu/all_core_ghz", 1e-300},
      {"/ram", 1024},
  };
  for (const auto& [ptr, value] : cases) {
    INFO(ptr << " = " << value.dump());
    json m = rig;
    m[json::json_pointer(ptr)] = value;
    test::write_text(dir / "m.json", m.dump());
    // Before: "inf" sectors an hour, exit 0.
    check_error(sh(dir, cli("plan --machine " + quote(dir / "m.json"))), {(dir / "m.json").string() + ": " + ptr + ": expected"});
  }
  test::write_text(dir / "m.json", rig.dump());
  CHECK(sh(dir, cli("plan --machine " + quote(dir / "m.json"))).status == 0);
}

TEST_CASE("records: sample timings outside what a run can measure are refused naming file and line",
          "[reliability][outputs][records]") {
  temp_dir dir;
  write_results(dir);
  const std::string lines = test::read_text(dir / "r" / "records.jsonl");
  const auto header_end = lines.find('\n') + 1;
  for (const double bad : {5e-324, 1e308}) {
    INFO(bad);
    json point = json::parse(lines.substr(header_end));
    point["samples"][1] = bad;
    test::write_text(dir / "r" / "records.jsonl", lines.substr(0, header_end) + point.dump() + "\n");
    // Before: verdicts of "-100%".
    check_error(sh(dir, cli("report verdict " + quote(dir / "r"))),
                {(dir / "r" / "records.jsonl").string() + ":2", "/samples/1", "not a timing a run can measure"});
  }
}

// ---- D. doctor and seal judge the parent cache's path alike ----

TEST_CASE("doctor fails what seal refuses at the parent cache's path: a FIFO, directory or device there, a file as the directory",
          "[reliability][outputs][doctor]") {
  temp_dir dir;
  write_data(dir);
  const auto doctor = [&](const fs::path& cache) {
    const result r = sh(dir, cli("doctor --for 2KiB --json --disk-seconds 0 --parent-cache " + quote(cache)));
    INFO(r.err);
    json finding;
    const json report = json::parse(r.out);
    for (const auto& c : report["checks"])
      if (c["id"] == "storage.parent_cache") finding = c;
    return finding;
  };
  const fs::path cache = dir / "cache";
  fs::create_directories(cache);
  const json absent = doctor(cache);
  REQUIRE(absent["status"] == "warn");
  const fs::path file = absent["values"]["file"].get<std::string>();
  REQUIRE(file.parent_path() == cache);
  const auto place = [&](const std::string& what) {
    fs::remove_all(file);
    if (what == "fifo") REQUIRE(::mkfifo(file.c_str(), 0600) == 0);
    if (what == "directory") fs::create_directories(file);
    if (what == "device") fs::create_symlink("/dev/null", file);
  };
  for (const std::string what : {"fifo", "directory", "device"}) {
    INFO(what);
    place(what);
    const result seal = sh(dir, cli(seal_args(dir / "data.bin", dir / ("out-" + what), cache)), 60);
    check_error(seal, {file.string() + ": is a"});
    // Before: "warn: the first seal generates it".
    const json f = doctor(cache);
    CHECK(f["status"] == "fail");
    CHECK(f["found"] == seal.err.substr(std::string("poreplab: error: ").size(),
                                        seal.err.size() - std::string("poreplab: error: ").size() - 1));
  }
  fs::remove_all(file);
  test::write_text(dir / "a-file", "x");
  const result seal = sh(dir, cli(seal_args(dir / "data.bin", dir / "out-file", dir / "a-file")), 60);
  check_error(seal, {(dir / "a-file").string() + ": exists and is not a directory"});
  const json f = doctor(dir / "a-file");
  CHECK(f["status"] == "fail");
  CHECK(f["found"] == seal.err.substr(std::string("poreplab: error: ").size(),
                                      seal.err.size() - std::string("poreplab: error: ").size() - 1));
}

// ---- E. errors that say what happened ----

TEST_CASE("errors name what happened: a missing -o directory, a directory that cannot be made, a read-only filesystem",
          "[reliability][outputs]") {
  temp_dir dir;
  write_results(dir);
  // Before: named "no/such/p.md.tmp.<pid>".
  check_error(sh(dir, "cd " + quote(dir.path) + " && " + cli("report verdict r -o no/such/p.md")),
              {"no/such: no such directory"});
  // Before: "cannot create the directory: unknown reason" (the reason reset by the checks after).
  check_error(sh(dir, cli("parent-cache generate --proof StackedDrg2KiBV1_1 --dir /proc/poreplab-no/cache")),
              {"/proc/poreplab-no/cache: cannot create the directory: "});

  // A read-only filesystem, in a private mount namespace (needs root and unshare).
  fs::create_directories(dir / "ro");
  const std::string mount = "mount -t tmpfs -o ro,size=64k tmpfs " + quote(dir / "ro");
  if (sh(dir, "unshare -m sh -c " + quote(mount)).status != 0) {
    WARN("cannot mount a tmpfs in a private mount namespace here (needs root and unshare); skipped");
    return;
  }
  // Before: "cannot remove what is there: Read-only file system" for a name never there.
  const result ro = sh(dir, "unshare -m sh -c " + quote(mount + " && exec " + cli("report verdict " + quote(dir / "r") + " -o " +
                                                                              quote(dir / "ro" / "v.md"))));
  check_error(ro, {(dir / "ro").string() + ": cannot create a file there: Read-only file system"});
  CHECK(ro.err.find("cannot remove") == std::string::npos);
  // Before: doctor advised `sudo chown` for a directory no owner can write.
  const result doctor = sh(dir, "unshare -m sh -c " + quote(mount + " && exec " + cli("doctor --for 2KiB --disk-seconds 0 "
                                                                                     "--layer-dir " + quote(dir / "ro"))));
  INFO(doctor.out);
  CHECK(doctor.out.find("read-only filesystem") != std::string::npos);
  CHECK(doctor.out.find("chown") == std::string::npos);
}

TEST_CASE("disk kind: a temporary directory that is not there is named in the tool's words", "[reliability][outputs][runner]") {
  temp_dir dir;
  const test::scoped_env tmp("TMPDIR", (dir / "missing").c_str());
  const auto& kinds = runner::kinds();
  const auto disk = std::find_if(kinds.begin(), kinds.end(), [](const runner::kind_spec& k) {
    return k.name == records::kind_name(records::record_kind::disk);
  });
  REQUIRE(disk != kinds.end());
  std::string what;
  try {
    (void)disk->unavailable(json{{"disk_dir", "tmp"}});
  } catch (const std::exception& e) {
    what = e.what();
  }
  // Before: "filesystem error: temp_directory_path: Not a directory [...]".
  CHECK(what.find("the temporary directory") != std::string::npos);
  CHECK(what.find("filesystem error") == std::string::npos);
}

TEST_CASE("unseal: the first layer whose re-labeling fails is named, not a later one that read it",
          "[reliability][outputs][seal]") {
  temp_dir dir;
  seal_2kib(dir);
  // Layer 1 damaged, its digest in seal.json rewritten (so the MAC no longer verifies).
  const fs::path layer1 = dir / "sealed" / "sc-02-data-layer-1.dat";
  std::string bytes = test::read_text(layer1);
  for (std::size_t node = 0; node < bytes.size() / 32; node += 3) bytes[32 * node] ^= 1;
  test::write_text(layer1, bytes);
  json m = test::load_json(dir / "sealed" / "seal.json");
  std::uint8_t d[32];
  sha256::digest(d, bytes.data(), bytes.size());
  m["files"]["sc-02-data-layer-1.dat"]["sha256"] = to_hex(d, 32);
  test::write_text(dir / "sealed" / "seal.json", m.dump(2));
  // Before: "sc-02-data-layer-2.dat: ... labels re-labeled from their parents differ".
  const result r = sh(dir, cli("unseal --sealed " + quote(dir / "sealed") + " --out " + quote(dir / "back.bin")));
  check_error(r, {layer1.string() + ": ", "re-labeled from their parents differ"});
  CHECK(r.err.find("layer-2") == std::string::npos);
  CHECK_FALSE(fs::exists(dir / "back.bin"));
}

TEST_CASE("unseal and -o files: a killed writer's <name>.tmp.<pid> is removed by the next run", "[reliability][outputs]") {
  temp_dir dir;
  seal_2kib(dir);
  write_results(dir);
  // The id of a process that has ended.
  const std::string gone = sh(dir, "sh -c 'echo $$'").out;
  const std::string pid = gone.substr(0, gone.find('\n'));
  REQUIRE_FALSE(pid.empty());
  test::write_text(dir / ("back.bin.tmp." + pid), "left by a kill");
  test::write_text(dir / ("v.md.tmp." + pid), "left by a kill");
  test::write_text(dir / "v.md.tmp.x", "not a staging name");
  REQUIRE(sh(dir, cli("unseal --sealed " + quote(dir / "sealed") + " --out " + quote(dir / "back.bin"))).status == 0);
  REQUIRE(sh(dir, cli("report verdict " + quote(dir / "r") + " -o " + quote(dir / "v.md"))).status == 0);
  CHECK_FALSE(fs::exists(dir / ("back.bin.tmp." + pid)));
  CHECK_FALSE(fs::exists(dir / ("v.md.tmp." + pid)));
  CHECK(fs::exists(dir / "v.md.tmp.x"));
}

TEST_CASE("file size limit on a redirected stdout: an error, not a report cut short", "[reliability][outputs]") {
  temp_dir dir;
  // Before: killed by SIGXFSZ; with the signal ignored and no check, exit 0 with 1 KiB of the list.
  const result r = sh(dir, "bash -c " + quote("ulimit -f 1 && exec " + cli("run --list") + " >" + quote(dir / "out.txt")));
  check_error(r, {"standard output: write failed: File too large"});
}
