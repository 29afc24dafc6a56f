// The experiment runner: config validation (one test per rule), point expansion,
// records, resume after an interruption, shards + merge, SIGINT, --set.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "runner/config.hpp"
#include "records/records.hpp"
#include "records/schema.hpp"
#include "runner/runner.hpp"
#include "runner/kinds.hpp"
#include "support.hpp"
#include "util/text.hpp"
#ifdef POREPLAB_WITH_CUDA
#include "poreplab/cuda/devices.hpp"
#endif

namespace fs = std::filesystem;
using nlohmann::json;
using namespace poreplab::runner;
namespace records = poreplab::records;
using poreplab::format_size;
using poreplab::parse_size;
namespace test = poreplab::test;

namespace {

// The message of the config_error that parsing `text` throws ("" if none).
std::string config_problem(const std::string& text) {
  try {
    parse_config(text, "test.json");
  } catch (const config_error& e) {
    return e.what();
  }
  return "";
}

std::string with_experiment(const std::string& experiment) {
  return R"({"schema": "poreplab-experiments/1", "experiments": [)" + experiment + "]}";
}

// Small, fast points: portable SHA-256 in both patterns, 2KiB labeling on two backends,
// a 2KiB tree_d.
const char* kTinyConfig = R"({
  "schema": "poreplab-experiments/1",
  "description": "tiny points for the runner tests",
  "experiments": [
    {"name": "h", "kind": "hash", "warmup": 0, "samples": 2,
     "axes": {"algo": ["sha256"], "engine": ["portable", "openssl"], "mode": ["throughput", "chain"], "size": ["1KiB"]}},
    {"name": "l", "kind": "label", "warmup": 0, "samples": 2,
     "axes": {"backend": ["reference", "cpu", "cuda"], "sector_size": ["2KiB"]}},
    {"name": "t", "kind": "tree_d", "warmup": 0, "samples": 2, "axes": {"sector_size": ["2KiB", "4KiB"]}}
  ]
})";

std::vector<json> point_lines(const fs::path& records) {
  std::vector<json> out;
  std::istringstream in(test::read_text(records));
  std::string line;
  while (std::getline(in, line)) {
    const json j = json::parse(line);
    if (j["type"] == "point") out.push_back(j);
  }
  return out;
}

std::set<std::string> result_keys(const fs::path& results_json) {
  const json r = json::parse(test::read_text(results_json));
  std::set<std::string> keys;
  for (const auto& p : r["points"]) keys.insert(records::record_key(p));
  return keys;
}

}  // namespace

// ---------------------------------------------------------------- validation

TEST_CASE("runner config: an unknown key is named by its JSON pointer", "[runner]") {
  const auto e = config_problem(with_experiment(R"({"name": "a", "kind": "hash", "sample": 3})"));
  CHECK(e.find("test.json: /experiments/0/sample: unknown key \"sample\"") != std::string::npos);
  CHECK(config_problem(R"({"schema": "poreplab-experiments/1", "experiments": [], "extra": 1})").find("/extra") !=
        std::string::npos);
}

TEST_CASE("runner config: a value of the wrong type", "[runner]") {
  CHECK(config_problem(with_experiment(R"({"name": "a", "kind": "hash", "samples": "5"})"))
            .find("/experiments/0/samples: expected an integer >= 1, got string \"5\"") != std::string::npos);
  CHECK(config_problem(with_experiment(R"({"name": "a", "kind": "label", "axes": {"sectors": [1, "2"]}})"))
            .find("/experiments/0/axes/sectors/1: expected an integer") != std::string::npos);
  CHECK(config_problem(with_experiment(R"({"name": "a", "kind": "label", "axes": {"backend": "cpu"}})"))
            .find("/experiments/0/axes/backend: expected a list of values") != std::string::npos);
}

TEST_CASE("runner config: sizes must be power-of-two sizes in the accepted forms", "[runner]") {
  const auto e = config_problem(
      with_experiment(R"({"name": "a", "kind": "label", "axes": {"sector_size": ["2KiB", "3KiB"]}})"));
  CHECK(e == "test.json: /experiments/0/axes/sector_size/1: \"3KiB\" is not a power-of-two size");
  CHECK(config_problem(with_experiment(R"({"name": "a", "kind": "label", "axes": {"sector_size": ["2KB"]}})"))
            .find("/experiments/0/axes/sector_size/0: \"2KB\" is not a size") != std::string::npos);
  CHECK(config_problem(with_experiment(R"({"name": "a", "kind": "label", "axes": {"sector_size": [3000]}})"))
            .find("3000 is not a power-of-two size") != std::string::npos);
  CHECK(parse_size("2KiB") == 2048u);
  CHECK(parse_size("8MiB") == 8u << 20);
  CHECK(parse_size("32GiB") == 32ull << 30);
  CHECK(parse_size("4096") == 4096u);
  CHECK_FALSE(parse_size("2 KiB"));
  CHECK_FALSE(parse_size("KiB"));
  CHECK_FALSE(parse_size("99999999999999999999"));
  CHECK(format_size(32ull << 30) == "32GiB");
  CHECK(format_size(3000) == "3000B");
  const config c = parse_config(
      with_experiment(R"({"name": "a", "kind": "label", "axes": {"sector_size": ["2KiB", 8388608, "32GiB"]}})"), "t");
  // label axes: backend, variant, hash, engine, layout, threads_per_block, kernel, sector_size, ...
  CHECK(c.experiments[0].axes[7].first == "sector_size");
  CHECK(c.experiments[0].axes[7].second == std::vector<json>{2048, 8388608, 32ull << 30});
}

TEST_CASE("runner config: a pc2 window is 0 or a power of 8 from 64, refused at config time", "[runner]") {
  const auto window = [](const std::string& v) {
    return config_problem(with_experiment(R"({"name": "a", "kind": "pc2", "axes": {"window_nodes": [)" + v + "]}}"));
  };
  for (const char* bad : {"7", "8", "100", "1"}) {
    INFO(bad);
    CHECK(window(bad).find("/experiments/0/axes/window_nodes/0: expected an integer from 0 to 68719476736, 0 or a "
                           "power of 8 from 64, got " + std::string(bad)) != std::string::npos);
  }
  for (const char* good : {"0", "64", "512", "2097152"}) {
    INFO(good);
    CHECK(window(good).empty());
  }
}

TEST_CASE("runner config: an unknown engine, backend or algo", "[runner]") {
  CHECK(config_problem(with_experiment(R"({"name": "a", "kind": "label", "axes": {"engine": ["auto", "avx9"]}})"))
            .find("/experiments/0/axes/engine/1: unknown engine \"avx9\" (known: auto, ") != std::string::npos);
  CHECK(config_problem(with_experiment(R"({"name": "a", "kind": "label", "axes": {"backend": ["opencl"]}})"))
            .find("/experiments/0/axes/backend/0: unknown backend \"opencl\"") != std::string::npos);
  CHECK(config_problem(with_experiment(R"({"name": "a", "kind": "hash", "axes": {"algo": ["md5"]}})"))
            .find("/experiments/0/axes/algo/0: unknown algo \"md5\"") != std::string::npos);
}

