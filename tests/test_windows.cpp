// Node windows (label_job::window_nodes) on every backend against whole-layer labels of
// the reference, the window store's ram and mmap-file backings, and sampled verification
// with a planted wrong label.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bench/label.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/sdr/backend.hpp"
#include "poreplab/sdr/emulated_backend.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/sdr/sampled_check.hpp"
#include "poreplab/sdr/window_store.hpp"
#include "records/records.hpp"
#include "runner/config.hpp"
#include "runner/kinds.hpp"
#include "sdr_inputs.hpp"
#include "support.hpp"

using namespace poreplab;

namespace {

using test::graph_job;

graph_job make_graph(std::uint64_t nodes, std::uint32_t sectors) {
  return test::registered_graph_job(nodes, sectors, 7, 9);
}

// A 300-node window at node 20000 of layer 2 of one 1 MiB sector.
// Free huge pages in the kernel's pool of a size ("2048kB", "1048576kB").
std::uint64_t free_huge_pages(const char* pool) {
  std::ifstream f(std::string("/sys/kernel/mm/hugepages/hugepages-") + pool + "/free_hugepages");
  std::uint64_t n = 0;
  return f >> n ? n : 0;
}

struct small_window {
  static constexpr std::uint64_t nodes = 1u << 15, first = 20000, count = 300;
  graph_job d = make_graph(nodes, 1);
  sdr::label_job job{nodes, d.table.data() + 14 * first, 2, 1, d.ids.data()};
  small_window() {
    job.first_node = first;
    job.window_nodes = count;
  }
};

// Every labeling backend the no-CUDA build has, with settings that split a window into
// several launches and streamed chunks (cuda-emu) or lane groups (cpu).
std::vector<std::pair<std::string, std::unique_ptr<sdr::backend>>> all_backends(hash_family h) {
  std::vector<std::pair<std::string, std::unique_ptr<sdr::backend>>> v;
  v.emplace_back("reference", sdr::make_reference_backend(2));
  for (const cpu::engine* e : cpu::available_engines(h)) {
    cpu::labeler_options o;
    o.engine = std::string(e->name);
    o.threads = 2;
    v.emplace_back("cpu/" + std::string(e->name), cpu::make_cpu_backend(o));
    if (h == hash_family::sha256) {  // parents gathered by a producer, a small ring that wraps
      o.producer = cpu::parent_producer::core;
      o.ring_depth = 4;
      v.emplace_back("cpu/" + std::string(e->name) + " producer", cpu::make_cpu_backend(o));
      // Coordinators feeding teams of 2 and 4 hashers (unpinned: more threads than CPUs).
      for (const std::size_t k : {2u, 4u}) {
        cpu::labeler_options t = o;
        t.pin_threads = false;
        t.hashers_per_coordinator = k;
        t.threads = static_cast<int>(k);
        v.emplace_back("cpu/" + std::string(e->name) + " coordinator of " + std::to_string(k), cpu::make_cpu_backend(t));
      }
    }
  }
  sdr::emulation_options resident;
  v.emplace_back("cuda-emu", sdr::make_emulated_backend(resident));
  sdr::emulation_options streamed;
  streamed.chunk_nodes = 7;
  streamed.launch_nodes = 3;
  v.emplace_back("cuda-emu streamed", sdr::make_emulated_backend(streamed));
  return v;
}

}  // namespace

