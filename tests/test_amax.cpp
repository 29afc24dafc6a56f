// Amax (experiments/src/report/amax.hpp): the table from hand-made records and data files, its
// errors, `poreplab report amax`, the config key "reports", and the `limits` kind.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "report/amax.hpp"
#include "report/report2019.hpp"
#include "runner/config.hpp"
#include "poreplab/cpu/engines.hpp"
#include "poreplab/cpu/tune.hpp"
#include "runner/runner.hpp"
#include "runner/kinds.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace poreplab;

namespace {

json header(const std::string& model, double tsc_hz) {
  return {{"type", "header"}, {"run", 0}, {"environment", {{"cpu", {{"model", model}, {"tsc_hz", tsc_hz}}}}}};
}

json hash_point(const std::string& algo, const std::string& engine, const std::string& mode, double lane_ns,
                std::size_t block_bytes, const std::string& status = "ok") {
  return {{"type", "point"},
          {"run", 0},
          {"experiment", "h"},
          {"kind", "hash"},
          {"axes", {{"algo", algo}, {"engine", engine}, {"mode", mode}, {"size", 1024}}},
          {"status", status},
          {"context", {{"engine", engine}, {"lanes", 1}, {"block_bytes", block_bytes}}},
          {"rates", {{"lane_ns_per_block", lane_ns}, {"ns_per_block", lane_ns}}}};
}

json limits_point(const std::string& algo, const std::string& engine, double measured, double limit, double core_hz) {
  return {{"type", "point"},
          {"run", 0},
          {"experiment", "lim"},
          {"kind", "limits"},
          {"axes", {{"algo", algo}, {"engine", engine}}},
          {"status", "ok"},
          {"context", {{"engine", engine}, {"core_hz", core_hz}}},
          {"rates",
           {{"measured_cycles_per_byte", measured},
            {"limit_cycles_per_byte", limit},
            {"ratio", measured / limit},
            {"single_stream_gb_per_s", core_hz / measured / 1e9}}}};
}

// Lines: 1 header, 2 sha256 shani chain (2.0 GB/s), 3 sha256 portable chain (0.4 GB/s),
// 4 sha256 throughput (not single-stream), 5 limits sha256 shani (core clock 3.8 GHz),
// 6 blake2s avx2 chain (0.64 GB/s), 7 a failed blake2b chain record (ignored).
std::string hand_made_records() {
  std::string s;
  for (const json& j : {header("Test CPU 9000", 2.5e9), hash_point("sha256", "shani", "chain", 32, 64),
                        hash_point("sha256", "portable", "chain", 160, 64),
                        hash_point("sha256", "avx2-x8", "throughput", 1, 64),
                        limits_point("sha256", "shani", 2.0, 1.9, 3.8e9),
                        hash_point("blake2s", "avx2", "chain", 100, 64),
                        hash_point("blake2b", "avx2", "chain", 1, 128, "failed")})
    s += j.dump() + "\n";
  return s;
}

const char* kCustom = R"({
  "schema": "poreplab-custom-hardware/1",
  "note": "test figures",
  "entries": [
    {"hash": "sha256", "kind": "asic", "design": "iter-sha", "device": "40nm", "cycles_per_block": 66,
     "block_bytes": 64, "clock_mhz": 250, "cost_usd": 1000, "source": "https://example.org/sha", "status": "quoted"},
    {"hash": "blake2s-256", "kind": "fpga", "design": "iter-b2s", "device": "Artix-7", "cycles_per_block": 24,
     "block_bytes": 64, "clock_mhz": 61, "source": "https://example.org/b2s", "status": "quoted",
     "clock_status": "assumed", "clock_reason": "test clock reason"},
    {"hash": "blake2b", "kind": "asic", "design": "guess-b2b", "device": "40nm", "cycles_per_block": 28,
     "block_bytes": 128, "clock_mhz": 250, "source": "https://example.org/b2b", "status": "assumed",
     "reason": "test reason"}
  ]
})";