TEST_CASE("runner config: an unknown kind", "[runner]") {
  // Kinds are listed in kinds() order; more are added over time.
  const std::string pc3 = config_problem(with_experiment(R"({"name": "a", "kind": "pc3"})"));
  CHECK_THAT(pc3, Catch::StartsWith("test.json: /experiments/0/kind: unknown kind \"pc3\" (known: hash, label, seal, "
                                    "tree_d, pc2, limits"));
}

TEST_CASE("runner kinds: every kind is named in the record schema's kind table, and every name has its kind", "[runner]") {
  std::set<std::string> table;
  for (const auto& n : records::kRecordKinds.names()) table.insert(n);
  std::set<std::string> run;
  for (const auto& k : kinds()) {
    run.insert(k.name);
    CHECK(records::kRecordKinds.has(k.name));
  }
  CHECK(run == table);
  CHECK(records::kind_of(json{{"kind", "label"}}) == records::record_kind::label);
  CHECK_FALSE(records::kind_of(json{{"kind", "pc3"}}));
  CHECK_FALSE(records::kind_of(json::object()));
  CHECK(records::is_ok(json{{"kind", "pc2"}, {"status", "ok"}}, records::record_kind::pc2));
  CHECK_FALSE(records::is_ok(json{{"kind", "pc2"}, {"status", "skipped"}}, records::record_kind::pc2));
  CHECK_FALSE(records::is_ok(json{{"kind", "label"}, {"status", "ok"}}, records::record_kind::pc2));
}

TEST_CASE("runner config: an empty axis", "[runner]") {
  CHECK(config_problem(with_experiment(R"({"name": "a", "kind": "label", "axes": {"sectors": []}})")) ==
        "test.json: /experiments/0/axes/sectors: empty axis: give at least one value");
  CHECK(config_problem(R"({"schema": "poreplab-experiments/1", "experiments": []})")
            .find("/experiments: no experiments") != std::string::npos);
}

TEST_CASE("runner config: an unknown axis, a duplicate value or name", "[runner]") {
  CHECK(config_problem(with_experiment(R"({"name": "a", "kind": "hash", "axes": {"sector_size": ["2KiB"]}})"))
            .find("/experiments/0/axes/sector_size: unknown axis \"sector_size\" for kind hash") != std::string::npos);
  // An axis renamed since configs were written (kParamRenames) reads as its new name and
  // says so; given under both names it is refused.
  const auto renamed = runner::parse_config(with_experiment(R"({"name": "a", "kind": "pc2", "axes": {"window": [64]}})"),
                                            "test.json");
  const auto& read = renamed.experiments.at(0).axes;
  CHECK(std::any_of(read.begin(), read.end(), [](const auto& a) {
    return a.first == "window_nodes" && a.second == std::vector<nlohmann::json>{64};
  }));
  REQUIRE(renamed.renames.size() == 1);
  CHECK(renamed.renames[0] == "test.json: /experiments/0/axes/window: axis \"window\" is now \"window_nodes\" (read as it)");
  CHECK(renamed.digest == runner::parse_config(with_experiment(R"({"name": "a", "kind": "pc2", "axes": {"window_nodes": [64]}})"),
                                               "test.json").digest);
  CHECK(config_problem(with_experiment(R"({"name": "a", "kind": "pc2", "axes": {"window": [64], "window_nodes": [8]}})"))
            .find("/experiments/0/axes/window: axis \"window\" is \"window_nodes\", which is given too") !=
        std::string::npos);
  CHECK(config_problem(with_experiment(R"({"name": "a", "kind": "label", "axes": {"sectors": [1, 2, 1]}})"))
            .find("/experiments/0/axes/sectors/2: duplicate value 1") != std::string::npos);
  CHECK(config_problem(with_experiment(R"({"name": "a", "kind": "hash"}, {"name": "a", "kind": "label"})"))
            .find("/experiments/1/name: duplicate experiment name \"a\"") != std::string::npos);
}

TEST_CASE("runner config: a missing or unsupported schema version", "[runner]") {
  CHECK(config_problem(R"({"schema": "poreplab-experiments/2", "experiments": [{"name": "a", "kind": "hash"}]})") ==
        "test.json: /schema: unsupported schema \"poreplab-experiments/2\" (this poreplab reads "
        "\"poreplab-experiments/1\")");
  CHECK(config_problem(R"({"experiments": [{"name": "a", "kind": "hash"}]})")
            .find("missing required key \"schema\"") != std::string::npos);
}

TEST_CASE("runner config: malformed JSON reports line and column", "[runner]") {
  const auto e = config_problem("{\n  \"schema\": \"poreplab-experiments/1\",\n  \"experiments\": [,]\n}");
  CHECK(e.rfind("test.json: parse error at line 3, column 19", 0) == 0);
}

TEST_CASE("runner config: a missing config file is a clear error", "[runner]") {
  test::temp_dir s("runner");
  const auto r = test::run_poreplab("run " + test::shell_quote((s / "nope.json").string()) + " -o " + test::shell_quote((s / "out").string()), s);
  CHECK(r.status == 1);
  CHECK(r.err.find("poreplab: error: cannot open config file") != std::string::npos);
  CHECK(r.err.find("nope.json") != std::string::npos);
  CHECK_FALSE(fs::exists(s / "out"));
}

TEST_CASE("runner config: the embedded default and the shipped configs validate", "[runner]") {
  const config d = embedded_default_config();
  CHECK(d.experiments.size() >= 3);
  CHECK(d.digest.size() == 64);
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(POREPLAB_SOURCE_DIR) / "experiments" / "configs")) {
    if (entry.path().extension() != ".json") continue;
    INFO(entry.path().string());
    const config c = load_config_file(entry.path().string());
    CHECK_FALSE(expand_points(c).empty());
  }
  // The embedded copy is the file in the tree.
  CHECK(load_config_file((fs::path(POREPLAB_SOURCE_DIR) / "experiments/configs/default.json").string()).digest ==
        d.digest);
}

// ---------------------------------------------------------------- expansion, --set

TEST_CASE("runner points: cross product in axis order, n/a axes collapsed", "[runner]") {
  const config c = parse_config(with_experiment(R"({"name": "a", "kind": "label",
      "axes": {"backend": ["reference", "cpu"], "engine": ["portable", "auto"], "sectors": [1, 2]}})"),
                                "t");
  const auto pts = expand_points(c);
  // reference ignores the engine: 2 points; cpu: 2 engines x 2 sector counts.
  REQUIRE(pts.size() == 6);
  CHECK(pts[0].axes["backend"] == "reference");
  CHECK(pts[0].axes["engine"].is_null());
  CHECK(pts[0].axes["sectors"] == 1);
  CHECK(pts[1].axes["sectors"] == 2);
  CHECK(pts[2].axes["engine"] == "portable");
  CHECK(pts[5].axes["engine"] == "auto");
  for (std::size_t i = 0; i < pts.size(); ++i) CHECK(pts[i].index == i);
  CHECK(pts[2].describe() ==
        "a backend=cpu variant=sdr hash=sha256 engine=portable sector_size=2KiB sectors=1 layers=2 threads=0");
}

