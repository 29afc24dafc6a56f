// The verdict (verdict.hpp) on hand-made result directories: which figure is measured,
// extrapolated or modeled, the arithmetic of PC1 time, capacity and sectors per hour,
// the crossover, and the refusals.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "support.hpp"
#include "records/result_set.hpp"
#include "report/verdict.hpp"

using namespace poreplab;
using nlohmann::json;

namespace {

constexpr double kRam = 64.0 * (1ull << 30);

json header(const std::string& cpu, int cores, const json& gpus = json::array()) {
  return {{"type", "header"},
          {"run", 0},
          {"environment",
           {{"cpu", {{"model", cpu}, {"logical_cores", cores}}},
            {"memory", {{"total_bytes", kRam}}},
            {"cuda", {{"available", !gpus.empty()}, {"devices", gpus}}}}}};
}

// An ok sdr/sha256 label record.
json label(const std::string& backend, const std::string& device, std::uint64_t size, std::uint32_t sectors,
           int threads, double ns) {
  json axes = {{"backend", backend}, {"variant", "sdr"}, {"hash", "sha256"}, {"sector_size", size},
               {"sectors", sectors}, {"layers", 2}};
  axes["threads"] = backend == "cuda" ? json(nullptr) : json(threads);
  return {{"type", "point"},
          {"run", 0},
          {"experiment", "e-" + backend},
          {"kind", "label"},
          {"axes", axes},
          {"status", "ok"},
          {"stats", {{"median", ns}, {"n", 1}}},
          {"rates", {{"labels_per_s", sectors * 1e9 / ns}}},
          {"context", {{"scheme", "sdr/sha256"}, {"device", device}}}};
}

std::string lines(std::initializer_list<json> records) {
  std::string out;
  for (const auto& r : records) out += r.dump() + "\n";
  return out;
}

const verdict::device_row& row(const verdict::report& r, std::uint64_t size, std::string_view kind_name) {
  const verdict::device_kind kind = verdict::kDeviceKinds.parse(kind_name);
  for (const auto& s : r.sizes)
    if (s.sector_size == size)
      for (const auto& d : s.devices)
        if (d.kind == kind) return d;
  FAIL("no " << kind_name << " row at " << size);
  throw;
}

const verdict::size_row& size_row(const verdict::report& r, std::uint64_t size) {
  for (const auto& s : r.sizes)
    if (s.sector_size == size) return s;
  FAIL("no row at " << size);
  throw;
}

constexpr std::uint64_t k8MiB = 8ull << 20, k2KiB = 2048, k512MiB = 512ull << 20, k32GiB = 32ull << 30;

}  // namespace

TEST_CASE("verdict: measured, extrapolated and modeled cells", "[verdict]") {
  test::temp_dir s("verdict");
  test::write_text(s / "records.jsonl",
             lines({header("Test CPU", 16),
                    label("cpu", "Test CPU", k2KiB, 1, 1, 800),
                    label("cpu", "Test CPU", k8MiB, 1, 1, 1000),
                    label("cpu", "Test CPU", k8MiB, 16, 0, 200),   // 16 sectors on 16 cores: 8e7 labels/s
                    label("cpu", "Test CPU", k8MiB, 4, 1, 500)}));  // one core, 4 sectors: 8e6 labels/s
  const auto r = verdict::compute({s.path});
  REQUIRE(r.sizes.size() == 5);
  CHECK(size_row(r, k32GiB).layers == 11);

  // 8MiB, one core: measured, 1000 ns x 262144 nodes x 2 layers.
  const auto& core = row(r, k8MiB, "cpu-core");
  REQUIRE(core.pc1_seconds.value);
  CHECK(*core.pc1_seconds.value == Approx(1000e-9 * 262144 * 2));
  CHECK(core.pc1_seconds.from.status == figure_status::measured);
  CHECK(core.pc1_seconds.from.detail.find("records.jsonl:3") != std::string::npos);
  CHECK(*core.sectors_per_hour.value == Approx(8e6 * 3600 / (262144.0 * 2)));
  // The whole CPU: same one-sector time, its own throughput, RAM-bound capacity.
  const auto& all = row(r, k8MiB, "cpu");
  CHECK(*all.pc1_seconds.value == Approx(*core.pc1_seconds.value));
  CHECK(*all.sectors_per_hour.value == Approx(8e7 * 3600 / (262144.0 * 2)));
  CHECK(*all.sectors_at_once.value == std::floor((kRam - 262144.0 * 56) / (2.0 * k8MiB)));
  // 512MiB: extrapolated from 8MiB, named.
  const auto& big = row(r, k512MiB, "cpu-core");
  CHECK(big.pc1_seconds.from.status == figure_status::extrapolated);
  CHECK(big.pc1_seconds.from.detail.find("measured at 8MiB") != std::string::npos);
  CHECK(*big.pc1_seconds.value == Approx(1000e-9 * 16777216.0 * 2));
  // 32GiB: two layers (64 GiB) plus the table do not fit 64 GiB of RAM, and no disk was
  // measured: the storage model's cell is zero, saying why, and names the bound.
  CHECK(*row(r, k32GiB, "cpu").sectors_at_once.value == 0);
  const auto& none = row(r, k32GiB, "cpu").sectors_per_hour;
  REQUIRE(none.value);
  CHECK(*none.value == 0);
  CHECK(none.from.status == figure_status::modeled);
  CHECK(none.from.detail.find("no batch fits") != std::string::npos);
  CHECK(row(r, k32GiB, "cpu").bound.find("no batch fits (layers in RAM): ") == 0);
  CHECK(row(r, k32GiB, "cpu").bound.find("RAM: needs") != std::string::npos);

  // No GPU record: the GPU row is the SASS model where this build has the SASS.
  bool modeled = false;
  for (const auto& d : size_row(r, k8MiB).devices) modeled = modeled || d.kind == verdict::device_kind::gpu_model;
  if (modeled) {
    const auto& g = row(r, k8MiB, "gpu-model");
    CHECK(g.pc1_seconds.from.status == figure_status::modeled);
    CHECK(g.device.find("not measured") != std::string::npos);
    CHECK(g.sectors_at_once.value);
  }
  const std::string md = verdict::to_markdown(r);
  CHECK(md.find("No GPU was measured") != std::string::npos);
  for (const char* size : {"| 2KiB |", "| 8MiB |", "| 512MiB |", "| 32GiB |", "| 64GiB |"})
    CHECK(md.find(size) != std::string::npos);
  const json j = verdict::to_json(r);
  CHECK(j["schema"] == "poreplab-verdict/1");
  CHECK(j["sizes"][1]["devices"][0]["pc1_seconds"]["source"] == "measured");
}

