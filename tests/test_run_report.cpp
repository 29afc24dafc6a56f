// report.md, the one Markdown view of a results directory: its sections from hand-made
// results, the figures plot.py listed, included reports, and refusals.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "records/records.hpp"
#include "report/run_report.hpp"
#include "runner/kinds.hpp"
#include "support.hpp"
#include "util/share_dir.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
namespace test = poreplab::test;

namespace {

json point(const std::string& experiment, const std::string& kind, json axes, const std::string& status) {
  json p = {{"type", "point"}, {"experiment", experiment}, {"kind", kind}, {"axes", std::move(axes)}, {"status", status}};
  if (status == "ok") {
    p["metric"] = "ns_per_node_layer";
    p["stats"] = {{"n", 3}, {"min", 90.0}, {"median", 100.0}, {"max", 110.0}, {"spread", 0.2}};
    p["rates"] = {{"labels_per_s", 1e7}, {"ns_per_node_layer", 100.0}};
    p["verified"] = true;
    p["context"] = {{"engine", "shani"}, {"scheme_status", "what-if"}};
  } else {
    p["reason"] = "built without CUDA";
  }
  return p;
}

}  // namespace

TEST_CASE("report.md: tables, figures, included reports, what-if rows", "[report]") {
  const test::temp_dir d("run-report");
  const json cfg = {{"description", "a hand-made run"},
                    {"experiments", {{{"name", "lab"}, {"description", "labeling of one sector"}}}}};
  const std::vector<json> recs = {
      point("lab", "label", {{"backend", "cpu"}, {"hash", "blake2s"}, {"sector_size", 2048}}, "ok"),
      point("lab", "label", {{"backend", "cuda"}, {"hash", "blake2s"}, {"sector_size", 2048}}, "skipped")};
  std::vector<json> expected;
  for (std::size_t i = 0; i < recs.size(); ++i)
    expected.push_back({{"index", i}, {"experiment", "lab"}, {"kind", "label"}, {"axes", recs[i]["axes"]}});
  expected.push_back({{"index", 2}, {"experiment", "lab"}, {"kind", "label"}, {"axes", {{"backend", "reference"}}},
                      {"description", "lab backend=reference"}});
  const json res = poreplab::records::make_results(cfg, std::string(64, 'a'), {}, expected, recs, json::object());

  std::string md = poreplab::report::run_report_markdown(res, d.path, poreplab::runner::is_size_axis);
  CHECK(md.find("# poreplab experiment report\n\na hand-made run") == 0);
  CHECK(md.find("**3 points**: 1 ok, 1 skipped, 0 failed, 1 missing") != std::string::npos);
  CHECK(md.find("### lab (label)\n\nlabeling of one sector") != std::string::npos);
  CHECK(md.find("| cpu | shani | ok | 100 | 20% |") != std::string::npos);
  CHECK(md.find("skipped: built without CUDA") != std::string::npos);
  CHECK(md.find("Fixed: hash=blake2s, sector_size=2KiB.") != std::string::npos);
  CHECK(md.find("**what-if**") != std::string::npos);  // the replication table
  CHECK(md.find("## Missing points\n\n- [2] lab backend=reference") != std::string::npos);
  CHECK(md.find("## Figures") == std::string::npos);

  fs::create_directories(d.path / "plots");
  test::write_text(d.path / "plots" / "index.json",
                   R"([{"title": "Latency", "png": "plots/l.png", "svg": "plots/l.svg", "caption": "one sector"},
                       {"name": "verdict_pc1", "title": "PC1", "png": "plots/v.png", "svg": "plots/v.svg", "caption": "c"}])");
  test::write_text(d.path / "verdict.md", "# Verdict\n\n## 32GiB\nCPU wins.\n\n## Crossover\n\nnever\n");
  poreplab::report::write_run_report(d.path, res, poreplab::runner::is_size_axis);
  md = test::read_text(d.path / "report.md");
  CHECK(md.find("## Figures\n\n### Latency\n\n![Latency](plots/l.png)\n\none sector ([SVG](plots/l.svg))") !=
        std::string::npos);
  // The verdict first, its figure after its table and before its details; not among the figures.
  CHECK(md.find("## Verdict\n\n### 32GiB\nCPU wins.") != std::string::npos);
  CHECK(md.find("## Verdict") < md.find("## Figures"));
  CHECK(md.find("\n## ") == md.find("\n## Verdict"));
  CHECK(md.find("![PC1](plots/v.png)") > md.find("CPU wins."));
  CHECK(md.find("![PC1](plots/v.png)") < md.find("### Crossover"));
  CHECK(md.find("![PC1]") == md.rfind("![PC1]"));

  test::write_text(d.path / "plots" / "index.json", "[{");  // a half-written index: no figures, no error
  CHECK(poreplab::report::run_report_markdown(res, d.path, poreplab::runner::is_size_axis).find("## Figures") == std::string::npos);
}