TEST_CASE("runner --set overrides an axis", "[runner]") {
  const config c = parse_config(kTinyConfig, "t");
  const config d = apply_overrides(c, {"sector_size=4KiB,8KiB", "h.mode=chain", "samples=1"});
  for (const auto& e : d.experiments) {
    CHECK(e.samples == 1);
    for (const auto& [name, values] : e.axes) {
      if (name == "sector_size") CHECK(values == std::vector<json>{4096, 8192});
      if (name == "mode") CHECK(values == std::vector<json>{"chain"});
    }
  }
  CHECK(d.digest != c.digest);
  CHECK_THROWS_WITH(apply_overrides(c, {"sector_size=3KiB"}),
                    Catch::Contains("\"3KiB\" is not a power-of-two size") && Catch::Contains("--set"));
  CHECK_THROWS_WITH(apply_overrides(c, {"colour=red"}), Catch::Contains("no experiment in the config has an axis"));
  CHECK_THROWS_WITH(apply_overrides(c, {"zz.mode=chain"}), Catch::Contains("no experiment named \"zz\""));

  // Through the binary: --list shows the overridden points.
  test::temp_dir s("runner");
  test::write_text(s / "tiny.json", kTinyConfig);
  const std::string cmd = test::shell_quote(POREPLAB_BINARY) + " run " + test::shell_quote((s / "tiny.json").string()) +
                          " --list --set t.sector_size=64KiB > " + test::shell_quote((s / "list.txt").string());
  REQUIRE(std::system(cmd.c_str()) == 0);
  const std::string list = test::read_text(s / "list.txt");
  CHECK(list.find("t sector_size=64KiB") != std::string::npos);
  CHECK(list.find("t sector_size=2KiB") == std::string::npos);
}

TEST_CASE("runner config: ci_target is a fraction, for kinds with a stopping rule", "[runner]") {
  // The kinds with a stopping rule come from the kind table; label and latency_under_load are among them.
  const std::vector<std::string> stopping = stopping_kinds();
  CHECK(std::find(stopping.begin(), stopping.end(), "label") != stopping.end());
  CHECK(std::find(stopping.begin(), stopping.end(), "latency_under_load") != stopping.end());
  CHECK(std::find(stopping.begin(), stopping.end(), "hash") == stopping.end());
  std::string applies;
  for (const auto& k : stopping) applies += (applies.empty() ? "" : ", ") + k;
  CHECK(config_problem(with_experiment(R"({"name": "a", "kind": "hash", "ci_target": 0.02})"))
            .find("test.json: /experiments/0/ci_target: kind hash has no stopping rule (ci_target applies to: " + applies + ")") !=
        std::string::npos);
  CHECK(config_problem(with_experiment(R"({"name": "a", "kind": "label", "ci_target": "2%"})"))
            .find("/experiments/0/ci_target: expected a fraction of the median such as 0.02, got string \"2%\"") !=
        std::string::npos);
  for (const char* v : {"0", "1", "-0.1", "3"})
    CHECK(config_problem(with_experiment(std::string(R"({"name": "a", "kind": "label", "ci_target": )") + v + "}"))
              .find("/experiments/0/ci_target: expected a fraction of the median above 0 and below 1 (0.02 = +-2%), "
                    "got " + std::string(v)) != std::string::npos);
  const config c = parse_config(with_experiment(R"({"name": "a", "kind": "label", "ci_target": 0.02})"), "t");
  REQUIRE(c.experiments[0].ci_target);
  CHECK(*c.experiments[0].ci_target == 0.02);
  // --set reaches only the kinds that have the rule; a kind without one is named.
  const config t = parse_config(kTinyConfig, "t");
  const config d = apply_overrides(t, {"ci_target=0.05"});
  for (const auto& e : d.experiments) CHECK(e.ci_target.has_value() == (e.kind == "label"));
  CHECK_THROWS_WITH(apply_overrides(t, {"h.ci_target=0.05"}), Catch::Contains("kind hash has no stopping rule"));
  CHECK_THROWS_WITH(apply_overrides(t, {"ci_target=1.5"}),
                    Catch::Contains("--set ci_target=1.5: ci_target takes one fraction above 0 and below 1"));
  const config hash_only = parse_config(with_experiment(R"({"name": "a", "kind": "hash"})"), "t");
  CHECK_THROWS_WITH(apply_overrides(hash_only, {"ci_target=0.05"}),
                    Catch::Contains("no experiment in the config has a stopping rule (ci_target applies to: " + applies + ")"));
}

TEST_CASE("runner records: statistics, noisy flag, truncated last line", "[runner]") {
  const auto st = records::compute_stats({10, 12, 11, 30});
  CHECK(st.n == 4);
  CHECK(st.min == 10);
  CHECK(st.max == 30);
  CHECK(st.median == Approx(11.5));
  CHECK(st.spread == Approx(20 / 11.5));
  CHECK(st.ci_lo <= st.median);
  CHECK(st.median <= st.ci_hi);
  CHECK(records::stats_json(st)["ci95"].size() == 2);
  CHECK(records::compute_stats({5}).spread == 0);
  CHECK(records::compute_stats({5}).ci_hi == 5);

  test::temp_dir s("runner");
  const fs::path f = s / "records.jsonl";
  test::write_text(f, "{\"type\":\"header\",\"run\":0}\n{\"type\":\"point\",\"experiment\":\"a\",\"axes\":{}}\n{\"type\":\"poi");
  const auto log = records::read_records(f, true);
  CHECK(log.headers.size() == 1);
  CHECK(log.points.size() == 1);
  CHECK(log.truncated_bytes == 12);
  CHECK(test::read_text(f).back() == '\n');  // the half line is gone
  test::write_text(f, "{\"type\":\"header\"}\nnot json\n{\"type\":\"header\"}\n");
  CHECK_THROWS_WITH(records::read_records(f, true), Catch::Contains("records.jsonl:2: not a JSON record"));
}

// ---------------------------------------------------------------- runs

