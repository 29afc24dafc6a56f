// Hostile input and hostile conditions: every case here once crashed, hung, lost results
// or printed a C++ library message. Each must now be one line "poreplab: error: <file,
// flag or JSON pointer>: <reason>", exit status 1, nothing half-written, and results
// already written left alone. One file, longer than most, so that the reproductions read
// in one place, in the order docs/reliability.md gives them.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "backends/backends.hpp"
#include "records/records.hpp"
#include "runner/config.hpp"
#include "runner/kinds.hpp"
#include "runner/runner.hpp"
#include "poreplab/checked.hpp"
#include "poreplab/graph/known_parent_caches.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/hash/hmac_sha256.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/machine_key.hpp"
#include "poreplab/sdr/mmap_layer_store.hpp"
#include "poreplab/sdr/pc2.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/seal/seal.hpp"
#include "poreplab/seal/vector_file.hpp"
#include "poreplab/unavailable.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace poreplab;

namespace {

using test::temp_dir;

using test::quote;
std::string slurp(const fs::path& p) { return test::read_text(p); }

void spit(const fs::path& p, const std::string& data) {
  std::ofstream out(p, std::ios::binary);
  out << data;
  REQUIRE(out.good());
}

void spit(const fs::path& p, const std::vector<std::uint8_t>& d) {
  spit(p, std::string(d.begin(), d.end()));
}

using result = test::run_result;

result sh(const temp_dir& dir, const std::string& cmd, int timeout_s = 120) {
  return test::run_shell_timed(dir, cmd, timeout_s);
}
std::string cli(const std::string& args) { return test::poreplab_command(args); }

// One line on stderr, "poreplab: error: " first, exit status 1, and each of `words` in it.
void check_error(const result& r, std::initializer_list<std::string> words) {
  INFO("status " << r.status << ", stderr: " << r.err);
  test::check_refused(r, words);
  CHECK(r.err.rfind("poreplab: error: ", 0) == 0);
  for (const char* raw : {"std::", "basic_", "stoull", "json.exception", "max_size()", "what()"})
    CHECK(r.err.find(raw) == std::string::npos);
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

const fs::path& vector_2kib() {
  static const fs::path p = test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json";
  return p;
}

constexpr const char* kProverId = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20";
constexpr const char* kTicket = "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";

// `poreplab seal` arguments for the 2KiB proof, data and output as given.
std::string seal_args(const fs::path& data, const fs::path& out) {
  return "seal --proof StackedDrg2KiBV1_1 --prover-id " + std::string(kProverId) + " --sector-id 7 --ticket " +
         kTicket + " --data " + quote(data) + " --out " + quote(out);
}

// A sealed 2KiB sector in dir/sealed, its data in dir/data.bin.
void seal_2kib(const temp_dir& dir) {
  spit(dir / "data.bin", seal::generate_data("pattern37", 2048));
  const result r = sh(dir, cli(seal_args(dir / "data.bin", dir / "sealed")));
  INFO(r.err);
  REQUIRE(r.status == 0);
}

json read_json(const fs::path& p) { return json::parse(slurp(p)); }

}  // namespace

// ---- sizes from files and flags: checked arithmetic ----

TEST_CASE("checked_mul and checked_add refuse what does not fit in 64 bits", "[reliability]") {
  CHECK(checked_mul(1ull << 58, 32, "x") == 1ull << 63);
  CHECK_THROWS_AS(checked_mul(1ull << 59, 32, "x"), size_overflow);
  CHECK_THROWS_WITH(checked_mul(1ull << 59, 32, "nodes"), Catch::Contains("nodes") && Catch::Contains("64 bits"));
  CHECK(checked_add(~0ull - 1, 1, "x") == ~0ull);
  CHECK_THROWS_AS(checked_add(~0ull, 1, "x"), size_overflow);
}

TEST_CASE("unseal: seal.json with nodes = 2^59 is an error, not a crash", "[reliability][seal]") {
  temp_dir dir;
  seal_2kib(dir);
  json m = read_json(dir / "sealed" / "seal.json");
  m["inputs"]["nodes"] = 1ull << 59;  // nodes * 32 wraps to 0
  spit(dir / "sealed" / "seal.json", m.dump(2));
  // An empty replica and last layer pass a wrapped size check; decoding 2^59 nodes
  // from them then read far past the buffers.
  spit(dir / "sealed" / "replica.dat", std::string());
  spit(dir / "sealed" / "sc-02-data-layer-2.dat", std::string());
  const result r = sh(dir, cli("unseal --sealed " + quote(dir / "sealed") + " --out " + quote(dir / "back.bin")));
  check_error(r, {"seal.json", "/inputs/nodes"});
  CHECK_FALSE(fs::exists(dir / "back.bin"));
}

TEST_CASE("vector verify: nodes = 2^59 is an error naming the field", "[reliability][vectors]") {
  temp_dir dir;
  json v = read_json(vector_2kib());
  v["nodes"] = 1ull << 59;
  v["sector_size"] = 0;
  spit(dir / "v.json", v.dump());
  const result r = sh(dir, cli("vector verify " + quote(dir / "v.json")));
  check_error(r, {"v.json", "nodes"});
}

// ---- configs: exact integers, finite numbers ----

namespace {

std::string label_config(const std::string& warmup, const std::string& threads) {
  return R"({"schema": "poreplab-experiments/1", "experiments": [{"name": "l", "kind": "label", "warmup": )" + warmup +
         R"(, "axes": {"backend": ["reference"], "threads": [)" + threads + "]}}]}";
}

}  // namespace

TEST_CASE("config: integers past 2^64, huge or fractional numbers are errors naming the JSON pointer",
          "[reliability][runner]") {
  for (const std::string v : {"18446744073709551616", "1e20", "1e300", "1.5", "-1", "-1.0", "4097"}) {
    INFO(v);
    if (v != "4097")
      CHECK_THROWS_WITH(runner::parse_config(label_config(v, "1"), "c.json"),
                        Catch::StartsWith("c.json: /experiments/0/warmup: expected an integer"));
    CHECK_THROWS_WITH(runner::parse_config(label_config("0", v), "c.json"),
                      Catch::StartsWith("c.json: /experiments/0/axes/threads/0: expected an integer"));
  }
  // A float that is an exact integer is that integer.
  const auto c = runner::parse_config(label_config("1e3", "2.0"), "c.json");
  CHECK(c.experiments[0].warmup == 1000);
  CHECK(c.experiments[0].axes.back().second == std::vector<json>{2});
  // A number the parser cannot hold names the file, not nlohmann's exception.
  CHECK_THROWS_WITH(runner::parse_config(label_config("1e400", "1"), "c.json"),
                    Catch::StartsWith("c.json: ") && !Catch::Contains("json.exception"));
  const std::string budget = R"({"schema": "poreplab-experiments/1", "experiments": [{"name": "l", "kind": "label",
      "time_budget_s": 1e400}]})";
  CHECK_THROWS_WITH(runner::parse_config(budget, "c.json"), Catch::StartsWith("c.json: "));
}

TEST_CASE("config --set: digits past 2^64 and non-finite budgets are errors naming the --set", "[reliability][runner]") {
  const auto c = runner::parse_config(label_config("0", "1"), "c.json");
  for (const std::string s : {"warmup=99999999999999999999", "samples=18446744073709551616",
                              "threads=99999999999999999999", "sector_size=99999999999999999999",
                              "time_budget_s=inf", "time_budget_s=nan", "time_budget_s=1e400", "time_budget_s=-inf"}) {
    INFO(s);
    CHECK_THROWS_WITH(runner::apply_overrides(c, {s}), Catch::Contains("--set " + s) && !Catch::Contains("stoull"));
  }
  CHECK_THROWS_WITH(runner::apply_overrides(c, {"threads=1.5"}), Catch::Contains("/axes/threads/0"));
  CHECK(runner::apply_overrides(c, {"time_budget_s=2.5"}).experiments[0].time_budget_s == 2.5);
}

TEST_CASE("merge: a recorded config that does not validate names the records file", "[reliability][runner]") {
  temp_dir dir;
  fs::create_directories(dir / "shard");
  json cfg = runner::parse_config(label_config("0", "1"), "c.json").normalized;
  cfg["experiments"][0]["time_budget_s"] = nullptr;  // what --set time_budget_s=inf used to record
  const json header = {{"type", "header"}, {"schema", "poreplab-records/1"}, {"run", 0}, {"config_digest", "x"},
                       {"config", cfg}, {"source", "c.json"}};
  spit(dir / "shard" / "records.jsonl", header.dump() + "\n");
  const result r = sh(dir, cli("merge --no-plots -o " + quote(dir / "merged") + " " + quote(dir / "shard")));
  check_error(r, {(dir / "shard" / "records.jsonl").string(), "/experiments/0/time_budget_s"});
  CHECK(r.err.find("c.json") == std::string::npos);
}

// ---- parent caches of production graphs: the published digests ----

TEST_CASE("parent cache: every V1 and V1_1 proof's cache is in the published manifest", "[reliability][graph]") {
  CHECK(graph::known_parent_caches().size() == 10);
  for (const auto& p : sdr::registered_proofs()) {
    if (p.api == sdr::api_version::v1_2_0) continue;  // synthetic / non-interactive: not in the manifest
    INFO(p.name);
    const auto g = graph::make_graph_params(sdr::porep_id_of(p).data(), p.api, p.sector_size / 32);
    const auto* k = graph::find_known_parent_cache(graph::parent_cache_file_name(g));
    REQUIRE(k != nullptr);
    CHECK(k->sector_size == p.sector_size);
    // Small enough to generate here: the published digest is that of our table (the
    // vectors check the 8MiB and 512MiB V1_1 ones).
    if (p.sector_size <= 2048) {
      const auto t = graph::parent_table::generate(g);
      const auto d = graph::parent_table_digest(t.words());
      CHECK(to_hex(d.data(), d.size()) == k->sha256);
    }
  }
}

