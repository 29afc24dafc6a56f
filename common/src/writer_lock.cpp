#include "poreplab/writer_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "poreplab/file_io.hpp"

namespace poreplab {

namespace fs = std::filesystem;

std::string being_written(const fs::path& output, const std::string& pid) {
  return output.string() + " is being written by " + (pid.empty() ? std::string("another process") : "process " + pid);
}

namespace {

[[noreturn]] void fail_errno(int e, const fs::path& p) {
  throw std::runtime_error("cannot lock " + p.string() + ": " + std::strerror(e));
}

std::string holder_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string pid(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid;
}

}  // namespace

writer_lock::writer_lock(fs::path file, std::function<std::string(const std::string& pid)> busy, file_after after)
    : file_(std::move(file)), after_(after) {
  // A lock file removed by its holder between our open and our flock would leave us
  // holding a lock on a name nobody else sees: locked, it must still be the file at its name.
  for (int attempt = 0;; ++attempt) {
    // Made here (O_EXCL: the proof refused() needs before it removes it), or the one
    // already there: never through a link planted at its name, never a FIFO that blocks.
    fd_ = ::open(file_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    created_ = fd_ >= 0;
    if (!created_) {
      if (errno != EEXIST) fail_errno(errno, file_);
      fd_ = open_own_file(file_, O_RDWR | O_CREAT).release();
    }
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      const std::string pid = holder_pid(fd_);
      ::close(fd_);
      fd_ = -1;
      if (e != EWOULDBLOCK) fail_errno(e, file_);
      throw output_busy(busy(pid));
    }
    if (holds_name()) break;
    ::close(fd_);
    fd_ = -1;
    if (attempt == 100) fail_errno(EAGAIN, file_);
  }
  // Without the pid the lock still holds; only a second writer's message loses it.
  const std::string me = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) {
    const ssize_t written = ::pwrite(fd_, me.data(), me.size(), 0);
    (void)written;
  }
}

bool writer_lock::holds_name() const noexcept {
  struct stat mine {}, there {};
  return fd_ >= 0 && ::fstat(fd_, &mine) == 0 && ::lstat(file_.c_str(), &there) == 0 && mine.st_dev == there.st_dev &&
         mine.st_ino == there.st_ino;
}

void writer_lock::refused() noexcept {
  if (created_ && holds_name()) ::unlink(file_.c_str());
  created_ = false;
  after_ = file_after::kept;  // one that was there before stays
}

void writer_lock::release() noexcept {
  if (fd_ < 0) return;
  // Removed while still locked: a writer that opened it meanwhile finds it gone and retries.
  if (after_ == file_after::removed && holds_name()) ::unlink(file_.c_str());
  ::close(fd_);
  fd_ = -1;
}

writer_lock::~writer_lock() { release(); }

}  // namespace poreplab