std::string custom_problem(const std::string& text) {
  try {
    amax::parse_custom_hardware(text, "c.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

std::string one_entry(const std::string& fields) {
  return R"({"schema": "poreplab-custom-hardware/1", "entries": [{)" + fields + "}]}";
}

const std::string kGoodFields =
    R"("hash": "sha256", "kind": "fpga", "design": "d", "device": "x", "cycles_per_block": 66, "block_bytes": 64,
       "clock_mhz": 100, "source": "s", "status": "quoted")";

}  // namespace

TEST_CASE("amax: columns, Amax ratio, cost and provenance from hand-made records", "[amax]") {
  test::temp_dir s("amax");
  test::write_text(s / "records.jsonl", hand_made_records());
  const records::result_set in = records::load_result_set({s.path});
  REQUIRE(in.records.size() == 6);
  const amax::custom_data custom = amax::parse_custom_hardware(kCustom, "custom.json");
  REQUIRE(custom.entries.size() == 3);
  CHECK(custom.entries[1].hash == "blake2s");  // blake2s-256 is accepted as blake2s

  const amax::report r = amax::compute(in, custom, {{"test cpu", 500.0}});
  REQUIRE(r.tables.size() == 3);
  const std::string rec = (s.path / "records.jsonl").string();

  // sha256: the best engine of the device (shani, 2.0 GB/s; portable is not listed), the
  // core clock measured by the limits record, then the custom row.
  const auto& sha = r.tables[0];
  CHECK(sha.hash == "sha256");
  REQUIRE(sha.rows.size() == 2);
  const auto& cpu = sha.rows[0];
  CHECK_FALSE(cpu.custom);
  CHECK(cpu.best);
  CHECK(cpu.kind == "cpu");
  CHECK(cpu.device == "Test CPU 9000");
  CHECK(cpu.implementation == "shani");
  CHECK(cpu.gb_per_s == Approx(2.0));
  CHECK(cpu.clock_hz == Approx(3.8e9));
  CHECK(cpu.cycles_per_byte == Approx(1.9));
  CHECK(cpu.source.text() == "measured (record " + rec + ":2)");
  CHECK(cpu.clock_source.status == figure_status::measured);
  CHECK(cpu.clock_source.detail.find(rec + ":5") != std::string::npos);
  REQUIRE(cpu.cost_usd);
  CHECK(*cpu.cost_usd == 500);
  CHECK(*cpu.usd_per_gb_per_s == Approx(250));
  CHECK_FALSE(cpu.amax);
  const auto& asic = sha.rows[1];
  CHECK(asic.custom);
  CHECK(asic.kind == "asic");
  CHECK(asic.cycles_per_byte == Approx(66.0 / 64));
  CHECK(asic.clock_hz == Approx(250e6));
  CHECK(asic.gb_per_s == Approx(64 * 250e6 / 66 / 1e9));
  REQUIRE(asic.amax);
  CHECK(*asic.amax == Approx(64 * 250e6 / 66 / 1e9 / 2.0));
  CHECK(*asic.usd_per_gb_per_s == Approx(1000 / (64 * 250e6 / 66 / 1e9)));
  CHECK(asic.source.text() == "quoted (https://example.org/sha)");
  CHECK(asic.clock_source.status == figure_status::quoted);

  // blake2s: a quoted design with an assumed clock is labelled so.
  const auto& b2s = r.tables[1];
  REQUIRE(b2s.rows.size() == 2);
  CHECK(b2s.rows[0].gb_per_s == Approx(0.64));
  CHECK(b2s.rows[1].source.status == figure_status::quoted);
  CHECK(b2s.rows[1].clock_source.text() == "assumed (test clock reason)");
  CHECK(*b2s.rows[1].amax == Approx(64 * 61e6 / 24 / 1e9 / 0.64));

  // blake2b: only the (assumed) custom row, the failed record is ignored: no Amax.
  const auto& b2b = r.tables[2];
  REQUIRE(b2b.rows.size() == 1);
  CHECK(b2b.rows[0].source.status == figure_status::assumed);
  CHECK(b2b.rows[0].source.detail.find("test reason") != std::string::npos);
  CHECK_FALSE(b2b.rows[0].amax);
  CHECK_FALSE(b2b.best_gb_per_s);
  bool noted = false;
  for (const auto& n : r.notes) noted = noted || n.rfind("blake2b: no off-the-shelf measurement", 0) == 0;
  CHECK(noted);
  // A file without architectures (an old one) still reads; its range is today's figure at both ends.
  REQUIRE(sha.low);
  CHECK(sha.low->label == "iter-sha (asic)");
  CHECK(sha.high->label == sha.low->label);
  CHECK(sha.low->architecture == "-");
  noted = false;
  for (const auto& n : r.notes) noted = noted || n.rfind("sha256: no unrolled or pipelined core in custom.json", 0) == 0;
  CHECK(noted);

  // Nothing quoted or assumed passes as measured.
  for (const auto& t : r.tables)
    for (const auto& x : t.rows)
      if (x.custom) {
        CHECK(x.source.status != figure_status::measured);
        CHECK(x.clock_source.status != figure_status::measured);
      }

  const std::string md = amax::to_markdown(r);
  CHECK(md.find("## sha256") != std::string::npos);
  CHECK(md.find("| device | type | implementation | cycles/B | clock | GB/s (1 stream) | cost (USD) | USD per GB/s | "
                "Amax | source |") != std::string::npos);
  CHECK(md.find("| Test CPU 9000 | cpu (off-the-shelf) | shani | 1.9 | 3.800 GHz | 2 | 500 | 250 | 1 (best) | "
                "measured (record " + rec + ":2)") != std::string::npos);
  CHECK(md.find("| 40nm | asic | iter-sha | 1.031 | 250 MHz | 0.2424 | 1000 | 4125 | 0.121 | quoted "
                "(https://example.org/sha)") != std::string::npos);
  CHECK(md.find("clock assumed (test clock reason)") != std::string::npos);
  CHECK(md.find("test figures") != std::string::npos);

  const json j = amax::to_json(r);
  CHECK(j["schema"] == "poreplab-amax/1");
  CHECK(j["hashes"][0]["best_off_the_shelf_gb_per_s"].get<double>() == Approx(2.0));
  CHECK(j["hashes"][0]["rows"][1]["amax"].get<double>() == Approx(64 * 250e6 / 66 / 1e9 / 2.0));
  CHECK(j["hashes"][0]["rows"][1]["source"]["status"] == "quoted");
  CHECK(j["hashes"][1]["rows"][1]["gb_per_s_status"] == "assumed");  // an assumed clock taints the speed
  CHECK(j["hashes"][2]["rows"][0]["amax"].is_null());
}

// A design space: sha256 with an iterative ASIC core (area and power quoted), a quoted
// unrolled x2 FPGA core (faster than the iterative one, so not the low end), a core derived
// from the iterative one by full unrolling (the high end); blake2s with a folded core at an
// assumed clock and a core derived from it; blake2b with only a pipelined core.
const char* kDesignSpace = R"({
  "schema": "poreplab-custom-hardware/1",
  "entries": [
    {"hash": "sha256", "kind": "asic", "design": "iter-sha", "device": "40nm", "cycles_per_block": 66,
     "block_bytes": 64, "clock_mhz": 250, "source": "https://example.org/sha", "status": "quoted",
     "architecture": {"type": "iterative"},
     "area": {"value": 14200, "unit": "um2", "technology": "40 nm", "source": "https://example.org/sha#area",
              "status": "quoted"},
     "power": {"mw": 10, "source": "https://example.org/sha#power", "status": "quoted"}},
    {"hash": "sha256", "kind": "fpga", "design": "x2-sha", "device": "Artix-7", "cycles_per_block": 34,
     "block_bytes": 64, "clock_mhz": 150, "source": "https://example.org/x2", "status": "quoted",
     "architecture": {"type": "unrolled", "factor": 2},
     "area": {"value": 5000, "unit": "LUT", "technology": "Artix-7", "source": "https://example.org/x2#lut",
              "status": "quoted"}},
    {"hash": "sha256", "kind": "asic", "design": "full-sha", "device": "40nm", "cycles_per_block": 1,
     "block_bytes": 64, "clock_mhz": 5.1813, "source": "https://example.org/sha", "status": "derived",
     "architecture": {"type": "unrolled", "factor": 64},
     "area": {"value": 908800, "unit": "um2", "technology": "40 nm", "source": "unrolling model", "status": "derived"},
     "derivation": {"from": "/entries/0", "base_round_cycles": 64, "register_overhead": 0.25,
                    "text": "test model", "source": "test document, Unrolling"}},
    {"hash": "blake2s", "kind": "asic", "design": "fold-b2s", "device": "40nm", "cycles_per_block": 24,
     "block_bytes": 64, "clock_mhz": 250, "source": "https://example.org/b2s", "status": "quoted",
     "clock_status": "assumed", "clock_reason": "test clock reason", "architecture": {"type": "folded", "factor": 2}},
    {"hash": "blake2s", "kind": "asic", "design": "full-b2s", "device": "40nm", "cycles_per_block": 1,
     "block_bytes": 64, "clock_mhz": 16.3934, "source": "https://example.org/b2s", "status": "derived",
     "architecture": {"type": "unrolled", "factor": 10},
     "derivation": {"from": "/entries/3", "base_round_cycles": 20, "register_overhead": 0.25,
                    "text": "test model", "source": "test document, Unrolling"}},
    {"hash": "blake2b", "kind": "asic", "design": "pipe-b2b", "device": "7nm", "cycles_per_block": 26,
     "block_bytes": 128, "clock_mhz": 500, "source": "https://example.org/pipe", "status": "quoted",
     "architecture": {"type": "pipelined", "factor": 24}}
  ]
})";

