// Labeling with the layers on disk (disk_labeler.hpp) against the reference: whole layers
// with parents read back from the disk (a small node cache, so older base parents come
// from the disk too), node windows against the in-RAM window store, teams of 1, 2 and 4
// hashers with a short read-ahead, sampled verification that fails on labels of other
// replica ids, a failed read that stops the whole pipeline, and the refusals.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "poreplab/cpu/disk_labeler.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/memory_check.hpp"
#include "poreplab/sdr/backend.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/sdr/window_store.hpp"
#include "poreplab/storage/disk_probe.hpp"
#include "sdr_inputs.hpp"
#include "support.hpp"

using namespace poreplab;

namespace {

using test::graph_job;

graph_job make_graph(std::uint64_t nodes, std::uint32_t sectors) {
  return test::registered_graph_job(nodes, sectors, 3, 5);
}

cpu::disk_label_options small_options(const std::filesystem::path& dir) {
  cpu::disk_label_options o;
  o.layer_dir = dir;
  o.cache_nodes = 0;  // raised to what is in flight: older base parents come from the disk
  o.lookahead = 4;
  o.queue_depth = 8;
  o.write_chunk_bytes = 4096;
  o.direct = storage::direct_io_supported(dir);
  return o;
}

// The engine-width groups of `sectors` sectors on the engine the disk labeler picks.
std::uint32_t groups_of(std::uint32_t sectors, int threads) {
  const auto& e = cpu::pick_label_engine(sdr::kFilecoinScheme, sectors, "auto", threads);
  const auto width = static_cast<std::uint32_t>(std::max<std::size_t>(1, e.lanes));
  return (sectors + width - 1) / width;
}

// Cuts every file this process has open under `dir` (the labeling's nameless layer files)
// to nothing: a read of a page written before the labeling then comes back short.
int truncate_files_under(const std::filesystem::path& dir) {
  int cut = 0;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const std::string target = std::filesystem::read_symlink(fd.path(), ec).string();
    if (ec || target.rfind(dir.string() + "/", 0) != 0) continue;
    if (::ftruncate(std::stoi(fd.path().filename().string()), 0) == 0) ++cut;
  }
  return cut;
}

// A whole-layer job of `sectors` sectors and `layers` layers on a graph of `nodes`, and the
// reference's labels of it (the job points into the graph: built in place, never moved).
struct reference_case {
  graph_job d;
  sdr::label_job job;
  sdr::memory_layer_store want;
  reference_case(std::uint64_t nodes, std::uint32_t sectors, std::uint32_t layers)
      : d(make_graph(nodes, sectors)), job{nodes, d.table.data(), layers, sectors, d.ids.data()},
        want(nodes * 32 * sectors, layers) {
    sdr::make_reference_backend()->label(job, want);
  }
  reference_case(const reference_case&) = delete;
  reference_case& operator=(const reference_case&) = delete;
};

}  // namespace

TEST_CASE("layers on disk: whole layers equal the reference's", "[disk-labeler]") {
  const test::temp_dir dir("disklabel");
  const std::uint64_t nodes = 1024;
  for (const std::uint32_t sectors : {1u, 3u, 17u}) {
    const reference_case ref(nodes, sectors, 3);
    const sdr::label_job& job = ref.job;
    const sdr::memory_layer_store& want = ref.want;
    std::vector<storage::io_engine> engines{storage::io_engine::pread_pool};
    if (storage::io_uring_available()) engines.push_back(storage::io_engine::io_uring);
    for (const auto io : engines) {
      for (const std::uint32_t threads : {1u, 2u}) {
        if (sectors != 3 && (threads == 2 || io != engines.back())) continue;  // every setting once, at 3 sectors
        auto o = small_options(dir.path);
        o.io = io;
        o.hashing_threads = threads;
        o.engine = threads == 2 ? "portable" : "auto";
        INFO("sectors " << sectors << ", " << storage::io_engine_name(io) << ", threads " << threads);
        cpu::disk_labeling run(job, o);
        const auto st = run.run();
        CHECK(st.node_steps == 3 * nodes);
        CHECK(st.labels == 3 * nodes * sectors);
        CHECK(st.base_read > 0);  // the cache holds far fewer rows than the layer
        CHECK(st.expander_read > 0);
        CHECK(st.reads > 0);
        CHECK(st.bytes_read >= st.reads * 4096);
        CHECK(st.base_cached > 0);
        CHECK(st.io == io);
        const auto got = run.read_last_layer_rows(0, nodes);
        REQUIRE(std::equal(got.begin(), got.end(), want.layer(3)));
        CHECK(run.verify_samples(64, 1).ok());
      }
    }
  }
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path), std::filesystem::directory_iterator()) == 0);
}

