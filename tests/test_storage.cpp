// Reads issued ahead (read_queue, both engines), nameless scratch files, and the disk
// probe: data comes back where it was written, nothing is left in the directory, and
// bad directories are refused by name.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <vector>

#include "poreplab/file_io.hpp"
#include "poreplab/huge_buffer.hpp"
#include "poreplab/storage/disk_probe.hpp"
#include "poreplab/storage/read_queue.hpp"
#include "poreplab/storage/scratch_file.hpp"
#include "support.hpp"

using namespace poreplab;
using namespace poreplab::storage;
namespace fs = std::filesystem;

namespace {

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

std::vector<io_engine> engines_here() {
  std::vector<io_engine> v{io_engine::pread_pool};
  if (io_uring_available()) v.push_back(io_engine::io_uring);
  return v;
}

}  // namespace

TEST_CASE("storage: engine names parse and print", "[storage]") {
  for (const io_engine e : {io_engine::automatic, io_engine::io_uring, io_engine::pread_pool})
    CHECK(parse_io_engine(io_engine_name(e)) == e);
  CHECK_THROWS_WITH(parse_io_engine("aio"), Catch::Contains("unknown I/O engine 'aio'") && Catch::Contains("pread-pool"));
  CHECK_THROWS_AS(make_read_queue(io_engine::pread_pool, 0), std::invalid_argument);
  CHECK_THROWS_AS(make_read_queue(io_engine::pread_pool, 4097), std::invalid_argument);
  std::string why;
  if (!io_uring_available(&why)) {
    CHECK(!why.empty());
    CHECK_THROWS_WITH(make_read_queue(io_engine::io_uring, 4), Catch::Contains("io_uring is not available"));
  }
}

TEST_CASE("storage: each engine reads every block back from where it was written", "[storage]") {
  const test::temp_dir dir("storage");
  const bool direct = direct_io_supported(dir.path);
  unique_fd fd = open_scratch_file(dir.path, direct);
  CHECK(entries(dir.path) == 0);  // nameless
  constexpr std::uint64_t kBlocks = 64, kBlock = kDirectAlign;
  huge_buffer data(kBlocks * kBlock);
  for (std::uint64_t i = 0; i < kBlocks * kBlock; ++i) data.data()[i] = static_cast<std::uint8_t>(i * 7 + i / kBlock);
  pwrite_exact(fd.get(), data.data(), kBlocks * kBlock, 0, dir.path);
  for (const io_engine e : engines_here()) {
    INFO(io_engine_name(e));
    auto q = make_read_queue(e, 8);
    CHECK(q->engine() == e);
    huge_buffer got(kBlocks * kBlock);
    // Blocks in a scrambled order, never more than the depth outstanding.
    std::vector<std::uint64_t> order(kBlocks);
    std::iota(order.begin(), order.end(), 0);
    std::reverse(order.begin() + 5, order.end());
    std::size_t next = 0, outstanding = 0, finished = 0;
    std::vector<read_done> done(8);
    while (finished < kBlocks) {
      while (outstanding < q->depth() && next < kBlocks) {
        const std::uint64_t b = order[next++];
        q->submit(fd.get(), got.data() + b * kBlock, kBlock, b * kBlock, b);
        ++outstanding;
      }
      q->flush();
      const std::size_t n = q->reap(done, true);
      REQUIRE(n > 0);
      for (std::size_t i = 0; i < n; ++i) {
        CHECK(done[i].result == static_cast<std::int64_t>(kBlock));
        --outstanding;
        ++finished;
      }
    }
    CHECK(std::equal(got.data(), got.data() + kBlocks * kBlock, data.data()));
    // A read past the end completes short, not as an error the queue hides.
    q->submit(fd.get(), got.data(), kBlock, kBlocks * kBlock, 99);
    REQUIRE(q->reap(done, true) == 1);
    CHECK(done[0].tag == 99);
    CHECK(done[0].result == 0);
  }
}

TEST_CASE("storage: the disk probe measures reads and leaves nothing behind", "[storage]") {
  const test::temp_dir dir("storage");
  read_probe_options o;
  o.file_bytes = 4ull << 20;
  o.queue_depth = 4;
  o.seconds = 0.2;
  o.direct = direct_io_supported(dir.path);
  for (const io_engine e : engines_here()) {
    o.engine = e;
    const read_probe_result r = probe_random_reads(dir.path, o);
    CHECK(r.reads > 0);
    CHECK(r.reads_per_s > 0);
    CHECK(r.mean_latency_us > 0);
    CHECK(r.engine == e);
    CHECK(r.queue_depth == 4);
    CHECK(r.file_bytes == o.file_bytes);
    CHECK(entries(dir.path) == 0);
  }
  const disk_description d = describe_disk(dir.path);
  CHECK(!d.filesystem.empty());
  // A missing directory, a file where a directory belongs: one error naming it.
  CHECK_THROWS_WITH(probe_random_reads(dir.path / "missing", o), Catch::Contains("missing: not a directory"));
  test::write_text(dir.path / "plain", "x");
  CHECK_THROWS_WITH(open_scratch_file(dir.path / "plain", false), Catch::Contains("plain: not a directory"));
  // A file that does not fit is refused before anything is written.
  o.file_bytes = std::uint64_t{1} << 62;
  CHECK_THROWS_AS(probe_random_reads(dir.path, o), no_space);
  CHECK(entries(dir.path) == 1);
}

TEST_CASE("storage: the sequential read probe reads every byte of its files, and names one it cannot read", "[storage]") {
  test::temp_dir tmp("seq-probe");
  test::write_bytes(tmp / "a", std::vector<std::uint8_t>(std::size_t{3} << 20, 7));
  test::write_bytes(tmp / "b", std::vector<std::uint8_t>(5000, 9));
  test::write_bytes(tmp / "c", {});
  const std::vector<fs::path> files{tmp / "a", tmp / "b", tmp / "c"};
  sequential_probe_options o;
  o.block_bytes = 1u << 20;
  const auto r = probe_sequential_reads(files, o);
  CHECK(r.bytes == (std::uint64_t{3} << 20) + 5000);
  CHECK(r.gib_per_s > 0);
  CHECK(r.direct == direct_io_supported(tmp.path));
  CHECK(r.cached_share_before >= 0);
  CHECK(r.cached_share_before <= 1);
  o.direct = false;
  CHECK_FALSE(probe_sequential_reads(files, o).direct);
  const double share = drop_cached_pages(tmp / "a");
  CHECK((share == -1 || (share >= 0 && share <= 1)));
  CHECK(cached_share(tmp / "c") == 0);
  const std::vector<fs::path> missing{tmp / "a", tmp / "nope"};
  CHECK_THROWS_WITH(probe_sequential_reads(missing, o), Catch::StartsWith((tmp / "nope").string()));
  o.block_bytes = 1000;
  CHECK_THROWS_AS(probe_sequential_reads(files, o), std::invalid_argument);
}