const amax::row* find_row(const amax::hash_table& t, const std::string& implementation) {
  for (const auto& x : t.rows)
    if (x.implementation == implementation) return &x;
  return nullptr;
}

TEST_CASE("amax: without a limits record the CPU clock is the TSC, marked assumed", "[amax]") {
  test::temp_dir s("amax");
  test::write_text(s / "records.jsonl",
       header("Test CPU", 2.5e9).dump() + "\n" + hash_point("sha256", "shani", "chain", 32, 64).dump() + "\n");
  const amax::report r =
      amax::compute(records::load_result_set({s.path}), amax::parse_custom_hardware(kCustom, "c.json"));
  const auto& cpu = r.tables.at(0).rows.at(0);
  CHECK(cpu.clock_hz == Approx(2.5e9));
  CHECK(cpu.clock_source.status == figure_status::assumed);
  CHECK(cpu.clock_source.detail.find("TSC") != std::string::npos);
  CHECK(cpu.cycles_per_byte == Approx(1.25));
  CHECK(cpu.source.status == figure_status::measured);
}

TEST_CASE("amax: malformed or unknown custom-hardware data", "[amax]") {
  CHECK(custom_problem(one_entry(kGoodFields)).empty());
  CHECK_THAT(custom_problem("{\"schema\": "), Catch::StartsWith("c.json: parse error at line 1"));
  CHECK_THAT(custom_problem(R"({"schema": "poreplab-custom-hardware/2", "entries": []})"),
             Catch::Contains("c.json: /schema: unsupported schema"));
  CHECK_THAT(custom_problem(R"({"schema": "poreplab-custom-hardware/1"})"),
             Catch::Contains("missing required key \"entries\""));
  CHECK_THAT(custom_problem(one_entry(R"("hash": "md5", "kind": "fpga")")),
             Catch::Contains("c.json: /entries/0/hash: unknown hash \"md5\" (known: sha256, blake2s, blake2b)"));
  CHECK_THAT(custom_problem(one_entry(R"("hash": "sha256", "kind": "gpu")")),
             Catch::Contains("/entries/0/kind: unknown kind \"gpu\""));
  CHECK_THAT(custom_problem(one_entry(kGoodFields + R"(, "speed": 1)")),
             Catch::Contains("/entries/0/speed: unknown key \"speed\""));
  std::string no_cycles = kGoodFields;
  no_cycles.replace(no_cycles.find("\"cycles_per_block\": 66,"), 23, "");
  CHECK_THAT(custom_problem(one_entry(no_cycles)), Catch::Contains("missing required key \"cycles_per_block\""));
  std::string bad_block = kGoodFields;
  bad_block.replace(bad_block.find("\"block_bytes\": 64"), 17, "\"block_bytes\": 128");
  CHECK_THAT(custom_problem(one_entry(bad_block)), Catch::Contains("is not the sha256 block size 64"));
  std::string negative = kGoodFields;
  negative.replace(negative.find("\"clock_mhz\": 100"), 16, "\"clock_mhz\": -1");
  CHECK_THAT(custom_problem(one_entry(negative)), Catch::Contains("/entries/0/clock_mhz: expected a positive number"));
  std::string assumed = kGoodFields;
  assumed.replace(assumed.find("\"status\": \"quoted\""), 18, "\"status\": \"assumed\"");
  CHECK_THAT(custom_problem(one_entry(assumed)), Catch::Contains("status \"assumed\" needs a \"reason\""));
  CHECK_THAT(custom_problem(one_entry(kGoodFields + R"(, "clock_status": "assumed")")),
             Catch::Contains("an assumed clock needs a \"clock_reason\""));
  std::string measured = kGoodFields;
  measured.replace(measured.find("\"status\": \"quoted\""), 18, "\"status\": \"measured\"");
  CHECK_THAT(custom_problem(one_entry(measured)), Catch::Contains("\"measured\" is not a status"));
}