TEST_CASE("node windows label like the whole layer on every backend", "[windows]") {
  const std::uint64_t nodes = 256;
  for (const auto h : {hash_family::sha256, hash_family::blake2s}) {
    for (const std::uint32_t sectors : {1u, 3u}) {
      const auto d = make_graph(nodes, sectors);
      const sdr::label_scheme scheme{sdr::porep_variant::sdr, h};
      const std::uint64_t bytes = nodes * 32 * sectors, node_bytes = 32ull * sectors;
      // The truth: three whole layers by the reference.
      sdr::memory_layer_store whole(bytes, 3);
      sdr::make_reference_backend()->label(sdr::label_job{nodes, d.table.data(), 3, sectors, d.ids.data(), scheme},
                                           whole);
      for (const std::uint32_t layer : {1u, 3u}) {
        for (const auto& [first, count] : {std::pair<std::uint64_t, std::uint64_t>{0, 40}, {100, 37}, {200, 56}}) {
          sdr::label_job job{nodes, d.table.data() + 14 * first, layer, sectors, d.ids.data(), scheme};
          job.first_node = first;
          job.window_nodes = count;
          for (auto& [name, be] : all_backends(h)) {
            INFO(sdr::scheme_name(scheme) << ", " << name << ", sectors " << sectors << ", layer " << layer << ", nodes ["
                                          << first << ", +" << count << ")");
            // The store holds the previous layer and the current one before the window;
            // the window and beyond hold junk that must be overwritten or never read.
            sdr::memory_layer_store store(bytes, 3);
            if (layer > 1) std::memcpy(store.layer(layer - 1), whole.layer(layer - 1), bytes);
            std::memset(store.layer(layer), 0xa5, bytes);
            std::memcpy(store.layer(layer), whole.layer(layer), first * node_bytes);
            be->label(job, store);
            REQUIRE(std::equal(whole.layer(layer) + first * node_bytes, whole.layer(layer) + (first + count) * node_bytes,
                               store.layer(layer) + first * node_bytes));
            // Nothing after the window is written.
            std::uint8_t* after = store.layer(layer) + (first + count) * node_bytes;
            REQUIRE(std::all_of(after, store.layer(layer) + bytes, [](std::uint8_t b) { return b == 0xa5; }));
          }
        }
      }
    }
  }
}

TEST_CASE("node windows: zigzag and windows outside the sector are refused by name", "[windows]") {
  const auto d = make_graph(64, 1);
  sdr::label_job job{64, d.table.data(), 2, 1, d.ids.data()};
  job.first_node = 60;
  job.window_nodes = 8;
  CHECK_THROWS_WITH(sdr::validate(job), Catch::Contains("outside the 64 nodes"));
  job.first_node = 3;
  job.window_nodes = 0;
  CHECK_THROWS_WITH(sdr::validate(job), Catch::Contains("without a window"));
  std::vector<std::uint8_t> data(64 * 32, 0);
  sdr::label_job zz{64, d.table.data(), 2, 1, d.ids.data(), {sdr::porep_variant::zigzag, hash_family::sha256},
                    data.data()};
  zz.window_nodes = 8;
  CHECK_THROWS_WITH(sdr::validate(zz), Catch::Contains("sdr only"));
  label_bench_options o;
  o.scheme.variant = sdr::porep_variant::zigzag;
  o.window_nodes = 16;
  CHECK_THROWS_WITH(bench_label(o), Catch::Contains("sdr only"));
  o.scheme.variant = sdr::porep_variant::sdr;
  o.window_nodes = 65;  // 2KiB: 64 nodes
  CHECK_THROWS_WITH(bench_label(o), Catch::Contains("larger than the sector"));
  o.window_nodes = 16;
  o.window_offset = 60;
  CHECK_THROWS_WITH(bench_label(o), Catch::Contains("runs past"));
  o.window_offset = 0;
  o.window_alias_period = 64u << 20;  // a period for a backing that does not repeat
  CHECK_THROWS_WITH(bench_label(o), Catch::Contains("the auto window backing does not repeat its layers"));
  o.window_backing = sdr::window_backing::aliased;
  o.window_alias_period = 1u << 20;
  CHECK_THROWS_WITH(bench_label(o), Catch::Contains("1048576 bytes is less than one 2 MiB page"));
  o.window_alias_period = sdr::window_alias{}.period;
  o.window_page = 4u << 20;
  CHECK_THROWS_WITH(bench_label(o), Catch::Contains("window page: 4194304 bytes is not one of 4 KiB, 2 MiB, 1 GiB"));
  o.window_page = 1u << 30;
  o.window_alias_period = 64u << 20;
  CHECK_THROWS_WITH(bench_label(o), Catch::Contains("window alias period: 67108864 bytes is less than one 1 GiB page"));
  o.window_alias_period = sdr::window_alias{}.period;
  o.window_backing = sdr::window_backing::mmap_file;
  CHECK_THROWS_WITH(bench_label(o), Catch::Contains("window page: the mmap-file window backing has no page size to set"));
}