TEST_CASE("parent cache: a production graph's file corrupted together with its sidecar is rejected",
          "[reliability][graph]") {
  temp_dir dir;
  const auto& p = sdr::find_registered_proof("StackedDrg2KiBV1_1");
  const auto g = graph::make_graph_params(sdr::porep_id_of(p).data(), p.api, 64);
  graph::load_or_create_parent_cache(dir / "cache", g);
  const fs::path file = graph::parent_cache_path(dir / "cache", g);
  const fs::path sidecar = graph::parent_cache_sidecar_path(file);
  std::string bytes = slurp(file);
  bytes[56 * 37 + 9] ^= 1;
  spit(file, bytes);
  std::uint8_t d[32];
  sha256::digest(d, bytes.data(), bytes.size());
  spit(sidecar, to_hex(d, 32) + "  " + file.filename().string() + "\n");  // agrees with the corrupt file
  CHECK_THROWS_WITH(graph::load_or_create_parent_cache(dir / "cache", g),
                    Catch::Contains(file.string()) && Catch::Contains("published digest"));
  CHECK_THROWS_WITH(graph::load_parent_cache(dir / "cache", g, graph::cache_check::digest),
                    Catch::Contains("published digest"));
  // Without a sidecar (as rust-fil-proofs leaves it) the published digest decides too.
  fs::remove(sidecar);
  CHECK_THROWS_WITH(graph::load_or_create_parent_cache(dir / "cache", g), Catch::Contains("published digest"));
  CHECK_FALSE(fs::exists(sidecar));
  // And `poreplab seal` with that cache refuses, leaving no output.
  spit(sidecar, to_hex(d, 32) + "  " + file.filename().string() + "\n");
  spit(dir / "data.bin", seal::generate_data("pattern37", 2048));
  const result r = sh(dir, cli(seal_args(dir / "data.bin", dir / "out") + " --parent-cache " + quote(dir / "cache")));
  check_error(r, {file.string(), "published digest"});
  CHECK(names_in(dir / "out").empty());
}

// ---- full disks ----

TEST_CASE("seal onto a full filesystem: one clear error, no SIGBUS, nothing left behind", "[reliability][seal]") {
  temp_dir dir;
  fs::create_directories(dir / "mnt");
  const std::string mount = "mount -t tmpfs -o size=64k tmpfs " + quote(dir / "mnt");
  if (sh(dir, "unshare -m sh -c " + quote(mount)).status != 0) {
    WARN("cannot mount a tmpfs in a private mount namespace here (needs root and unshare); skipped");
    return;
  }
  spit(dir / "data.bin", seal::generate_data("pattern37", 2048));
  // Inside a private mount namespace: seal onto the 64KiB tmpfs, then list what is left
  // there (the mount goes away with the namespace).
  const std::string inner = mount + " && { " + cli(seal_args(dir / "data.bin", dir / "mnt" / "s")) +
                            "; rc=$?; ls -A " + quote(dir / "mnt") + " >" + quote(dir / "left.txt") + "; exit $rc; }";
  const result r = sh(dir, "unshare -m sh -c " + quote(inner));
  check_error(r, {"no space left on " + (dir / "mnt" / "s").string(), "need", "have"});
  CHECK(slurp(dir / "left.txt").empty());
}

TEST_CASE("mmap layer store: a layer that cannot be allocated is an error before labeling", "[reliability][seal]") {
  temp_dir dir;
  struct rlimit old {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGXFSZ, &ignore, &previous);
  struct rlimit small = old;
  small.rlim_cur = 4096;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  std::string what;
  try {
    sdr::mmap_layer_store store(dir.path, 1 << 20, [](std::uint32_t l) { return "layer-" + std::to_string(l); });
    store.layer(1);
  } catch (const std::exception& e) {
    what = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::sigaction(SIGXFSZ, &previous, nullptr);
  CHECK_THAT(what, Catch::Contains((dir / "layer-1").string()) && Catch::Contains("file size limit"));
}

// ---- results already written: never silently replaced ----

TEST_CASE("seal --out: a non-empty directory is refused, --force replaces only a previous seal's files",
          "[reliability][seal]") {
  temp_dir dir;
  spit(dir / "data.bin", seal::generate_data("pattern37", 2048));
  const fs::path out = dir / "out";
  auto seal_layers = [&](int layers, int sector, const std::string& extra) {
    return cli("seal --porep-id 0500000000000000000000000000000000000000000000000000000000000000 --api-version 1.1.0"
               " --layers " + std::to_string(layers) + " --prover-id " + kProverId + " --sector-id " +
               std::to_string(sector) + " --ticket " + kTicket + " --data " + quote(dir / "data.bin") + " --out " +
               quote(out) + extra);
  };
  REQUIRE(sh(dir, seal_layers(11, 1, "")).status == 0);
  spit(out / "notes.txt", "not the seal's");
  const auto before = names_in(out);
  const std::string manifest = slurp(out / "seal.json");
  CHECK(before.size() == 15);

  check_error(sh(dir, seal_layers(2, 2, "")), {out.string(), "not empty", "--force"});
  CHECK(names_in(out) == before);
  CHECK(slurp(out / "seal.json") == manifest);

  // --force: layers 3..11 of the old seal and a crashed seal's .tmp go, notes.txt stays.
  spit(out / "sc-02-data-layer-12.dat.tmp", "left by a crash");
  const result r = sh(dir, seal_layers(2, 2, " --force"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(names_in(out) == std::vector<std::string>{"notes.txt", "replica.dat", "sc-02-data-layer-1.dat",
                                                  "sc-02-data-layer-2.dat", "sc-02-data-tree-d.dat", "seal.json"});
  CHECK(read_json(out / "seal.json")["inputs"]["layers"] == 2);
  CHECK(slurp(out / "notes.txt") == "not the seal's");
  REQUIRE(sh(dir, cli("unseal --sealed " + quote(out) + " --out " + quote(dir / "back.bin"))).status == 0);
  CHECK(slurp(dir / "back.bin") == slurp(dir / "data.bin"));

  // unseal does not replace an existing file either, unless --force.
  spit(dir / "back.bin", "mine");
  check_error(sh(dir, cli("unseal --sealed " + quote(out) + " --out " + quote(dir / "back.bin"))),
              {(dir / "back.bin").string(), "already exists", "--force"});
  CHECK(slurp(dir / "back.bin") == "mine");
  CHECK(sh(dir, cli("unseal --force --sealed " + quote(out) + " --out " + quote(dir / "back.bin"))).status == 0);
  CHECK(slurp(dir / "back.bin") == slurp(dir / "data.bin"));
}

// ---- inputs that are not regular files ----

TEST_CASE("seal --data: a FIFO, a device or a directory is refused at once", "[reliability][seal]") {
  temp_dir dir;
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  const std::pair<fs::path, std::string> cases[] = {
      {dir / "fifo", "is a FIFO"}, {"/dev/zero", "is a character device"}, {dir.path, "is a directory"}};
  for (const auto& [path, why] : cases) {
    INFO(path);
    // Before: blocked forever on the FIFO; std::bad_alloc on the directory.
    const result r = sh(dir, cli(seal_args(path, dir / "out")), 20);
    check_error(r, {path.string(), why});
    CHECK_FALSE(fs::exists(dir / "out"));
  }
}

TEST_CASE("unseal: a replica or layer file that is not a regular file is refused", "[reliability][seal]") {
  temp_dir dir;
  seal_2kib(dir);
  fs::remove(dir / "sealed" / "replica.dat");
  fs::create_directory(dir / "sealed" / "replica.dat");
  check_error(sh(dir, cli("unseal --sealed " + quote(dir / "sealed") + " --out " + quote(dir / "back.bin")), 20),
              {"replica.dat", "is a directory"});
  fs::remove(dir / "sealed" / "replica.dat");
  REQUIRE(::mkfifo((dir / "sealed" / "replica.dat").c_str(), 0600) == 0);
  check_error(sh(dir, cli("unseal --sealed " + quote(dir / "sealed") + " --out " + quote(dir / "back.bin")), 20),
              {"replica.dat", "is a FIFO"});
  CHECK_FALSE(fs::exists(dir / "back.bin"));
}

TEST_CASE("a directory given as a config or vector file is named, not a C++ library message", "[reliability]") {
  temp_dir dir;
  check_error(sh(dir, cli("vector verify " + quote(dir.path))), {dir.path.string(), "is a directory"});
  check_error(sh(dir, cli("run --list " + quote(dir.path))), {dir.path.string(), "is a directory"});
  // A pipe is a fine config (run <(...)).
  const std::string cfg = R"({"schema": "poreplab-experiments/1", "experiments": [{"name": "h", "kind": "hash"}]})";
  const result r = sh(dir, "printf '%s' " + quote(cfg) + " | " + cli("run --list /dev/stdin"));
  CHECK(r.status == 0);
  CHECK(r.out.find("[0] h") != std::string::npos);
}

// ---- layer counts ----

TEST_CASE("layers outside 1..64 in seal.json or --layers is an error, not a hang", "[reliability][seal]") {
  temp_dir dir;
  seal_2kib(dir);
  const std::string manifest = slurp(dir / "sealed" / "seal.json");
  for (const json& bad : {json(4294967295ull), json(-1), json(65), json(0), json("2"), json(2.5)}) {
    INFO(bad.dump());
    json m = json::parse(manifest);
    m["inputs"]["layers"] = bad;
    spit(dir / "sealed" / "seal.json", m.dump(2));
    for (const char* recompute : {"", " --recompute"}) {
      const result r = sh(dir, cli("unseal --sealed " + quote(dir / "sealed") + " --out " + quote(dir / "back.bin") +
                                   recompute), 30);
      check_error(r, {"seal.json", "/inputs/layers", "from 1 to 64"});
    }
  }
  const std::string seal_porep = "seal --porep-id 0500000000000000000000000000000000000000000000000000000000000000 "
                                 "--api-version 1.1.0 --prover-id " + std::string(kProverId) + " --sector-id 7 --ticket " +
                                 kTicket + " --data " + quote(dir / "data.bin") + " --out " + quote(dir / "out");
  for (const char* n : {"4294967295", "65"}) {
    check_error(sh(dir, cli(seal_porep + " --layers " + n), 30), {"--layers", n});
    CHECK_FALSE(fs::exists(dir / "out"));
    check_error(sh(dir, cli(std::string("bench label --backend reference --layers ") + n), 30), {"layers", n});
    check_error(sh(dir, cli(std::string("bench profile --layers ") + n), 30), {"layers", n});
  }
}

// ---- one run per results directory ----

TEST_CASE("a second run into the same -o is refused while the first holds it", "[reliability][runner]") {
  temp_dir dir;
  spit(dir / "c.json", R"({"schema": "poreplab-experiments/1", "experiments": [{"name": "h", "kind": "hash",
      "warmup": 0, "samples": 20, "axes": {"algo": ["sha256", "blake2s", "blake2b"], "engine": ["portable"],
      "mode": ["chain"], "size": ["64KiB", "128KiB", "256KiB", "512KiB", "1MiB"]}}]})");
  const fs::path out = dir / "out";
  const pid_t pid = test::spawn_poreplab_run(dir / "c.json", out);
  REQUIRE(pid >= 0);
  // Stopped as soon as it has started (its header line written, so that merge reads a
  // records file, not an empty one): it holds the directory while the others try.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline && slurp(out / "records.jsonl").find('\n') == std::string::npos)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ::kill(pid, SIGSTOP);
  int stopped = 0;
  REQUIRE(::waitpid(pid, &stopped, WUNTRACED) == pid);
  if (!WIFSTOPPED(stopped)) {  // a machine so loaded that the whole run finished first
    WARN("the first run ended before it could be stopped; nothing to check");
    return;
  }
  for (const char* extra : {"", " --resume"}) {
    INFO(extra);
    const result r = sh(dir, cli("run " + quote(dir / "c.json") + " -o " + quote(out) + " --no-plots" + extra));
    check_error(r, {"results directory " + out.string() + " is in use by another run (pid " + std::to_string(pid) + ")"});
  }
  check_error(sh(dir, cli("merge --no-plots -o " + quote(out) + " " + quote(out))), {"is in use by another run"});
  ::kill(pid, SIGCONT);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  // Every point recorded once; the directory is free again once the run ended.
  const std::string records = slurp(out / "records.jsonl");
  std::size_t points = 0;
  for (auto p = records.find("\"type\":\"point\""); p != std::string::npos; p = records.find("\"type\":\"point\"", p + 1))
    ++points;
  CHECK(points == 15);
  CHECK(sh(dir, cli("run " + quote(dir / "c.json") + " -o " + quote(out) + " --no-plots --resume")).status == 0);
}