TEST_CASE("amax: the range per hash, derived rows, area and power columns", "[amax]") {
  test::temp_dir s("amax");
  test::write_text(s / "records.jsonl", hand_made_records());
  const amax::custom_data custom = amax::parse_custom_hardware(kDesignSpace, "space.json");
  REQUIRE(custom.entries.size() == 6);
  CHECK(custom.entries[0].architecture.type == "iterative");
  CHECK(*custom.entries[0].architecture.factor == 1);  // iterative: one round per cycle
  CHECK(custom.entries[0].power->value == Approx(0.010));  // 10 mW
  REQUIRE(custom.entries[2].derivation);
  CHECK(custom.entries[2].derivation->from == 0);
  CHECK(custom.entries[2].derivation->basis_status == figure_status::quoted);
  CHECK(custom.entries[4].derivation->basis_status == figure_status::assumed);  // the base's clock is assumed

  const amax::report r = amax::compute(records::load_result_set({s.path}), custom);
  REQUIRE(r.tables.size() == 3);
  const double iter_gbs = 64 * 250e6 / 66 / 1e9, full_gbs = 64 * 5.1813e6 / 1e9;

  // sha256: low = the iterative core (the faster unrolled x2 core is a latency design, not
  // a low-area one); high = the derived fully unrolled core, 193 ns per block.
  const auto& sha = r.tables[0];
  REQUIRE(sha.low);
  REQUIRE(sha.high);
  CHECK(sha.low->label == "iter-sha (asic)");
  CHECK(sha.low->architecture == "iterative");
  CHECK(sha.low->ns_per_block == Approx(264));
  CHECK(*sha.low->amax == Approx(iter_gbs / 2.0));
  CHECK(sha.low->status == figure_status::quoted);
  CHECK(sha.high->label == "full-sha (asic)");
  CHECK(sha.high->architecture == "unrolled x64");
  CHECK(sha.high->ns_per_block == Approx(1e3 / 5.1813));
  CHECK(*sha.high->amax == Approx(full_gbs / 2.0));
  CHECK(sha.high->status == figure_status::derived);

  const amax::row* derived = find_row(sha, "full-sha");
  REQUIRE(derived);
  CHECK(derived->source.status == figure_status::derived);
  CHECK(derived->source.detail == "test model; base /entries/0: https://example.org/sha; model: test document, Unrolling");
  CHECK(derived->clock_source.status == figure_status::derived);
  CHECK(derived->status == figure_status::derived);
  CHECK(derived->area->status == figure_status::derived);
  CHECK(*derived->gb_per_s_per_area == Approx(full_gbs / 0.9088));

  // Area and power: GB/s per mm2 for um2, per 1000 LUT for LUTs; per W where power is known.
  const amax::row* iter = find_row(sha, "iter-sha");
  REQUIRE(iter);
  CHECK(iter->area_per == "mm2");
  CHECK(*iter->gb_per_s_per_area == Approx(iter_gbs / 0.0142));
  CHECK(*iter->gb_per_s_per_watt == Approx(iter_gbs / 0.010));
  const amax::row* x2 = find_row(sha, "x2-sha");
  REQUIRE(x2);
  CHECK(x2->area_per == "1000 LUT");
  CHECK(*x2->gb_per_s_per_area == Approx(64 * 150e6 / 34 / 1e9 / 5.0));
  CHECK_FALSE(x2->gb_per_s_per_watt);
  const amax::row& cpu = sha.rows.front();
  CHECK(cpu.best);
  CHECK_FALSE(cpu.area);
  CHECK_FALSE(cpu.gb_per_s_per_watt);
  CHECK(cpu.ns_per_block == Approx(32));

  // blake2s: the core derived from a folded core at an assumed clock is assumed, not derived.
  const auto& b2s = r.tables[1];
  CHECK(b2s.low->architecture == "folded /2");
  CHECK(b2s.low->status == figure_status::assumed);
  CHECK(b2s.high->ns_per_block == Approx(61).epsilon(1e-4));
  CHECK(b2s.high->status == figure_status::assumed);
  CHECK(find_row(b2s, "full-b2s")->clock_source.detail.find("assumed figures of /entries/3: test clock reason") !=
        std::string::npos);

  // blake2b: a pipelined core counts by its latency (26 cycles at 500 MHz); its 24 stages
  // add throughput over independent messages only. No low-area core: no low end.
  const auto& b2b = r.tables[2];
  CHECK_FALSE(b2b.low);
  REQUIRE(b2b.high);
  CHECK(b2b.high->ns_per_block == Approx(52));
  CHECK(b2b.high->gb_per_s == Approx(128 / 52.0));
  CHECK(*find_row(b2b, "pipe-b2b")->independent_gb_per_s == Approx(24 * 128 / 52.0));

  const std::string md = amax::to_markdown(r);
  INFO(md);
  CHECK_THAT(md, Catch::Contains("## Amax range"));
  CHECK_THAT(md, Catch::Contains("| sha256 | 2 | iter-sha (asic) | iterative | 0.2424 | 0.121 | quoted | "
                                 "full-sha (asic) | unrolled x64 | 193 | 0.3316 | 0.166 | derived |"));
  CHECK_THAT(md, Catch::Contains("| blake2b | - | - | - | - | - | - | pipe-b2b (asic) | pipelined, 24 stages | 52 | 2.462 "
                                 "| - | quoted |"));
  CHECK_THAT(md, Catch::Contains("| 40nm | iter-sha | iterative | 264 | 0.2424 | 14200 um2 (40 nm; quoted) | 17.07 per "
                                 "mm2 | 0.01 W (quoted) | 24.24 | quoted |"));
  CHECK_THAT(md, Catch::Contains("| Artix-7 | x2-sha | unrolled x2 | 226.7 | 0.2824 | 5000 LUT (Artix-7; quoted) | "
                                 "0.05647 per 1000 LUT | — | — | quoted |"));
  CHECK_THAT(md, Catch::Contains("| Test CPU 9000 | shani | — | 32 | 2 | — | — | — | — | measured |"));
  CHECK_THAT(md, Catch::Contains("pipelined, 24 stages (59.08 GB/s over independent messages)"));
  CHECK_THAT(md, Catch::Contains("*derived* (computed from a quoted entry by a stated model)"));
  CHECK_THAT(md, Catch::Contains("Area and power of the off-the-shelf rows are left blank"));

  const json j = amax::to_json(r);
  const json& range = j["hashes"][0]["range"];
  CHECK(range["low"]["status"] == "quoted");
  CHECK(range["low"]["amax"].get<double>() == Approx(iter_gbs / 2.0));
  CHECK(range["high"]["status"] == "derived");
  CHECK(range["high"]["architecture"] == "unrolled x64");
  CHECK(j["hashes"][2]["range"]["low"].is_null());
  bool saw_derived = false, saw_area = false;
  for (const auto& row : j["hashes"][0]["rows"]) {
    if (row["implementation"] == "full-sha") {
      saw_derived = true;
      CHECK(row["gb_per_s_status"] == "derived");
      CHECK(row["source"]["status"] == "derived");
      CHECK(row["architecture"]["factor"].get<double>() == 64);
    }
    if (row["implementation"] == "iter-sha") {
      saw_area = true;
      CHECK(row["area"]["unit"] == "um2");
      CHECK(row["area"]["source"] == "https://example.org/sha#area");
      CHECK(row["gb_per_s_per_area"]["per"] == "mm2");
      CHECK(row["gb_per_s_per_watt"].get<double>() == Approx(iter_gbs / 0.010));
    }
    if (row["category"] == "off-the-shelf") {
      CHECK(row["area"].is_null());
      CHECK(row["power"].is_null());
    }
  }
  CHECK(saw_derived);
  CHECK(saw_area);
}