TEST_CASE("verdict: 32GiB rows from 32GiB window records, a producer's stream is not one core", "[verdict]") {
  test::temp_dir s("verdict-window");
  auto window = [](json rec, const std::string& producer) {
    rec["axes"]["window_nodes"] = 65536;
    rec["axes"]["producer"] = producer == "off" ? "off" : "auto";  // points differ by their axes
    rec["context"]["producer"] = producer;
    return rec;
  };
  test::write_text(s / "records.jsonl",
                   lines({header("Test CPU", 16),
                          label("cpu", "Test CPU", k8MiB, 1, 0, 1000),
                          window(label("cpu", "Test CPU", k32GiB, 1, 0, 1600), "off"),
                          window(label("cpu", "Test CPU", k32GiB, 1, 0, 1100), "core")}));
  const auto r = verdict::compute({s.path});
  // One core at 32GiB: the window record read in place, named, not the 8MiB rate.
  const auto& core = row(r, k32GiB, "cpu-core");
  REQUIRE(core.pc1_seconds.value);
  CHECK(core.pc1_seconds.from.status == figure_status::measured);
  CHECK(*core.pc1_seconds.value == Approx(1600e-9 * (k32GiB / 32.0) * 11));
  CHECK_THAT(core.pc1_seconds.from.detail,
             Catch::Contains("on a 65536-node window") && Catch::Contains("records.jsonl:3"));
  // The whole CPU: the producer's record (two CPUs for one sector), said so.
  const auto& all = row(r, k32GiB, "cpu");
  CHECK(*all.pc1_seconds.value == Approx(1100e-9 * (k32GiB / 32.0) * 11));
  CHECK_THAT(all.pc1_seconds.from.detail, Catch::Contains("parents gathered on a second core"));
  // 64GiB: from the nearest size, the 32GiB window, and says so.
  const auto& big = row(r, 64ull << 30, "cpu-core");
  CHECK(big.pc1_seconds.from.status == figure_status::extrapolated);
  CHECK_THAT(big.pc1_seconds.from.detail, Catch::Contains("measured at 32GiB on a 65536-node window"));
  // 8MiB is untouched by the windows.
  CHECK(*row(r, k8MiB, "cpu-core").pc1_seconds.value == Approx(1000e-9 * 262144 * 2));
}

TEST_CASE("verdict: a measured GPU, the crossover and costs", "[verdict]") {
  test::temp_dir s("verdict");
  const json gpus = json::array({{{"name", "Test GPU"}, {"total_memory_bytes", 80.0 * (1ull << 30)}}});
  test::write_text(s / "records.jsonl",
             lines({header("Test CPU", 16, gpus),
                    label("cpu", "Test CPU", k8MiB, 1, 1, 1000),
                    label("cpu", "Test CPU", k8MiB, 16, 0, 200),       // CPU: 8e7 labels/s
                    label("cuda", "Test GPU", k8MiB, 1, 0, 30000),     // 3.3e4 labels/s
                    label("cuda", "Test GPU", k8MiB, 1024, 0, 30000),  // 3.4e7
                    label("cuda", "Test GPU", k8MiB, 4096, 0, 32000)}));  // 1.28e8 > CPU
  const auto r = verdict::compute({s.path}, {{"test gpu", 30000.0}});
  const auto& g = row(r, k8MiB, "gpu");
  CHECK(g.pc1_seconds.from.status == figure_status::measured);
  CHECK(*g.pc1_seconds.value == Approx(30000e-9 * 262144 * 2));
  CHECK(g.device == "GPU: Test GPU");
  REQUIRE(g.usd_per_sector_hour);
  CHECK(*g.usd_per_sector_hour == Approx(30000.0 / *g.sectors_per_hour.value));
  const auto& x = size_row(r, k8MiB);
  REQUIRE(x.crossover_sectors.value);
  CHECK(*x.crossover_sectors.value == 4096);
  CHECK(x.crossover_sectors.from.status == figure_status::measured);
  // 512MiB: the 8MiB curve, extrapolated.
  CHECK(size_row(r, k512MiB).crossover_sectors.from.status == figure_status::extrapolated);
  // No modeled row once a GPU was measured.
  for (const auto& d : x.devices) CHECK(d.kind != verdict::device_kind::gpu_model);
  // A cost naming no device is refused.
  CHECK_THROWS_WITH(verdict::compute({s.path}, {{"TPU", 1.0}}), Catch::Contains("--cost TPU: no device"));
}

TEST_CASE("verdict: an extrapolated crossover comes from the size the throughput cell came from", "[verdict]") {
  test::temp_dir s("verdict");
  const json gpus = json::array({{{"name", "Test GPU"}, {"total_memory_bytes", 140.0 * (1ull << 30)}}});
  constexpr std::uint64_t k64KiB = 64ull << 10, k1MiB = 1ull << 20;
  test::write_text(s / "records.jsonl",
             lines({header("Test CPU", 16, gpus),
                    label("cpu", "Test CPU", k8MiB, 1, 1, 1000),
                    label("cpu", "Test CPU", k8MiB, 64, 0, 4000),         // CPU: 1.6e7 labels/s
                    label("cuda", "Test GPU", k8MiB, 1, 0, 20000),        // one sector only at 8MiB
                    label("cuda", "Test GPU", k1MiB, 1, 0, 20000),        // 1MiB: a curve that never passes
                    label("cuda", "Test GPU", k1MiB, 256, 0, 40000),      // 6.4e6
                    label("cuda", "Test GPU", k64KiB, 1024, 0, 50000),    // 2.0e7 > CPU
                    label("cuda", "Test GPU", k64KiB, 8192, 0, 65000)}));  // 1.26e8: the largest batch that fits
  const auto r = verdict::compute({s.path}, {});
  const auto& g = row(r, k8MiB, "gpu");
  REQUIRE(g.sectors_per_hour.value);
  CHECK(g.sectors_per_hour.from.detail.find("8192 sectors of 64KiB") != std::string::npos);
  // The crossover reads the same 64KiB curve, not the nearer 1MiB one.
  const auto& x = size_row(r, k8MiB);
  INFO(x.crossover_sectors.from.text());
  REQUIRE(x.crossover_sectors.value);
  CHECK(*x.crossover_sectors.value == 1024);
  CHECK(x.crossover_sectors.from.status == figure_status::extrapolated);
  CHECK(x.crossover_text == "1024 sectors of 64KiB (extrapolated)");
}

TEST_CASE("verdict: a size measured with one sector takes its throughput from a larger batch elsewhere", "[verdict]") {
  test::temp_dir s("verdict");
  const json gpus = json::array({{{"name", "Test GPU"}, {"total_memory_bytes", 80.0 * (1ull << 30)}}});
  constexpr std::uint64_t k1MiB = 1ull << 20, k32MiB = 32ull << 20;
  test::write_text(s / "records.jsonl",
             lines({header("Test CPU", 16, gpus),
                    label("cpu", "Test CPU", k8MiB, 1, 1, 1000),
                    label("cpu", "Test CPU", k8MiB, 16, 0, 200),          // CPU: 8e7 labels/s
                    label("cuda", "Test GPU", k8MiB, 1, 0, 20000),        // one sector: 5e4 labels/s
                    label("cuda", "Test GPU", k32MiB, 1, 0, 20000),       // the nearest size, one sector
                    label("cuda", "Test GPU", k1MiB, 256, 0, 40000),      // 6.4e6
                    label("cuda", "Test GPU", k1MiB, 4096, 0, 60000)}));  // 6.8e7: the largest batch
  const auto r = verdict::compute({s.path});
  const auto& g = row(r, k8MiB, "gpu");
  // The one-sector record stays the PC1 figure of one sector...
  CHECK(g.pc1_seconds.from.status == figure_status::measured);
  CHECK(*g.pc1_seconds.value == Approx(20000e-9 * 262144 * 2));
  // ...but the throughput is the 4096-sector batch of 1MiB, which fits at 8MiB, not the
  // nearer 32MiB size's single sector; the cell names what was measured at 8MiB.
  REQUIRE(g.sectors_per_hour.value);
  CHECK(g.sectors_per_hour.from.status == figure_status::extrapolated);
  CHECK(*g.sectors_per_hour.value == Approx(4096e9 / 60000 * 3600 / (262144.0 * 2)));
  CHECK(*g.batch_sectors.value == Approx(4096));
  CHECK_THAT(g.sectors_per_hour.from.detail, Catch::Contains("4096 sectors of 1MiB") && Catch::Contains("at 8MiB only"));
  // The CPU's own 16-sector batch at 8MiB is larger than any other size's: measured.
  CHECK(row(r, k8MiB, "cpu").sectors_per_hour.from.status == figure_status::measured);
  // A batch measured here that labels faster than a larger one elsewhere stays measured.
  test::temp_dir t("verdict");
  test::write_text(t / "records.jsonl",
             lines({header("Test CPU", 16, gpus),
                    label("cuda", "Test GPU", k8MiB, 1024, 0, 10000),     // 1.0e8
                    label("cuda", "Test GPU", k1MiB, 4096, 0, 60000)}));  // 6.8e7
  const auto& h = row(verdict::compute({t.path}), k8MiB, "gpu");
  CHECK(h.sectors_per_hour.from.status == figure_status::measured);
  CHECK(*h.batch_sectors.value == Approx(1024));
}