// ---- vectors must carry what they are checked against ----

TEST_CASE("vector verify: a vector lacking an expected value is an error naming the field",
          "[reliability][vectors]") {
  temp_dir dir;
  const json v = read_json(vector_2kib());
  const std::pair<std::string, std::function<void(json&)>> cases[] = {
      {"parents", [](json& j) { j.erase("parents"); }},
      {"parents/sha256", [](json& j) { j["parents"].erase("sha256"); }},
      {"labels/1/sha256", [](json& j) { j["labels"][1].erase("sha256"); }},
      {"replica", [](json& j) { j.erase("replica"); }},
      {"replica/sha256", [](json& j) { j["replica"].erase("sha256"); }},
      // Was "[json.exception.out_of_range.401] array index 1 is out of range" half-way through.
      {"labels_hex", [](json& j) { j["labels_hex"].erase(1); }},
      {"labels/0/sample", [](json& j) { j["labels"][0]["sample"]["99"] = j["labels"][0]["sample"]["1"]; }},
      {"parents/first/2", [](json& j) { j["parents"]["first"][2] = "x"; }},
      // Was an escaped "[json.exception.out_of_range.403] key 'bytes' not found".
      {"files_after_pc2/0", [](json& j) { j["files_after_pc2"][0].erase("bytes"); }},
      {"files_after_pc2/1", [](json& j) { j["files_after_pc2"][1]["name"] = 7; }},
      {"files_after_pc2", [](json& j) { j["files_after_pc2"] = "tree-r-last.dat"; }},
      // The reproduction: labels emptied, replica and parents deleted: "3 passed".
      {"parents", [](json& j) {
         for (auto& l : j["labels"]) l = json::object();
         for (const char* k : {"replica", "parents", "labels_hex", "replica_hex", "parents_all"}) j.erase(k);
       }},
  };
  for (const auto& [field, cut] : cases) {
    INFO(field);
    json w = v;
    cut(w);
    spit(dir / "v.json", w.dump());
    const result r = sh(dir, cli("vector verify " + quote(dir / "v.json")));
    check_error(r, {(dir / "v.json").string() + ": " + field});
    CHECK(r.out.find("passed") == std::string::npos);
  }
}

TEST_CASE("vector verify: a labels-only vector says what it did not check", "[reliability][vectors]") {
  temp_dir dir;
  const result r =
      sh(dir, cli("vector verify " + quote(test::data_dir() / "vectors" / "Custom64Nodes11LayersPorep32GiBV1_1-A.json")));
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(r.out.find("skip Custom64Nodes11LayersPorep32GiBV1_1-A.json [reference] replica: null in the vector") !=
        std::string::npos);
  CHECK(r.out.find(" passed, 0 failed, 1 not in the vectors\n") != std::string::npos);
}

// ---- memory: checked before allocations that grow with the input ----

TEST_CASE("allocations that grow with the input are refused up front when memory is short",
          "[reliability]") {
  temp_dir dir;
  seal_2kib(dir);
  // POREPLAB_MEM_AVAILABLE stands in for MemAvailable, so that this refuses on any machine.
  const std::string low = "POREPLAB_MEM_AVAILABLE=4096 ";
  const std::string refusal = "does not fit in memory: needs ";
  const std::string avail = "4.0 KiB available (MemAvailable)";
  // Before: 64MiB x 256 sectors grew toward the OOM killer; 64GiB failed with "std::bad_alloc".
  // Two layers and the table (sampled verification when a full re-label does not fit);
  // four layers when a full re-label is asked for.
  check_error(sh(dir, low + cli("bench label --backend reference --sector-size 64MiB --sectors 256")),
              {"bench label: " + refusal + "32.1 GiB (34477178880 bytes)", avail});
  check_error(sh(dir, low + cli("bench label --backend reference --sector-size 64MiB --sectors 256 --verify full")),
              {"bench label: " + refusal + "64.1 GiB (68836917248 bytes)", avail});
  check_error(sh(dir, "POREPLAB_MEM_AVAILABLE=17179869184 " + cli("bench label --backend reference --sector-size 64GiB")),
              {"bench label: " + refusal, "16.0 GiB available"});
  check_error(sh(dir, low + cli("bench profile --sector-size 2KiB")), {"bench profile: " + refusal, avail});
  check_error(sh(dir, low + cli("vector verify " + quote(vector_2kib()))), {vector_2kib().string() + ": " + refusal});
  check_error(sh(dir, low + cli(seal_args(dir / "data.bin", dir / "out"))), {(dir / "data.bin").string() + ": " + refusal});
  CHECK_FALSE(fs::exists(dir / "out"));
  check_error(sh(dir, low + cli("unseal --sealed " + quote(dir / "sealed") + " --out " + quote(dir / "back.bin"))),
              {(dir / "sealed").string() + ": " + refusal});
  // With the memory there, the same commands run.
  CHECK(sh(dir, cli("bench label --backend reference --samples 1")).status == 0);
}

// ---- signals: cleanup runs ----

namespace {

// Starts `args` (argv without the program) with TMPDIR set, output to files in dir.
pid_t spawn(const temp_dir& dir, const std::vector<std::string>& args, const fs::path& tmpdir) {
  const pid_t pid = test::spawn_poreplab(args, {{"TMPDIR", tmpdir.string()}}, dir / "spawn.out", dir / "spawn.err");
  REQUIRE(pid >= 0);
  return pid;
}

// Waits until `ready` holds (or 60 s), then sends `sig` and returns the exit status.
template <class Ready>
int interrupt_when(pid_t pid, Ready ready, int sig) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && !ready())
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(pid, sig);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