TEST_CASE("window store: ram and mmap-file hold the same elements where the window reads", "[windows]") {
  const small_window w;
  const auto& job = w.job;
  const std::uint64_t nodes = w.nodes, first = w.first, count = w.count;
  const auto dir = std::filesystem::temp_directory_path();
  sdr::window_layer_store ram(job, sdr::window_backing::ram, dir, 42);
  sdr::window_layer_store file(job, sdr::window_backing::mmap_file, dir, 42);
  CHECK(ram.backing() == sdr::window_backing::ram);
  CHECK(file.backing() == sdr::window_backing::mmap_file);
  CHECK(file.pages_filled() > 0);
  CHECK(file.pages_filled() < ram.pages_filled());  // sparse: only the window's pages
  CHECK(file.resident_bytes() >= file.bytes_filled());
  // Every element is a valid field element (top two bits clear).
  for (std::uint64_t i = 0; i < nodes; ++i) REQUIRE((ram.layer(1)[32 * i + 31] & 0xc0) == 0);
  auto be = cpu::make_cpu_backend({});
  be->label(job, ram);
  be->label(job, file);
  const std::uint64_t off = first * 32, len = count * 32;
  REQUIRE(std::equal(ram.layer(2) + off, ram.layer(2) + off + len, file.layer(2) + off));
  // ... and both equal the reference on the same store.
  std::vector<std::uint8_t> got(file.layer(2) + off, file.layer(2) + off + len);
  sdr::make_reference_backend()->label(job, file);
  REQUIRE(std::equal(got.begin(), got.end(), file.layer(2) + off));
  CHECK_THROWS_AS(file.layer(3), std::logic_error);
  CHECK_THROWS_WITH(sdr::parse_window_backing("disk"), Catch::Contains("unknown window backing 'disk' (valid: auto, ram, mmap-file, aliased)"));
}

TEST_CASE("window store: aliased layers repeat every period, the window's rows are its own, labels match the reference", "[windows]") {
  const small_window w;
  const auto& job = w.job;
  const std::uint64_t nodes = w.nodes, first = w.first, count = w.count;
  const auto dir = std::filesystem::temp_directory_path();
  const std::uint64_t period = 64u << 10;
  sdr::window_layer_store a(job, sdr::window_backing::aliased, dir, 42, {period, 4u << 10});
  CHECK(a.backing() == sdr::window_backing::aliased);
  CHECK(a.alias_period() == period);
  // Both layers' periods and the window's own 4 KiB pages, filled and resident.
  const std::uint64_t own_begin = first * 32 / 4096 * 4096, own_end = ((first + count) * 32 + 4095) / 4096 * 4096;
  CHECK(a.bytes_filled() == 2 * period + (own_end - own_begin));
  CHECK(a.resident_bytes() == a.bytes_filled());
  // The bytes at offset o are the elements of offset o modulo the period, outside the window's rows.
  std::vector<std::uint8_t> want(64);
  for (std::uint64_t o : {std::uint64_t{0}, period - 64, 5 * period + 4096, nodes * 32 - 64}) {
    sdr::fill_window_elements(want.data(), 1, 42, o % period, o % period + 64);
    REQUIRE(std::equal(want.begin(), want.end(), a.layer(1) + o));
  }
  sdr::fill_window_elements(want.data(), 2, 42, own_begin, own_begin + 64);
  REQUIRE(std::equal(want.begin(), want.end(), a.layer(2) + own_begin));
  // Labeling writes the window's rows only: their aliases elsewhere keep the period's bytes.
  cpu::make_cpu_backend({})->label(job, a);
  const std::uint64_t off = first * 32, len = count * 32;
  std::vector<std::uint8_t> got(a.layer(2) + off, a.layer(2) + off + len);
  std::vector<std::uint8_t> alias(len);
  sdr::fill_window_elements(alias.data(), 2, 42, off % period, off % period + len);
  REQUIRE(std::equal(alias.begin(), alias.end(), a.layer(2) + off - period));
  CHECK_FALSE(std::equal(got.begin(), got.end(), alias.begin()));
  // The reference labels the same window from the same store alike.
  sdr::make_reference_backend()->label(job, a);
  REQUIRE(std::equal(got.begin(), got.end(), a.layer(2) + off));

  CHECK_THROWS_WITH(sdr::window_layer_store(job, sdr::window_backing::aliased, dir, 42, {0, 4u << 10}),
                    Catch::Contains("alias period is 0 bytes"));
  CHECK_THROWS_WITH(sdr::window_layer_store(job, sdr::window_backing::aliased, dir, 42, {period, 8u << 10}),
                    Catch::Contains("window store (aliased): pages of 8.0 KiB are not one of 4 KiB, 2 MiB, 1 GiB"));
  // On 2 MiB huge pages: one clear error naming the pages it needs where the kernel has too few.
  if (free_huge_pages("2048kB") < 3) {
    CHECK_THROWS_WITH(sdr::window_layer_store(job, sdr::window_backing::aliased, dir, 42),
                      Catch::Contains("needs 3 free 2 MiB huge pages") && Catch::Contains("vm.nr_hugepages=3"));
  } else {
    sdr::window_layer_store h(job, sdr::window_backing::aliased, dir, 42);
    CHECK(h.alias_period() == (2u << 20));  // the layer, rounded up to one huge page
    CHECK(h.bytes_filled() == 3 * (2u << 20));
  }
}