TEST_CASE("verdict: refusals", "[verdict]") {
  test::temp_dir s("verdict");
  test::write_text(s / "records.jsonl", lines({header("Test CPU", 2)}));
  CHECK_THROWS_WITH(verdict::compute({s.path}), Catch::Contains("no usable record"));
  // A what-if scheme is not judged.
  json z = label("cpu", "Test CPU", k8MiB, 1, 1, 1000);
  z["context"]["scheme"] = "zigzag/blake2s";
  test::write_text(s / "records.jsonl", lines({header("Test CPU", 2), z}));
  CHECK_THROWS_WITH(verdict::compute({s.path}), Catch::Contains("no usable record"));
  CHECK_THROWS(verdict::compute({s / "missing"}));
}

TEST_CASE("verdict: a CPU without SHA-NI, from the engines that do not use the SHA extensions", "[verdict]") {
  // As an engine axis records it: in the axes (a point's identity) and the context.
  auto with_engine = [](json r, const std::string& engine) {
    r["axes"]["engine"] = engine;
    r["context"]["engine"] = engine;
    return r;
  };
  test::temp_dir s("verdict");
  test::write_text(s / "records.jsonl",
                   lines({header("Test CPU", 16),
                          with_engine(label("cpu", "Test CPU", k8MiB, 1, 1, 800), "shani"),
                          with_engine(label("cpu", "Test CPU", k8MiB, 1, 1, 5000), "avx2-1"),
                          with_engine(label("cpu", "Test CPU", k8MiB, 1, 1, 4000), "portable"),
                          with_engine(label("cpu", "Test CPU", k8MiB, 16, 1, 2000), "avx512-x16"),
                          with_engine(label("cpu", "Test CPU", k8MiB, 16, 1, 1000), "shani-x2")}));
  const auto r = verdict::compute({s.path});
  // The SHA-NI column keeps the fastest engine of all.
  CHECK(*row(r, k8MiB, "cpu-core").pc1_seconds.value == Approx(800e-9 * 262144 * 2));
  CHECK(*row(r, k8MiB, "cpu-core").sectors_per_hour.value == Approx(16e9 / 1000 * 3600 / (262144.0 * 2)));
  // Without SHA-NI: the fastest of avx2-1 and portable for one sector, avx512-x16 for many.
  const auto& nosha = row(r, k8MiB, "cpu-no-sha-ni-core");
  CHECK(*nosha.pc1_seconds.value == Approx(4000e-9 * 262144 * 2));
  CHECK(*nosha.sectors_per_hour.value == Approx(16e9 / 2000 * 3600 / (262144.0 * 2)));
  CHECK(nosha.device.find("without SHA-NI") != std::string::npos);
  CHECK(nosha.pc1_seconds.from.detail.find("records.jsonl:4") != std::string::npos);
  // The crossover stays against the whole CPU with its best engine.
  CHECK(verdict::to_markdown(r).find("CPU, 1 core, without SHA-NI") != std::string::npos);

  // Records without an engine (older runs) give no such column.
  test::temp_dir t("verdict");
  test::write_text(t / "records.jsonl", lines({header("Test CPU", 16), label("cpu", "Test CPU", k8MiB, 1, 1, 800)}));
  const auto plain = verdict::compute({t.path});
  for (const auto& d : size_row(plain, k8MiB).devices) CHECK((d.kind != verdict::device_kind::cpu_no_sha_ni && d.kind != verdict::device_kind::cpu_no_sha_ni_core));
}

TEST_CASE("verdict: the whole CPU never reads below one core, it says what would measure it", "[verdict]") {
  test::temp_dir s("verdict");
  test::write_text(s / "records.jsonl",
                   lines({header("Test CPU", 16),
                          label("cpu", "Test CPU", k8MiB, 1, 1, 1000),
                          label("cpu", "Test CPU", k8MiB, 1, 0, 1000),    // all threads, one sector: one core's rate
                          label("cpu", "Test CPU", k8MiB, 32, 1, 3200)}));  // one core, 32 sectors: 1e7 labels/s
  const auto r = verdict::compute({s.path});
  const auto& core = row(r, k8MiB, "cpu-core");
  REQUIRE(core.sectors_per_hour.value);
  CHECK(*core.sectors_per_hour.value == Approx(1e7 * 3600 / (262144.0 * 2)));
  // The all-thread one-sector record (1e6 labels/s) does not stand for the whole CPU.
  const auto& all = row(r, k8MiB, "cpu");
  CHECK_FALSE(all.sectors_per_hour.value);
  CHECK(all.sectors_per_hour.from.status == figure_status::none);
  CHECK(all.sectors_per_hour.from.detail.find("not measured") != std::string::npos);
  // 16 cores x the 32 sectors that gave one core its rate.
  CHECK(all.sectors_per_hour.from.detail.find("threads=0, sectors=512 at 8MiB") != std::string::npos);
  CHECK(verdict::to_markdown(r).find("not measured") != std::string::npos);

  // An all-thread record of several sectors that beats one core is the whole CPU's.
  test::temp_dir t("verdict");
  test::write_text(t / "records.jsonl",
                   lines({header("Test CPU", 16), label("cpu", "Test CPU", k8MiB, 1, 1, 1000),
                          label("cpu", "Test CPU", k8MiB, 32, 1, 3200), label("cpu", "Test CPU", k8MiB, 512, 0, 5120)}));
  const auto ok = verdict::compute({t.path});
  for (const auto& sz : ok.sizes) {
    double core_rate = 0, whole_rate = 0;
    for (const auto& d : sz.devices) {
      if (d.kind == verdict::device_kind::cpu_core && d.sectors_per_hour.value) core_rate = *d.sectors_per_hour.value;
      if (d.kind == verdict::device_kind::cpu && d.sectors_per_hour.value) whole_rate = *d.sectors_per_hour.value;
    }
    INFO(sz.sector_size);
    if (whole_rate > 0) CHECK(whole_rate >= core_rate);
  }
  CHECK(*row(ok, k8MiB, "cpu").sectors_per_hour.value == Approx(1e8 * 3600 / (262144.0 * 2)));
}

