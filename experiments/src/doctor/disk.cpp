#include "doctor/disk.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "poreplab/file_io.hpp"
#include "poreplab/huge_buffer.hpp"
#include "poreplab/storage/read_queue.hpp"
#include "poreplab/storage/scratch_file.hpp"

namespace poreplab::doctor {

namespace {

namespace fs = std::filesystem;
using steady = std::chrono::steady_clock;

constexpr std::size_t kBlock = std::size_t{1} << 20;
constexpr std::size_t kPage = 4096;
constexpr std::uint64_t kMinFile = std::uint64_t{16} << 20;
constexpr std::uint32_t kQueueDepth = 32;

double since(steady::time_point t0) { return std::chrono::duration<double>(steady::now() - t0).count(); }

std::string errno_text(int err) { return std::strerror(err); }


// Gives the file's blocks back now rather than at close.
void release_blocks(int fd) {
  if (::ftruncate(fd, 0) != 0) return;
}

// Random 4 KiB reads over the first `pages` pages, `depth` in flight (storage's read
// queue: io_uring where it works), for `seconds`; reads per second, 0 with `error` set.
double random_reads(int fd, std::uint64_t pages, std::uint32_t depth, double seconds, std::mt19937_64& rng,
                    std::string& error) {
  try {
    auto q = storage::make_read_queue(storage::io_engine::automatic, depth);
    huge_buffer bufs(depth * kPage);
    std::vector<storage::read_done> done(depth);
    std::uint64_t reads = 0;
    std::uint32_t outstanding = 0;
    const auto t = steady::now();
    auto issue = [&](std::uint64_t slot) {
      q->submit(fd, bufs.data() + slot * kPage, kPage, (rng() % pages) * kPage, slot);
      ++outstanding;
    };
    for (std::uint32_t s = 0; s < depth; ++s) issue(s);
    q->flush();
    while (outstanding > 0) {
      const std::size_t n = q->reap(done, true);
      const bool more = since(t) < seconds;
      for (std::size_t i = 0; i < n; ++i) {
        --outstanding;
        if (done[i].result != static_cast<std::int64_t>(kPage)) {
          error = "random read: " + (done[i].result < 0 ? errno_text(static_cast<int>(-done[i].result)) : std::string("short read"));
          return 0;
        }
        ++reads;
        if (more) issue(done[i].tag);
      }
      q->flush();
    }
    return static_cast<double>(reads) / since(t);
  } catch (const std::exception& e) {
    error = std::string("random read: ") + e.what();
    return 0;
  }
}

struct free_deleter {
  void operator()(void* p) const { std::free(p); }
};

}  // namespace

disk_result measure_disk(const fs::path& dir, double seconds, std::uint64_t free_bytes, std::uint64_t max_bytes) {
  disk_result r;
  const auto t0 = steady::now();
  const std::uint64_t target = std::min(max_bytes, free_bytes / 4) / kBlock * kBlock;
  if (target < kMinFile) {
    r.error = "less than " + std::to_string(4 * kMinFile >> 20) + " MiB free";
    return r;
  }
  unique_fd fd;
  try {
    fd = storage::open_scratch_file(dir, false);
  } catch (const std::exception& e) {
    r.error = e.what();
    return r;
  }
  const int flags = ::fcntl(fd.get(), F_GETFL);
  r.o_direct = flags >= 0 && ::fcntl(fd.get(), F_SETFL, flags | O_DIRECT) == 0;
  if (!r.o_direct) r.o_direct_error = errno_text(errno);
  std::unique_ptr<std::uint8_t, free_deleter> buf(static_cast<std::uint8_t*>(std::aligned_alloc(kPage, kBlock)));
  if (!buf) {
    r.error = "cannot allocate the test buffer";
    return r;
  }
  // Incompressible bytes: a device that compresses or deduplicates would flatter zeros.
  std::mt19937_64 rng(0x646f63746f72ull);
  for (std::size_t i = 0; i < kBlock; i += 8) {
    const std::uint64_t v = rng();
    std::memcpy(buf.get() + i, &v, 8);
  }

  // Sequential writes, then sequential reads, then random 4 KiB reads: 40/30/30 of the time.
  const double write_s = 0.4 * seconds, read_s = 0.3 * seconds, random_s = 0.3 * seconds;
  auto t = steady::now();
  std::uint64_t written = 0;
  while (written < target && (written == 0 || since(t) < write_s)) {
    const ssize_t n = ::pwrite(fd.get(), buf.get(), kBlock, static_cast<off_t>(written));
    if (n < 0 && errno == EINVAL && r.o_direct && written == 0) {
      // Some filesystems take the flag and refuse the I/O.
      r.o_direct = false;
      r.o_direct_error = errno_text(EINVAL) + " on the first write";
      ::fcntl(fd.get(), F_SETFL, flags);
      continue;
    }
    if (n != static_cast<ssize_t>(kBlock)) {
      // A short write stopped at a limit (ulimit -f, a full disk): writing the rest says which.
      const ssize_t rest = n < 0 ? -1 : ::pwrite(fd.get(), buf.get() + n, kBlock - static_cast<std::size_t>(n),
                                                 static_cast<off_t>(written) + n);
      r.error = "write: " + (rest < 0 ? errno_text(errno) : std::string("short write"));
      break;
    }
    written += kBlock;
  }
  if (r.error.empty() && ::fdatasync(fd.get()) != 0) r.error = "fdatasync: " + errno_text(errno);
  const double wrote_in = since(t);
  r.file_bytes = written;
  if (!r.error.empty() || written == 0) {
    release_blocks(fd.get());
    return r;
  }
  r.write_bytes_per_s = static_cast<double>(written) / wrote_in;
  // Buffered I/O reads what the page cache still holds: drop it first.
  if (!r.o_direct) (void)::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);

  t = steady::now();
  std::uint64_t read = 0;
  while (read < written && (read == 0 || since(t) < read_s)) {
    const ssize_t n = ::pread(fd.get(), buf.get(), kBlock, static_cast<off_t>(read));
    if (n != static_cast<ssize_t>(kBlock)) {
      r.error = "read: " + (n < 0 ? errno_text(errno) : std::string("short read"));
      break;
    }
    read += kBlock;
  }
  if (r.error.empty()) r.read_bytes_per_s = static_cast<double>(read) / since(t);

  if (r.error.empty()) {
    if (!r.o_direct) (void)::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
    r.random_reads_per_s = random_reads(fd.get(), written / kPage, 1, random_s / 2, rng, r.error);
    if (r.error.empty()) {
      r.queue_depth = kQueueDepth;
      r.random_reads_per_s_at_depth = random_reads(fd.get(), written / kPage, kQueueDepth, random_s / 2, rng, r.error);
    }
  }
  release_blocks(fd.get());
  r.ran = r.error.empty();
  r.seconds = since(t0);
  return r;
}

}  // namespace poreplab::doctor