// A layer file being written somewhere under `root`.
bool layer_in_flight(const fs::path& root) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->path().filename().string().rfind("sc-02-data-layer-", 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("SIGTERM during a runner seal point removes its scratch directory and resume still works",
          "[reliability][runner]") {
  temp_dir dir;
  fs::create_directories(dir / "tmp");
  // Sanitized: fewer layers (the signal still comes during one of the first).
  spit(dir / "c.json", std::string(R"({"schema": "poreplab-experiments/1", "experiments": [{"name": "s", "kind": "seal",
      "warmup": 0, "samples": 1, "axes": {"backend": ["reference"], "sector_size": ["256KiB"], "layers": [)") +
                           (test::kSanitized ? "16" : "64") + "]}}]}");
  const std::vector<std::string> run = {"run", (dir / "c.json").string(), "-o", (dir / "out").string(), "--no-plots"};
  const pid_t pid = spawn(dir, run, dir / "tmp");
  const int status = interrupt_when(pid, [&] { return layer_in_flight(dir / "tmp"); }, SIGTERM);
  INFO(slurp(dir / "spawn.err"));
  if (status == 0) {  // a machine so loaded that the point finished first
    WARN("the run finished before SIGTERM arrived; nothing to check");
    return;
  }
  CHECK(status == 128 + SIGTERM);
  CHECK(names_in(dir / "tmp").empty());  // before: poreplab-seal-<pid>-0 with data.bin and .tmp layers
  CHECK(slurp(dir / "out" / "records.jsonl").find("\"type\":\"point\"") == std::string::npos);

  auto resumed = run;
  resumed.push_back("--resume");
  const pid_t again = spawn(dir, resumed, dir / "tmp");
  int st = 0;
  REQUIRE(::waitpid(again, &st, 0) == again);
  INFO(slurp(dir / "spawn.err"));
  CHECK((WIFEXITED(st) && WEXITSTATUS(st) == 0));
  CHECK(read_json(dir / "out" / "results.json")["counts"]["ok"] == 1);
  CHECK(names_in(dir / "tmp").empty());
}

TEST_CASE("SIGINT during poreplab seal stops between layers, keeps the finished files, and the same command resumes",
          "[reliability][seal][resume]") {
  temp_dir dir;
  // 64 short layers (16 sanitized): the signal comes during one of the first, the seal
  // stops after it.
  spit(dir / "data.bin", seal::generate_data("pattern37", 256 << 10));
  const std::vector<std::string> args = {
      "seal", "--porep-id", "0500000000000000000000000000000000000000000000000000000000000000", "--api-version",
      "1.1.0", "--layers", test::kSanitized ? "16" : "64", "--backend", "reference", "--prover-id", kProverId, "--sector-id", "7", "--ticket",
      kTicket, "--data", (dir / "data.bin").string(), "--out", (dir / "out").string()};
  const pid_t pid = spawn(dir, args, dir.path);
  const int status = interrupt_when(pid, [&] { return layer_in_flight(dir / "out"); }, SIGINT);
  const std::string err = slurp(dir / "spawn.err");
  INFO(err);
  if (status == 0) {  // finished before the signal came: nothing to check
    WARN("the seal finished before SIGINT arrived");
    return;
  }
  CHECK(status == 128 + SIGINT);
  CHECK(err.find("poreplab: error: interrupted by SIGINT; the finished files are kept in") != std::string::npos);
  CHECK(err.find("the same command resumes the seal") != std::string::npos);
  // What seal-state.json records is kept, nothing else: no partial layer, no seal.json.
  const json state = read_json(dir / "out" / seal::kSealState);
  const std::size_t done = state.at("layers").size();
  std::set<std::string> want = {seal::kSealState, std::string(seal::kTreeDFile) + ".tmp"};
  for (std::size_t l = 1; l <= done; ++l) want.insert("sc-02-data-layer-" + std::to_string(l) + ".dat.tmp");
  const auto names = names_in(dir / "out");
  CHECK(std::set<std::string>(names.begin(), names.end()) == want);

  const pid_t again = spawn(dir, args, dir.path);
  int st = 0;
  REQUIRE(::waitpid(again, &st, 0) == again);
  const std::string resumed = slurp(dir / "spawn.err");
  INFO(resumed);
  REQUIRE((WIFEXITED(st) && WEXITSTATUS(st) == 0));
  if (done > 0) CHECK(resumed.find("resuming after layer " + std::to_string(done)) != std::string::npos);
  CHECK(fs::exists(dir / "out" / "seal.json"));
  CHECK_FALSE(fs::exists(dir / "out" / seal::kSealState));
}

TEST_CASE("SIGKILL during poreplab seal: the same command resumes and writes an uninterrupted seal's files",
          "[reliability][seal][resume]") {
  temp_dir dir;
  spit(dir / "data.bin", seal::generate_data("pattern37", 256 << 10));
  auto args = [&](const fs::path& out) {
    return std::vector<std::string>{"seal", "--porep-id", "0500000000000000000000000000000000000000000000000000000000000000",
                                    "--api-version", "1.1.0", "--layers", "8", "--backend", "reference",
                                    "--prover-id", kProverId, "--sector-id", "7", "--ticket", kTicket,
                                    "--data", (dir / "data.bin").string(), "--parent-cache", (dir / "cache").string(),
                                    "--out", out.string()};
  };
  auto finished_layers = [&] {
    try {
      return read_json(dir / "out" / seal::kSealState).at("layers").size();  // replaced by rename: never partial
    } catch (const std::exception&) {
      return std::size_t{0};
    }
  };
  const pid_t pid = spawn(dir, args(dir / "out"), dir.path);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && finished_layers() < 2)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ::kill(pid, SIGKILL);
  int st = 0;
  REQUIRE(::waitpid(pid, &st, 0) == pid);
  if (WIFEXITED(st)) {
    WARN("the seal finished before SIGKILL arrived");
    return;
  }
  REQUIRE(WTERMSIG(st) == SIGKILL);
  CHECK_FALSE(fs::exists(dir / "out" / "seal.json"));
  const std::size_t done = finished_layers();
  CHECK(done >= 2);

  const auto run_to_end = [&](const fs::path& out) {
    const pid_t p = spawn(dir, args(out), dir.path);
    int s = 0;
    REQUIRE(::waitpid(p, &s, 0) == p);
    INFO(slurp(dir / "spawn.err"));
    REQUIRE((WIFEXITED(s) && WEXITSTATUS(s) == 0));
    return slurp(dir / "spawn.err");
  };
  const std::string err = run_to_end(dir / "out");
  CHECK(err.find("resuming after layer " + std::to_string(done)) != std::string::npos);
  run_to_end(dir / "whole");
  const auto names = names_in(dir / "out");
  CHECK(names == names_in(dir / "whole"));
  for (const auto& n : names) {
    INFO(n);
    CHECK(slurp(dir / "out" / n) == slurp(dir / "whole" / n));
  }
}

// ---- every error: one line, the file or flag, a reason; usage errors exit 1 ----

TEST_CASE("usage errors exit 1 with the flag named, not CLI11's 104", "[reliability][cli]") {
  temp_dir dir;
  spit(dir / "data.bin", seal::generate_data("pattern37", 2048));
  const std::string porep = "seal --porep-id 0500000000000000000000000000000000000000000000000000000000000000 "
                            "--api-version 1.1.0 --prover-id " + std::string(kProverId) + " --sector-id 7 --ticket " +
                            kTicket + " --data " + quote(dir / "data.bin") + " --out " + quote(dir / "out");
  check_error(sh(dir, cli(porep + " --layers -1")), {"--layers", "-1"});
  check_error(sh(dir, cli(porep + " --layers 2 --sector-id 99999999999999999999999")), {"--sector-id"});
  check_error(sh(dir, cli("bench label --sectors abc")), {"--sectors", "abc"});
  check_error(sh(dir, cli("bench label --no-such-flag")), {"--no-such-flag"});
  CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("numbers JSON cannot hold name the file: records, custom-hardware data", "[reliability][runner]") {
  temp_dir dir;
  spit(dir / "c.json", R"({"schema": "poreplab-experiments/1", "experiments": [{"name": "h", "kind": "hash",
      "warmup": 0, "samples": 1, "axes": {"algo": ["sha256"], "engine": ["portable"], "size": ["1KiB"]}}]})");
  REQUIRE(sh(dir, cli("run --no-plots " + quote(dir / "c.json") + " -o " + quote(dir / "out"))).status == 0);
  // A damaged line before the last one (a damaged last line is cut off as a crash's).
  const std::string records = slurp(dir / "out" / "records.jsonl");
  const std::string last = records.substr(records.rfind('\n', records.size() - 2) + 1);
  spit(dir / "out" / "records.jsonl", records + R"({"type": "point", "x": 1e400})" + "\n" + last);
  check_error(sh(dir, cli("run --no-plots --resume " + quote(dir / "c.json") + " -o " + quote(dir / "out"))),
              {(dir / "out" / "records.jsonl").string() + ":3"});
  spit(dir / "custom.json", R"({"x": 1e400})");
  check_error(sh(dir, cli("report amax --custom " + quote(dir / "custom.json") + " " + quote(dir / "out"))),
              {(dir / "custom.json").string()});
}

TEST_CASE("config: an experiment whose axes expand past 100000 points is refused, not expanded",
          "[reliability][runner]") {
  // 28 KiB of JSON asking for 1000 x 64 x 4097 points: `run --list` ran out of time and memory.
  json c = {{"schema", "poreplab-experiments/1"},
            {"experiments", {{{"name", "x"}, {"kind", "label"}, {"axes", {{"backend", {"reference"}}}}}}}};
  json& axes = c["experiments"][0]["axes"];
  for (int i = 1; i <= 1000; ++i) axes["sectors"].push_back(i);
  for (int i = 1; i <= 64; ++i) axes["layers"].push_back(i);
  for (int i = 0; i <= 4096; ++i) axes["threads"].push_back(i);
  CHECK_THROWS_WITH(runner::parse_config(c.dump(), "big.json"),
                    Catch::StartsWith("big.json: /experiments/0/axes: expands to about 2.62e+08 points"));
  axes["threads"] = {0};
  axes["layers"] = {2};
  CHECK(runner::expand_points(runner::parse_config(c.dump(), "big.json")).size() == 1000);
}

// ---- what can be recomputed is recomputed: digests alone can be rewritten with a file ----

namespace {

constexpr const char* kCustomPorepId = "ff00000000000000000000000000000000000000000000000000000000000000";

// `poreplab seal` of a custom graph (porep_id ff00..., 2KiB data in dir/data.bin).
std::string custom_seal_args(const temp_dir& dir, const fs::path& out, int layers) {
  return "seal --porep-id " + std::string(kCustomPorepId) + " --api-version 1.1.0 --layers " + std::to_string(layers) +
         " --backend reference --prover-id " + kProverId + " --sector-id 7 --ticket " + kTicket + " --data " +
         quote(dir / "data.bin") + " --out " + quote(out);
}

// Replaces a file's .sha256 sidecar with one that agrees with its (edited) contents.
void forge_sidecar(const fs::path& file) {
  const std::string bytes = slurp(file);
  std::uint8_t d[32];
  sha256::digest(d, bytes.data(), bytes.size());
  spit(graph::parent_cache_sidecar_path(file), to_hex(d, 32) + "  " + file.filename().string() + "\n");
}

std::string sha256_of_file(const fs::path& p) {
  const std::string bytes = slurp(p);
  std::uint8_t d[32];
  sha256::digest(d, bytes.data(), bytes.size());
  return to_hex(d, 32);
}

// Parent `slot` of `node` in a cache file changed to another node.
void edit_parent(const fs::path& file, std::uint64_t node, std::uint32_t slot, std::uint64_t nodes) {
  std::string bytes = slurp(file);
  const std::size_t at = (node * graph::kParentsPerNode + slot) * 4;
  std::uint32_t v = 0;
  std::memcpy(&v, bytes.data() + at, 4);
  v = static_cast<std::uint32_t>((v + 1) % nodes);
  std::memcpy(bytes.data() + at, &v, 4);
  spit(file, bytes);
}

}  // namespace

TEST_CASE("parent cache: a custom graph's file corrupted with its sidecar fails verify and seal by recomputed rows",
          "[reliability][graph]") {
  temp_dir dir;
  const std::string env = "FIL_PROOFS_PARENT_CACHE=" + quote(dir / "cache") + " ";
  const std::string graph_args = "--porep-id " + std::string(kCustomPorepId) + " --api-version 1.1.0 --sector-size 2KiB";
  REQUIRE(sh(dir, env + cli("parent-cache generate " + graph_args)).status == 0);
  const auto g = graph::make_graph_params(from_hex(kCustomPorepId, 32, "porep_id").data(), graph::api_version::v1_1_0, 64);
  const fs::path file = graph::parent_cache_path(dir / "cache", g);
  REQUIRE(fs::exists(file));
  const result good = sh(dir, env + cli("parent-cache verify " + graph_args));
  INFO(good.err);
  CHECK(good.status == 0);
  CHECK(good.out.find("64 rows (all) equal the graph's") != std::string::npos);

  edit_parent(file, 10, 6, 64);
  forge_sidecar(file);
  const result r = sh(dir, env + cli("parent-cache verify " + graph_args));
  check_error(r, {file.string(), "node 10 slot 6"});
  CHECK(r.out == file.filename().string() + ": FAILED\n");  // not "ok, " then "FAILED"
  // Every file of the directory: a custom graph's file cannot be recomputed without its
  // graph, and is not called ok.
  const result all = sh(dir, env + cli("parent-cache verify"));
  CHECK(all.status == 0);
  CHECK(all.out.find(": sidecar only, ") != std::string::npos);
  CHECK(all.out.find(": ok") == std::string::npos);

  // seal with that cache: refused before labeling, no output (was: a wrong replica).
  spit(dir / "data.bin", seal::generate_data("pattern37", 2048));
  const result s = sh(dir, cli(custom_seal_args(dir, dir / "out", 2) + " --parent-cache " + quote(dir / "cache")));
  check_error(s, {file.string(), "node 10 slot 6"});
  CHECK(names_in(dir / "out").empty());
}