TEST_CASE("verdict: winners, break-even factors and the PC1 time of a sector at the throughput rate", "[verdict]") {
  test::temp_dir s("verdict");
  const json gpus = json::array({{{"name", "Test GPU"}, {"total_memory_bytes", 80.0 * (1ull << 30)}}});
  test::write_text(s / "records.jsonl",
                   lines({header("Test CPU", 16, gpus),
                          label("cpu", "Test CPU", k8MiB, 1, 1, 1000),
                          label("cpu", "Test CPU", k8MiB, 16, 0, 200),          // whole CPU: 8e7 labels/s
                          label("cuda", "Test GPU", k8MiB, 1, 0, 30000),        // one sector: 30x the CPU core
                          label("cuda", "Test GPU", k8MiB, 4096, 0, 32000)}));  // 1.28e8 labels/s: 1.6x the CPU
  const auto r = verdict::compute({s.path});
  const auto& x = size_row(r, k8MiB);
  REQUIRE_FALSE(x.one_sector.why_not);
  CHECK(x.one_sector.winner_kind == verdict::device_kind::cpu_core);
  CHECK(x.one_sector.loser_kind == verdict::device_kind::gpu);
  CHECK(x.one_sector.factor == Approx(30.0));
  CHECK(x.one_sector.winner_source == figure_status::measured);
  REQUIRE_FALSE(x.throughput.why_not);
  CHECK(x.throughput.winner_kind == verdict::device_kind::gpu);
  CHECK(x.throughput.factor == Approx(1.6));
  // Latency at throughput: 4096 sectors together at 1.28e8 labels/s, each waits for all.
  const auto& g = row(r, k8MiB, "gpu");
  REQUIRE(g.batch_sectors.value);
  CHECK(*g.batch_sectors.value == 4096);
  CHECK(*g.pc1_seconds_at_rate.value == Approx(4096.0 * 262144 * 2 / 1.28e8));
  CHECK(*row(r, k8MiB, "cpu").pc1_seconds_at_rate.value == Approx(16.0 * 262144 * 2 / 8e7));
  const std::string words = verdict::plain_words(r);
  CHECK(words.find("**8MiB**") != std::string::npos);
  CHECK(words.find("the CPU wins by 30x") != std::string::npos);
  CHECK(words.find("the GPU wins by 1.6x") != std::string::npos);
  const json j = verdict::to_json(r);
  const json& js = j["sizes"][1];
  CHECK(js["one_sector"]["factor"].get<double>() == Approx(30.0));
  CHECK(js["throughput"]["winner_kind"] == "gpu");
  CHECK(js["devices"][0].contains("pc1_seconds_at_rate"));
}

TEST_CASE("verdict: the emulation never stands in for a GPU in the crossover or the contests", "[verdict]") {
  test::temp_dir s("verdict");
  test::write_text(s / "records.jsonl",
                   lines({header("Test CPU", 2),
                          label("cpu", "Test CPU", k2KiB, 1, 1, 800),
                          label("cpu", "Test CPU", k2KiB, 32, 0, 100),   // whole CPU: 3.2e8 labels/s
                          label("cuda-emu", "Test CPU", k2KiB, 1, 0, 20000),
                          label("cuda-emu", "Test CPU", k2KiB, 32, 0, 20000)}));
  const auto r = verdict::compute({s.path});
  const auto& x = size_row(r, k2KiB);
  bool modeled = false;
  for (const auto& d : x.devices) modeled = modeled || d.kind == verdict::device_kind::gpu_model;
  CHECK(x.crossover_text.find("emu") == std::string::npos);
  if (modeled) {
    // The modeled GPU's curve against the whole CPU, not the emulation's records.
    CHECK(x.crossover_sectors.from.status == figure_status::modeled);
    CHECK(x.one_sector.loser_kind == verdict::device_kind::gpu_model);
    CHECK(x.one_sector.factor > 1);
    CHECK(verdict::plain_words(r).find("MODELED") != std::string::npos);
  } else {
    CHECK(x.crossover_sectors.from.detail.find("no GPU measured or modeled") != std::string::npos);
    REQUIRE(x.one_sector.why_not);
  }
}

TEST_CASE("verdict: target machines sized from a run, with price and energy", "[verdict]") {
  test::temp_dir s("verdict");
  test::write_text(s / "records.jsonl",
                   lines({header("Test CPU", 16),
                          label("cpu", "Test CPU", k8MiB, 1, 1, 1000),      // one core, one sector
                          label("cpu", "Test CPU", k8MiB, 32, 1, 3200),     // one core, 32 sectors: 1e7 labels/s
                          label("cpu", "Test CPU", k8MiB, 512, 0, 5120)}));
  test::write_text(s / "big.json", R"({"schema": "poreplab-machine/1", "name": "Big", "cpu": {"cores": 64},
      "ram": "1TiB", "power_watts": 1000, "price_usd": 20000})");
  const auto m = verdict::load_machine(s / "big.json");
  const auto r = verdict::compute({s.path}, {}, {m}, 0.1);
  const auto& row32 = size_row(r, k32GiB);
  REQUIRE(row32.machines.size() == 1);
  const auto& cpu = row32.machines[0];
  CHECK(cpu.part == "CPU, 64 cores");
  // 1 TiB holds 15 sectors of 32GiB (two layers each, plus the parent table).
  REQUIRE(cpu.sectors_at_once.value);
  CHECK(*cpu.sectors_at_once.value == 15);
  // Fewer sectors than cores: one per core at the one-sector rate (1e9 / 1000 ns each).
  REQUIRE(cpu.sectors_per_hour.value);
  const double work = (32.0 * (1ull << 30) / 32) * 11;
  CHECK(*cpu.sectors_per_hour.value == Approx(15 * 1e6 * 3600 / work));
  CHECK(cpu.sectors_per_hour.from.status == figure_status::modeled);
  CHECK(cpu.bound.find("hash-bound, 15 sectors, layers in RAM") == 0);
  CHECK(cpu.pc1_seconds.from.status == figure_status::extrapolated);
  CHECK(*cpu.pc1_seconds.value == Approx(1000e-9 * work));
  CHECK(*cpu.joules_per_sector == Approx(1000 * 3600 / *cpu.sectors_per_hour.value));
  CHECK(*cpu.energy_usd_per_sector == Approx(*cpu.joules_per_sector / 3.6e6 * 0.1));
  CHECK(*cpu.usd_per_sector_hour == Approx(20000 / *cpu.sectors_per_hour.value));
  // 8MiB: room for every core's 32 sectors, so 64 x one core's 1e7 labels/s.
  const auto& small = size_row(r, k8MiB).machines.at(0);
  CHECK(*small.sectors_per_hour.value == Approx(64 * 1e7 * 3600 / (262144.0 * 2)));
  CHECK(*small.batch_sectors.value == 64 * 32);
  const std::string md = verdict::to_markdown(r);
  CHECK(md.find("## Target machines") != std::string::npos);
  CHECK(md.find("| 32GiB | Big | CPU, 64 cores |") != std::string::npos);
  CHECK(verdict::to_json(r)["sizes"][3]["machines"][0]["sectors_per_hour"]["source"] == "modeled");
  CHECK(verdict::to_json(r)["sizes"][2]["machines"][0]["sectors_per_hour"]["source"] == "extrapolated");
}

TEST_CASE("verdict: the shipped machines give numbers at 32GiB and 64GiB", "[verdict]") {
  test::temp_dir s("verdict");
  test::write_text(s / "records.jsonl", lines({header("Test CPU", 16), label("cpu", "Test CPU", k8MiB, 1, 1, 1000),
                                               label("cpu", "Test CPU", k8MiB, 32, 1, 3200)}));
  std::vector<verdict::machine> ms;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(POREPLAB_SOURCE_DIR) / "experiments" / "machines"))
    ms.push_back(verdict::load_machine(e.path()));
  REQUIRE(ms.size() >= 3);
  const auto r = verdict::compute({s.path}, {}, ms);
  for (const std::uint64_t size : {k32GiB, 2 * k32GiB}) {
    for (const auto& m : size_row(r, size).machines) {
      INFO(m.machine << " " << m.part << " at " << size);
      if (m.kind == verdict::device_kind::gpu && !m.pc1_seconds.value) continue;  // a build without the kernels' SASS
      CHECK(m.pc1_seconds.value);
      // A GPU holds no 64GiB sector (two layers are 128 GiB): the cell says so.
      if (m.sectors_per_hour.value) CHECK(*m.sectors_per_hour.value > 0);
      else CHECK(m.sectors_per_hour.from.detail.find("no sector of this size fits") != std::string::npos);
      if (m.kind == verdict::device_kind::cpu) CHECK(m.sectors_per_hour.value);
    }
  }
}