TEST_CASE("window store: aliased layers on 1 GiB pages, the gigabytes holding the window's rows on 2 MiB pages of their own", "[windows]") {
  // The layer spans 2 GiB (2048 sectors of a 32768-node graph): the window's rows lie in its
  // second gigabyte, the first repeats the period of one 1 GiB page.
  small_window w;
  auto& job = w.job;
  job.sectors = 2048;
  const std::uint64_t giga = 1ull << 30, stride = 32ull * job.sectors;
  const auto dir = std::filesystem::temp_directory_path();
  const sdr::window_alias alias{giga, giga};
  const std::uint64_t free_giga = free_huge_pages("1048576kB"), free_two = free_huge_pages("2048kB");
  REQUIRE(w.first * stride / giga == 1);
  REQUIRE((w.first + w.count) * stride <= 2 * giga);
  // One 1 GiB page a layer (its period), and the rows' gigabyte on 512 pages of 2 MiB.
  CHECK(sdr::aliased_shortfall_text(job.nodes * stride, giga, 2, alias).empty() == (free_giga >= 2 && free_two >= 512));
  if (free_giga < 2) {
    CHECK_THROWS_WITH(sdr::window_layer_store(job, sdr::window_backing::aliased, dir, 42, alias),
                      Catch::Contains("needs 2 free 1 GiB huge pages (2.0 GiB), the kernel has " + std::to_string(free_giga)) &&
                          Catch::Contains("echo 2 > /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages"));
    WARN("fewer than 2 free 1 GiB huge pages: the 1 GiB store's layout is not checked here");
    return;
  }
  if (free_two < 512) {
    CHECK_THROWS_WITH(sdr::window_layer_store(job, sdr::window_backing::aliased, dir, 42, alias),
                      Catch::Contains("needs 512 free 2 MiB huge pages") && Catch::Contains("vm.nr_hugepages=512"));
    WARN("fewer than 512 free 2 MiB huge pages: the 1 GiB store's layout is not checked here");
    return;
  }
  {
    sdr::window_layer_store g(job, sdr::window_backing::aliased, dir, 42, alias);
    CHECK(g.alias_page() == giga);
    CHECK(g.alias_period() == giga);
    CHECK(g.bytes_filled() == 2 * giga + giga);  // two periods, the rows' gigabyte
    std::vector<std::uint8_t> want(64);
    // The previous layer repeats its first gigabyte; the current one outside the rows' gigabyte too.
    for (const std::uint32_t l : {1u, 2u}) {
      sdr::fill_window_elements(want.data(), l, 42, 4096, 4096 + 64);
      REQUIRE(std::equal(want.begin(), want.end(), g.layer(l) + 4096));
      if (l == 1) REQUIRE(std::equal(want.begin(), want.end(), g.layer(l) + giga + 4096));
    }
    // The rows' gigabyte holds the current layer's own bytes, not the period's.
    for (const std::uint64_t o : {giga + 4096, w.first * stride, 2 * giga - 64}) {
      sdr::fill_window_elements(want.data(), 2, 42, o, o + 64);
      REQUIRE(std::equal(want.begin(), want.end(), g.layer(2) + o));
    }
    // Written there, the first gigabyte keeps its bytes.
    std::memset(g.layer(2) + giga + 4096, 0, 64);
    sdr::fill_window_elements(want.data(), 2, 42, 4096, 4096 + 64);
    REQUIRE(std::equal(want.begin(), want.end(), g.layer(2) + 4096));
  }
  // One sector on 1 GiB pages labels as the reference does on the same store.
  small_window one;
  sdr::window_layer_store g(one.job, sdr::window_backing::aliased, dir, 42, alias);
  cpu::make_cpu_backend({})->label(one.job, g);
  const std::uint64_t off = one.first * 32, len = one.count * 32;
  std::vector<std::uint8_t> got(g.layer(2) + off, g.layer(2) + off + len);
  sdr::make_reference_backend()->label(one.job, g);
  REQUIRE(std::equal(got.begin(), got.end(), g.layer(2) + off));
}