TEST_CASE("runner run: records carry verified digests and rates", "[runner]") {
  test::temp_dir s("runner");
  const auto [r, res] = test::run_config(s, "tiny.json", kTinyConfig);
  CHECK(r.err.find("[1/9] h backend=cpu algo=sha256 engine=portable mode=throughput size=1KiB ... ok") != std::string::npos);
  CHECK(r.err.find("ETA") != std::string::npos);
  for (const char* f : {"records.jsonl", "results.json", "results.csv", "report.md"}) CHECK(fs::exists(s / "out" / f));
  // Every key the runner writes is in the record schema (records/schema.hpp).
  {
    const std::set<std::string> header(records::kHeaderKeys.begin(), records::kHeaderKeys.end());
    const std::set<std::string> point(records::kPointKeys.begin(), records::kPointKeys.end());
    const auto log = records::read_records(s / "out" / "records.jsonl", false);
    REQUIRE(log.headers.size() == 1);
    for (const auto& [k, v] : log.headers[0].items()) CHECK(header.count(k) == 1);
    REQUIRE(log.points.size() == 9);
    for (const auto& p : log.points) {
      CHECK(records::is_ok(p) == (p[records::key::status] == "ok"));
      for (const auto& [k, v] : p.items()) CHECK(point.count(k) == 1);
    }
  }
  // SDR label records: the verdict is written unasked, and report.md opens with it.
  CHECK(fs::exists(s / "out" / "verdict.md"));
  CHECK(fs::exists(s / "out" / "verdict.json"));
  const std::string report = test::read_text(s / "out" / "report.md");
  CHECK(report.find("\n## ") == report.find("\n## CPU vs GPU"));
  CHECK(report.find("### In plain words") != std::string::npos);
  CHECK(res["schema"] == "poreplab-results/1");
  CHECK(res["counts"]["expected"] == 9);
  CHECK(res["counts"]["missing"] == 0);
  CHECK(res["runs"].size() == 1);
  CHECK(res["runs"][0]["environment"].contains("cpu"));
  CHECK(res["runs"][0]["argv"].size() >= 3);
  std::string label_digest;
  for (const auto& p : res["points"]) {
    INFO(p.dump());
    if (p["axes"].value("backend", "") == "cuda") {
      // Built without CUDA here, or no GPU: recorded, not dropped.
      if (p["status"] == "skipped") CHECK_FALSE(p["reason"].get<std::string>().empty());
      continue;
    }
    REQUIRE(p["status"] == "ok");
    CHECK(p["verified"] == true);
    CHECK(p["digest"].get<std::string>().size() == 64);
    CHECK(p["samples"].size() == 2);
    CHECK(p["stats"]["min"] <= p["stats"]["median"]);
    CHECK(p["noisy"] == (p["stats"]["spread"].get<double>() > records::kNoisySpread));
    CHECK_FALSE(p["rates"].empty());
    if (p["kind"] == "label") {
      CHECK(p["rates"]["labels_per_s"].get<double>() > 0);
      // Every backend labels the same sector: one digest.
      if (label_digest.empty()) label_digest = p["digest"];
      CHECK(p["digest"] == label_digest);
    }
    if (p["kind"] == "hash") CHECK(p["rates"]["cycles_per_byte"].get<double>() > 0);
  }
  const std::string csv = test::read_text(s / "out" / "results.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 10);
  CHECK(test::read_text(s / "out" / "report.md").find("### l (label)") != std::string::npos);

  // The same directory again without --resume is refused before running anything, and
  // leaves nothing behind: not even the lock file it took to look.
  std::filesystem::remove(s / "out" / ".lock");
  const auto again = test::run_poreplab("run " + test::shell_quote((s / "tiny.json").string()) + " -o " + test::shell_quote((s / "out").string()), s);
  CHECK(again.status == 1);
  CHECK(again.err.find("already holds records.jsonl: pass --resume") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(std::filesystem::symlink_status(s / "out" / ".lock")));
  // A lock file it did not make stays.
  test::write_text(s / "out" / ".lock", "1\n");
  const auto kept = test::run_poreplab("run " + test::shell_quote((s / "tiny.json").string()) + " -o " + test::shell_quote((s / "out").string()), s);
  CHECK(kept.status == 1);
  CHECK(std::filesystem::is_regular_file(std::filesystem::symlink_status(s / "out" / ".lock")));
}

TEST_CASE("runner label points: pairs, intervals, clock and the stopping rule in records and report", "[runner]") {
  test::temp_dir s("runner");
  const auto [r, res] = test::run_config(s, "ci.json", R"({
    "schema": "poreplab-experiments/1",
    "experiments": [
      {"name": "fixed", "kind": "label", "warmup": 0, "samples": 3, "axes": {"backend": ["cpu"]}},
      {"name": "target", "kind": "label", "warmup": 0, "samples": 1, "ci_target": 0.9, "axes": {"backend": ["cpu"]}},
      {"name": "budget", "kind": "label", "warmup": 0, "samples": 5, "ci_target": 1e-9, "time_budget_s": 0.3,
       "axes": {"backend": ["reference"]}}
    ]
  })");
  CHECK(r.err.find(", efficiency ") != std::string::npos);
  REQUIRE(res["points"].size() == 3);
  std::map<std::string, json> by;
  for (const auto& p : res["points"]) by[p["experiment"]] = p;
  for (const auto& [name, p] : by) {
    INFO(name << ": " << p.dump());
    REQUIRE(p["status"] == "ok");
    const json& c = p["context"];
    CHECK(c["efficiency_pairs"].size() == p["samples"].size());
    CHECK(c["efficiency_ci95"][0].get<double>() <= c["efficiency"].get<double>());
    CHECK(c["efficiency"].get<double>() <= c["efficiency_ci95"][1].get<double>());
    // The rate is the pairs' median ratio, not the floor over the median time.
    CHECK(p["rates"]["efficiency"] == c["efficiency"]);
    CHECK(p["stats"]["ci95"].size() == 2);
    CHECK(c["cpu_share"].size() == p["samples"].size());
    CHECK(c["preempted"].get<std::size_t>() == c["preempted_samples"].size());
#if defined(__x86_64__)
    CHECK(c["clock_hz"].size() == p["samples"].size());
    CHECK(c["clock_flagged"].get<std::size_t>() == c["clock_flagged_samples"].size());
    CHECK(p["rates"]["cycles_per_byte_core"].get<double>() > 0);
#endif
  }
  CHECK(by["fixed"]["stopped_by"] == "samples");
  CHECK(by["fixed"]["samples"].size() == 3);
  CHECK(by["target"]["stopped_by"] == "ci_target");
  CHECK(by["budget"]["stopped_by"] == "time_budget");
  CHECK(by["budget"]["budget_limited"] == true);
  const std::string md = test::read_text(s / "out" / "report.md");
  CHECK(md.find("## Intervals and clock") != std::string::npos);
  CHECK(md.find("| target backend=cpu") != std::string::npos);
}