TEST_CASE("parent-cache verify: a production graph's file corrupted with its sidecar fails as seal does",
          "[reliability][graph]") {
  temp_dir dir;
  const std::string env = "FIL_PROOFS_PARENT_CACHE=" + quote(dir / "cache") + " ";
  REQUIRE(sh(dir, env + cli("parent-cache generate --proof StackedDrg2KiBV1_1")).status == 0);
  const auto g = sdr::graph_params_of(sdr::find_registered_proof("StackedDrg2KiBV1_1"));
  const fs::path file = graph::parent_cache_path(dir / "cache", g);
  edit_parent(file, 10, 6, g.nodes);
  forge_sidecar(file);
  const result r = sh(dir, env + cli("parent-cache verify --proof StackedDrg2KiBV1_1"));
  check_error(r, {file.string(), "published digest"});
  CHECK(r.out.find("ok") == std::string::npos);
}

TEST_CASE("resumed seal: a kept layer rewritten with its digest is never trusted, the replica is right",
          "[reliability][seal][resume]") {
  temp_dir dir;
  spit(dir / "data.bin", seal::generate_data("pattern37", 2048));
  REQUIRE(sh(dir, cli(custom_seal_args(dir, dir / "whole", 4))).status == 0);
  const json manifest = read_json(dir / "whole" / "seal.json");
  // An unfinished seal after layer 2, as an interrupt leaves it (seal-state.json and the
  // .tmp files it records), with one byte of layer 2 flipped and its digest updated.
  const auto forge = [&](const std::string& mac) {
    fs::remove_all(dir / "out");
    fs::create_directories(dir / "out");
    fs::copy_file(dir / "whole" / seal::kTreeDFile, dir / "out" / (std::string(seal::kTreeDFile) + ".tmp"));
    json state = {{"format", "poreplab-seal-state/1"},
                  {"tree_d_sha256", manifest.at("files").at(seal::kTreeDFile).at("sha256")},
                  {"comm_d", manifest.at("comm_d")},
                  {"layers", json::array()}};
    state["inputs"] = manifest.at("inputs");
    state["inputs"].erase("proof");
    state["inputs"].erase("data_file");
    for (std::uint32_t l = 1; l <= 2; ++l) {
      const fs::path kept = dir / "out" / (seal::layer_file_name(l) + ".tmp");
      fs::copy_file(dir / "whole" / seal::layer_file_name(l), kept);
      if (l == 2) {
        std::string bytes = slurp(kept);
        bytes[32 * 5 + 3] ^= 1;
        spit(kept, bytes);
      }
      state["layers"].push_back(sha256_of_file(kept));
    }
    if (!mac.empty()) state["mac"] = mac;
    spit(dir / "out" / seal::kSealState, state.dump(2));
  };
  const auto check_replica = [&](const result& r) {
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(slurp(dir / "out" / "replica.dat") == slurp(dir / "whole" / "replica.dat"));
    CHECK(read_json(dir / "out" / "seal.json").at("files") == manifest.at("files"));
  };
  SECTION("no MAC: nothing the state file records is trusted") {
    forge("");
    const result r = sh(dir, cli(custom_seal_args(dir, dir / "out", 4)));
    check_replica(r);
    CHECK(r.err.find("seal-state.json carries no MAC under this machine's key (") != std::string::npos);
    CHECK(r.err.find("sealing from the start") != std::string::npos);
    CHECK(r.err.find("resuming after layer") == std::string::npos);
  }
  SECTION("a MAC under another key") {
    forge(std::string(64, 'a'));
    const result r = sh(dir, cli(custom_seal_args(dir, dir / "out", 4)));
    check_replica(r);
    CHECK(r.err.find("seal-state.json's MAC does not verify under this machine's key") != std::string::npos);
  }
  SECTION("no machine key here: the digests and re-labeled samples catch it") {
    forge("");
    const result r = sh(dir, "POREPLAB_STATE_DIR=/dev/null/poreplab " + cli(custom_seal_args(dir, dir / "out", 4)));
    check_replica(r);
    CHECK(r.err.find("resuming: no machine key (cannot create /dev/null/poreplab") != std::string::npos);
    CHECK(r.err.find("layer 2's file matches its digest in seal-state.json, but ") != std::string::npos);
    CHECK(r.err.find(" of 64 labels re-labeled from their parents differ (first: node 5); labeling again from layer 2") !=
          std::string::npos);
    CHECK(r.err.find("resuming after layer 1 (") != std::string::npos);
  }
}

TEST_CASE("machine key: created once, private, and refused when others may write it", "[reliability][seal]") {
  temp_dir dir;
  const std::string saved = std::getenv("POREPLAB_STATE_DIR") != nullptr ? std::getenv("POREPLAB_STATE_DIR") : "";
  setenv("POREPLAB_STATE_DIR", (dir / "state").c_str(), 1);
  std::string why;
  const auto a = load_machine_key(why);
  REQUIRE(a);
  CHECK(why.empty());
  CHECK(a->file == dir / "state" / "seal-key");
  CHECK((fs::status(a->file).permissions() & (fs::perms::group_all | fs::perms::others_all)) == fs::perms::none);
  const auto b = load_machine_key(why);
  REQUIRE(b);
  CHECK(a->bytes == b->bytes);
  fs::permissions(a->file, fs::perms::others_write, fs::perm_options::add);
  CHECK_FALSE(load_machine_key(why));
  CHECK_THAT(why, Catch::Contains("may be written by others"));
  fs::permissions(a->file, fs::perms::others_write, fs::perm_options::remove);
  spit(a->file, "short");
  CHECK_FALSE(load_machine_key(why));
  CHECK_THAT(why, Catch::Contains("holds 5 bytes, not 32"));
  // RFC 4231 test case 2: the MAC is HMAC-SHA256.
  std::uint8_t mac[32];
  const std::string key = "Jefe", msg = "what do ya want for nothing?";
  sha256::hmac(mac, reinterpret_cast<const std::uint8_t*>(key.data()), key.size(), msg.data(), msg.size());
  CHECK(to_hex(mac, 32) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  if (saved.empty())
    unsetenv("POREPLAB_STATE_DIR");
  else
    setenv("POREPLAB_STATE_DIR", saved.c_str(), 1);
}

TEST_CASE("unseal: the files read are checked against seal.json's digests, a damaged seal.json is refused",
          "[reliability][seal]") {
  temp_dir dir;
  seal_2kib(dir);
  const fs::path manifest = dir / "sealed" / "seal.json";
  const std::string original = slurp(manifest);
  const auto flip_digest = [&](const std::string& name) {
    json m = json::parse(original);
    std::string d = m["files"][name]["sha256"];
    d[10] = d[10] == 'a' ? 'b' : 'a';
    m["files"][name]["sha256"] = d;
    spit(manifest, m.dump(2));
  };
  const std::string unseal = "unseal --sealed " + quote(dir / "sealed") + " --out " + quote(dir / "data.out");
  flip_digest("sc-02-data-layer-2.dat");
  check_error(sh(dir, cli(unseal)), {(dir / "sealed" / "sc-02-data-layer-2.dat").string(), "seal.json",
                                     "/files/sc-02-data-layer-2.dat/sha256"});
  CHECK_FALSE(fs::exists(dir / "data.out"));
  flip_digest("replica.dat");
  check_error(sh(dir, cli(unseal)), {(dir / "sealed" / "replica.dat").string(), "/files/replica.dat/sha256"});
  check_error(sh(dir, cli(unseal + " --recompute --backend reference")), {"/files/replica.dat/sha256"});
  spit(manifest, original + std::string(32, '\0'));
  check_error(sh(dir, cli(unseal)), {manifest.string(), "NUL byte"});
  CHECK_FALSE(fs::exists(dir / "data.out"));
  spit(manifest, original);
  const result ok = sh(dir, cli(unseal));
  INFO(ok.err);
  CHECK(ok.status == 0);
  CHECK(ok.out.find("the files read match seal.json's digests") != std::string::npos);
}

// ---- numbers as typed ----

TEST_CASE("numeric flags: negative and out-of-range values are errors quoting the text typed", "[reliability][cli]") {
  temp_dir dir;
  const std::string window = "bench label --sector-size 8KiB --window-nodes 16 --window-offset ";
  for (const std::string typed : {"-2", "-9223372036854775808", "99999999999999999999", "9223372036854775808"})
    check_error(sh(dir, cli(window + typed)), {"--window-offset", "'" + typed + "'"});
  check_error(sh(dir, cli("bench label --sector-size 8KiB --window-offset 5")), {"--window-offset", "--window-nodes"});
  for (const std::string typed : {"-1", "18446744073709551616"})
    check_error(sh(dir, cli("run --repeat " + typed + " no-such.json")), {"--repeat", "'" + typed + "'"});
  check_error(sh(dir, cli("bench label --max-seconds -1")), {"--max-seconds", "'-1'"});
  check_error(sh(dir, cli("bench label --max-seconds nan")), {"--max-seconds", "'nan'"});
}

// ---- the tune cache is data to validate ----

TEST_CASE("tune cache: unknown engines, duplicates, missing entries, implausible rates, NULs and a failed spot check are refused",
          "[reliability][tune]") {
  temp_dir dir;
  const std::string env = "POREPLAB_TUNE_DIR=" + quote(dir / "cache") + " ";
  REQUIRE(sh(dir, env + cli("tune --rounds 3 --sample-ms 1")).status == 0);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir / "cache")) files.push_back(e.path());
  REQUIRE(files.size() == 1);
  const fs::path file = files[0];
  const std::string original = slurp(file);
  const json good = json::parse(original);
  std::size_t portable = good["rates"].size();
  for (std::size_t i = 0; i < good["rates"].size(); ++i)
    if (good["rates"][i]["algo"] == "sha256" && good["rates"][i]["engine"] == "portable") portable = i;
  REQUIRE(portable < good["rates"].size());
  const std::string at = "/rates/" + std::to_string(portable);

  const auto check_refused = [&](const std::string& text, const std::string& problem) {
    spit(file, text);
    const result r = sh(dir, env + cli("tune"));
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK(r.err.find("poreplab: warning: ignoring the engine calibration cache: " + file.string()) != std::string::npos);
    CHECK(r.err.find(problem) != std::string::npos);
    CHECK(r.out.find("tuning:  calibrated now") != std::string::npos);  // measured again, not believed
  };
  json j = good;
  j["rates"][portable]["ns_per_lane_block"] = 1e-300;
  check_refused(j.dump(2), at + "/ns_per_lane_block: 1e-300 ns is not a plausible rate");
  j = good;
  j["rates"][portable]["engine"] = "bogus-x99";
  check_refused(j.dump(2), at + "/engine: 'bogus-x99' is not a sha256 engine of this build");
  j = good;
  j["rates"].erase(portable);
  check_refused(j.dump(2), "/rates: no entry for sha256 engine portable");
  j = good;
  j["rates"].push_back(good["rates"][portable]);
  j["rates"].back()["ns_per_lane_block"] = 0.001;
  check_refused(j.dump(2), ": a second entry for sha256 engine portable");
  check_refused(original + std::string(32, '\0'), "NUL byte");
  j = good;
  j["rates"] = json::array();
  check_refused(j.dump(2), "/rates: no entry for");
  // Plausible rates that rank portable first, or flatter the best engine 20x: a spot check
  // of every engine's rate finds them.
  std::size_t best = portable;
  for (std::size_t i = 0; i < good["rates"].size(); ++i)
    if (good["rates"][i]["algo"] == "sha256" &&
        good["rates"][i]["ns_per_lane_block"].get<double>() < good["rates"][best]["ns_per_lane_block"].get<double>())
      best = i;
  const double best_ns = good["rates"][best]["ns_per_lane_block"].get<double>();
  if (good["rates"][portable]["ns_per_lane_block"].get<double>() > 4 * best_ns) {
    j = good;
    j["rates"][portable]["ns_per_lane_block"] = best_ns / 2;
    check_refused(j.dump(2), "the cache gives sha256 engine portable");
    j = good;
    j["rates"][best]["ns_per_lane_block"] = best_ns / 20;
    check_refused(j.dump(2), "but a spot check measured");
  } else {
    WARN("no SHA-256 engine here runs 4x faster than portable: the spot check is not exercised");
  }
  // The cache written by the recalibration is believed again, without a warning.
  const result again = sh(dir, env + cli("tune"));
  CHECK(again.err.empty());
  CHECK(again.out.find("tuning:  cache ") != std::string::npos);
  CHECK(again.out.find("(spot-checked)") != std::string::npos);
  CHECK(again.out.find("POREPLAB_TUNE=static") == std::string::npos);
}

