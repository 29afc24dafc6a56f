#include "poreplab/storage/disk_probe.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "poreplab/checked.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/huge_buffer.hpp"
#include "poreplab/storage/scratch_file.hpp"

namespace poreplab::storage {

namespace fs = std::filesystem;

namespace {

std::string first_line(const fs::path& p) {
  std::ifstream in(p);
  std::string s;
  std::getline(in, s);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  return s;
}

// The filesystem type and "major:minor" of the mount holding `dir`: the mountinfo line
// whose device number is the directory's.
void mount_of(const fs::path& dir, disk_description& d, std::string& majmin) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return;
  majmin = std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
  std::ifstream in("/proc/self/mountinfo");
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::string id, parent, dev;
    f >> id >> parent >> dev;
    if (dev != majmin) continue;
    const auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream rest(line.substr(dash + 3));
    rest >> d.filesystem;
    return;
  }
}

}  // namespace

disk_description describe_disk(const fs::path& dir, const fs::path& sys_root) {
  disk_description d;
  std::string majmin;
  mount_of(dir, d, majmin);
  if (majmin.empty()) return d;
  // /sys/dev/block/M:m names the partition or disk; a partition's parent is the disk.
  std::error_code ec;
  fs::path node = fs::canonical(sys_root / "dev/block" / majmin, ec);
  if (ec) return d;
  if (fs::exists(node / "partition")) node = node.parent_path();
  d.device = node.filename().string();
  d.model = first_line(node / "device/model");
  const std::string sectors = first_line(node / "size");  // 512-byte sectors
  if (!sectors.empty()) d.size_bytes = std::stoull(sectors) * 512;
  d.rotational = first_line(node / "queue/rotational") == "1";
  return d;
}

bool direct_io_supported(const fs::path& dir, std::string* why) {
  try {
    open_scratch_file(dir, true);
    return true;
  } catch (const std::exception& e) {
    if (why != nullptr) *why = e.what();
    return false;
  }
}

read_probe_result probe_random_reads(const fs::path& dir, const read_probe_options& opt) {
  const std::uint64_t block = opt.block_bytes;
  if (block == 0 || block % kDirectAlign != 0 || opt.file_bytes < block || opt.queue_depth == 0 || !(opt.seconds > 0))
    throw std::invalid_argument("disk probe: block a multiple of 4096, a file of at least one block, depth >= 1, time > 0");
  checked_deadline(std::chrono::steady_clock::now(), opt.seconds, "disk probe seconds");  // before the scratch file
  require_disk_space(dir, opt.file_bytes);
  unique_fd fd = open_scratch_file(dir, opt.direct);
  const std::uint64_t blocks = opt.file_bytes / block;
  // Bytes no layer of compression or deduplication below the file can shrink.
  constexpr std::uint64_t kChunk = 1ull << 20;
  huge_buffer chunk(kChunk);
  std::mt19937_64 rng(0x6469736b);
  for (std::uint64_t off = 0; off < blocks * block; off += kChunk) {
    for (std::uint64_t i = 0; i < kChunk; i += 8) {
      const std::uint64_t r = rng();
      std::memcpy(chunk.data() + i, &r, 8);
    }
    pwrite_exact(fd.get(), chunk.data(), std::min(kChunk, blocks * block - off), off, dir / "(scratch file)");
  }
  sync_file(fd.get(), dir / "(scratch file)");

  auto q = make_read_queue(opt.engine, opt.queue_depth);
  const std::uint32_t depth = q->depth();
  huge_buffer bufs(depth * block);
  std::vector<std::chrono::steady_clock::time_point> issued(depth);
  std::vector<read_done> done(depth);
  read_probe_result r;
  double latency_sum_us = 0;
  using clock = std::chrono::steady_clock;
  auto issue = [&](std::uint32_t slot) {
    const std::uint64_t b = rng() % blocks;
    issued[slot] = clock::now();
    q->submit(fd.get(), bufs.data() + slot * block, static_cast<std::uint32_t>(block), b * block, slot);
  };
  const auto t0 = clock::now();
  const auto stop = checked_deadline(t0, opt.seconds, "disk probe seconds");
  for (std::uint32_t s = 0; s < depth; ++s) issue(s);
  q->flush();
  std::uint32_t outstanding = depth;
  while (outstanding > 0) {
    const std::size_t n = q->reap(done, true);
    const auto now = clock::now();
    for (std::size_t i = 0; i < n; ++i) {
      if (done[i].result != static_cast<std::int64_t>(block))
        throw std::runtime_error(dir.string() + ": a probe read failed: " +
                                 (done[i].result < 0 ? std::string(std::strerror(static_cast<int>(-done[i].result)))
                                                     : "short read"));
      const auto slot = static_cast<std::uint32_t>(done[i].tag);
      latency_sum_us += std::chrono::duration<double, std::micro>(now - issued[slot]).count();
      ++r.reads;
      if (now < stop) issue(slot);
      else --outstanding;
    }
    q->flush();
  }
  r.seconds = std::chrono::duration<double>(clock::now() - t0).count();
  r.reads_per_s = static_cast<double>(r.reads) / r.seconds;
  r.mib_per_s = r.reads_per_s * static_cast<double>(block) / (1 << 20);
  r.mean_latency_us = r.reads > 0 ? latency_sum_us / static_cast<double>(r.reads) : 0;
  r.queue_depth = depth;
  r.block_bytes = opt.block_bytes;
  r.file_bytes = blocks * block;
  r.engine = q->engine();
  r.direct = opt.direct;
  return r;
}

}  // namespace poreplab::storage