// One serializer per result: the label kind's context is bench label's --json row, less
// the point's own axes and the measurement the record keeps at its top level.
TEST_CASE("runner label kind: the context is bench label's row, whole", "[runner]") {
  test::temp_dir s("runner");
  const auto res = test::run_config(s, "one.json", R"({
    "schema": "poreplab-experiments/1",
    "experiments": [{"name": "one", "kind": "label", "warmup": 0, "samples": 2,
                     "axes": {"backend": ["cpu"], "sector_size": ["2KiB"], "sectors": [1], "layers": [2],
                              "threads": [1]}}]
  })").results;
  const auto b = test::run_poreplab("bench label --backend cpu --sector-size 2KiB --sectors 1 --layers 2 --threads 1 "
                                    "--samples 2 --warmup 0 --json",
                                    s);
  INFO(b.err);
  REQUIRE(b.status == 0);
  const json row = json::parse(b.out);
  REQUIRE(res["points"].size() == 1);
  const json& point = res["points"][0];
  const json& context = point["context"];
  const std::set<std::string> kept_elsewhere = {"kind",   "digest",      "verified", "samples_ns_per_node_layer",
                                                "backend", "variant",    "hash",     "layout",
                                                "sector_size", "sectors", "threads", "layers", "window_nodes"};
  for (const auto& [k, v] : row.items()) {
    INFO(k);
    CHECK(context.contains(k) != (kept_elsewhere.count(k) > 0));
  }
  for (const auto& [k, v] : context.items()) {
    INFO(k);
    CHECK(row.contains(k));
  }
  // What was left out of the context is in the record.
  CHECK(point["digest"] == row["digest"]);
  CHECK(point["verified"] == true);
  CHECK(point["axes"]["sector_size"] == row["sector_size"]);
}

TEST_CASE("runner --repeat: passes over all points, not back to back", "[runner]") {
  const config c = parse_config(kTinyConfig, "t");
  const auto all = expand_points(c);
  const auto rep = repeat_points(all, 3);
  REQUIRE(rep.size() == 3 * all.size());
  for (std::size_t i = 0; i < rep.size(); ++i) {
    CHECK(rep[i].index == all[i % all.size()].index);
    CHECK(*rep[i].repeat == i / all.size() + 1);
  }
  CHECK(rep[0].key() != rep[all.size()].key());
  CHECK(rep[all.size()].describe() == all[0].describe() + " (repeat 2)");
  CHECK(repeat_points(all, 1).front().key() == all.front().key());

  // The spread of each metric against its claimed interval width.
  auto rec = [](std::size_t r, double median, double lo, double hi, double eff, double elo, double ehi) {
    return json{{"experiment", "l"},  {"axes", {{"backend", "cpu"}}}, {"description", "l backend=cpu (repeat " + std::to_string(r) + ")"},
                {"repeat", r},       {"status", "ok"},               {"metric", "ns_per_node_layer"},
                {"stats", {{"n", 5}, {"median", median}, {"ci95", {lo, hi}}}},
                {"context", {{"efficiency", eff}, {"efficiency_ci95", {elo, ehi}}, {"ns_per_node_layer_ci95", {lo, hi}}}}};
  };
  const json pts = {rec(1, 100, 99, 101, 0.90, 0.85, 0.95), rec(2, 104, 103, 105, 0.91, 0.86, 0.96),
                    rec(3, 101, 100, 102, 0.89, 0.84, 0.94)};
  const json sp = records::repeat_spread(pts);
  REQUIRE(sp.size() == 2);
  CHECK(sp[0]["metric"] == "ns_per_node_layer");
  CHECK(sp[0]["description"] == "l backend=cpu");
  CHECK(sp[0]["values"] == json({100, 104, 101}));
  CHECK(sp[0]["spread"].get<double>() == Approx(4.0 / 101));
  CHECK(sp[0]["claimed"].get<double>() == Approx(2.0 / 101));  // the middle of 2/100, 2/104, 2/101
  CHECK(sp[0]["exceeds"] == true);
  CHECK(sp[1]["metric"] == "efficiency");
  CHECK(sp[1]["spread"].get<double>() == Approx(0.02 / 0.90));
  CHECK(sp[1]["exceeds"] == false);
}

TEST_CASE("runner --repeat: records, spread table and resume", "[runner]") {
  test::temp_dir s("runner");
  test::write_text(s / "rep.json", R"({
    "schema": "poreplab-experiments/1",
    "experiments": [
      {"name": "l", "kind": "label", "warmup": 0, "samples": 3, "axes": {"backend": ["reference", "cpu"]}},
      {"name": "h", "kind": "hash", "warmup": 0, "samples": 3,
       "axes": {"engine": ["portable"], "mode": ["chain"], "size": ["1KiB"]}}
    ]
  })");
  const std::string base = "run " + test::shell_quote((s / "rep.json").string()) + " -o " + test::shell_quote((s / "out").string()) +
                           " --no-plots";
  const auto r = test::run_poreplab(base + " --repeat 2", s);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("[4/6] l backend=reference") != std::string::npos);  // the second pass starts over
  CHECK(r.err.find("(repeat 2) ... ok") != std::string::npos);
  const auto lines = point_lines(s / "out" / "records.jsonl");
  REQUIRE(lines.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) CHECK(lines[i]["repeat"] == i / 3 + 1);
  const json res = json::parse(test::read_text(s / "out" / "results.json"));
  CHECK(res["counts"]["expected"] == 6);
  CHECK(res["counts"]["ok"] == 6);
  std::set<std::string> metrics;
  for (const auto& e : res["repeat_spread"]) {
    metrics.insert(e["experiment"].get<std::string>() + " " + e["metric"].get<std::string>());
    CHECK(e["values"].size() == 2);
    CHECK(e.contains("claimed"));
    CHECK(e["exceeds"] == (e["spread"].get<double>() > e["claimed"].get<double>()));
  }
  CHECK(metrics == std::set<std::string>{"l ns_per_node_layer", "l efficiency", "h ns_per_block"});
  CHECK(res["repeat_spread"].size() == 5);
  const std::string md = test::read_text(s / "out" / "report.md");
  CHECK(md.find("## Run-to-run spread") != std::string::npos);
  CHECK(md.find("| l backend=cpu variant=sdr hash=sha256 engine=auto sector_size=2KiB sectors=1 layers=2 threads=0 | efficiency |") != std::string::npos);
  CHECK(test::read_text(s / "out" / "results.csv").rfind("index,experiment,kind,status,repeat,", 0) == 0);

  // A resume must keep the number of passes; nothing is left to run with the same one.
  const auto other = test::run_poreplab(base + " --resume --repeat 3", s);
  CHECK(other.status == 1);
  CHECK(other.err.find("was run with --repeat 2; resume it with --repeat 2") != std::string::npos);
  const auto same = test::run_poreplab(base + " --resume --repeat 2", s);
  CHECK(same.status == 0);
  CHECK(same.err.find("6 of 6 points already recorded") != std::string::npos);
  const auto bad = test::run_poreplab(base + " --repeat 0", s);
  CHECK(bad.status == 1);
  CHECK(bad.err.find("poreplab: error: --repeat 0: expected an integer from 1 to 100") != std::string::npos);
}