TEST_CASE("amax: architecture, area, power and derivation errors name their JSON pointer", "[amax]") {
  CHECK_THAT(custom_problem(one_entry(kGoodFields + R"(, "architecture": {"type": "superscalar"})")),
             Catch::StartsWith("c.json: /entries/0/architecture/type: unknown architecture \"superscalar\" (known: "
                               "iterative, unrolled, folded, pipelined)"));
  CHECK_THAT(custom_problem(one_entry(kGoodFields + R"(, "architecture": {"type": "folded", "factor": 0.5})")),
             Catch::StartsWith("c.json: /entries/0/architecture/factor: expected a number >= 1"));
  CHECK_THAT(custom_problem(one_entry(kGoodFields + R"(, "architecture": {"type": "unrolled"})")),
             Catch::StartsWith("c.json: /entries/0/architecture: missing required key \"factor\""));
  CHECK_THAT(custom_problem(one_entry(kGoodFields + R"(, "architecture": {"type": "iterative", "factor": 2})")),
             Catch::StartsWith("c.json: /entries/0/architecture/factor: an iterative core does one round per cycle"));
  CHECK_THAT(custom_problem(one_entry(kGoodFields + R"(, "architecture": {"type": "pipelined", "factor": 2.5})")),
             Catch::Contains("/entries/0/architecture/factor: pipeline stages must be a whole number"));
  CHECK(custom_problem(one_entry(kGoodFields + R"(, "architecture": {"type": "pipelined", "factor": 64})")).empty());

  // A figure without its source is refused, naming where the source is missing.
  const std::string area = R"(, "area": {"value": 2308, "unit": "LUT", "technology": "Zynq-7030", "status": "quoted"})";
  CHECK(custom_problem(one_entry(kGoodFields + area)) ==
        "c.json: /entries/0/area/source: missing: every area figure needs its source (a URL at a commit, or a document "
        "and its section)");
  std::string four = R"({"schema": "poreplab-custom-hardware/1", "entries": [)";
  for (int i = 0; i < 3; ++i) four += "{" + kGoodFields + "}, ";
  four += "{" + kGoodFields + area + "}]}";
  CHECK_THAT(custom_problem(four), Catch::StartsWith("c.json: /entries/3/area/source: missing"));
  CHECK_THAT(custom_problem(one_entry(kGoodFields + R"(, "power": {"watts": 1, "status": "quoted"})")),
             Catch::StartsWith("c.json: /entries/0/power/source: missing: every power figure needs its source"));
  CHECK_THAT(custom_problem(one_entry(kGoodFields + R"(, "area": {"value": 1, "unit": "LUT", "technology": "t",
                                                              "source": "s"})")),
             Catch::StartsWith("c.json: /entries/0/area/status: missing"));
  CHECK_THAT(custom_problem(one_entry(kGoodFields + R"(, "area": {"value": 1, "unit": "acres", "technology": "t",
                                                              "source": "s", "status": "quoted"})")),
             Catch::StartsWith("c.json: /entries/0/area/unit: unknown area unit \"acres\""));
  CHECK_THAT(custom_problem(one_entry(kGoodFields + R"(, "area": {"value": 1, "unit": "LUT", "technology": "t",
                                                              "source": "s", "status": "assumed"})")),
             Catch::Contains("/entries/0/area: status \"assumed\" needs a \"note\""));
  CHECK_THAT(custom_problem(one_entry(kGoodFields + R"(, "power": {"watts": 1, "mw": 5, "source": "s", "status": "quoted"})")),
             Catch::Contains("/entries/0/power: give exactly one of \"watts\" and \"mw\""));

  // Derived entries: a derivation, from an existing published entry, whose model gives the figures.
  json space = json::parse(kDesignSpace);
  auto problem_with = [&](const std::function<void(json&)>& edit) {
    json bad = space;
    edit(bad);
    return custom_problem(bad.dump());
  };
  CHECK(problem_with([](json&) {}).empty());
  CHECK_THAT(problem_with([](json& d) { d["entries"][2].erase("derivation"); }),
             Catch::StartsWith("c.json: /entries/2/derivation: missing: a derived entry states how"));
  CHECK_THAT(problem_with([](json& d) { d["entries"][2]["derivation"].erase("source"); }),
             Catch::StartsWith("c.json: /entries/2/derivation/source: missing"));
  CHECK_THAT(problem_with([](json& d) { d["entries"][2]["derivation"]["from"] = "/entries/9"; }),
             Catch::StartsWith("c.json: /entries/2/derivation/from: \"/entries/9\" is not the pointer of an entry"));
  CHECK_THAT(problem_with([](json& d) { d["entries"][2]["derivation"]["from"] = "/entries/1"; }),
             Catch::StartsWith("c.json: /entries/2/derivation/from: /entries/1 is a sha256 fpga design"));
  CHECK_THAT(problem_with([](json& d) { d["entries"][2]["clock_mhz"] = 10; }),
             Catch::StartsWith("c.json: /entries/2/clock_mhz: 10 MHz does not follow from the derivation (its model "
                               "gives 5.18135 MHz)"));
  CHECK_THAT(problem_with([](json& d) { d["entries"][2]["area"]["value"] = 14200; }),
             Catch::StartsWith("c.json: /entries/2/area/value: 14200 does not follow from the derivation"));
  CHECK_THAT(problem_with([](json& d) { d["entries"][2]["derivation"]["register_overhead"] = 1.5; }),
             Catch::StartsWith("c.json: /entries/2/derivation/register_overhead: expected a fraction"));
  CHECK_THAT(problem_with([](json& d) { d["entries"][2]["cycles_per_block"] = 3; }),
             Catch::StartsWith("c.json: /entries/2/derivation/base_round_cycles: the 64 round cycles of /entries/0 are "
                               "not a whole number"));
  CHECK_THAT(problem_with([](json& d) { d["entries"][0]["derivation"] = d["entries"][2]["derivation"]; }),
             Catch::StartsWith("c.json: /entries/0/derivation: only an entry with status \"derived\""));
  CHECK_THAT(problem_with([](json& d) { d["entries"][4]["derivation"]["from"] = "/entries/2"; }),
             Catch::Contains("/entries/4/derivation/from: /entries/2 is itself derived"));
}

