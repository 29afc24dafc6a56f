#include "poreplab/storage/disk_probe.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
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

double cached_share(const fs::path& path) {
  try {
    const unique_fd fd = open_regular_for_reading(path);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return -1;
    if (st.st_size == 0) return 0;
    const auto size = static_cast<std::size_t>(st.st_size);
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd.get(), 0);
    if (map == MAP_FAILED) return -1;
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> in((size + page - 1) / page);
    const int rc = ::mincore(map, size, in.data());
    ::munmap(map, size);
    if (rc != 0) return -1;
    const auto cached = std::count_if(in.begin(), in.end(), [](unsigned char c) { return (c & 1) != 0; });
    return static_cast<double>(cached) / static_cast<double>(in.size());
  } catch (const std::exception&) {
    return -1;
  }
}

double drop_cached_pages(const fs::path& path) {
  {
    const unique_fd fd = open_regular_for_reading(path);
    ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
  }
  return cached_share(path);
}

namespace {

// One read of the sequential probe: which file, where, how many bytes must come back.
struct sequential_read {
  std::size_t file = 0;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
};

// Every file opened (O_DIRECT added where asked and taken), its reads in order.
std::vector<sequential_read> plan_sequential_reads(std::span<const fs::path> files, std::uint64_t block,
                                                   bool& direct, std::vector<unique_fd>& fds) {
  std::vector<sequential_read> reads;
  for (std::size_t f = 0; f < files.size(); ++f) {
    const std::uint64_t size = regular_file_size(files[f]);
    fds.push_back(open_regular_for_reading(files[f]));
    const int fd = fds.back().get();
    if (direct && ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_DIRECT) != 0) direct = false;
    for (std::uint64_t off = 0; off < size; off += block) reads.push_back({f, off, std::min(block, size - off)});
  }
  // A file that refuses O_DIRECT: every file read buffered, so the figure is one method's.
  if (!direct)
    for (auto& fd : fds) ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_DIRECT);
  return reads;
}

}  // namespace

sequential_probe_result probe_sequential_reads(std::span<const fs::path> files, const sequential_probe_options& opt) {
  const std::uint64_t block = opt.block_bytes;
  if (block == 0 || block % kDirectAlign != 0 || opt.queue_depth == 0)
    throw std::invalid_argument("sequential read probe: a block that is a multiple of 4096 bytes, depth >= 1");
  sequential_probe_result r;
  r.direct = opt.direct;
  std::vector<unique_fd> fds;
  const std::vector<sequential_read> reads = plan_sequential_reads(files, block, r.direct, fds);
  for (const auto& f : files) r.cached_share_before = std::max(r.cached_share_before, drop_cached_pages(f));
  auto q = make_read_queue(opt.engine, opt.queue_depth);
  const std::uint32_t depth = q->depth();
  huge_buffer bufs(depth * block);
  std::vector<read_done> done(depth);
  std::vector<std::uint32_t> free_slots;
  for (std::uint32_t s = depth; s-- > 0;) free_slots.push_back(s);
  std::size_t next = 0, finished = 0;
  std::vector<std::size_t> slot_read(depth);
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  while (finished < reads.size()) {
    for (; next < reads.size() && !free_slots.empty(); ++next) {
      const std::uint32_t s = free_slots.back();
      free_slots.pop_back();
      slot_read[s] = next;
      q->submit(fds[reads[next].file].get(), bufs.data() + s * block, static_cast<std::uint32_t>(block),
                reads[next].offset, s);
    }
    q->flush();
    const std::size_t n = q->reap(done, true);
    for (std::size_t i = 0; i < n; ++i) {
      const auto s = static_cast<std::uint32_t>(done[i].tag);
      const sequential_read& want = reads[slot_read[s]];
      if (done[i].result != static_cast<std::int64_t>(want.bytes))
        throw std::runtime_error(files[want.file].string() + ": sequential read at byte " + std::to_string(want.offset) +
                                 " failed: " +
                                 (done[i].result < 0 ? std::string(std::strerror(static_cast<int>(-done[i].result)))
                                                     : "short read (the file shrank?)"));
      r.bytes += want.bytes;
      free_slots.push_back(s);
      ++finished;
    }
  }
  r.seconds = std::chrono::duration<double>(clock::now() - t0).count();
  r.gib_per_s = r.seconds > 0 ? static_cast<double>(r.bytes) / r.seconds / static_cast<double>(1ull << 30) : 0;
  r.block_bytes = opt.block_bytes;
  r.queue_depth = depth;
  r.engine = q->engine();
  return r;
}

}  // namespace poreplab::storage