TEST_CASE("runner resume: an interrupted run loses nothing and re-runs nothing", "[runner]") {
  test::temp_dir s("runner");
  test::write_text(s / "tiny.json", kTinyConfig);
  const std::string base = "run " + test::shell_quote((s / "tiny.json").string()) + " -o " + test::shell_quote((s / "out").string()) +
                           " --no-plots";
  REQUIRE(test::run_poreplab(base, s).status == 0);
  const fs::path rec = s / "out" / "records.jsonl";
  const auto full = point_lines(rec);
  REQUIRE(full.size() == 9);

  // A crash after four points, in the middle of writing the fifth.
  std::istringstream in(test::read_text(rec));
  std::string line, cut;
  int points = 0;
  while (std::getline(in, line)) {
    if (line.find("\"type\":\"point\"") != std::string::npos && ++points == 5) {
      cut += line.substr(0, line.size() / 2);
      break;
    }
    cut += line + "\n";
  }
  test::write_text(rec, cut);
  fs::remove(s / "out" / "results.json");

  const auto r = test::run_poreplab(base + " --resume", s);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("cut off an incomplete last record") != std::string::npos);
  CHECK(r.err.find("4 of 9 points already recorded; running 5") != std::string::npos);
  const auto after = point_lines(rec);
  REQUIRE(after.size() == 9);  // 4 kept + 5 new, none twice
  for (int i = 0; i < 4; ++i) CHECK(after[i] == full[i]);  // kept as they were, not re-run
  std::set<std::string> keys;
  for (const auto& p : after) keys.insert(records::record_key(p));
  CHECK(keys.size() == 9);
  CHECK(result_keys(s / "out" / "results.json") == keys);
  const json res = json::parse(test::read_text(s / "out" / "results.json"));
  CHECK(res["runs"].size() == 2);
  CHECK(res["counts"]["missing"] == 0);

  // Resuming a finished run runs nothing.
  const auto done = test::run_poreplab(base + " --resume", s);
  CHECK(done.status == 0);
  CHECK(done.err.find("9 of 9 points already recorded; running 0") != std::string::npos);
  CHECK(point_lines(rec).size() == 9);
}

TEST_CASE("runner shards: 0/2 + 1/2 merged equal the full run", "[runner]") {
  test::temp_dir s("runner");
  test::write_text(s / "tiny.json", kTinyConfig);
  const std::string cfg = test::shell_quote((s / "tiny.json").string());
  REQUIRE(test::run_poreplab("run " + cfg + " -o " + test::shell_quote((s / "full").string()) + " --no-plots", s).status == 0);
  REQUIRE(test::run_poreplab("run " + cfg + " --shard 0/2 -o " + test::shell_quote((s / "s0").string()) + " --no-plots", s).status == 0);
  REQUIRE(test::run_poreplab("run " + cfg + " --shard 1/2 -o " + test::shell_quote((s / "s1").string()) + " --no-plots", s).status == 0);
  const auto s0 = point_lines(s / "s0" / "records.jsonl");
  const auto s1 = point_lines(s / "s1" / "records.jsonl");
  CHECK(s0.size() == 5);
  CHECK(s1.size() == 4);
  for (const auto& p : s0) CHECK(p["index"].get<int>() % 2 == 0);

  // Only shard 0: the merge reports the missing points and fails.
  const auto partial = test::run_poreplab("merge -o " + test::shell_quote((s / "m0").string()) + " " + test::shell_quote((s / "s0").string()) +
                                    " --no-plots",
                                s);
  CHECK(partial.status == 1);
  CHECK(partial.err.find("missing [1] h backend=cpu algo=sha256 engine=portable mode=chain") != std::string::npos);

  const auto m = test::run_poreplab("merge -o " + test::shell_quote((s / "merged").string()) + " " + test::shell_quote((s / "s0").string()) + " " +
                              test::shell_quote((s / "s1").string()) + " --no-plots",
                          s);
  INFO(m.err);
  REQUIRE(m.status == 0);
  CHECK(result_keys(s / "merged" / "results.json") == result_keys(s / "full" / "results.json"));
  const json res = json::parse(test::read_text(s / "merged" / "results.json"));
  CHECK(res["counts"]["missing"] == 0);
  CHECK(res["duplicates"] == 0);
  for (std::size_t i = 0; i < res["points"].size(); ++i) CHECK(res["points"][i]["index"] == i);
  // The merged records' headers (the shards' and the merge's own) use the schema's keys only.
  const std::set<std::string> header(records::kHeaderKeys.begin(), records::kHeaderKeys.end());
  const auto merged = records::read_records(s / "merged" / "records.jsonl", false);
  REQUIRE(merged.headers.size() == 3);
  CHECK(merged.headers.back()[records::key::merge] == true);
  for (const auto& h : merged.headers)
    for (const auto& [k, v] : h.items()) CHECK(header.count(k) == 1);

  // Shards of another config are refused.
  std::string other = kTinyConfig;
  const std::string sizes = R"("2KiB", "4KiB")";
  other.replace(other.find(sizes), sizes.size(), R"("2KiB", "8KiB")");
  test::write_text(s / "other.json", other);
  REQUIRE(test::run_poreplab("run " + test::shell_quote((s / "other.json").string()) + " --shard 1/2 -o " + test::shell_quote((s / "o1").string()) +
                       " --no-plots",
                   s)
              .status == 0);
  const auto bad = test::run_poreplab("merge -o " + test::shell_quote((s / "bad").string()) + " " + test::shell_quote((s / "s0").string()) + " " +
                                test::shell_quote((s / "o1").string()),
                            s);
  CHECK(bad.status == 1);
  CHECK(bad.err.find("was run with a different config") != std::string::npos);

  CHECK_THROWS_WITH(parse_shard("2/2"), Catch::Contains("expected I/N"));
  CHECK(parse_shard("3/8") == std::pair<std::size_t, std::size_t>{3, 8});
}

TEST_CASE("runner: an unwritable output directory fails before any point runs", "[runner]") {
  test::temp_dir s("runner");
  test::write_text(s / "tiny.json", kTinyConfig);
  test::write_text(s / "file", "x");
  const auto r = test::run_poreplab("run " + test::shell_quote((s / "tiny.json").string()) + " -o " + test::shell_quote((s / "file" / "out").string()),
                          s);
  CHECK(r.status == 1);
  CHECK(r.err.find("poreplab: error: cannot create output directory") != std::string::npos);
  CHECK(r.err.find("[1/") == std::string::npos);
}

TEST_CASE("runner: SIGINT keeps finished points, writes summaries, exits 130", "[runner]") {
  test::temp_dir s("runner");
  // Enough points that the run is still going when the signal comes.
  test::write_text(s / "slow.json", with_experiment(R"({"name": "h", "kind": "hash", "warmup": 0, "samples": 3,
      "axes": {"algo": ["sha256", "blake2s", "blake2b"], "engine": ["all"], "mode": ["throughput", "chain"],
               "size": ["1KiB", "2KiB", "4KiB"]}})"));
  const fs::path out = s / "out";
  const pid_t pid = test::spawn_poreplab_run(s / "slow.json", out);
  REQUIRE(pid >= 0);
  // Wait for two finished points, then interrupt.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (fs::exists(out / "records.jsonl") && point_lines(out / "records.jsonl").size() >= 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGINT);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  const auto recs = point_lines(out / "records.jsonl");  // every line complete JSON
  CHECK(recs.size() >= 2);
  const json res = json::parse(test::read_text(out / "results.json"));
  CHECK(res["interrupted"] == true);
  CHECK(res["points"].size() == recs.size());
  CHECK(res["counts"]["missing"].get<std::size_t>() + recs.size() == res["counts"]["expected"].get<std::size_t>());
  CHECK(fs::exists(out / "report.md"));
  CHECK(fs::exists(out / "results.csv"));
}