TEST_CASE("verdict: the whole CPU at 32GiB and 64GiB from the storage model, with its disk", "[verdict][storage_model]") {
  test::temp_dir s("verdict-storage");
  json w = label("cpu", "Test CPU", k32GiB, 4, 1, 4e9 / 1.2e6);
  w["axes"]["window_nodes"] = 65536;
  w["context"]["producer"] = "off";
  w["context"]["core_hz"] = 3e9;
  auto disk = [](double free_bytes) {
    return json{{"type", "point"}, {"run", 0}, {"experiment", "disk"}, {"kind", "disk"},
                {"axes", {{"disk_dir", "cwd"}}}, {"status", "ok"}, {"stats", {{"median", 50000}, {"n", 2}}},
                {"context", {{"free_bytes", free_bytes}, {"disk_model", "Test Disk"}, {"queue_depth", 32}}}};
  };
  test::write_text(s / "records.jsonl", lines({header("Test CPU", 2), label("cpu", "Test CPU", k8MiB, 1, 1, 1000), w,
                                               disk(80e9)}));
  auto r = verdict::compute({s.path});
  for (const std::uint64_t size : {k32GiB, 2 * k32GiB}) {
    const auto& cpu = row(r, size, "cpu");
    INFO(cpu.sectors_per_hour.from.detail);
    REQUIRE(cpu.sectors_per_hour.value);  // never "— (none)"
    CHECK(*cpu.sectors_per_hour.value == 0);
    CHECK(cpu.bound.find("no batch fits (layers on disk): 4 sectors: layer disk (") == 0);
    CHECK(cpu.bound.find(size == k32GiB ? "(352 GiB a sector)" : "(704 GiB a sector)") != std::string::npos);
    CHECK(cpu.sectors_per_hour.from.detail.find("Test Disk") != std::string::npos);
  }
  // Room for the layers: one core hashes 4 sectors, the disk's 50000 reads/s bind.
  test::write_text(s / "records.jsonl", lines({header("Test CPU", 2), label("cpu", "Test CPU", k8MiB, 1, 1, 1000), w,
                                               disk(100e12)}));
  r = verdict::compute({s.path});
  const auto& cpu = row(r, k32GiB, "cpu");
  REQUIRE(cpu.sectors_per_hour.value);
  CHECK(*cpu.sectors_per_hour.value > 0);
  CHECK(cpu.bound.find("IOPS-bound, 4 sectors, layers on disk") == 0);
  CHECK(*cpu.batch_sectors.value == 4);
  const std::string md = verdict::to_markdown(r);
  CHECK(md.find("IOPS-bound, 4 sectors") != std::string::npos);
  CHECK(verdict::to_json(r)["sizes"][3]["devices"][1]["bound"].get<std::string>().find("IOPS-bound") == 0);
}

TEST_CASE("verdict: a window of more sectors than fit is a hash rate for the storage model, per core of all", "[verdict][storage_model]") {
  test::temp_dir s("verdict-all-cores");
  // 64 sectors on a 32GiB window, 16 threads hashing: 4 sectors and 1e6 labels/s a core;
  // one core alone with 16 sectors is faster (3e6 labels/s) but not what a core gets beside the others.
  auto window = [](std::uint32_t sectors, int threads, double labels_per_s) {
    json w = label("cpu", "Test CPU", k32GiB, sectors, threads, sectors * 1e9 / labels_per_s);
    w["axes"]["window_nodes"] = 65536;
    w["context"]["producer"] = "off";
    w["context"]["core_hz"] = 3e9;
    if (threads == 0)
      for (int t = 0; t < 16; ++t) w["context"]["thread_map"].push_back({{"thread", t}, {"role", "label"}});
    return w;
  };
  auto disk = [](double free_bytes) {
    return json{{"type", "point"}, {"run", 0}, {"experiment", "disk"}, {"kind", "disk"},
                {"axes", {{"disk_dir", "cwd"}}}, {"status", "ok"}, {"stats", {{"median", 1e7}, {"n", 2}}},
                {"context", {{"free_bytes", free_bytes}, {"disk_model", "Test Disk"}, {"queue_depth", 32}}}};
  };
  const json gpu = label("cuda", "Test GPU", k8MiB, 1, 0, 20000);
  auto records = [&](double disk_bytes) {
    return lines({header("Test CPU", 16), label("cpu", "Test CPU", k8MiB, 1, 1, 2000), window(64, 0, 1.6e7),
                  window(16, 1, 3e6), gpu, disk(disk_bytes)});
  };
  // A 64 GiB disk holds no 32GiB sector's 11 layers: the measured 1.6e7 labels/s is not this machine's throughput.
  test::write_text(s / "records.jsonl", records(64e9));
  auto r = verdict::compute({s.path});
  {
    const auto& cpu = row(r, k32GiB, "cpu");
    INFO(cpu.sectors_per_hour.from.detail);
    REQUIRE(cpu.sectors_per_hour.value);
    CHECK(*cpu.sectors_per_hour.value == 0);
    CHECK(cpu.sectors_per_hour.from.status == figure_status::modeled);
    CHECK(cpu.bound.find("no batch fits") == 0);
    CHECK_THAT(cpu.sectors_per_hour.from.detail, Catch::Contains("4 sectors a core on each of 16 cores hashing together"));
    CHECK_THAT(verdict::to_markdown(r), Catch::Contains("Throughput: not judged: the whole CPU seals none at once: no batch fits"));
    // One core: its 16-sector window does not fit either; no sector of this size fits in 64 GiB of RAM.
    CHECK_FALSE(row(r, k32GiB, "cpu-core").sectors_per_hour.value);
  }
  // Room on disk: the model's hash bound is the per-core rate measured with every core hashing.
  test::write_text(s / "records.jsonl", records(100e12));
  r = verdict::compute({s.path});
  const auto& cpu = row(r, k32GiB, "cpu");
  INFO(cpu.sectors_per_hour.from.detail);
  REQUIRE(cpu.sectors_per_hour.value);
  CHECK(*cpu.sectors_per_hour.value > 0);
  CHECK(cpu.sectors_per_hour.from.status == figure_status::modeled);
  CHECK_THAT(cpu.sectors_per_hour.from.detail, Catch::Contains("at 1000000 labels/s a core with 4 sectors (measured (1000000 labels/s with 4 sectors a core on each of 16 cores"));
  // Never more than the 16 cores measured together.
  CHECK(*cpu.sectors_per_hour.value <= 1.6e7 * 3600 / (double(k32GiB / 32) * 11) * 1.0001);
}

TEST_CASE("verdict: machine files are checked like configs", "[verdict][reliability]") {
  test::temp_dir s("verdict");
  const std::string ok = R"({"schema": "poreplab-machine/1", "name": "M", "cpu": {"cores": 8}, "ram": "64GiB")";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"[1]", "(top level): expected a machine description"},
      {R"({"schema": "poreplab-machine/2", "name": "M", "cpu": {"cores": 8}, "ram": "64GiB"})", "/schema: expected"},
      {ok + R"(, "colour": "red"})", "/colour: unknown key"},
      {R"({"schema": "poreplab-machine/1", "name": "M", "ram": "64GiB"})", "missing required key \"cpu\""},
      {R"({"schema": "poreplab-machine/1", "name": "M", "cpu": {"cores": -4}, "ram": "64GiB"})", "/cpu/cores: expected a core count"},
      {R"({"schema": "poreplab-machine/1", "name": "M", "cpu": {"cores": 8}, "ram": "lots"})", "/ram: \"lots\" is not a size"},
      {ok + R"(, "gpus": [{"arch": "sm_75", "memory": "16GiB"}]})", "/gpus/0/arch: no GPU latency table for \"sm_75\""},
      {ok + R"(, "gpus": [{"arch": "sm_90"}]})", "/gpus/0: missing required key \"memory\""},
      {ok + R"(, "power_watts": 0})", "/power_watts: expected a positive number"},
      {"{", "m.json"}};
  for (const auto& [text, want] : bad) {
    test::write_text(s / "m.json", text);
    INFO(text);
    CHECK_THROWS_WITH(verdict::load_machine(s / "m.json"), Catch::Contains(want));
  }
  // On the command line: one line naming the file and pointer, exit 1.
  test::write_text(s / "records.jsonl", lines({header("Test CPU", 2), label("cpu", "Test CPU", k8MiB, 1, 1, 1000)}));
  test::write_text(s / "m.json", ok + R"(, "gpus": [{"arch": "sm_75", "memory": "16GiB"}]})");
  const auto r = test::run_poreplab("report verdict " + test::shell_quote(s.path.string()) + " --machine " +
                                        test::shell_quote((s / "m.json").string()),
                                    s);
  test::check_refused(r, "/gpus/0/arch");
  CHECK(r.err.find("poreplab: error: ") == 0);
  CHECK(r.out.empty());
}