TEST_CASE("runner: an aliased window without the huge pages it needs is skipped naming them, and figures say its layers repeat", "[windows][runner]") {
  const std::uint64_t free = free_huge_pages("2048kB");
  // A window whose own rows alone need more 2 MiB pages than are free here.
  const std::uint64_t nodes = (free + 8) * (2u << 20) / (32 * 4);
  const std::string text = R"({"schema": "poreplab-experiments/1", "experiments": [{"name": "a", "kind": "label",
    "axes": {"backend": ["cpu"], "sector_size": ["32GiB"], "sectors": [4], "window_nodes": [)" +
                           std::to_string(nodes) + R"(], "window_backing": ["aliased", "mmap-file"]}}]})";
  const auto points = runner::expand_points(runner::parse_config(text, "t.json"));
  REQUIRE(points.size() == 2);
  const runner::kind_spec* label = runner::find_kind("label");
  REQUIRE(label != nullptr);
  const std::string why = label->unavailable(points[0].axes);
  CHECK_THAT(why, Catch::Contains("free 2 MiB huge pages") && Catch::Contains("the kernel has " + std::to_string(free)) &&
                      Catch::Contains("vm.nr_hugepages="));
  CHECK_THAT(label->unavailable(points[1].axes), !Catch::Contains("huge pages"));
  // On 1 GiB pages: a layer's period of 4 GiB is 4 of them, 8 for two layers.
  const std::uint64_t free_giga = free_huge_pages("1048576kB");
  const std::string giga = R"({"schema": "poreplab-experiments/1", "experiments": [{"name": "a", "kind": "label",
    "axes": {"backend": ["cpu"], "sector_size": ["32GiB"], "sectors": [4], "window_nodes": [65536],
             "window_backing": ["aliased", "mmap-file"], "window_page": ["1GiB"]}}]})";
  const auto giga_points = runner::expand_points(runner::parse_config(giga, "t.json"));
  REQUIRE(giga_points.size() == 2);
  CHECK(giga_points[0].axes["window_page"] == (1ull << 30));
  CHECK(giga_points[1].axes["window_page"].is_null());  // it applies to aliased windows only
  if (free_giga < 8)
    CHECK_THAT(label->unavailable(giga_points[0].axes),
               Catch::Contains("needs 8 free 1 GiB huge pages") && Catch::Contains("hugepages-1048576kB/nr_hugepages"));

  nlohmann::json ctx = {{"window_backing", "aliased"}, {"window_alias_period_bytes", 4ull << 30}};
  CHECK(records::record_window_pages_text(ctx) ==
        ", its layers on 2 MiB pages repeating every 4.0 GiB (aliased window backing)");
  ctx["window_page_bytes"] = 1ull << 30;
  CHECK(records::record_window_pages_text(ctx) ==
        ", its layers on 1 GiB pages repeating every 4.0 GiB (aliased window backing)");
  for (const char* other : {"mmap-file", "ram", "nonsense"}) {
    ctx["window_backing"] = other;
    CHECK(records::record_window_pages_text(ctx).empty());
  }
  CHECK(records::record_window_pages_text(nlohmann::json::object()).empty());
}

namespace {

// Labels with the reference, then plants a wrong label at (layer, node) before the layer
// is reported done: what a faulty backend would hand over.
class planting_store final : public sdr::layer_store {
 public:
  planting_store(sdr::layer_store& inner, std::uint32_t layer, std::uint64_t node) : inner_(inner), layer_(layer), node_(node) {}
  std::uint8_t* layer(std::uint32_t l) override { return inner_.layer(l); }
  void layer_done(std::uint32_t l) override {
    if (l == layer_) inner_.layer(l)[32 * node_ + 5] ^= 1;
    inner_.layer_done(l);
  }

 private:
  sdr::layer_store& inner_;
  std::uint32_t layer_;
  std::uint64_t node_;
};

}  // namespace

TEST_CASE("sampled verification passes a right labeling and catches a planted wrong label", "[windows][sampled]") {
  const std::uint64_t nodes = 64;
  const auto d = make_graph(nodes, 1);
  const sdr::label_job job{nodes, d.table.data(), 2, 1, d.ids.data()};
  {
    sdr::rolling_layer_store store(nodes * 32);
    sdr::sampling_layer_store check(store, job, 4096, 1);
    cpu::make_cpu_backend({})->label(job, check);
    const auto r = check.verify();
    CHECK(r.checked == 4096);
    CHECK(r.ok());
  }
  for (const std::uint32_t layer : {1u, 2u}) {
    sdr::rolling_layer_store store(nodes * 32);
    sdr::sampling_layer_store check(store, job, 4096, 1);
    planting_store faulty(check, layer, 37);
    sdr::make_reference_backend()->label(job, faulty);
    const auto r = check.verify();
    CHECK_FALSE(r.ok());
    CHECK(r.mismatched > 0);
    CHECK_THAT(r.first_mismatch, Catch::Contains("node 37"));
  }
  CHECK_THROWS_AS(sdr::sampling_layer_store(*std::make_unique<sdr::rolling_layer_store>(64), job, 0, 1),
                  std::invalid_argument);
}