TEST_CASE("layers on disk: a window labels as the in-RAM window store does", "[disk-labeler]") {
  const test::temp_dir dir("disklabel");
  const std::uint64_t nodes = 1u << 14, first = 9000, count = 700;
  for (const std::uint32_t sectors : {2u, 5u}) {
    const auto d = make_graph(nodes, sectors);
    for (const std::uint32_t layers : {1u, 2u}) {
      sdr::label_job job{nodes, d.table.data() + 14 * first, layers, sectors, d.ids.data()};
      job.first_node = first;
      job.window_nodes = count;
      auto o = small_options(dir.path);
      o.fill_seed = 77;
      sdr::window_layer_store ram(job, sdr::window_backing::ram, dir.path, o.fill_seed);
      cpu::make_cpu_backend({})->label(job, ram);
      INFO("sectors " << sectors << ", layers " << layers);
      cpu::disk_labeling run(job, o);
      run.run();
      const auto st = run.run();  // a second sample over the same pre-filled pages
      CHECK(st.bytes_filled > 0);
      CHECK(st.node_steps == count);
      const auto got = run.read_last_layer_rows(first, count);
      const std::uint64_t row = 32ull * sectors;
      REQUIRE(std::equal(got.begin(), got.end(), ram.layer(layers) + first * row));
      CHECK(run.verify_samples(256, 5).ok());
      // Labels of other replica ids do not verify.
      std::vector<std::uint8_t> ids = d.ids;
      std::memcpy(const_cast<std::uint8_t*>(d.ids.data()), std::vector<std::uint8_t>(d.ids.size(), 0).data(), d.ids.size());
      const auto bad = run.verify_samples(16, 5);
      CHECK(bad.checked == 16);
      CHECK(bad.mismatched == 16);
      CHECK(!bad.first_mismatch.empty());
      std::memcpy(const_cast<std::uint8_t*>(d.ids.data()), ids.data(), ids.size());
    }
  }
}

TEST_CASE("layers on disk: refusals name what is wrong", "[disk-labeler][reliability]") {
  const test::temp_dir dir("disklabel");
  const auto d = make_graph(64, 1);
  const sdr::label_job job{64, d.table.data(), 2, 1, d.ids.data()};
  auto o = small_options(dir.path);
  o.layer_dir = dir.path / "missing";
  CHECK_THROWS_WITH(cpu::disk_labeling(job, o), Catch::Contains("missing: not a directory"));
  o = small_options(dir.path);
  o.lookahead = 3;
  CHECK_THROWS_WITH(cpu::disk_labeling(job, o), Catch::Contains("lookahead 3: a power of two"));
  o = small_options(dir.path);
  o.queue_depth = 0;
  CHECK_THROWS_WITH(cpu::disk_labeling(job, o), Catch::Contains("queue depth 0"));
  o = small_options(dir.path);
  o.cache_nodes = std::uint64_t{1} << 50;  // 32 PiB of rows: refused before anything is allocated
  CHECK_THROWS_AS(cpu::disk_labeling(job, o), insufficient_memory);
  sdr::label_job blake = job;
  blake.scheme = {sdr::porep_variant::sdr, hash_family::blake2s};
  CHECK_THROWS_WITH(cpu::disk_labeling(blake, small_options(dir.path)), Catch::Contains("sdr/sha256 only"));
  sdr::label_job resumed = job;
  resumed.first_layer = 2;
  CHECK_THROWS_WITH(cpu::disk_labeling(resumed, small_options(dir.path)), Catch::Contains("from layer 1"));
  o = small_options(dir.path);
  cpu::disk_labeling twice(job, o);
  CHECK_THROWS_AS(twice.verify_samples(4, 1), std::logic_error);  // nothing labeled yet
  const auto first = twice.run();
  const auto rows = twice.read_last_layer_rows(0, 64);
  const auto second = twice.run();  // from layer 1 again: the same labels, this run's counts
  CHECK(second.node_steps == first.node_steps);
  CHECK(second.reads == first.reads);
  CHECK(twice.read_last_layer_rows(0, 64) == rows);
}

namespace {

// `check(options, hashers)` for teams of 1, 2 and 4 hashers with read-ahead of 2 and 4 nodes
// (portable engine).
template <class Check>
void each_team(cpu::disk_label_options o, Check&& check) {
  for (const std::uint32_t hashers : {1u, 2u, 4u})
    for (const std::uint32_t lookahead : {2u, 4u}) {
      o.engine = "portable";
      o.hashing_threads = hashers;
      o.lookahead = lookahead;
      INFO("hashers " << hashers << ", lookahead " << lookahead);
      check(o, hashers);
    }
}

}  // namespace