// ---- unavailable is a type ----

TEST_CASE("runner: skipped or failed is decided by the exception's type, not its wording", "[reliability][runner]") {
  using runner::classify_point_exception;
  // A real bug whose message happens to say "not supported" or "unavailable" is a failure.
  for (const char* bug : {"sha256 lanes not supported by this buggy path", "buffer unavailable: index 7 past the end"}) {
    const auto x = classify_point_exception(std::make_exception_ptr(std::runtime_error(bug)));
    CHECK_FALSE(x.skipped);
    CHECK(x.reason == bug);
  }
  // An engine, backend or kind that cannot run here is a skip, however it is worded.
  CHECK(classify_point_exception(std::make_exception_ptr(unavailable_error("no device"))).skipped);
  CHECK(classify_point_exception(std::make_exception_ptr(cpu::engine_unavailable("avx512: this CPU lacks it"))).skipped);
  CHECK(classify_point_exception(std::make_exception_ptr(runner::point_unavailable("too large here"))).skipped);
  CHECK_FALSE(classify_point_exception(std::make_exception_ptr(std::invalid_argument("lanes 3"))).skipped);
#ifndef POREPLAB_WITH_CUDA
  // The cuda backend of a build without CUDA throws the type.
  CHECK_THROWS_AS(make_backend("cuda"), unavailable_error);
#endif
}

// ---- bounded configs ----

TEST_CASE("config: strings, names, arrays and nesting are bounded, each error naming the pointer and the limit",
          "[reliability][runner]") {
  const auto config_with = [](const std::function<void(json&)>& edit) {
    json c = {{"schema", "poreplab-experiments/1"},
              {"experiments", {{{"name", "x"}, {"kind", "hash"}, {"axes", {{"algo", {"sha256"}}}}}}}};
    edit(c);
    return c.dump();
  };
  // A 10^7-letter name was echoed into every record, results.json and report.md (2 GB).
  CHECK_THROWS_WITH(runner::parse_config(config_with([](json& c) { c["experiments"][0]["name"] = std::string(10000000, 'a'); }), "c.json"),
                    "c.json: /experiments/0/name: a string of 10000000 bytes, more than the 4096 allowed");
  CHECK_THROWS_WITH(runner::parse_config(config_with([](json& c) { c["experiments"][0]["name"] = std::string(200, 'a'); }), "c.json"),
                    "c.json: /experiments/0/name: a name of 200 bytes, more than the 128 allowed");
  CHECK_THROWS_WITH(runner::parse_config(config_with([](json& c) { c["description"] = std::string(5000, 'd'); }), "c.json"),
                    "c.json: /description: a string of 5000 bytes, more than the 4096 allowed");
  CHECK_THROWS_WITH(runner::parse_config(config_with([](json& c) { c[std::string(5000, 'k')] = 1; }), "c.json"),
                    "c.json: (top level): a key of 5000 bytes, more than the 4096 allowed");
  CHECK_THROWS_WITH(runner::parse_config(config_with([](json& c) {
                      json& t = c["experiments"][0]["axes"]["threads"];
                      for (int i = 0; i <= 100000; ++i) t.push_back(1);
                    }), "c.json"),
                    "c.json: /experiments/0/axes/threads: an array of 100001 items, more than the 100000 allowed");
  const std::string deep = std::string(100000, '[') + "1" + std::string(100000, ']');
  CHECK_THROWS_WITH(runner::parse_config(R"({"schema": "poreplab-experiments/1", "description": )" + deep + "}", "c.json"),
                    Catch::StartsWith("c.json: /description/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0: nested more than 16"));
  // The shipped configs are far inside the limits.
  CHECK_NOTHROW(runner::parse_config(config_with([](json&) {}), "c.json"));
}

// ---- never write through what is already there ----

namespace {

void plant_link(const fs::path& at, const fs::path& target) {
  std::error_code ec;
  fs::remove(at, ec);
  fs::create_symlink(target, at);
}

// The 2KiB seal's PC2 tree file names.
std::vector<std::string> tree_file_names() {
  std::vector<std::string> names;
  for (const auto& f : sdr::pc2_tree_files(2048)) names.push_back(f.name);
  return names;
}

}  // namespace

TEST_CASE("staging files: a link planted at a .tmp name is removed, never written through", "[reliability][seal]") {
  temp_dir dir;
  spit(dir / "victim", std::string("precious"));
  seal_2kib(dir);
  const fs::path out = dir / "sealed";
  const std::string replica = slurp(out / "replica.dat");
  SECTION("seal --force: every file of the seal and its state file") {
    for (const std::string name : {"replica.dat", "seal.json", "seal-state.json", "sc-02-data-layer-1.dat",
                                   "sc-02-data-layer-2.dat", "sc-02-data-tree-d.dat"})
      plant_link(out / (name + ".tmp"), dir / "victim");
    const result r = sh(dir, cli(seal_args(dir / "data.bin", out) + " --force"));
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK(slurp(dir / "victim") == "precious");
    for (const auto& name : names_in(out)) {
      CHECK_FALSE(fs::is_symlink(out / name));
      CHECK(name.find(".tmp") == std::string::npos);
    }
    CHECK(slurp(out / "replica.dat") == replica);
  }
  SECTION("pc2: its tree files and seal.json") {
    for (const auto& name : tree_file_names()) plant_link(out / (name + ".tmp"), dir / "victim");
    plant_link(out / "seal.json.tmp", dir / "victim");
    const result r = sh(dir, cli("pc2 --sealed " + quote(out)));
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK(slurp(dir / "victim") == "precious");
    for (const auto& name : tree_file_names()) CHECK(fs::is_regular_file(fs::symlink_status(out / name)));
    CHECK(read_json(out / "seal.json").contains("pc2"));
  }
  SECTION("run: a results directory's lock file") {
    spit(dir / "c.json", R"({"schema": "poreplab-experiments/1", "experiments": [{"name": "h", "kind": "hash",
        "warmup": 0, "samples": 1, "axes": {"algo": ["sha256"], "engine": ["portable"], "size": ["1KiB"]}}]})");
    fs::create_directories(dir / "r");
    plant_link(dir / "r" / ".lock", dir / "victim");
    check_error(sh(dir, cli("run --no-plots " + quote(dir / "c.json") + " -o " + quote(dir / "r"))),
                {(dir / "r" / ".lock").string(), "symbolic link"});
    CHECK(slurp(dir / "victim") == "precious");
  }
}

TEST_CASE("a directory where an output file goes is refused before any work, the previous seal kept",
          "[reliability][seal]") {
  temp_dir dir;
  seal_2kib(dir);
  const fs::path out = dir / "sealed";
  const std::string manifest = slurp(out / "seal.json");
  SECTION("seal --force over a replica.dat that is a directory") {
    fs::remove(out / "replica.dat");
    fs::create_directories(out / "replica.dat" / "x");
    check_error(sh(dir, cli(seal_args(dir / "data.bin", out) + " --force")),
                {(out / "replica.dat").string() + ": is a directory"});
    CHECK(slurp(out / "seal.json") == manifest);
  }
  SECTION("pc2 with a tree file that is a directory") {
    const std::string tree = tree_file_names().front();
    fs::create_directories(out / tree);
    check_error(sh(dir, cli("pc2 --sealed " + quote(out))), {(out / tree).string() + ": is a directory"});
    CHECK(slurp(out / "seal.json") == manifest);
    for (const auto& name : names_in(out)) CHECK(name.find(".tmp") == std::string::npos);
  }
}

