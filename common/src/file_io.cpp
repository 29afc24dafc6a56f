#include "poreplab/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "poreplab/hash/sha256_bulk.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/memory_check.hpp"

namespace poreplab {

namespace fs = std::filesystem;

namespace {

std::string errno_text(int e) { return std::system_category().message(e); }

[[noreturn]] void fail(const fs::path& p, const std::string& what) { throw std::runtime_error(p.string() + ": " + what); }

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a plain file";
}

// Opened without blocking (a FIFO without a writer would block open() itself), then
// checked to be a regular file and put back into blocking mode.
int open_regular(const fs::path& p, std::uint64_t& size) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail(p, "cannot open: " + errno_text(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    fail(p, "cannot stat: " + errno_text(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    fail(p, std::string("is ") + kind_of(st.st_mode) + ", not a regular file");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  size = static_cast<std::uint64_t>(st.st_size);
  return fd;
}

template <class Buffer>
Buffer read_all(const fs::path& p) {
  std::uint64_t size = 0;
  const int fd = open_regular(p, size);
  Buffer buf;
  try {
    require_memory(size, p.string());
    buf.resize(static_cast<std::size_t>(size));
  } catch (...) {
    ::close(fd);
    throw;
  }
  std::uint64_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd, reinterpret_cast<char*>(buf.data()) + got, std::min<std::uint64_t>(size - got, 1u << 30));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : 0;
      ::close(fd);
      fail(p, e != 0 ? "read failed: " + errno_text(e)
                     : "read failed: the file shrank from " + std::to_string(size) + " to " + std::to_string(got) +
                           " bytes while being read");
    }
    got += static_cast<std::uint64_t>(n);
  }
  ::close(fd);
  return buf;
}

std::string space_text(std::uint64_t bytes) { return byte_size_text(bytes) + " (" + std::to_string(bytes) + " bytes)"; }

std::uint64_t fd_available(int fd) {
  struct statvfs s {};
  if (::fstatvfs(fd, &s) != 0) return UINT64_MAX;
  return static_cast<std::uint64_t>(s.f_bavail) * s.f_frsize;
}

}  // namespace

std::uint64_t regular_file_size(const fs::path& path) {
  std::uint64_t size = 0;
  ::close(open_regular(path, size));
  return size;
}

std::vector<std::uint8_t> read_regular_file(const fs::path& path) { return read_all<std::vector<std::uint8_t>>(path); }

std::string read_text_file(const fs::path& path) { return read_all<std::string>(path); }

std::string read_text_input(const fs::path& path, std::uint64_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open: " + errno_text(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
    const int e = errno;
    const mode_t m = st.st_mode;
    ::close(fd);
    if (m == 0) fail(path, "cannot stat: " + errno_text(e));
    fail(path, std::string("is ") + kind_of(m) + ", not a file");
  }
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    fail(path, std::to_string(st.st_size) + " bytes: larger than the " + byte_size_text(max_bytes) + " accepted here");
  }
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      fail(path, "read failed: " + errno_text(e));
    }
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes) {
      ::close(fd);
      fail(path, "more than the " + byte_size_text(max_bytes) + " accepted here");
    }
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

std::uint64_t available_disk_bytes(const fs::path& path) {
  struct statvfs s {};
  if (::statvfs(path.c_str(), &s) != 0) return UINT64_MAX;
  return static_cast<std::uint64_t>(s.f_bavail) * s.f_frsize;
}

void require_disk_space(const fs::path& dir, std::uint64_t need) {
  const std::uint64_t have = available_disk_bytes(dir);
  if (have != UINT64_MAX && need > have)
    throw no_space("no space left on " + dir.string() + ": need " + space_text(need) + ", have " + space_text(have));
}

void reserve_file_space(int fd, std::uint64_t bytes, const fs::path& path) {
  if (bytes == 0) return;
  if (bytes > static_cast<std::uint64_t>(INT64_MAX)) fail(path, std::to_string(bytes) + " bytes is not a file size");
  int e = 0;
  do e = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  while (e == EINTR);
  if (e == 0) return;
  if (e == ENOSPC || e == EDQUOT)
    throw no_space("no space left on " + path.parent_path().string() + ": need " + space_text(bytes) + " for " +
                   path.filename().string() + ", have " + space_text(fd_available(fd)));
  if (e == EFBIG)
    throw no_space(path.string() + ": " + std::to_string(bytes) + " bytes exceed the file size limit (ulimit -f)");
  fail(path, "cannot reserve " + space_text(bytes) + ": " + errno_text(e));
}