TEST_CASE("amax: missing directories, no records, no usable records, bad --cost", "[amax]") {
  test::temp_dir s("amax");
  CHECK_THROWS_WITH(records::load_result_set({s / "nope"}), Catch::Contains("does not exist"));
  CHECK_THROWS_WITH(records::load_result_set({s.path}), Catch::Contains("holds no records.jsonl"));
  test::write_text(s / "records.jsonl", header("CPU", 1e9).dump() + "\nnot json\n" + header("CPU", 1e9).dump() + "\n");
  CHECK_THROWS_WITH(records::load_result_set({s.path}), Catch::Contains("records.jsonl:2: not a JSON record"));

  // Only skipped/failed or throughput records: nothing single-stream to compare with.
  test::write_text(s / "records.jsonl", header("CPU", 1e9).dump() + "\n" +
                                hash_point("sha256", "shani", "throughput", 1, 64).dump() + "\n" +
                                hash_point("sha256", "shani", "chain", 1, 64, "skipped").dump() + "\n" +
                                hash_point("sha256", "portable", "chain", 1, 64).dump().substr(0, 20));  // torn line
  const records::result_set in = records::load_result_set({s.path});
  CHECK(in.records.size() == 2);
  const auto custom = amax::parse_custom_hardware(kCustom, "c.json");
  CHECK_THROWS_WITH(amax::compute(in, custom), Catch::Contains("no usable records"));

  test::write_text(s / "records.jsonl", hand_made_records());
  const records::result_set good = records::load_result_set({s.path});
  CHECK_THROWS_WITH(amax::compute(good, custom, {{"Xeon", 10.0}}), Catch::Contains("no measured device matches"));
  CHECK_THROWS_WITH(amax::parse_cost("EPYC"), Catch::Contains("expected DEVICE=USD"));
  CHECK_THROWS_WITH(amax::parse_cost("EPYC=cheap"), Catch::Contains("not a positive number"));
  CHECK(amax::parse_cost("AMD EPYC=2500.5").second == 2500.5);
}

TEST_CASE("amax: poreplab report amax prints one error line and fails on bad input", "[amax]") {
  test::temp_dir s("amax");
  auto r = test::run_poreplab("report amax " + test::shell_quote((s / "missing").string()), s);
  test::check_refused(r, "does not exist");
  CHECK(r.err.rfind("poreplab: error: ", 0) == 0);

  test::write_text(s / "records.jsonl", hand_made_records());
  test::write_text(s / "bad.json", one_entry(R"("hash": "sha3", "kind": "fpga")"));
  r = test::run_poreplab("report amax --custom " + test::shell_quote((s / "bad.json").string()) + " " + test::shell_quote(s.path.string()), s);
  test::check_refused(r, "unknown hash \"sha3\"");
  CHECK(r.err.rfind("poreplab: error: ", 0) == 0);
  test::write_text(s / "nosource.json",
                   one_entry(kGoodFields + R"(, "area": {"value": 1, "unit": "LUT", "technology": "t", "status": "quoted"})"));
  r = test::run_poreplab("report amax --custom " + test::shell_quote((s / "nosource.json").string()) + " " +
                             test::shell_quote(s.path.string()),
                         s);
  test::check_refused(r, "nosource.json: /entries/0/area/source: missing");

  test::write_text(s / "custom.json", kCustom);
  r = test::run_poreplab("report amax --custom " + test::shell_quote((s / "custom.json").string()) + " --cost 'Test CPU=500' --json " +
                       test::shell_quote(s.path.string()),
                   s);
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json j = json::parse(r.out);
  CHECK(j["hashes"][0]["rows"][0]["usd_per_gb_per_s"].get<double>() == Approx(250));
  r = test::run_poreplab("report amax --custom " + test::shell_quote((s / "custom.json").string()) + " -o " +
                       test::shell_quote((s / "amax.md").string()) + " " + test::shell_quote(s.path.string()),
                   s);
  CHECK(r.status == 0);
  CHECK(test::read_text(s / "amax.md").rfind("# Amax", 0) == 0);
}

TEST_CASE("amax: the shipped custom-hardware file is valid and cites every figure", "[amax]") {
  const auto d = amax::load_custom_hardware(fs::path(POREPLAB_SOURCE_DIR) / "experiments/data/custom-hardware.json");
  CHECK_FALSE(d.note.empty());
  CHECK(d.entries.size() >= 3);
  for (const auto& e : d.entries) {
    INFO(e.where);
    CHECK_FALSE(e.source.empty());
    if (e.kind == "asic" && e.clock_status == figure_status::assumed) CHECK_FALSE((e.clock_reason.empty() && e.reason.empty()));
    CHECK_FALSE(e.architecture.type.empty());
    if (e.area) CHECK_FALSE(e.area->source.empty());
    if (e.power) CHECK_FALSE(e.power->source.empty());
    CHECK(e.derivation.has_value() == (e.status == figure_status::derived));
  }
  // Every hash has a latency core, and the range it gives goes up from the low-area cores;
  // none of its ends passes as quoted when it was derived or assumed.
  test::temp_dir s("amax");
  test::write_text(s / "records.jsonl", hand_made_records());
  const amax::report r = amax::compute(records::load_result_set({s.path}), d);
  REQUIRE(r.tables.size() == 3);
  for (const auto& t : r.tables) {
    INFO(t.hash);
    REQUIRE(t.low);
    REQUIRE(t.high);
    CHECK(t.high->ns_per_block < t.low->ns_per_block);
    CHECK(t.high->architecture.rfind("unrolled", 0) == 0);
    CHECK(t.high->status != figure_status::quoted);
  }
}