TEST_CASE("verdict: the sealing pipeline from pc2 records and the GPU's PC2 model", "[verdict][pc2]") {
  test::temp_dir s("verdict-pc2");
  auto pc2 = [](std::uint64_t size, std::uint32_t layers, double ns, std::uint64_t window) {
    json axes = {{"backend", "cpu"}, {"sector_size", size}, {"layers", layers}, {"threads", 0}};
    if (window != 0) axes["window_nodes"] = window;
    return json{{"type", "point"}, {"run", 0},         {"experiment", "pc2"},
                {"kind", "pc2"},   {"axes", axes},     {"status", "ok"},
                {"stats", {{"median", ns}, {"n", 1}}}, {"context", {{"multiplies_per_node", 1200}}}};
  };
  test::write_text(s / "records.jsonl",
                   lines({header("Test CPU", 16), label("cpu", "Test CPU", k8MiB, 1, 1, 1000),
                          label("cpu", "Test CPU", k8MiB, 16, 0, 200), pc2(k8MiB, 2, 20000, 0),
                          pc2(k32GiB, 11, 50000, 32768)}));
  const auto r = verdict::compute({s.path});
  const auto& mid = size_row(r, k8MiB);
  REQUIRE(mid.pipeline.size() >= 2);
  const auto& cpu_only = mid.pipeline[0];
  CHECK(cpu_only.mix == "CPU only");
  REQUIRE(cpu_only.pc2_seconds.value);
  CHECK(*cpu_only.pc2_seconds.value == Approx(20000e-9 * 262144));
  CHECK(cpu_only.pc2_seconds.from.status == figure_status::measured);
  // Sharing the cores: one sector costs PC1 at the whole CPU's rate plus PC2.
  const double pc1_hours = 1.0 / *row(r, k8MiB, "cpu").sectors_per_hour.value;
  CHECK(*cpu_only.sectors_per_hour.value == Approx(1.0 / (pc1_hours + 20000e-9 * 262144 / 3600)));
  CHECK(cpu_only.bottleneck == "PC2");
  // PC2 on the GPU is modeled, and overlaps PC1 on the CPU: the slower phase sets the pace.
  const verdict::pipeline_row* split = nullptr;
  for (const auto& p : mid.pipeline)
    if (p.mix == "PC1 on the CPU, PC2 on the GPU") split = &p;
  REQUIRE(split != nullptr);
  CHECK(split->pc2_seconds.from.status == figure_status::modeled);
  CHECK_THAT(split->pc2_seconds.from.detail, Catch::Contains("Fr multiplies") &&
                                                        (Catch::Contains("FMA pipe") || Catch::Contains("fr32::mul's SASS")));
  CHECK(*split->sectors_per_hour.value == Approx(1.0 / std::max(pc1_hours, *split->pc2_seconds.value / 3600)));
  REQUIRE(mid.cores_per_gpu.value);
  CHECK(*mid.cores_per_gpu.value > 1);
  // 512MiB: the 8MiB rate per node, extrapolated and said so; 32GiB: its 11-layer window.
  const auto& big = size_row(r, k512MiB).pipeline[0];
  CHECK(big.pc2_seconds.from.status == figure_status::extrapolated);
  CHECK_THAT(big.pc2_seconds.from.detail, Catch::Contains("measured at 8MiB"));
  const auto& huge = size_row(r, k32GiB).pipeline[0];
  CHECK(*huge.pc2_seconds.value == Approx(50000e-9 * (k32GiB / 32.0)));
  CHECK_THAT(huge.pc2_seconds.from.detail, Catch::Contains("on a 32768-node window"));
  const std::string md = verdict::to_markdown(r);
  CHECK_THAT(md, Catch::Contains("## The sealing pipeline: PC1, then PC2") && Catch::Contains("CPU cores whose PC1"));
}

TEST_CASE("verdict: PC2 read from files wins over memory, its pace and kernels named", "[verdict][pc2]") {
  test::temp_dir s("verdict-pc2");
  auto pc2 = [](const char* source, std::uint64_t size, double ns) {
    json axes = {{"backend", "cpu"}, {"sector_size", size}, {"layers", 11}, {"threads", 0}};
    if (source != nullptr) axes["source"] = source;
    return json{{"type", "point"}, {"run", 0},         {"experiment", "pc2"},
                {"kind", "pc2"},   {"axes", axes},     {"status", "ok"},
                {"stats", {{"median", ns}, {"n", 1}}},
                {"context", {{"multiplies_per_node", 3500}, {"pace", "hashing"}, {"kernel_ns_per_node", 41.5}}}};
  };
  const auto pc2_at_32gib = [&](const std::vector<json>& pc2s) {
    std::string all = lines({header("Test CPU", 16), label("cpu", "Test CPU", k8MiB, 1, 1, 1000),
                             label("cpu", "Test CPU", k8MiB, 16, 0, 200)});
    for (const auto& p : pc2s) all += p.dump() + "\n";
    test::write_text(s / "records.jsonl", all);
    return size_row(verdict::compute({s.path}), k32GiB).pipeline.at(0).pc2_seconds;
  };
  // From files at another size beats memory at this one; the note says what it is.
  auto f = pc2_at_32gib({pc2("memory", k32GiB, 4000), pc2(nullptr, k32GiB, 3000), pc2("files", k8MiB, 5000)});
  REQUIRE(f.value);
  CHECK(*f.value == Approx(5000e-9 * (k32GiB / 32.0)));
  CHECK(f.from.status == figure_status::extrapolated);
  CHECK_THAT(f.from.detail, Catch::Contains("from files read off the disk, end to end, its pace set by the hashing") &&
                                Catch::Contains("its kernels alone 41.5 ns per node"));
  // Memory alone (a record older than the axis counts as memory): said to be synthetic.
  f = pc2_at_32gib({pc2(nullptr, k32GiB, 3000)});
  CHECK(*f.value == Approx(3000e-9 * (k32GiB / 32.0)));
  CHECK_THAT(f.from.detail, Catch::Contains("from labels in memory (synthetic: no disk read)"));
  // A source this build does not know is not read as either.
  f = pc2_at_32gib({pc2("tape", k32GiB, 1000), pc2("memory", k32GiB, 4000)});
  CHECK(*f.value == Approx(4000e-9 * (k32GiB / 32.0)));
}