TEST_CASE("runner: --time-limit stops like SIGTERM, exits 75, and a resume finishes", "[runner]") {
  test::temp_dir s("runner");
  // Many points of about 0.1 s each: the limit comes in the middle of the run.
  test::write_text(s / "slow.json", with_experiment(R"({"name": "h", "kind": "hash", "warmup": 0, "samples": 3,
      "axes": {"algo": ["sha256", "blake2s"], "engine": ["all"], "mode": ["throughput", "chain"],
               "size": ["1KiB", "2KiB"]}})"));
  const std::string run = "run " + test::shell_quote((s / "slow.json").string()) + " -o " +
                          test::shell_quote((s / "out").string()) + " --no-plots";
  const auto t0 = std::chrono::steady_clock::now();
  const auto cut = test::run_poreplab(run + " --time-limit 1.5", s);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(cut.status == 75);
  CHECK(took < 10);
  CHECK(cut.err.find("time limit of 1.5 s reached") != std::string::npos);
  CHECK(cut.err.find("resume with:") != std::string::npos);
  const json partial = json::parse(test::read_text(s / "out" / "results.json"));
  CHECK(partial["interrupted"] == true);
  const std::size_t kept = point_lines(s / "out" / "records.jsonl").size();
  CHECK(kept < partial["counts"]["expected"].get<std::size_t>());

  const auto rest = test::run_poreplab(run + " --resume", s);
  REQUIRE(rest.status == 0);
  // On a loaded machine the limit may come before the first point ends: nothing to resume from.
  if (kept > 0) CHECK(rest.err.find("resume: " + std::to_string(kept) + " of ") != std::string::npos);
  const json done = json::parse(test::read_text(s / "out" / "results.json"));
  CHECK(done["interrupted"] == false);
  CHECK(done["counts"]["missing"] == 0);

  for (const char* bad : {"-1", "nan", "1e9"}) {
    const auto r = test::run_poreplab(run + " --time-limit " + bad, s);
    INFO(bad << ": " << r.err);
    CHECK(r.status == 1);
    CHECK(r.err.find("poreplab: error: --time-limit") != std::string::npos);
  }
}

TEST_CASE("runner hash kind: the cuda backend drops the cpu-only axes and says why it cannot run", "[runner]") {
  const config c = parse_config(with_experiment(R"({"name": "g", "kind": "hash",
      "axes": {"backend": ["cpu", "cuda"], "algo": ["blake2s"], "engine": ["portable"], "mode": ["chain"], "size": ["1KiB"]}})"),
                                "t");
  const auto pts = expand_points(c);
  REQUIRE(pts.size() == 2);
  CHECK(pts[0].axes["engine"] == "portable");
  CHECK(pts[1].axes["backend"] == "cuda");
  CHECK(pts[1].axes["engine"].is_null());
  CHECK(pts[1].axes["size"].is_null());
  const kind_spec* hash = find_kind("hash");
  REQUIRE(hash != nullptr);
  CHECK(hash->unavailable(pts[0].axes).empty());
#ifndef POREPLAB_WITH_CUDA
  CHECK(hash->unavailable(pts[1].axes).find("not in this build") != std::string::npos);
#else
  // With CUDA built, a machine without a usable device names the reason.
  if (!poreplab::cuda::query_devices().available) CHECK(hash->unavailable(pts[1].axes).find("cuda backend unavailable") != std::string::npos);
#endif
}

TEST_CASE("runner: openssl-noshani runs in a child, tree_d takes the padding A/B axes", "[runner][report2019]") {
  test::temp_dir s("runner");
  const auto res = test::run_config(s, "r.json", R"({"schema": "poreplab-experiments/1", "experiments": [
    {"name": "o", "kind": "hash", "warmup": 0, "samples": 2,
     "axes": {"algo": ["sha256", "blake2s"], "engine": ["openssl-noshani"], "mode": ["chain"], "size": ["1KiB"]}},
    {"name": "t", "kind": "tree_d", "warmup": 0, "samples": 1,
     "axes": {"sector_size": ["64KiB"], "engine": ["library", "portable"], "pad_precompute": [0, 1]}}]})").results;
  std::string tree_digest;
  int ok = 0;
  for (const auto& p : res["points"]) {
    const json& a = p["axes"];
    INFO(p.dump());
    if (p["kind"] == "hash") {
      if (a["algo"] == "blake2s") {
        CHECK(p["status"] == "skipped");  // a SHA-256 row only
        continue;
      }
      REQUIRE(p["status"] == "ok");
      CHECK(p["verified"] == true);
      CHECK(p["context"]["openssl_ia32cap"] == ":~0x20000000");
      CHECK(p["rates"]["lane_ns_per_block"].get<double>() > 0);
      ++ok;
    } else if (a["engine"] == "library" && a["pad_precompute"] == 0) {
      CHECK(p["status"] == "skipped");  // the library builder always precomputes
    } else {
      REQUIRE(p["status"] == "ok");
      CHECK(p["verified"] == true);
      if (tree_digest.empty()) tree_digest = p["digest"];
      CHECK(p["digest"] == tree_digest);
      ++ok;
    }
  }
  CHECK(ok == 4);
}

TEST_CASE("record schema: the schema file names the keys schema.hpp spells", "[runner]") {
  std::ifstream in(fs::path(POREPLAB_SOURCE_DIR) / "experiments" / "data" / "record-schema.json");
  REQUIRE(in);
  const json file = json::parse(in);
  auto strings = [](const auto& table) {
    std::vector<std::string> out;
    for (const auto& k : table) out.emplace_back(k);
    return out;
  };
  CHECK(file.at("schema").get<std::string>() == std::string(records::kRecordsSchema));
  CHECK(file.at("header_keys").get<std::vector<std::string>>() == strings(records::kHeaderKeys));
  CHECK(file.at("point_keys").get<std::vector<std::string>>() == strings(records::kPointKeys));
  CHECK(file.at("record_types").get<std::vector<std::string>>() == records::kRecordTypes.names());
  CHECK(file.at("point_statuses").get<std::vector<std::string>>() == records::kPointStatuses.names());
  CHECK(file.at("record_kinds").get<std::vector<std::string>>() == records::kRecordKinds.names());
  CHECK(file.at("axis_keys").get<std::vector<std::string>>() == strings(records::kAxisKeys));
  CHECK(file.at("context_keys").get<std::vector<std::string>>() == strings(records::kContextKeys));
  CHECK(file.at("rate_keys").get<std::vector<std::string>>() == strings(records::kRateKeys));
}