TEST_CASE("runner config: reports", "[amax][runner]") {
  const std::string exp = R"({"name": "h", "kind": "hash", "axes": {"engine": ["portable"]}})";
  auto problem = [&](const std::string& reports) -> std::string {
    try {
      runner::parse_config(R"({"schema": "poreplab-experiments/1", "reports": )" + reports +
                               R"(, "experiments": [)" + exp + "]}",
                           "t.json");
    } catch (const runner::config_error& e) {
      return e.what();
    }
    return "";
  };
  CHECK(problem(R"(["amax"])").empty());
  CHECK(problem("[]").empty());
  CHECK(problem(R"("amax")") == "t.json: /reports: expected a list of report names, got string \"amax\"");
  CHECK(problem(R"(["amax", "bmax"])") == "t.json: /reports/1: unknown report \"bmax\" (known: amax, verdict, report-2019)");
  CHECK(problem(R"(["amax", "amax"])") == "t.json: /reports/1: duplicate report \"amax\"");
  CHECK(problem("[1]") == "t.json: /reports/0: expected a string, got number 1");

  const auto with = runner::parse_config(R"({"schema": "poreplab-experiments/1", "reports": ["amax"], "experiments": [)" +
                                             exp + "]}",
                                         "t.json");
  CHECK(with.reports == std::vector<std::string>{"amax"});
  const auto without = runner::parse_config(R"({"schema": "poreplab-experiments/1", "experiments": [)" + exp + "]}",
                                            "t.json");
  CHECK(without.reports.empty());
  CHECK(with.digest != without.digest);
  CHECK_FALSE(without.normalized.contains("reports"));  // old configs keep their digest
  // Survives --set and the round trip through the records' normalised config.
  CHECK(runner::apply_overrides(with, {"samples=2"}).reports == with.reports);
  CHECK(runner::config_from_json(with.normalized, "r").reports == with.reports);
}

TEST_CASE("runner kind limits: measured single-stream cycles per byte against the critical-path limit",
          "[amax][runner]") {
  const runner::kind_spec* k = runner::find_kind("limits");
  REQUIRE(k != nullptr);
  const auto best = cpu::best_engine(hash_family::sha256, 1, 1).name;
  std::string engines = "\"portable\"";
  if (best != "portable") engines += ", \"" + std::string(best) + "\"";
  const auto c = runner::parse_config(
      R"({"schema": "poreplab-experiments/1", "experiments": [{"name": "lim", "kind": "limits", "warmup": 0,
          "samples": 3, "axes": {"algo": ["sha256", "blake2b"], "engine": [)" +
          engines + R"(, "shani-x2"]}}]})",
      "t.json");
  bool ran_portable = false;
  for (const auto& p : runner::expand_points(c)) {
    INFO(p.describe());
    const json rec = runner::run_point(c, p, 0);
    INFO(rec.dump());
    if (rec["status"] == "skipped") {
      // shani-x2 asked for blake2b, or a CPU without SHA-NI: skipped with the reason.
      CHECK_FALSE(rec["reason"].get<std::string>().empty());
      continue;
    }
    REQUIRE(rec["status"] == "ok");
    CHECK(rec["metric"] == "measured_cycles_per_byte");
    CHECK(rec["verified"] == true);
    const json& rates = rec["rates"];
    const double limit = rates["limit_cycles_per_byte"], measured = rates["measured_cycles_per_byte"];
    CHECK(limit > 0);
    // The limit is a lower bound; measurement noise (and the calibration) get 20%.
    CHECK(measured >= 0.8 * limit);
    CHECK(rates["ratio"].get<double>() == Approx(measured / limit));
    CHECK(rates["single_stream_gb_per_s"].get<double>() > 0);
    const json& ctx = rec["context"];
    CHECK(ctx["core_hz"].get<double>() > 0);
    CHECK_FALSE(ctx["latencies"].empty());
    CHECK_FALSE(ctx["formula"].get<std::string>().empty());
    if (p.axes["algo"] == "sha256") {
      // SHA-256: the port bound is the latency limit or above it, and the measured rate
      // comes no closer to it than to the limit.
      const double bound = rates["bound_cycles_per_byte"];
      CHECK(bound >= limit * (1 - 1e-12));
      CHECK(rates["bound_ratio"].get<double>() == Approx(measured / bound));
      const std::string by = ctx["limited_by"];
      CHECK((by == "latency") == (bound <= limit * (1 + 1e-12)));
    } else {
      CHECK_FALSE(rates.contains("bound_cycles_per_byte"));
    }
    if (p.axes["engine"] == "portable" && p.axes["algo"] == "sha256") {
      ran_portable = true;
      CHECK(ctx["limited_by"] == "latency");  // scalar rounds: no measured mix
      CHECK(ctx["latencies"].contains("ror"));
      CHECK(ctx["latencies"].contains("xor"));
      CHECK_FALSE(ctx["latencies"].contains("sha256rnds2"));
    }
  }
  CHECK(ran_portable);
}

TEST_CASE("runner: reports [amax] writes amax.md and amax.json after the points", "[amax][runner]") {
  test::temp_dir s("amax");
  test::write_text(s / "c.json", R"({
    "schema": "poreplab-experiments/1",
    "reports": ["amax"],
    "experiments": [
      {"name": "h", "kind": "hash", "warmup": 0, "samples": 2,
       "axes": {"algo": ["sha256", "blake2s"], "engine": ["portable"], "mode": ["chain"], "size": ["1KiB"]}},
      {"name": "lim", "kind": "limits", "warmup": 0, "samples": 2, "axes": {"algo": ["sha256"], "engine": ["portable"]}}
    ]
  })");
  const auto r = test::run_poreplab("run " + test::shell_quote((s / "c.json").string()) + " -o " + test::shell_quote((s / "out").string()) +
                                  " --no-plots",
                              s);
  INFO(r.err);
  REQUIRE(r.status == 0);
  REQUIRE(fs::exists(s / "out" / "amax.md"));
  REQUIRE(fs::exists(s / "out" / "amax.json"));
  const json j = json::parse(test::read_text(s / "out" / "amax.json"));
  REQUIRE(j["hashes"].size() >= 2);
  CHECK(j["hashes"][0]["hash"] == "sha256");
  bool custom_with_amax = false;
  for (const auto& row : j["hashes"][0]["rows"]) {
    if (row["category"] == "off-the-shelf") {
      CHECK(row["source"]["status"] == "measured");
      CHECK(row["source"]["detail"].get<std::string>().find("records.jsonl:") != std::string::npos);
      CHECK(row["clock_source"]["status"] == "measured");  // the limits record's calibration
    } else {
      CHECK(row["source"]["status"] != "measured");
      custom_with_amax = custom_with_amax || row["amax"].is_number();
    }
  }
  CHECK(custom_with_amax);
  CHECK(test::read_text(s / "out" / "amax.md").find("## blake2s") != std::string::npos);
}