TEST_CASE("report run: refusals name the file", "[report][cli]") {
  const test::temp_dir d("run-report-cli");
  auto r = test::run_poreplab("report run " + test::shell_quote(d.path.string()), d);
  CHECK(r.status == 1);
  CHECK(r.err == "poreplab: error: " + d.path.string() + " holds no results.json\n");
  test::write_text(d.path / "results.json", R"({"schema": "poreplab-results/1", "points": [{"kind": 3}]})");
  r = test::run_poreplab("report run " + test::shell_quote(d.path.string()), d);
  CHECK(r.status == 1);
  CHECK(r.err == "poreplab: error: " + (d.path / "results.json").string() + ": not a poreplab-results/1 file\n");
  CHECK_FALSE(fs::exists(d.path / "report.md"));
  test::write_text(d.path / "results.json", "{");
  r = test::run_poreplab("report run " + test::shell_quote(d.path.string()), d);
  CHECK(r.status == 1);
  CHECK(r.err.find("results.json: ") != std::string::npos);
  CHECK(r.err.find("json.exception") == std::string::npos);
}

TEST_CASE("report.md: every size axis reads in binary units, by its kind's axis type", "[report]") {
  const test::temp_dir d("run-report-sizes");
  const json cfg = {{"description", "pages"}, {"experiments", {{{"name", "w"}, {"description", "a window"}}}}};
  std::vector<json> recs, expected;
  for (const std::uint64_t page : {2ull << 20, 1ull << 30})
    recs.push_back(point("w", "label",
                         {{"backend", "cpu"}, {"sector_size", 32ull << 30}, {"window_nodes", 65536},
                          {"window_alias_period", 1ull << 30}, {"window_page", page}},
                         "ok"));
  for (std::size_t i = 0; i < recs.size(); ++i)
    expected.push_back({{"index", i}, {"experiment", "w"}, {"kind", "label"}, {"axes", recs[i]["axes"]}});
  const json res = poreplab::records::make_results(cfg, std::string(64, 'a'), {}, expected, recs, json::object());
  const std::string md = poreplab::report::run_report_markdown(res, d.path, poreplab::runner::is_size_axis);
  CHECK(md.find("sector_size=32GiB, window_alias_period=1GiB, window_nodes=65536.") != std::string::npos);
  CHECK(md.find("| 2MiB | shani | ok |") != std::string::npos);
  CHECK(md.find("| 1GiB | shani | ok |") != std::string::npos);
  CHECK(md.find("65536") != std::string::npos);  // a count axis stays a number
}

TEST_CASE("plots: data scaling draws one point a size, the fastest of the fewest sectors measured", "[report][plots]") {
  const auto python = poreplab::plot_python();
  if (!python) {
    WARN("no python with matplotlib here: plot.py's series are not exercised");
    return;
  }
  // plot.py's fastest_per_size on points of (size, sectors, ns per node), exit 0 when it
  // returns `want` as [(size, ns)].
  const fs::path plots = fs::path(POREPLAB_SOURCE_DIR) / "experiments" / "plots";
  const auto picks = [&](const std::string& points, const std::string& want) {
    const std::string script =
        "import sys\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "import plot\n"
        "def pt(size, sectors, ns):\n"
        "    return {plot.K.axes: {plot.AX.sector_size: size, plot.AX.sectors: sectors, plot.AX.window_nodes: 65536},\n"
        "            plot.K.rates: {plot.RATE.ns_per_node_layer: ns}}\n"
        "got = plot.fastest_per_size([pt(*x) for x in " + points + "])\n"
        "pairs = [(p[plot.K.axes][plot.AX.sector_size], p[plot.K.rates][plot.RATE.ns_per_node_layer]) for p in got]\n"
        "sys.exit(0 if pairs == " + want + " else 1)\n";
    return poreplab::run_program({python->string(), "-c", script, plots.string()});
  };
  // A coordinators-like set: 32 sectors, one sector in place and coordinated, at two sizes.
  CHECK(picks("[(64, 32, 7000), (64, 1, 1080), (64, 1, 640), (32, 16, 3600), (32, 1, 650)]", "[(32, 650), (64, 640)]") ==
        0);
  // With no one-sector point, the fewest sectors there are: 16 at 32, none at 64.
  CHECK(picks("[(64, 32, 7000), (32, 16, 3600), (32, 16, 3500)]", "[(32, 3500)]") == 0);
}
