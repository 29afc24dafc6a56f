// `poreplab compare` (experiments/src/report/compare.hpp): matching by axes, bootstrap
// ratios and verdicts, the setup table, --fail-on-regression on a planted regression, and
// one-line errors on bad input with nothing written.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/compare.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace poreplab;

namespace {

json header(const std::string& cpu, const std::string& compiler) {
  return {{"type", "header"},
          {"schema", "poreplab-records/1"},
          {"run", 0},
          {"source", "c.json"},
          {"config_digest", "0123456789abcdef"},
          {"environment",
           {{"cpu", {{"model", cpu}, {"vendor", "V"}, {"logical_cores", 2}, {"tsc_hz", 2.3e9}}},
            {"build", {{"compiler", compiler}, {"flags", "Release -O3"}, {"git_revision", "abc"}}},
            {"memory", {{"total_bytes", 25769803776.0}}}}}};
}

json point(const std::string& experiment, std::uint64_t size, const std::vector<double>& samples,
           const std::string& status = "ok") {
  json p{{"type", "point"},
         {"run", 0},
         {"experiment", experiment},
         {"kind", "label"},
         {"axes", {{"backend", "cpu"}, {"sector_size", size}}},
         {"description", experiment + " sector_size=" + std::to_string(size)},
         {"metric", "ns_per_node_layer"},
         {"status", status}};
  if (status == "ok") p["samples"] = samples;
  else p["reason"] = "cuda backend unavailable";
  return p;
}

void write_records(const fs::path& dir, const std::vector<json>& records) {
  fs::create_directories(dir);
  std::string text;
  for (const auto& r : records) text += r.dump() + "\n";
  test::write_text(dir / "records.jsonl", text);
}

// Samples around `centre` with a +-1% spread.
std::vector<double> around(double centre) {
  return {centre * 0.99, centre * 1.0, centre * 1.01, centre * 0.995, centre * 1.005, centre * 0.998, centre * 1.002};
}

}  // namespace

TEST_CASE("compare: ratios, intervals and verdicts point by point", "[compare]") {
  test::temp_dir s("compare");
  write_records(s / "a", {header("Intel Xeon", "GNU 12.2.0"), point("e", 1024, around(100)),
                          point("e", 2048, around(200)), point("e", 4096, around(300)), point("e", 8192, {50}),
                          point("only-a", 1, around(1)), point("g", 1, {}, "skipped")});
  write_records(s / "b", {header("AMD EPYC", "Clang 14.0.6"), point("e", 1024, around(80)),
                          point("e", 2048, around(260)), point("e", 4096, around(300.5)), point("e", 8192, {54}),
                          point("only-b", 1, around(1)), point("g", 1, around(1))});
  const auto r = compare::compare({s / "a", s / "b"}, 10.0);
  REQUIRE(r.sides.size() == 2);
  CHECK(r.sides[0].label == "a");
  REQUIRE(r.comparisons.size() == 1);
  const auto& c = r.comparisons[0];
  REQUIRE(c.rows.size() == 4);
  CHECK(c.rows[0].verdict == "faster");
  CHECK(c.rows[0].ratio == Approx(0.8));
  CHECK(c.rows[0].interval);
  CHECK(c.rows[0].lo <= 0.8);
  CHECK(c.rows[0].hi >= 0.8);
  CHECK(c.rows[0].hi < 1);
  CHECK(c.rows[1].verdict == "slower");
  CHECK(c.rows[1].regression);  // 30% slower over its whole interval, beyond 10%
  CHECK(c.rows[2].verdict == "within noise");
  CHECK_FALSE(c.rows[2].regression);
  CHECK(c.rows[3].verdict == "slower");  // one sample a side: no interval, the point ratio
  CHECK_FALSE(c.rows[3].interval);
  CHECK_FALSE(c.rows[3].regression);  // 8% slower: within the 10% allowed
  CHECK(c.faster == 1);
  CHECK(c.slower == 2);
  CHECK(c.within == 1);
  CHECK(r.regressions == 1);
  REQUIRE(c.only_baseline.size() == 1);
  CHECK(c.only_baseline[0].description.find("only-a") != std::string::npos);
  REQUIRE(c.only_other.size() == 1);
  REQUIRE(c.not_comparable.size() == 1);
  CHECK(c.not_comparable[0].why.find("skipped") != std::string::npos);

  bool cpu_differs = false, compiler_differs = false, flags_differ = true;
  for (const auto& f : r.setup) {
    if (f.name == "CPU") cpu_differs = f.differs && f.values[1] == "AMD EPYC";
    if (f.name == "compiler") compiler_differs = f.differs;
    if (f.name == "flags") flags_differ = f.differs;
  }
  CHECK(cpu_differs);
  CHECK(compiler_differs);
  CHECK_FALSE(flags_differ);

  const std::string md = compare::to_markdown(r);
  CHECK(md.find("| CPU | Intel Xeon | AMD EPYC | **yes** |") != std::string::npos);
  CHECK(md.find("Only in a (1)") != std::string::npos);
  CHECK(md.find("regression**") != std::string::npos);
  const json j = compare::to_json(r);
  CHECK(j["schema"] == "poreplab-compare/1");
  CHECK(j["comparisons"][0]["points"].size() == 4);
  CHECK(j["comparisons"][0]["points"][3]["ci95"].is_null());
}