TEST_CASE("verdict: a GPU's measured PC2 wins over the model, whole machines' pipelines", "[verdict][pc2]") {
  test::temp_dir s("verdict-pc2");
  auto pc2 = [](const char* backend, std::uint64_t size, std::uint32_t layers, double ns, std::uint64_t window,
                double threads, const char* hasher) {
    json axes = {{"backend", backend}, {"sector_size", size}, {"layers", layers}};
    if (window != 0) axes["window"] = window;
    return json{{"type", "point"},
                {"run", 0},
                {"experiment", "pc2"},
                {"kind", "pc2"},
                {"axes", axes},
                {"status", "ok"},
                {"stats", {{"median", ns}, {"n", 1}}},
                {"context", {{"multiplies_per_node", 1200}, {"threads", threads}, {"hasher", hasher}}}};
  };
  test::write_text(s / "records.jsonl",
                   lines({header("Test CPU", 16), label("cpu", "Test CPU", k8MiB, 1, 1, 1000),
                          label("cpu", "Test CPU", k8MiB, 16, 0, 200),
                          pc2("cpu", k8MiB, 2, 20000, 0, 16, "cpu (ifma)"),
                          pc2("cuda", k8MiB, 2, 50, 0, 0, "cuda (Test GPU)")}));
  test::write_text(s / "cpu.json", R"({"schema": "poreplab-machine/1", "name": "Cores", "cpu": {"cores": 64},
      "ram": "1TiB"})");
  test::write_text(s / "gpu.json", R"({"schema": "poreplab-machine/1", "name": "Mixed", "cpu": {"cores": 32},
      "ram": "512GiB", "gpus": [{"arch": "sm_90", "name": "H100", "count": 2, "memory": "80GiB"}]})");
  const auto r = verdict::compute({s.path}, {}, {verdict::load_machine(s / "cpu.json"), verdict::load_machine(s / "gpu.json")});
  const auto& mid = size_row(r, k8MiB);
  const verdict::pipeline_row* split = nullptr;
  for (const auto& p : mid.pipeline)
    if (p.mix == "PC1 on the CPU, PC2 on the GPU") split = &p;
  REQUIRE(split != nullptr);
  CHECK(split->pc2_device == "cuda (Test GPU)");
  CHECK(split->pc2_seconds.from.status == figure_status::measured);
  CHECK(*split->pc2_seconds.value == Approx(50e-9 * 262144));
  REQUIRE(mid.machine_pipeline.size() == 2);
  // CPU only: this run's 16 threads' PC2 scaled to 64, taking turns with PC1 on the cores.
  const auto& cores = mid.machine_pipeline[0];
  CHECK(cores.mix == "Cores: PC1 and PC2 on its CPU");
  REQUIRE(cores.pc2_seconds.value);
  CHECK(*cores.pc2_seconds.value == Approx(20000e-9 * 262144 * 16 / 64));
  CHECK(cores.pc2_seconds.from.status == figure_status::extrapolated);
  const auto& cpu_part = mid.machines[0];
  const double h1 = 1.0 / *cpu_part.sectors_per_hour.value;
  CHECK(*cores.sectors_per_hour.value == Approx(1.0 / (h1 + *cores.pc2_seconds.value / 3600)));
  // With GPUs: PC2 on both H100s (no measured sm_90 here: modeled), overlapping PC1.
  const auto& mixed = mid.machine_pipeline[1];
  CHECK(mixed.mix == "Mixed: PC1 on its CPU, PC2 on its 2x H100");
  CHECK(mixed.pc2_seconds.from.status == figure_status::modeled);
  double pc1_rate = 0;
  for (const auto& m : mid.machines)
    if (m.machine == "Mixed" && m.kind == verdict::device_kind::cpu) pc1_rate = *m.sectors_per_hour.value;
  const double pc2_rate = 2 * 3600 / *mixed.pc2_seconds.value;
  CHECK(*mixed.sectors_per_hour.value == Approx(std::min(pc1_rate, pc2_rate)));
  CHECK(mixed.bottleneck == (pc1_rate <= pc2_rate ? "PC1" : "PC2"));
  const std::string md = verdict::to_markdown(r);
  CHECK_THAT(md, Catch::Contains("| 8MiB | 2 | Mixed: PC1 on its CPU, PC2 on its 2x H100 |"));
  CHECK(verdict::to_json(r)["sizes"][1]["machine_pipeline"].size() == 2);
}

TEST_CASE("figure statuses: one table, ordered from most to least trusted", "[verdict]") {
  for (const auto& e : kFigureStatuses.entries) CHECK(kFigureStatuses.parse(status_name(e.value)) == e.value);
  CHECK_THROWS_WITH(kFigureStatuses.parse("guessed"),
                    "unknown figure status 'guessed' (valid: measured, extrapolated, quoted, derived, modeled, assumed, none)");
  CHECK(weaker(figure_status::measured, figure_status::extrapolated) == figure_status::extrapolated);
  CHECK(weaker(figure_status::modeled, figure_status::quoted) == figure_status::modeled);
  CHECK(weaker(figure_status::assumed, figure_status::derived) == figure_status::assumed);
  const provenance a{figure_status::measured, "record a"}, b{figure_status::modeled, "model b"};
  CHECK(weakest(a, b).status == figure_status::modeled);
  CHECK(weakest(b, a).status == figure_status::modeled);
  CHECK(weakest(a, b).detail == "record a; model b");
  CHECK(status_tag(figure_status::modeled) == "MODELED");
  CHECK(status_tag(figure_status::quoted) == "quoted");
  CHECK(b.text() == "modeled (model b)");
  CHECK_FALSE(stated(provenance{}));
  CHECK(stated(provenance{figure_status::none, "no record"}));
}

namespace {

// A reference dataset as docs/results holds one: a GPU study's step folders under raw/, its
// header started on 2026-11-27, a GPU and its host CPU.
void write_reference(const std::filesystem::path& dataset, double gpu_ns = 20000) {
  const json gpus = json::array({{{"name", "Ref GPU"}, {"total_memory_bytes", 80.0 * (1ull << 30)}, {"compute_capability", "9.0"}}});
  json h = header("Ref host CPU", 16, gpus);
  h["started"] = "2026-11-27T08:31:15Z";
  std::filesystem::create_directories(dataset / "raw" / "key");
  test::write_text(dataset / "raw" / "key" / "records.jsonl",
                   lines({h, label("cuda", "Ref GPU", k8MiB, 1, 0, gpu_ns), label("cuda", "Ref GPU", k8MiB, 4096, 0, 32000),
                          label("cpu", "Ref host CPU", k8MiB, 1, 1, 500)}));
}

}  // namespace

