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

namespace poreplab::doctor {

namespace {

namespace fs = std::filesystem;
using steady = std::chrono::steady_clock;

constexpr std::size_t kBlock = std::size_t{1} << 20;
constexpr std::size_t kPage = 4096;
constexpr std::uint64_t kMinFile = std::uint64_t{16} << 20;

double since(steady::time_point t0) { return std::chrono::duration<double>(steady::now() - t0).count(); }

std::string errno_text(int err) { return std::strerror(err); }

class fd_guard {
 public:
  explicit fd_guard(int fd) : fd_(fd) {}
  ~fd_guard() {
    if (fd_ >= 0) ::close(fd_);
  }
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// A file in `dir` that has no name: O_TMPFILE, else a named file unlinked at once. Between
// creating and unlinking that one, every signal that can be held is held, so an interrupt
// cannot leave it behind (SIGKILL cannot be held: its window is two system calls).
int open_unnamed(const fs::path& dir, std::string& why) {
#ifdef O_TMPFILE
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  // Filesystems without O_TMPFILE answer EOPNOTSUPP (EISDIR or EINVAL on older kernels).
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
    why = dir.string() + ": " + errno_text(errno);
    return -1;
  }
#endif
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  std::string path = (dir / ".poreplab-doctor-XXXXXX").string();
  const int named = ::mkostemp(path.data(), O_CLOEXEC);
  const int err = errno;
  if (named >= 0) ::unlink(path.c_str());
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (named < 0) why = dir.string() + ": " + errno_text(err);
  return named;
}

// Gives the file's blocks back now rather than at close.
void release_blocks(int fd) {
  if (::ftruncate(fd, 0) != 0) return;
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
  const fd_guard fd(open_unnamed(dir, r.error));
  if (fd.get() < 0) return r;
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
      r.error = "write: " + (n < 0 ? errno_text(errno) : std::string("short write"));
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
    const std::uint64_t pages = written / kPage;
    std::uint64_t reads = 0;
    t = steady::now();
    while (reads == 0 || since(t) < random_s) {
      const std::uint64_t page = rng() % pages;
      if (::pread(fd.get(), buf.get(), kPage, static_cast<off_t>(page * kPage)) != static_cast<ssize_t>(kPage)) {
        r.error = "random read: " + errno_text(errno);
        break;
      }
      ++reads;
    }
    if (r.error.empty()) r.random_reads_per_s = static_cast<double>(reads) / since(t);
  }
  release_blocks(fd.get());
  r.ran = r.error.empty();
  r.seconds = since(t0);
  return r;
}

}  // namespace poreplab::doctor