TEST_CASE("compare: two directories of one name are told apart by their parents", "[compare]") {
  test::temp_dir s("compare-names");
  write_records(s / "epyc" / "scaling", {header("E", "G"), point("e", 1024, around(100))});
  write_records(s / "xeon" / "scaling", {header("X", "G"), point("e", 1024, around(90))});
  const auto r = compare::compare({s / "epyc" / "scaling", s / "xeon" / "scaling"});
  CHECK(r.sides[0].label == "epyc/scaling");
  CHECK(r.sides[1].label == "xeon/scaling");
  // A machine's directory of data sets: points match within the data set of the same name.
  write_records(s / "xeon" / "default", {header("X", "G"), point("e", 1024, around(90))});
  const auto m = compare::compare({s / "epyc", s / "xeon"});
  REQUIRE(m.comparisons[0].rows.size() == 1);
  CHECK(m.comparisons[0].rows[0].experiment == "scaling/e");
  REQUIRE(m.comparisons[0].only_other.size() == 1);
  CHECK(m.comparisons[0].only_other[0].label.starts_with("default/e"));
}

TEST_CASE("compare: the bootstrap interval of a ratio", "[compare]") {
  const auto same = compare::median_ratio(around(10), around(10));
  CHECK(same.lo < 1);
  CHECK(same.hi > 1);
  const auto wide = compare::median_ratio({1, 2, 3, 4, 5}, {1, 2, 3, 4, 5});
  CHECK(wide.hi - wide.lo > same.hi - same.lo);
  const auto one = compare::median_ratio({4}, {2, 3, 4});
  CHECK(one.ratio == Approx(0.75));
  CHECK(one.lo == one.hi);
  CHECK(compare::lower_is_better("ns_per_node"));
  CHECK_FALSE(compare::lower_is_better("gb_per_s"));
}

TEST_CASE("compare: poreplab compare writes its files and fails on a planted regression", "[compare]") {
  test::temp_dir s("compare-cli");
  write_records(s / "base", {header("X", "GNU 12.2.0"), point("e", 1024, around(100)), point("e", 2048, around(100))});
  write_records(s / "same", {header("X", "GNU 12.2.0"), point("e", 1024, around(100.2)), point("e", 2048, around(99.9))});
  write_records(s / "slow", {header("X", "GNU 12.2.0"), point("e", 1024, around(100)), point("e", 2048, around(125))});
  const std::string base = test::shell_quote((s / "base").string());

  auto r = test::run_poreplab("compare " + base + " " + test::shell_quote((s / "same").string()) + " --fail-on-regression 5", s);
  CHECK(r.status == 0);
  CHECK(r.out.find("2 points compared: 0 faster, 0 slower, 2 within noise") != std::string::npos);

  r = test::run_poreplab("compare " + base + " " + test::shell_quote((s / "slow").string()) + " --fail-on-regression 5", s);
  CHECK(r.status == 3);
  CHECK(r.err.find("1 point slower than the baseline by more than 5%") != std::string::npos);
  // Without the flag the same comparison is a report, not a failure.
  r = test::run_poreplab("compare " + base + " " + test::shell_quote((s / "slow").string()) + " --json", s);
  CHECK(r.status == 0);
  CHECK(json::parse(r.out)["comparisons"][0]["counts"]["slower"] == 1);

  const fs::path out = s / "cmp";
  r = test::run_poreplab("compare " + base + " " + test::shell_quote((s / "slow").string()) + " " +
                             test::shell_quote((s / "same").string()) + " -o " + test::shell_quote(out.string()),
                         s);
  CHECK(r.status == 0);
  CHECK(fs::exists(out / "compare.md"));
  REQUIRE(fs::exists(out / "compare.json"));
  CHECK(test::load_json(out / "compare.json")["comparisons"].size() == 2);
  if (fs::exists(fs::path(POREPLAB_SOURCE_DIR) / ".venv" / "bin" / "python")) CHECK(fs::exists(out / "plots" / "compare.png"));
  // Results already written are not replaced without --force.
  r = test::run_poreplab("compare " + base + " " + test::shell_quote((s / "same").string()) + " -o " + test::shell_quote(out.string()), s);
  CHECK(r.status == 1);
  CHECK(r.err.find("compare.md: already exists; pass --force") != std::string::npos);
}

TEST_CASE("compare: bad input is one error line naming the file, and nothing is written", "[compare]") {
  test::temp_dir s("compare-bad");
  write_records(s / "a", {header("X", "G"), point("e", 1024, around(100))});
  write_records(s / "other", {header("X", "G"), point("f", 1024, around(100))});
  test::write_text(s / "damaged.jsonl", "");
  fs::create_directories(s / "damaged");
  test::write_text(s / "damaged" / "records.jsonl",
                   header("X", "G").dump() + "\n{\"type\": \"point\", broken\n" + point("e", 1024, around(1)).dump() + "\n");
  json h2 = header("X", "G");
  h2["schema"] = "poreplab-records/2";
  write_records(s / "future", {h2, point("e", 1024, around(100))});
  const fs::path out = s / "out";
  auto run = [&](const std::string& other) {
    return test::run_poreplab("compare " + test::shell_quote((s / "a").string()) + " " + test::shell_quote((s / other).string()) +
                                  " -o " + test::shell_quote(out.string()),
                              s);
  };
  struct bad_case {
    std::string dir, message;
  };
  for (const auto& [dir, message] : std::vector<bad_case>{{"other", "no point in common between"},
                                                          {"damaged", "records.jsonl:2: not a JSON record"},
                                                          {"future", "records.jsonl:1: records schema \"poreplab-records/2\""},
                                                          {"missing", "does not exist"}}) {
    INFO(dir);
    const auto r = run(dir);
    test::check_refused(r, message);
    CHECK_FALSE(fs::exists(out));
  }
  const auto one = test::run_poreplab("compare " + test::shell_quote((s / "a").string()), s);
  CHECK(one.status == 1);
}