void write_reserved_file(const fs::path& path, const void* data, std::uint64_t n) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(path, "cannot create: " + errno_text(errno));
  auto give_up = [&] {
    ::close(fd);
    ::unlink(path.c_str());
  };
  try {
    reserve_file_space(fd, n, path);
  } catch (...) {
    give_up();
    throw;
  }
  const auto* p = static_cast<const std::uint8_t*>(data);
  std::uint64_t left = n;
  while (left != 0) {
    const ssize_t w = ::write(fd, p, std::min<std::uint64_t>(left, 1u << 30));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int e = w < 0 ? errno : EIO;
      give_up();
      fail(path, "write failed: " + errno_text(e));
    }
    p += w;
    left -= static_cast<std::uint64_t>(w);
  }
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(path.c_str());
    fail(path, "write failed: " + errno_text(e));
  }
}

unique_fd& unique_fd::operator=(unique_fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

unique_fd::~unique_fd() {
  if (fd_ >= 0) ::close(fd_);
}

unique_fd open_regular_for_reading(const fs::path& path) {
  std::uint64_t size = 0;
  return unique_fd(open_regular(path, size));
}

unique_fd create_reserved_file(const fs::path& path, std::uint64_t bytes) {
  unique_fd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) fail(path, "cannot create: " + errno_text(errno));
  reserve_file_space(fd.get(), bytes, path);
  return fd;
}

void pread_exact(int fd, void* buf, std::uint64_t n, std::uint64_t offset, const fs::path& path) {
  auto* p = static_cast<std::uint8_t*>(buf);
  while (n != 0) {
    const ssize_t r = ::pread(fd, p, std::min<std::uint64_t>(n, 1u << 30), static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail(path, "read failed: " + errno_text(errno));
    if (r == 0) fail(path, "read failed: the file ends at byte " + std::to_string(offset) + ", shorter than expected");
    p += r;
    n -= static_cast<std::uint64_t>(r);
    offset += static_cast<std::uint64_t>(r);
  }
}

void pwrite_exact(int fd, const void* buf, std::uint64_t n, std::uint64_t offset, const fs::path& path) {
  const auto* p = static_cast<const std::uint8_t*>(buf);
  while (n != 0) {
    const ssize_t w = ::pwrite(fd, p, std::min<std::uint64_t>(n, 1u << 30), static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) fail(path, "write failed: " + errno_text(w < 0 ? errno : EIO));
    p += w;
    n -= static_cast<std::uint64_t>(w);
    offset += static_cast<std::uint64_t>(w);
  }
}

void start_writeback(int fd) { ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE); }

void flush_and_drop(int fd, const fs::path& path) {
  if (::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) !=
      0)
    fail(path, "write-back failed: " + errno_text(errno));
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

void sync_file(int fd, const fs::path& path) {
  if (::fsync(fd) != 0) fail(path, "flush failed: " + errno_text(errno));
}

std::string file_sha256_hex(const std::filesystem::path& p, std::uint64_t chunk) {
  unique_fd fd = open_regular_for_reading(p);
  const std::uint64_t size = regular_file_size(p);
  sha256::ctx c;
  sha256::init(c);
  std::vector<std::uint8_t> buf(static_cast<std::size_t>(std::min<std::uint64_t>(chunk, std::max<std::uint64_t>(size, 1))));
  for (std::uint64_t off = 0; off < size; off += buf.size()) {
    const std::uint64_t n = std::min<std::uint64_t>(buf.size(), size - off);
    pread_exact(fd.get(), buf.data(), n, off, p);
    sha256::update_bulk(c, buf.data(), static_cast<std::size_t>(n));
    ::posix_fadvise(fd.get(), static_cast<off_t>(off), static_cast<off_t>(n), POSIX_FADV_DONTNEED);
  }
  std::uint8_t d[32];
  sha256::final(c, d);
  return to_hex(d, 32);
}

}  // namespace poreplab
