// The `disk` kind: what the disk of a directory is, how much room it has, and how many
// random 4 KiB reads a second it serves at a queue depth through O_DIRECT (the bound of
// labeling with layers on disk), as `poreplab bench disk` measures it. Each sample is one
// probe; the read path is checked by writing blocks of known content and reading them back.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <stdexcept>

#include "poreplab/hex.hpp"
#include "poreplab/huge_buffer.hpp"
#include "poreplab/stats.hpp"
#include "poreplab/storage/disk_probe.hpp"
#include "poreplab/storage/scratch_file.hpp"
#include "records/schema.hpp"
#include "runner/kinds.hpp"

namespace poreplab::runner {

namespace ctx = records::ctx;

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr std::uint32_t kBlock = 4096;
constexpr std::uint32_t kCheckBlocks = 64;

// The places a config may name (a path in a config would be read from untrusted text).
std::vector<std::string> place_names() { return {"cwd", "tmp", "var-tmp"}; }

// The library's own exceptions name the function that failed ("filesystem error:
// temp_directory_path: ..."), which a record would then keep as its reason.
fs::path dir_of(const json& axes) {
  const std::string p = axes["disk_dir"];
  if (p == "var-tmp") return "/var/tmp";
  std::error_code ec;
  const fs::path dir = p == "tmp" ? fs::temp_directory_path(ec) : fs::current_path(ec);
  if (ec)
    throw std::runtime_error(p == "tmp" ? "the temporary directory ($TMPDIR, else /tmp): " + ec.message()
                                        : "the current directory: " + ec.message());
  return dir;
}

std::string unavailable(const json& axes) {
  std::string why;
  if (!storage::direct_io_supported(dir_of(axes), &why)) return why;
  return {};
}

void fill_block(std::uint8_t* b, std::uint64_t index) {
  splitmix64 rng(index * 0x9e3779b97f4a7c15ull + 1);
  for (std::uint32_t i = 0; i < kBlock; i += 8) {
    const std::uint64_t v = rng.next();
    std::memcpy(b + i, &v, 8);
  }
}

// Blocks of known content written to a second scratch file, read back in a shuffled order
// through the probe's engine and O_DIRECT: "" when every block matches.
std::string read_back(const fs::path& dir, storage::io_engine engine) {
  const unique_fd fd = storage::open_scratch_file(dir, true);
  huge_buffer want(std::size_t{kCheckBlocks} * kBlock), got(std::size_t{kCheckBlocks} * kBlock);
  for (std::uint32_t i = 0; i < kCheckBlocks; ++i) fill_block(want.data() + std::size_t{i} * kBlock, i);
  pwrite_exact(fd.get(), want.data(), want.size(), 0, dir / "(scratch file)");
  sync_file(fd.get(), dir / "(scratch file)");
  std::vector<std::uint32_t> order(kCheckBlocks);
  std::iota(order.begin(), order.end(), 0u);
  splitmix64 rng(0x6b636568);
  for (std::size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
  auto q = storage::make_read_queue(engine, 16);
  std::vector<storage::read_done> done(16);
  std::uint32_t next = 0, outstanding = 0, completed = 0;
  while (completed < kCheckBlocks) {
    for (; next < kCheckBlocks && outstanding < q->depth(); ++next, ++outstanding)
      q->submit(fd.get(), got.data() + std::size_t{order[next]} * kBlock, kBlock, std::uint64_t{order[next]} * kBlock,
                order[next]);
    q->flush();
    const std::size_t n = q->reap(done, true);
    for (std::size_t i = 0; i < n; ++i)
      if (done[i].result != kBlock) return "block " + std::to_string(done[i].tag) + ": a short or failed read";
    outstanding -= static_cast<std::uint32_t>(n);
    completed += static_cast<std::uint32_t>(n);
  }
  for (std::uint32_t i = 0; i < kCheckBlocks; ++i)
    if (std::memcmp(want.data() + std::size_t{i} * kBlock, got.data() + std::size_t{i} * kBlock, kBlock) != 0)
      return "block " + std::to_string(i) + " read back differs from what was written";
  return {};
}

measurement run(const json& axes, std::uint32_t warmup, std::uint32_t samples) {
  const fs::path dir = dir_of(axes);
  storage::read_probe_options p;
  p.file_bytes = axes["file_size"];
  p.queue_depth = static_cast<std::uint32_t>(axes["queue_depth"].get<std::uint64_t>());
  p.seconds = axes["seconds"].get<double>();
  measurement m;
  m.metric = "reads_per_s";
  storage::read_probe_result last;
  for (std::uint32_t i = 0; i < warmup + samples; ++i) {
    last = storage::probe_random_reads(dir, p);
    if (i >= warmup) m.samples.push_back(last.reads_per_s);
  }
  const storage::disk_description d = storage::describe_disk(dir);
  std::error_code ec;
  const fs::space_info room = fs::space(dir, ec);
  if (ec) throw std::runtime_error(dir.string() + ": cannot read its free space: " + ec.message());
  const std::string check = read_back(dir, last.engine);
  m.verified = check.empty();
  m.verified_against = std::to_string(kCheckBlocks) + " random 4 KiB blocks of a second scratch file written and read "
                       "back through the same engine and O_DIRECT" + (check.empty() ? ", equal" : ": " + check);
  m.digest = sha256_hex(reinterpret_cast<const std::uint8_t*>(m.verified_against.data()), m.verified_against.size());
  m.context = {{"dir", dir.string()},
               {"disk_device", d.device},
               {"disk_model", d.model},
               {"disk_size_bytes", d.size_bytes},
               {"disk_rotational", d.rotational},
               {"filesystem", d.filesystem},
               {"free_bytes", room.available},
               {ctx::engine, storage::io_engine_name(last.engine)},
               {"direct", last.direct},
               {"queue_depth", last.queue_depth},
               {"block_bytes", last.block_bytes},
               {"file_bytes", last.file_bytes},
               {"seconds_per_sample", p.seconds},
               {"mean_latency_us", last.mean_latency_us}};
  return m;
}

json rates(const json&, const json& ctx, double median) {
  return {{"reads_per_s", median},
          {"mib_per_s", median * ctx.value("block_bytes", double(kBlock)) / (1 << 20)},
          {"free_bytes", ctx.value("free_bytes", 0.0)}};
}

}  // namespace

kind_spec disk_kind() {
  kind_spec k;
  k.name = records::kind_name(records::record_kind::disk);
  k.help = "a directory's disk: model, size, free room and random 4 KiB reads/s at a queue depth (O_DIRECT; "
           "bench disk), the read path checked by a read-back";
  k.axes = {text_param("disk_dir", "cwd", place_names,
                      "where: cwd (the directory poreplab runs in), tmp (the temporary directory), var-tmp (/var/tmp)"),
            count_param("queue_depth", 32, 1, 4096, "reads kept in flight"),
            count_param("seconds", 2, 1, 600, "how long each probe reads"),
            size_param("file_size", 256ull << 20, 4096, false, "the scratch file the reads fall in (written first)")};
  k.unavailable = unavailable;
  k.run = run;
  k.rates = rates;
  return k;
}

}  // namespace poreplab::runner