namespace {

// `poreplab ARGS` with the machine key kept in dir/state (or where `state` says).
std::string cli_keyed(const temp_dir& dir, const std::string& args, const std::string& state = "") {
  return "POREPLAB_STATE_DIR=" + quote(state.empty() ? (dir / "state").string() : state) + " " + cli(args);
}

// Flips bit 0 of node `node`'s first byte (the low byte of a field element: still canonical).
void flip_node(const fs::path& file, std::uint64_t node) {
  std::string bytes = slurp(file);
  bytes[32 * node] ^= 1;
  spit(file, bytes);
}

// seal.json with the digest of `name` set to that file's SHA-256 now.
void rewrite_digest(const fs::path& sealed, const std::string& name) {
  json m = read_json(sealed / "seal.json");
  m["files"][name]["sha256"] = sha256_of_file(sealed / name);
  spit(sealed / "seal.json", m.dump(2));
}

void copy_dir(const fs::path& from, const fs::path& to) { fs::copy(from, to, fs::copy_options::recursive); }

}  // namespace

TEST_CASE("pc2 and unseal: seal.json vouches for the layers only under its MAC, else they are re-labeled in part",
          "[reliability][seal][pc2]") {
  temp_dir dir;
  spit(dir / "data.bin", seal::generate_data("pattern37", 2048));
  REQUIRE(sh(dir, cli_keyed(dir, seal_args(dir / "data.bin", dir / "sealed"))).status == 0);
  REQUIRE(read_json(dir / "sealed" / "seal.json").contains("mac"));
  copy_dir(dir / "sealed", dir / "clean");
  const result good = sh(dir, cli_keyed(dir, "pc2 --sealed " + quote(dir / "clean")));
  INFO(good.err);
  REQUIRE(good.status == 0);
  CHECK(good.out.find("seal.json: its MAC verifies under this machine's key") != std::string::npos);
  const std::string comm_r = read_json(dir / "clean" / "seal.json")["pc2"]["comm_r"];
  // PC2 of a seal it vouched for is signed again: unseal trusts it.
  CHECK(read_json(dir / "clean" / "seal.json").contains("mac"));
  const result u = sh(dir, cli_keyed(dir, "unseal --sealed " + quote(dir / "clean") + " --out " + quote(dir / "u.bin")));
  CHECK(u.status == 0);
  CHECK(u.out.find("MAC verifies") != std::string::npos);
  SECTION("a flipped layer byte with its digest rewritten: caught with a key and without one") {
    flip_node(dir / "sealed" / "sc-02-data-layer-1.dat", 5);
    rewrite_digest(dir / "sealed", "sc-02-data-layer-1.dat");
    for (const std::string& state : {std::string(), std::string("/dev/null/poreplab")}) {
      check_error(sh(dir, cli_keyed(dir, "pc2 --sealed " + quote(dir / "sealed"), state)),
                  {(dir / "sealed" / "sc-02-data-layer-1.dat").string() + ": ", "labels re-labeled from their parents differ"});
      CHECK_FALSE(read_json(dir / "sealed" / "seal.json").contains("pc2"));
    }
    flip_node(dir / "sealed" / "sc-02-data-layer-2.dat", 9);
    rewrite_digest(dir / "sealed", "sc-02-data-layer-2.dat");
    check_error(sh(dir, cli_keyed(dir, "unseal --sealed " + quote(dir / "sealed") + " --out " + quote(dir / "d.bin"))),
                {"sc-02-data-layer-1.dat: ", "re-labeled from their parents differ", "MAC does not verify"});
    CHECK_FALSE(fs::exists(dir / "d.bin"));
  }
  SECTION("a flipped replica byte with its digest rewritten") {
    flip_node(dir / "sealed" / "replica.dat", 3);
    rewrite_digest(dir / "sealed", "replica.dat");
    check_error(sh(dir, cli_keyed(dir, "pc2 --sealed " + quote(dir / "sealed"))),
                {(dir / "sealed" / "replica.dat").string() + ": does not decode with the last layer to the data of comm_d"});
  }
  SECTION("no key here: the layers pass their sampled re-labeling and comm_r is right, unsigned") {
    const result r = sh(dir, cli_keyed(dir, "pc2 --sealed " + quote(dir / "sealed"), "/dev/null/poreplab"));
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("no machine key (cannot create /dev/null/poreplab") != std::string::npos);
    CHECK(r.out.find("64 labels of each layer read re-labeled from their parents") != std::string::npos);
    CHECK(read_json(dir / "sealed" / "seal.json")["pc2"]["comm_r"] == comm_r);
    CHECK_FALSE(read_json(dir / "sealed" / "seal.json").contains("mac"));
  }
}

TEST_CASE("seal.json: sector size, replica id and file sizes are cross-checked", "[reliability][seal]") {
  temp_dir dir;
  seal_2kib(dir);
  const std::string original = slurp(dir / "sealed" / "seal.json");
  const auto refused = [&](const std::function<void(json&)>& edit, const std::string& shown) {
    json m = json::parse(original);
    edit(m);
    spit(dir / "sealed" / "seal.json", m.dump(2));
    for (const std::string& cmd : {"pc2 --sealed " + quote(dir / "sealed"),
                                  "unseal --sealed " + quote(dir / "sealed") + " --out " + quote(dir / "d.bin")})
      check_error(sh(dir, cli(cmd)), {(dir / "sealed" / "seal.json").string() + ": " + shown});
  };
  refused([](json& m) { m["inputs"]["sector_size"] = 4096; },
          "/inputs/sector_size: 4096 bytes, but /inputs/nodes 64 x 32 is 2048");
  refused([](json& m) { m["inputs"]["sector_id"] = 8; }, "/replica_id: ");
  refused([](json& m) { m["files"]["replica.dat"]["bytes"] = 4096; }, "/files/replica.dat/bytes: 4096 bytes");
  refused([](json& m) { m["files"]["sc-02-data-layer-3.dat"] = m["files"]["replica.dat"]; },
          "/files/sc-02-data-layer-3.dat: not a file of a seal of 2 layers");
  refused([](json& m) { m["format"] = "poreplab-seal/9"; }, "/format: expected");
  CHECK_FALSE(fs::exists(dir / "d.bin"));
}

namespace {

// One line per record: a header and an ok hash point with these samples, then `extra`.
std::string records_with(const std::string& samples, const std::string& extra = "") {
  json point = {{"type", "point"}, {"run", 0},        {"experiment", "h"},          {"kind", "hash"},
                {"axes", {{"algo", "sha256"}}},       {"status", "ok"},             {"metric", "ns_per_block"},
                {"stats", {{"n", 3}, {"min", 855}, {"median", 857}, {"max", 860}}}};
  point["samples"] = json::parse(samples);
  return json{{"type", "header"}, {"schema", "poreplab-records/1"}, {"run", 0}}.dump() + "\n" + point.dump() + "\n" +
         extra;
}

}  // namespace

TEST_CASE("a FIFO where a key, a state file, a cache or records belong is refused at once, never blocks",
          "[reliability][seal]") {
  temp_dir dir;
  spit(dir / "data.bin", seal::generate_data("pattern37", 2048));
  fs::create_directories(dir / "state");
  REQUIRE(::mkfifo((dir / "state" / "seal-key").c_str(), 0600) == 0);
  // The machine key: the seal goes on without it, and pc2 says why it checks the layers.
  const result s = sh(dir, cli_keyed(dir, seal_args(dir / "data.bin", dir / "sealed")), 30);
  INFO(s.err);
  REQUIRE(s.status == 0);
  const result p = sh(dir, cli_keyed(dir, "pc2 --sealed " + quote(dir / "sealed")), 30);
  CHECK(p.status == 0);
  CHECK(p.out.find("no machine key (" + (dir / "state" / "seal-key").string() + ": is a FIFO, not a regular file)") !=
        std::string::npos);
  // An unfinished seal's state file.
  fs::create_directories(dir / "unfinished");
  REQUIRE(::mkfifo((dir / "unfinished" / "seal-state.json").c_str(), 0600) == 0);
  check_error(sh(dir, cli(seal_args(dir / "data.bin", dir / "unfinished")), 30),
              {(dir / "unfinished" / "seal-state.json").string() + ": is a FIFO, not a regular file"});
  // The engine calibration cache: refused with a warning and measured again; the FIFO is
  // not poreplab's to replace, so the new rates are not cached.
  const std::string tune_env = "POREPLAB_TUNE_DIR=" + quote(dir / "cache") + " ";
  REQUIRE(sh(dir, tune_env + cli("tune --rounds 1 --sample-ms 1")).status == 0);
  const fs::path cache = fs::directory_iterator(dir / "cache")->path();
  fs::remove(cache);
  REQUIRE(::mkfifo(cache.c_str(), 0600) == 0);
  const result t = sh(dir, tune_env + cli("tune"), 30);
  CHECK(t.status == 0);
  CHECK(t.err.find(cache.string() + ": is a FIFO, not a regular file") != std::string::npos);
  CHECK(t.err.find(cache.string() + ": is a FIFO, where this file goes") != std::string::npos);
  CHECK(fs::is_fifo(fs::symlink_status(cache)));
  // A parent cache file, and one that is a directory.
  REQUIRE(sh(dir, cli(seal_args(dir / "data.bin", dir / "s2") + " --parent-cache " + quote(dir / "pc"))).status == 0);
  fs::path table;
  for (const auto& e : fs::directory_iterator(dir / "pc"))
    if (e.path().extension() == ".cache") table = e.path();
  fs::remove(table);
  REQUIRE(::mkfifo(table.c_str(), 0600) == 0);
  check_error(sh(dir, cli(seal_args(dir / "data.bin", dir / "s3") + " --parent-cache " + quote(dir / "pc")), 30),
              {table.string() + ": is a FIFO, not a regular file"});
  fs::remove(table);
  fs::create_directories(table);
  check_error(sh(dir, cli(seal_args(dir / "data.bin", dir / "s4") + " --parent-cache " + quote(dir / "pc"))),
              {table.string() + ": is a directory, not a regular file"});
  // Records a report reads.
  fs::create_directories(dir / "r");
  REQUIRE(::mkfifo((dir / "r" / "records.jsonl").c_str(), 0600) == 0);
  check_error(sh(dir, cli("compare " + quote(dir / "r") + " " + quote(dir / "r")), 30),
              {(dir / "r" / "records.jsonl").string() + ": is a FIFO, not a regular file"});
}