TEST_CASE("report-2019: the shipped data file, step/stream/padding records, Amax reproduction", "[amax][report2019]") {
  const json data = report2019::load_data(report2019::default_data_file());
  CHECK(data["compute"].size() == 14);
  CHECK(data["summary"]["steps"].size() == 5);

  auto label_point = [](const std::string& exp, double cpb, const std::string& assembly) {
    return json{{"type", "point"},       {"run", 0},
                {"experiment", exp},      {"kind", "label"},
                {"axes", {{"engine", "auto"}, {"assembly", assembly}}},
                {"status", "ok"},         {"context", json::object()},
                {"rates", {{"cycles_per_byte", cpb}}}};
  };
  auto tree_point = [](const std::string& engine, int pad, double ns) {
    return json{{"type", "point"}, {"run", 0}, {"experiment", "pad"}, {"kind", "tree_d"},
                {"axes", {{"engine", engine}, {"pad_precompute", pad}, {"sector_size", 8u << 20}, {"threads", 1}}},
                {"status", "ok"},  {"context", json::object()}, {"rates", {{"ns_per_node", ns}}}};
  };
  json core_point = label_point("step-huge-pages-on-sdr-sha256", 4.0, "auto");
  json zig = label_point("step-prefetch-zigzag-blake2s", 6.0, "auto");
  zig["context"] = {{"scheme", "zigzag/blake2s"}, {"layer_groups_ns_per_node", {{"forward", 500.0}, {"reverse", 550.0}}}};
  zig["axes"]["prefetch_distance"] = 4;
  core_point["rates"]["cycles_per_byte_core"] = 3.5;  // preferred over TSC ticks
  core_point["context"]["core_hz"] = 3e9;             // the clock of the sequential floor's cycles
  json multi = hash_point("sha256", "avx2-x8", "chain", 10, 64);
  multi["context"]["lanes"] = 8;  // a lane of a multi-buffer engine: not a single stream
  std::string s;
  for (const json& j : {header("Test CPU 9000", 2.5e9), hash_point("sha256", "shani", "chain", 32, 64),
                        hash_point("sha256", "avx2-1", "chain", 128, 64), multi,
                        hash_point("blake2s", "avx2", "chain", 100, 64),
                        label_point("step-baseline-sdr-sha256", 20.0, "gather"),
                        label_point("step-simd-hash-sdr-sha256", 5.0, "gather"),
                        core_point, zig, tree_point("portable", 0, 100),
                        tree_point("portable", 1, 60)})
    s += j.dump() + "\n";
  test::temp_dir d("r2019");
  test::write_text(d / "records.jsonl", s);
  const std::string md = report2019::markdown(data, records::load_result_set({d.path}));
  CHECK_THAT(md, Catch::Contains("| Default parents-iter | 9.10 | - | not measured | - | 20 *tsc* | - |"));
  CHECK_THAT(md, Catch::Contains("| 8.84 | 2.9% | not measured | - | 5 *tsc* | 75.0% |"));
  CHECK_THAT(md, Catch::Contains("| huge-pages-on-sdr-sha256 | 3.5 |"));
  CHECK_THAT(md, Catch::Contains("Test CPU 9000: avx2-1 (no SHA-NI) | - | - | 0.5 |"));
  CHECK_THAT(md, Catch::Contains("Test CPU 9000: shani (SHA-NI) | - | - | 2 |"));
  CHECK_THAT(md, !Catch::Contains("avx2-x8"));
  // SHA-256: quoted 3, recomputed 7.5 / 2.5 = 3; best here 2 GB/s (shani), 0.5 without SHA-NI: 7.5 / 2 = 3.75.
  CHECK_THAT(md, Catch::Contains("| sha256 | 2.5 | 7.5 | 3 | 3 | 2 | 0.5 | not measured | 3.75 |"));
  CHECK_THAT(md, Catch::Contains("| blake2b | 1.7 | 20.8 | 12.5 | 12.2 |"));
  // The sequential floor: shani's 32 ns per compression x 20 (19) blocks, cycles at 3 GHz.
  CHECK_THAT(md, Catch::Contains("| Test CPU 9000 | shani | 32 | 3 | 640 (1920) | 608 (1824) | measured ("));
  CHECK_THAT(md, Catch::Contains("| portable | 8MiB | 1 thread | 100 | 60 | 40.0% |"));
  CHECK_THAT(md, Catch::Contains("| step-prefetch-zigzag-blake2s (prefetch 4) | zigzag/blake2s | 500 | 550 | 1.100 |"));
  CHECK_THAT(md, Catch::Contains("LLC misses that occur in the reverse direction only"));
  // A damaged record (a time that is not a number, a direction without its fields) is skipped, not an error.
  json bad_zig = zig;
  bad_zig["experiment"] = "damaged";
  bad_zig["context"]["layer_groups_ns_per_node"]["reverse"] = "slow";
  json bad_prof = {{"type", "point"}, {"run", 0}, {"experiment", "prof"}, {"kind", "profile"}, {"axes", json::object()},
                   {"status", "ok"}, {"rates", json::object()},
                   {"context", {{"directions", json::array({{{"group", 3}}, "x"})}, {"llc_counter", 5}}}};
  test::temp_dir d2("r2019bad");
  test::write_text(d2 / "records.jsonl", header("Test CPU 9000", 2.5e9).dump() + "\n" + bad_zig.dump() + "\n" + bad_prof.dump() + "\n");
  std::string damaged;
  CHECK_NOTHROW(damaged = report2019::markdown(data, records::load_result_set({d2.path})));
  CHECK_THAT(damaged, !Catch::Contains("| damaged"));

  CHECK_THROWS_WITH(report2019::parse_data("{}", "d.json"), Catch::Contains("d.json: /schema"));
  json bad = data;
  bad["compute"][3]["kind"] = "guess";
  CHECK_THROWS_WITH(report2019::parse_data(bad.dump(), "d.json"),
                    Catch::Contains("d.json: /compute/3/kind: expected measured-by-source or estimate"));
  bad = data;
  bad["summary"]["steps"][0].erase("quoted_cycles_per_byte");
  CHECK_THROWS_WITH(report2019::parse_data(bad.dump(), "d.json"),
                    Catch::Contains("/summary/steps/0/quoted_cycles_per_byte: missing"));
  bad = data;
  bad["direction"].erase("detail");
  CHECK_THROWS_WITH(report2019::parse_data(bad.dump(), "d.json"), Catch::Contains("d.json: /direction/detail: missing"));
  CHECK_THROWS_WITH(report2019::parse_data("{", "d.json"), Catch::Contains("parse error"));
}