namespace {

// The record keys a product file must not spell: every key of the schema's lists (envelope,
// axes, context, rates) but those that configs and data files use too. A config's
// experiments name their "kind", "axes", "samples", "warmup" and "description"; every data
// file has a "schema", and most a "type", "source", "status", "reason" or "index"; "config"
// and "run" are commands' and files' words too, "modeled" a figure status's
// (util/figure.hpp).
std::set<std::string> scanned_record_keys() {
  std::set<std::string> keys;
  auto add = [&](const auto& list) { keys.insert(list.begin(), list.end()); };
  add(records::kHeaderKeys);
  add(records::kPointKeys);
  add(records::kAxisKeys);
  add(records::kContextKeys);
  add(records::kRateKeys);
  for (const char* shared : {"kind", "axes", "samples", "warmup", "description", "schema", "type", "source", "status",
                             "reason", "index", "config", "run", "modeled"})
    keys.erase(shared);
  return keys;
}

// Where a text (C++, or Python with `python`) spells one of `keys` as a whole string
// literal: "line: key" each. Comments and docstrings are not code; a line that says its
// words are "not a record key" (or "not record keys") is skipped.
std::vector<std::string> spelled_keys(const std::string& text, bool python, const std::set<std::string>& keys) {
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  std::vector<std::string> found;
  std::string open_end;  // what closes an open raw string, docstring or block comment
  for (std::size_t n = 0; n < lines.size(); ++n) {
    const std::string& l = lines[n];
    const bool skipped = l.find("not a record key") != std::string::npos || l.find("not record keys") != std::string::npos;
    for (std::size_t i = 0; i < l.size();) {
      if (!open_end.empty()) {
        const auto at = l.find(open_end, i);
        if (at == std::string::npos) break;
        i = at + open_end.size();
        open_end.clear();
        continue;
      }
      const char c = l[i];
      if (python ? c == '#' : l.compare(i, 2, "//") == 0) break;
      if (!python && l.compare(i, 2, "/*") == 0) {
        open_end = "*/";
        i += 2;
        continue;
      }
      if (python && (l.compare(i, 3, R"(""")") == 0 || l.compare(i, 3, "'''") == 0)) {
        open_end = l.substr(i, 3);
        i += 3;
        continue;
      }
      if (!python && c == 'R' && i + 1 < l.size() && l[i + 1] == '"') {
        const auto open = l.find('(', i + 2);
        if (open == std::string::npos) break;
        open_end = ")" + l.substr(i + 2, open - i - 2) + "\"";
        i = open + 1;
        continue;
      }
      if (c == '"' || (python && c == '\'')) {
        std::string literal;
        std::size_t j = i + 1;
        for (; j < l.size() && l[j] != c; ++j) {
          if (l[j] == '\\' && j + 1 < l.size()) literal += l[j++];
          literal += l[j];
        }
        if (!skipped && keys.count(literal)) found.push_back(std::to_string(n + 1) + ": " + literal);
        i = j + 1;
        continue;
      }
      if (!python && c == '\'') {  // a character literal ('"', '\''), or a digit separator
        if (i + 3 < l.size() && l[i + 1] == '\\' && l[i + 3] == '\'') {
          i += 4;
          continue;
        }
        if (i + 2 < l.size() && l[i + 2] == '\'') {
          i += 3;
          continue;
        }
      }
      ++i;
    }
  }
  return found;
}

}  // namespace

TEST_CASE("record schema: the key scan flags a record key spelled as text", "[runner]") {
  const auto keys = scanned_record_keys();
  REQUIRE(keys.count("labels_per_s") == 1);
  REQUIRE(keys.count("sector_size") == 1);
  REQUIRE(keys.count("environment") == 1);
  CHECK(keys.count("status") == 0);
  using lines = std::vector<std::string>;
  CHECK(spelled_keys("  const double labels = ctx.value(\"labels_per_s\", 0.0);\n", false, keys) == lines{"1: labels_per_s"});
  CHECK(spelled_keys("x;\nm.context = {{\"engine\", e}, {\"stopped_by\", s}};\n", false, keys) ==
        lines{"2: engine", "2: stopped_by"});
  CHECK(spelled_keys("labels = ctx.value(rate::labels_per_s, 0.0);  // not \"labels_per_s\"\n", false, keys).empty());
  CHECK(spelled_keys("/* \"sector_size\"\n \"window_nodes\" */ f(\"labels/s\", '\"', \"status\");\n", false, keys).empty());
  CHECK(spelled_keys("auto r = R\"(\"sector_size\")\";\nprintf(\"%s\", \"device\");  // titles, not record keys\n", false, keys)
            .empty());
  CHECK(spelled_keys("    y = p[K.rates]['labels_per_s']  # \"sector_size\"\n", true, keys) == lines{"1: labels_per_s"});
  CHECK(spelled_keys("def f():\n    \"\"\"The \"sector_size\" axis,\n    \"threads\".\"\"\"\n    return p[\"threads\"]\n", true,
                     keys) == lines{"4: threads"});
}

TEST_CASE("record schema: the product code and plot.py spell no record key of their own", "[runner]") {
  // Where records are written or read, the keys come from records/schema.hpp and
  // records/payload_keys.hpp; in plot.py from the schema file.
  const fs::path root = POREPLAB_SOURCE_DIR;
  const fs::path src = root / "experiments/src";
  // Files of other formats, whose words are their own: the knob table (backends/ lies below
  // records/, and a knob is an axis it names first), the doctor's report, the machine files,
  // the GPU latency table, the tune cache and a bench table's titles.
  const std::set<std::string> other_formats = {"backends/backends.cpp", "doctor/checks.cpp",       "doctor/report.cpp",
                                               "report/machines.cpp",   "model/latency_table.cpp", "cli/cmd_tune.cpp",
                                               "cli/cmd_bench_latency.cpp"};
  const std::set<std::string> definitions = {"records/schema.hpp", "records/payload_keys.hpp"};
  std::vector<fs::path> files = {root / "experiments/plots/plot.py"};
  for (const auto& e : fs::recursive_directory_iterator(src)) {
    const std::string rel = fs::relative(e.path(), src).generic_string();
    if ((e.path().extension() == ".cpp" || e.path().extension() == ".hpp") && !other_formats.count(rel) && !definitions.count(rel))
      files.push_back(e.path());
  }
  CHECK(files.size() > 100);
  const auto keys = scanned_record_keys();
  std::vector<std::string> found;
  for (const auto& p : files)
    for (const auto& f : spelled_keys(test::read_text(p), p.extension() == ".py", keys))
      found.push_back(fs::relative(p, root).generic_string() + ":" + f);
  INFO([&] {
    std::string t;
    for (const auto& f : found) t += f + "\n";
    return t;
  }());
  CHECK(found.empty());
}