TEST_CASE("records: impossible timings are errors naming file:line and field, duplicates are reported, the size is bounded",
          "[reliability][runner]") {
  temp_dir dir;
  fs::create_directories(dir / "base");
  fs::create_directories(dir / "other");
  spit(dir / "base" / "records.jsonl", records_with("[857, 860, 855]"));
  const std::string compare = "compare " + quote(dir / "base") + " " + quote(dir / "other") + " --fail-on-regression 5";
  const fs::path other = dir / "other" / "records.jsonl";
  for (const auto& [samples, shown] : std::vector<std::pair<std::string, std::string>>{
           {"[0, 0, 0]", "/samples/0: 0 is not a timing"}, {"[857, -5, 855]", "/samples/1: -5 is not a timing"}}) {
    spit(other, records_with(samples));
    check_error(sh(dir, cli(compare)), {other.string() + ":2: " + shown + " (positive and finite)"});
  }
  // Without samples, the median is the timing.
  spit(other, json{{"type", "point"}, {"experiment", "h"}, {"axes", {{"algo", "sha256"}}}, {"status", "ok"},
                   {"stats", {{"n", 1}, {"median", 0}}}}.dump() + "\n");
  check_error(sh(dir, cli(compare)), {other.string() + ":1: /stats/median: 0 is not a timing"});
  // A number where a name belongs is named, not met by a report as a library exception.
  spit(other, json{{"type", "point"}, {"experiment", "h"}, {"axes", {{"algo", "sha256"}}}, {"status", 5}}.dump() + "\n");
  check_error(sh(dir, cli(compare)), {other.string() + ":1: /status: expected a string, got 5"});
  // A point recorded ok twice: compared, and reported.
  const std::string point = records_with("[857, 860, 855]").substr(records_with("[857, 860, 855]").find('\n') + 1);
  spit(other, records_with("[857, 860, 855]", point));
  const result dup = sh(dir, cli(compare + " -o " + quote(dir / "cmp")));
  INFO(dup.err);
  CHECK(dup.status == 0);
  CHECK(dup.err.find("poreplab: warning: " + other.string() + ":3: h {\"algo\":\"sha256\"} was recorded ok at line 2 "
                     "already (the later record is used)") != std::string::npos);
  CHECK(slurp(dir / "cmp" / "compare.md").find("## Duplicate points") != std::string::npos);
  // Bounded: records that would not fit in memory, and a file past the limit, are refused
  // before they are read.
  check_error(sh(dir, "POREPLAB_MEM_AVAILABLE=1000 " + cli(compare)),
              {(dir / "base" / "records.jsonl").string() + ", ", "bytes of memory per byte in this command: does not fit in memory"});
  fs::resize_file(other, records::kMaxRecordsBytes + 1);
  check_error(sh(dir, cli(compare)), {other.string() + ": 1073741825 bytes, more than the 1.0 GiB a records file may hold"});
}

TEST_CASE("report -o FILE: a report already written is not replaced without --force", "[reliability][report]") {
  temp_dir dir;
  fs::create_directories(dir / "r");
  const json header = {{"type", "header"},
                       {"run", 0},
                       {"environment", {{"cpu", {{"model", "Test CPU"}, {"logical_cores", 2}}}}}};
  const json label = {{"type", "point"},
                      {"run", 0},
                      {"experiment", "e"},
                      {"kind", "label"},
                      {"status", "ok"},
                      {"axes",
                       {{"backend", "cpu"}, {"variant", "sdr"}, {"hash", "sha256"}, {"sector_size", 2048},
                        {"sectors", 1}, {"layers", 2}, {"threads", 1}}},
                      {"stats", {{"median", 800}, {"n", 1}}},
                      {"rates", {{"labels_per_s", 1.25e6}}},
                      {"context", {{"scheme", "sdr/sha256"}, {"device", "Test CPU"}}}};
  spit(dir / "r" / "records.jsonl", header.dump() + "\n" + label.dump() + "\n");
  spit(dir / "verdict.md", std::string("mine"));
  const std::string verdict = "report verdict " + quote(dir / "r") + " -o " + quote(dir / "verdict.md");
  check_error(sh(dir, cli(verdict)), {(dir / "verdict.md").string() + ": already exists; pass --force to replace it"});
  CHECK(slurp(dir / "verdict.md") == "mine");
  const result forced = sh(dir, cli(verdict + " --force"));
  INFO(forced.err);
  CHECK(forced.status == 0);
  CHECK(slurp(dir / "verdict.md").rfind("#", 0) == 0);
  // --machine takes one file per flag: a result directory after it is a result directory.
  spit(dir / "m.json", R"({"schema": "poreplab-machine/1", "name": "M", "cpu": {"cores": 8}, "ram": "64GiB"})");
  copy_dir(dir / "r", dir / "r2");
  const result both = sh(dir, cli("report verdict " + quote(dir / "r") + " --machine " + quote(dir / "m.json") + " " +
                                  quote(dir / "r2")));
  INFO(both.err);
  CHECK(both.status == 0);
  check_error(sh(dir, cli("report verdict --machine " + quote(dir / "r2"))),
              {(dir / "r2").string() + " is a directory: result directories go before --machine"});
}

TEST_CASE("errors in the tool's own words: a tune directory that is a file, --sectors past 2^32", "[reliability][cli]") {
  temp_dir dir;
  spit(dir / "file", std::string("x"));
  const result t = sh(dir, "POREPLAB_TUNE_DIR=" + quote(dir / "file") + " " + cli("tune --rounds 1 --sample-ms 1"));
  CHECK(t.status == 0);
  CHECK(t.err.find("poreplab: warning: engine calibration not cached: " + (dir / "file").string() +
                   ": exists and is not a directory\n") != std::string::npos);
  CHECK(t.err.find("filesystem error") == std::string::npos);
  check_error(sh(dir, cli("bench label --sector-size 2KiB --sectors 4294967296")),
              {"--sectors: '4294967296' is out of range"});
}

TEST_CASE("vector verify: null or absent PC2 fields are not in the vector, for any layer count", "[reliability][vectors]") {
  temp_dir dir;
  const json original = read_json(vector_2kib());
  const auto verify = [&](const std::function<void(json&)>& edit) {
    json v = original;
    edit(v);
    spit(dir / "v.json", v.dump());
    return sh(dir, cli("vector verify " + quote(dir / "v.json")));
  };
  const result null_c = verify([](json& v) { v["comm_c"] = nullptr; });
  INFO(null_c.out << null_c.err);
  CHECK(null_c.status == 0);
  CHECK(null_c.out.find("comm_c: not in the vector (null or absent)") != std::string::npos);
  CHECK(null_c.out.find("comm_r (") != std::string::npos);  // the others still checked
  const result none = verify([](json& v) {
    for (const char* f : seal::kPc2Fields) v.erase(f);
  });
  CHECK(none.status == 0);
  CHECK(none.out.find(" passed, 0 failed, 3 not in the vectors\n") != std::string::npos);
  check_error(verify([](json& v) { v["comm_c"] = 5; }), {"v.json: comm_c: expected 64 lowercase hex digits"});
}

TEST_CASE("gpu-study deletes only what it made: archive names, an existing directory, a damaged archive, set-ID bits",
          "[reliability][gpu-study]") {
  temp_dir dir;
  // As on the device (tests/gpu_study_emulated.sh): no environment.
  const std::string study = "env -i /bin/bash " + quote(fs::path(POREPLAB_SOURCE_DIR) / "scripts" / "gpu-study");
  // A bundle whose gpu-study prints how it was called, and a set-user-ID file.
  fs::create_directories(dir / "src");
  spit(dir / "src" / "gpu-study", std::string("#!/bin/sh\necho \"inner $*\"\n"));
  spit(dir / "src" / "tool", std::string("x"));
  fs::permissions(dir / "src" / "gpu-study", fs::perms::owner_all);
  fs::permissions(dir / "src" / "tool", fs::perms::owner_all | fs::perms::set_uid);
  const auto pack = [&](const std::string& name) {
    REQUIRE(sh(dir, "cd " + quote(dir.path) + " && python3 -c 'import sys, tarfile; t = tarfile.open(sys.argv[1], \"w:xz\"); "
                    "t.add(\"src\", arcname=\".\"); t.close()' " + quote(name)).status == 0);
  };
  pack("bundle.tar.xz");
  const std::string call = " --budget 480 --out " + quote(dir / "o");
  const result first = sh(dir, "cd " + quote(dir.path) + " && " + study + " --archive bundle.tar.xz" + call);
  INFO(first.err);
  CHECK(first.status == 0);
  CHECK(first.out == "inner --budget 480 --out " + (dir / "o").string() + "\n");
  CHECK(first.err.find("unpacking") != std::string::npos);
  CHECK(fs::exists(dir / "bundle" / ".unpacked-from"));
  CHECK((fs::status(dir / "bundle" / "tool").permissions() & fs::perms::set_uid) == fs::perms::none);
  // The same archive again: its unpack, stamped, is reused.
  const result again = sh(dir, "cd " + quote(dir.path) + " && " + study + " --archive bundle.tar.xz" + call);
  CHECK(again.status == 0);
  CHECK(again.err.find("unpacking") == std::string::npos);
  // A directory it did not unpack is never replaced; names that are not NAME.tar.* are refused.
  fs::create_directories(dir / "results");
  spit(dir / "results" / "keep", std::string("mine"));
  fs::copy_file(dir / "bundle.tar.xz", dir / "results.tar.xz");
  fs::copy_file(dir / "bundle.tar.xz", dir / "bundle.xz");
  fs::create_directories(dir / "sub");
  fs::copy_file(dir / "bundle.tar.xz", dir / "sub" / ".tar.xz");
  for (const std::string archive : {"results.tar.xz", "bundle.xz", "sub/.tar.xz"}) {
    const result r = sh(dir, "cd " + quote(dir.path) + " && " + study + " --archive " + archive + call);
    INFO(archive << ": " << r.err);
    CHECK(r.status == 1);
    CHECK(r.err.rfind("gpu-study: error: --archive " , 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  CHECK(slurp(dir / "results" / "keep") == "mine");
  CHECK(fs::exists(dir / "bundle.xz"));
  CHECK(fs::exists(dir / "sub" / ".tar.xz"));
  // A damaged archive leaves nothing behind.
  spit(dir / "bad.tar.xz", slurp(dir / "bundle.tar.xz").substr(0, 100));
  const auto before = names_in(dir.path);
  CHECK(sh(dir, "cd " + quote(dir.path) + " && " + study + " --archive bad.tar.xz" + call).status == 1);
  CHECK(names_in(dir.path) == before);
  // --budget: decimal digits only, one line.
  for (const std::string budget : {"08", "0100", "1e3", "24"}) {
    const result r = sh(dir, study + " --budget " + budget + " --out " + quote(dir / "o"));
    INFO(budget << ": " << r.err);
    CHECK(r.status == 1);
    CHECK(r.err == "gpu-study: error: --budget '" + budget +
                       "': expected whole seconds in decimal digits (no leading zero), at least 25\n");
  }
}