TEST_CASE("bench label: sampled and window points are verified and say how", "[windows][bench]") {
  label_bench_options o;
  o.sector_size = 64 << 10;
  o.samples = 2;
  o.warmup = 0;
  o.verify = verify_mode::sampled;
  o.verify_samples = 512;
  auto r = bench_label(o);
  CHECK(r.verified);
  CHECK(r.verified_by.text() == "sampled(512)");
  CHECK(r.max_rss_bytes > 0);
  // A whole-sector SDR point builds its parent table and says how long that took.
  CHECK(r.parent_table_s > 0);
  CHECK(r.parent_table_vs_layer == Approx(r.parent_table_s / (r.ns_per_node_layer * 1e-9 * double(r.nodes))));

  o.verify = verify_mode::automatic;
  o.sector_size = 1 << 20;
  o.window_nodes = 2048;
  o.window_offset = 5000;
  o.window_backing = sdr::window_backing::mmap_file;
  r = bench_label(o);
  CHECK(r.verified);
  CHECK(r.verified_by.method == check_method::window);
  CHECK(r.window_backing == sdr::window_backing::mmap_file);
  CHECK(r.window_first_node == 5000);
  CHECK(r.window_pages_filled > 0);
  const auto j = to_json(r);
  CHECK(j["window_nodes"] == 2048);
  CHECK(j["window_backing"] == "mmap-file");
  CHECK(j["verified_by"] == "window");
  CHECK(j["parent_table_s"] == 0.0);  // a window builds its rows only, not the table

  o.backend = &find_backend("cuda-emu");
  o.window_backing = sdr::window_backing::ram;
  o.window_offset = -1;  // drawn
  r = bench_label(o);
  CHECK(r.verified);
  CHECK(r.window_backing == sdr::window_backing::ram);
  CHECK(r.window_first_node + 2048 <= (1u << 20) / 32);

  o.backend = &find_backend("cpu");
  o.proof = &sdr::find_registered_proof("StackedDrg8MiBV1_1");
  o.window_backing = sdr::window_backing::automatic;
  r = bench_label(o);
  CHECK(r.verified);
  CHECK(r.nodes == (8u << 20) / 32);
  CHECK(r.porep_id_source == "registered StackedDrg8MiBV1_1");
}

TEST_CASE("runner: window and sampled points in records, the Data scaling table in the report", "[windows][runner]") {
  test::temp_dir s("windows");
  const auto res = test::run_config(s, "scaling.json", R"({
    "schema": "poreplab-experiments/1",
    "experiments": [
      {"name": "whole", "kind": "label", "warmup": 0, "samples": 1,
       "axes": {"backend": ["cpu"], "sector_size": ["64KiB", "128KiB"], "window_nodes": [0], "verify": ["sampled"]}},
      {"name": "windows", "kind": "label", "warmup": 0, "samples": 1,
       "axes": {"backend": ["cpu"], "sector_size": ["1MiB"], "window_nodes": [1024], "window_backing": ["mmap-file"]}}
    ]
  })").results;
  REQUIRE(res["points"].size() == 3);
  for (const auto& p : res["points"]) {
    INFO(p.dump());
    CHECK(p["status"] == "ok");
    CHECK(p["verified"] == true);
    if (p["axes"]["window_nodes"] == 0) {
      CHECK(p["context"]["verified_by"] == "sampled(4096)");
      CHECK(p["context"]["max_rss_bytes"].get<double>() > 0);
    } else {
      CHECK(p["context"]["verified_by"] == "window");
      CHECK(p["context"]["window_backing"] == "mmap-file");
      CHECK(p["context"]["window_pages_filled"].get<double>() > 0);
    }
  }
  const std::string md = test::read_text(s / "out" / "report.md");
  CHECK(md.find("## Data scaling") != std::string::npos);
  CHECK(md.find("window 1024 @ ") != std::string::npos);
  CHECK(md.find("200 B/node") != std::string::npos);
}