TEST_CASE("verdict: a GPU measured elsewhere stands beside the model, never in this machine's rows", "[verdict]") {
  test::temp_dir s("verdict");
  test::write_text(s / "records.jsonl", lines({header("Test CPU", 16), label("cpu", "Test CPU", k8MiB, 1, 1, 1000),
                                               label("cpu", "Test CPU", k8MiB, 16, 0, 200)}));
  test::temp_dir refs("verdict-refs");
  write_reference(refs / "ref-gpu-2026-11-27");
  const auto alone = verdict::compute({s.path});
  const auto r = verdict::compute({s.path}, {}, {}, 0, {{refs / "ref-gpu-2026-11-27"}, {}});
  const auto& g = row(r, k8MiB, "gpu-reference");
  CHECK(g.device.find("GPU, measured elsewhere: Ref GPU (2026-11-27, ") == 0);
  CHECK(g.device.find("ref-gpu-2026-11-27") != std::string::npos);
  CHECK(g.reference.find("2026-11-27") == 0);
  CHECK(g.pc1_seconds.from.status == figure_status::measured);
  CHECK(*g.pc1_seconds.value == Approx(20000e-9 * 262144 * 2));
  CHECK(g.pc1_seconds.from.detail.find("raw/key/records.jsonl:2") != std::string::npos);
  // The reference's host CPU (500 ns) never becomes this machine's: the CPU rows are the same
  // with and without the reference.
  for (const auto& size : r.sizes)
    for (const auto& d : size.devices) {
      if (!verdict::is_cpu(d.kind)) continue;
      const auto& before = row(alone, size.sector_size, verdict::kDeviceKinds.name(d.kind));
      CHECK(d.device == before.device);
      CHECK(d.pc1_seconds.value == before.pc1_seconds.value);
      CHECK(d.sectors_per_hour.value == before.sectors_per_hour.value);
      CHECK(d.device.find("Ref host CPU") == std::string::npos);
    }
  // The contest takes the measured GPU, and says where it was measured.
  const auto& x = size_row(r, k8MiB);
  REQUIRE_FALSE(x.one_sector.why_not);
  CHECK(x.one_sector.loser_kind == verdict::device_kind::gpu_reference);
  CHECK(x.one_sector.loser_source == figure_status::measured);
  const std::string md = verdict::to_markdown(r);
  CHECK(md.find("Ref GPU (measured elsewhere: 2026-11-27") != std::string::npos);
  CHECK(md.find("| batch used for throughput |") != std::string::npos);
  CHECK(md.find("| fit in memory |") != std::string::npos);
  // The model, where this build carries the kernel's SASS, stays beside it with its ratio.
  bool modeled = false;
  for (const auto& d : x.devices) modeled = modeled || d.kind == verdict::device_kind::gpu_model;
  if (modeled) {
    REQUIRE(x.model_checks.size() == 1);
    REQUIRE(x.model_checks[0].pc1_ratio);
    CHECK(*x.model_checks[0].pc1_ratio == Approx(*row(r, k8MiB, "gpu-model").pc1_seconds.value / *g.pc1_seconds.value));
    CHECK(md.find("The GPU model against the measured GPUs") != std::string::npos);
  }
  CHECK(verdict::to_json(r)["sizes"][1]["devices"].dump().find("\"gpu-reference\"") != std::string::npos);
}

TEST_CASE("verdict: references give way to a GPU measured here, and bad ones are a warning", "[verdict][reliability]") {
  test::temp_dir s("verdict");
  const json gpus = json::array({{{"name", "Test GPU"}, {"total_memory_bytes", 80.0 * (1ull << 30)}}});
  test::write_text(s / "records.jsonl", lines({header("Test CPU", 16, gpus), label("cpu", "Test CPU", k8MiB, 1, 1, 1000),
                                               label("cuda", "Test GPU", k8MiB, 1, 0, 30000)}));
  test::temp_dir refs("verdict-refs");
  write_reference(refs / "good");
  const auto here = verdict::compute({s.path}, {}, {}, 0, {{refs / "good"}, {}});
  for (const auto& d : size_row(here, k8MiB).devices) CHECK(d.kind != verdict::device_kind::gpu_reference);

  test::temp_dir cpu_only("verdict");
  test::write_text(cpu_only / "records.jsonl", lines({header("Test CPU", 16), label("cpu", "Test CPU", k8MiB, 1, 1, 1000)}));
  std::filesystem::create_directories(refs / "corrupt" / "raw");
  test::write_text(refs / "corrupt" / "raw" / "records.jsonl", "{\"type\": \"point\", \"broken\n{ not json }\n");
  std::filesystem::create_directories(refs / "empty");
  const auto r = verdict::compute({cpu_only.path}, {}, {}, 0, {{refs / "missing", refs / "corrupt", refs / "empty", refs / "good"}, {}});
  std::vector<std::string> warnings;
  for (const auto& n : r.notes)
    if (n.find("reference dataset") == 0) warnings.push_back(n);
  REQUIRE(warnings.size() == 3);
  for (const auto& w : warnings) {
    CHECK(w.find('\n') == std::string::npos);
    CHECK(w.find("(skipped)") != std::string::npos);
  }
  CHECK(warnings[0].find("missing: not a directory") != std::string::npos);
  CHECK(warnings[1].find("corrupt") != std::string::npos);
  CHECK(warnings[2].find("empty: holds no records.jsonl") != std::string::npos);
  // The good one still stands.
  CHECK(row(r, k8MiB, "gpu-reference").pc1_seconds.value);

  CHECK_FALSE(verdict::parse_reference_flag({}));
  CHECK(verdict::parse_reference_flag({"none"})->empty());
  CHECK(verdict::parse_reference_flag({"a", "b"})->size() == 2);
  CHECK_THROWS_WITH(verdict::parse_reference_flag({"none", "a"}), Catch::Contains("none stands alone"));
}

TEST_CASE("verdict: where this machine seals no 32GiB batch, the reference machines answer with its rate", "[verdict]") {
  test::temp_dir s("verdict");
  test::write_text(s / "records.jsonl", lines({header("Test CPU", 16), label("cpu", "Test CPU", k8MiB, 1, 1, 1000),
                                               label("cpu", "Test CPU", k8MiB, 32, 1, 3200)}));
  const auto rig = verdict::load_machine(std::filesystem::path(POREPLAB_SOURCE_DIR) / "experiments" / "machines" /
                                         "supraseal-5975wx-12nvme.json");
  const auto r = verdict::compute({s.path}, {}, {}, 0, {{}, {rig}});
  for (const std::uint64_t size : {k32GiB, 2 * k32GiB}) {
    const auto& x = size_row(r, size);
    REQUIRE(x.reference_machines.size() == 1);
    CHECK(x.reference_machines[0].machine == rig.name);
    REQUIRE(x.reference_machines[0].sectors_per_hour.value);
    CHECK(*x.reference_machines[0].sectors_per_hour.value > 0);
    CHECK(x.reference_pipeline.size() == 1);
    CHECK(x.machines.empty());  // --machine rows stay the user's own
  }
  CHECK(size_row(r, k8MiB).reference_machines.empty());
  const std::string md = verdict::to_markdown(r);
  CHECK(md.find("## Real sizes on the reference machines") != std::string::npos);
  CHECK(md.find("On the reference machines, with this CPU's per-core rate") != std::string::npos);
}

TEST_CASE("result sets: a --repeat run's point is its median pass, a later failure is the latest", "[verdict][records]") {
  const auto pass = [](int repeat, double ns) {
    json p = label("cpu", "Test CPU", k8MiB, 1, 1, ns);
    p["repeat"] = repeat;
    return p;
  };
  test::temp_dir s("result-set");
  test::write_text(s / "records.jsonl", lines({header("Test CPU", 16), pass(1, 900), pass(2, 1500), pass(3, 1000)}));
  auto in = records::load_result_set({s.path});
  REQUIRE(in.records.size() == 1);
  CHECK(in.records[0].point["stats"]["median"] == 1000);
  CHECK(in.records[0].where.ends_with("records.jsonl:4"));
  // Two passes: the lower of the two.
  test::write_text(s / "records.jsonl", lines({header("Test CPU", 16), pass(1, 1500), pass(2, 900)}));
  CHECK(records::load_result_set({s.path}).records[0].point["stats"]["median"] == 900);
  // A failed pass after them: the latest record counts, as without --repeat.
  json failed = pass(3, 1000);
  failed["status"] = "failed";
  failed.erase("stats");
  test::write_text(s / "records.jsonl", lines({header("Test CPU", 16), pass(1, 900), pass(2, 1500), failed}));
  CHECK(records::load_result_set({s.path}).records[0].point["status"] == "failed");
  // The verdict reads the median pass.
  test::write_text(s / "records.jsonl", lines({header("Test CPU", 16), pass(1, 900), pass(2, 1500), pass(3, 1000)}));
  CHECK(*row(verdict::compute({s.path}), k8MiB, "cpu-core").pc1_seconds.value == Approx(1000e-9 * 262144 * 2));
}