TEST_CASE("layers on disk: 1, 2 and 4 hashers label like the reference, with a short read-ahead", "[disk-labeler]") {
  // Read-ahead of 2 and 4 nodes: read buffers and ring slots reused over and over, base
  // parents one node back left out of the ring while being labeled.
  const test::temp_dir dir("disklabel");
  SECTION("whole layers") {
    const std::uint64_t nodes = 1024;
    const std::uint32_t sectors = 13;
    const reference_case ref(nodes, sectors, 3);
    const sdr::label_job& job = ref.job;
    const sdr::memory_layer_store& want = ref.want;
    each_team(small_options(dir.path), [&](const cpu::disk_label_options& o, std::uint32_t hashers) {
      cpu::disk_labeling run(job, o);
      const auto st = run.run();
      CHECK(st.hashing_threads == hashers);  // 13 one-lane groups: every thread has some
      CHECK(st.node_steps == 3 * nodes);
      CHECK(st.base_read > 0);
      CHECK(st.read_wait_s >= 0);
      const auto got = run.read_last_layer_rows(0, nodes);
      REQUIRE(std::equal(got.begin(), got.end(), want.layer(3)));
    });
  }
  SECTION("a window") {
    const std::uint64_t nodes = 1u << 14, first = 9000, count = 700;
    const std::uint32_t sectors = 6;
    const auto d = make_graph(nodes, sectors);
    sdr::label_job job{nodes, d.table.data() + 14 * first, 2, sectors, d.ids.data()};
    job.first_node = first;
    job.window_nodes = count;
    const auto o = small_options(dir.path);
    sdr::window_layer_store ram(job, sdr::window_backing::ram, dir.path, o.fill_seed);
    cpu::make_cpu_backend({})->label(job, ram);
    each_team(o, [&](const cpu::disk_label_options& team, std::uint32_t hashers) {
      cpu::disk_labeling run(job, team);
      const auto st = run.run();
      CHECK(st.hashing_threads == hashers);
      CHECK(st.node_steps == count);
      const auto got = run.read_last_layer_rows(first, count);
      REQUIRE(std::equal(got.begin(), got.end(), ram.layer(2) + first * 32ull * sectors));
    });
  }
  SECTION("rows of a whole page: progress published node by node") {
    // 128 sectors: a row fills a page, a write chunk is one row, and the hashers publish
    // their progress every node (the reader's waits for written rows depend on it).
    const std::uint64_t nodes = 256;
    const std::uint32_t sectors = 128;
    const reference_case ref(nodes, sectors, 2);
    const sdr::label_job& job = ref.job;
    const sdr::memory_layer_store& want = ref.want;
    auto o = small_options(dir.path);
    o.lookahead = 2;
    o.hashing_threads = 4;
    cpu::disk_labeling run(job, o);
    const auto st = run.run();
    CHECK(st.hashing_threads == std::min(4u, groups_of(sectors, 4)));
    const auto got = run.read_last_layer_rows(0, nodes);
    REQUIRE(std::equal(got.begin(), got.end(), want.layer(2)));
  }
}

TEST_CASE("layers on disk: a failed read stops the whole pipeline with its error", "[disk-labeler][reliability]") {
  // A window reads pages written before it; with its files cut short, the first such read
  // comes back short: the reader throws, the hashers and the writer leave their waits.
  const test::temp_dir dir("disklabel");
  const std::uint64_t nodes = 1u << 14, first = 9000, count = 700;
  const std::uint32_t sectors = 6;
  const auto d = make_graph(nodes, sectors);
  sdr::label_job job{nodes, d.table.data() + 14 * first, 2, sectors, d.ids.data()};
  job.first_node = first;
  job.window_nodes = count;
  std::vector<storage::io_engine> engines{storage::io_engine::pread_pool};
  if (storage::io_uring_available()) engines.push_back(storage::io_engine::io_uring);
  for (const auto io : engines)
    for (const std::uint32_t hashers : {1u, 4u}) {
      INFO(storage::io_engine_name(io) << ", hashers " << hashers);
      auto o = small_options(dir.path);
      o.io = io;
      o.engine = "portable";
      o.hashing_threads = hashers;
      cpu::disk_labeling run(job, o);
      REQUIRE(truncate_files_under(dir.path) == 2);
      CHECK_THROWS_WITH(run.run(), Catch::Contains("a parent read of layer") && Catch::Contains("short read"));
    }
}
