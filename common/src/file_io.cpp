#include "poreplab/file_io.hpp"

#include <fcntl.h>
#include <signal.h>
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

// The file a staging name is for: "<name>.tmp" and "<name>.tmp.<pid>" are named as
// <name> when a write fails, the file the user asked for (a staging name means nothing
// to them). Only on the writing side: a file the user gives may well end in ".tmp".
fs::path staged_for(const fs::path& p) {
  const std::string n = p.filename().string();
  const auto at = n.rfind(".tmp");
  if (at == std::string::npos || at == 0) return p;
  const std::string rest = n.substr(at + 4);
  const bool pid = rest.size() > 1 && rest[0] == '.' &&
                   std::all_of(rest.begin() + 1, rest.end(), [](char c) { return c >= '0' && c <= '9'; });
  return rest.empty() || pid ? p.parent_path() / n.substr(0, at) : p;
}

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a plain file";
}

// Opened without blocking (a FIFO without a writer would block open() itself), fstat'ed
// and put back into blocking mode. A refused symbolic link (O_NOFOLLOW) is named as such.
unique_fd open_nonblocking(const fs::path& p, int flags, struct stat& st) {
  unique_fd fd(::open(p.c_str(), flags | O_NONBLOCK | O_CLOEXEC, 0644));
  if (fd.get() < 0 && errno == ELOOP && (flags & O_NOFOLLOW) != 0)
    fail(p, "is a symbolic link, where poreplab keeps a file of its own (not followed: remove it)");
  if (fd.get() < 0) fail(p, "cannot open: " + errno_text(errno));
  if (::fstat(fd.get(), &st) != 0) fail(p, "cannot stat: " + errno_text(errno));
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  return fd;
}

unique_fd open_regular(const fs::path& p, std::uint64_t& size, bool follow_links = true) {
  struct stat st {};
  unique_fd fd = open_nonblocking(p, O_RDONLY | (follow_links ? 0 : O_NOFOLLOW), st);
  if (!S_ISREG(st.st_mode)) fail(p, std::string("is ") + kind_of(st.st_mode) + ", not a regular file");
  size = static_cast<std::uint64_t>(st.st_size);
  return fd;
}

// Reads to the end, refused past max_bytes (a file that grew, a stream that never ends).
std::string read_bounded(int fd, const fs::path& p, std::uint64_t max_bytes) {
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(p, "read failed: " + errno_text(errno));
    if (n == 0) return text;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes)
      fail(p, "more than the " + byte_size_text(max_bytes) + " accepted here");
    text.append(buf, static_cast<std::size_t>(n));
  }
}

template <class Buffer>
Buffer read_all(const fs::path& p) {
  std::uint64_t size = 0;
  const unique_fd fd = open_regular(p, size);
  require_memory(size, p.string());
  Buffer buf;
  buf.resize(static_cast<std::size_t>(size));
  std::uint64_t got = 0;
  while (got < size) {
    const ssize_t n =
        ::read(fd.get(), reinterpret_cast<char*>(buf.data()) + got, std::min<std::uint64_t>(size - got, 1u << 30));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(p, "read failed: " + errno_text(errno));
    if (n == 0)
      fail(p, "read failed: the file shrank from " + std::to_string(size) + " to " + std::to_string(got) +
                  " bytes while being read");
    got += static_cast<std::uint64_t>(n);
  }
  return buf;
}

std::string space_text(std::uint64_t bytes) { return byte_size_text(bytes) + " (" + std::to_string(bytes) + " bytes)"; }

std::uint64_t fd_available(int fd) {
  struct statvfs s {};
  if (::fstatvfs(fd, &s) != 0) return UINT64_MAX;
  return static_cast<std::uint64_t>(s.f_bavail) * s.f_frsize;
}

}  // namespace

void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: the rename itself is atomic
  ::fsync(fd);
  ::close(fd);
}

std::uint64_t regular_file_size(const fs::path& path) {
  std::uint64_t size = 0;
  open_regular(path, size);
  return size;
}

bool regular_file_exists(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return false;
    fail(path, "cannot stat: " + errno_text(errno));
  }
  if (!S_ISREG(st.st_mode)) fail(path, std::string("is ") + kind_of(st.st_mode) + ", not a regular file");
  return true;
}

std::vector<std::uint8_t> read_regular_file(const fs::path& path) { return read_all<std::vector<std::uint8_t>>(path); }

std::string read_text_file(const fs::path& path) { return read_all<std::string>(path); }

std::string read_small_file(const fs::path& path, const small_file_rules& rules, struct stat* info) {
  struct stat st {};
  const unique_fd fd = open_nonblocking(path, O_RDONLY | (rules.follow_links ? 0 : O_NOFOLLOW), st);
  const bool stream = S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode);
  if (!S_ISREG(st.st_mode) && !(rules.streams && stream))
    fail(path, std::string("is ") + kind_of(st.st_mode) + (rules.streams ? ", not a file" : ", not a regular file"));
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > rules.max_bytes)
    fail(path, std::to_string(st.st_size) + " bytes: larger than the " + byte_size_text(rules.max_bytes) +
                   " accepted here");
  if (info != nullptr) *info = st;
  return read_bounded(fd.get(), path, rules.max_bytes);
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
  const fs::path shown = staged_for(path);
  if (e == ENOSPC || e == EDQUOT)
    throw no_space("no space left on " + path.parent_path().string() + ": need " + space_text(bytes) + " for " +
                   shown.filename().string() + ", have " + space_text(fd_available(fd)));
  if (e == EFBIG)
    throw no_space(shown.string() + ": " + std::to_string(bytes) + " bytes exceed the file size limit (ulimit -f)");
  fail(shown, "cannot reserve " + space_text(bytes) + ": " + errno_text(e));
}

unique_fd create_staging_file(const fs::path& path, std::uint64_t bytes, mode_t mode) {
  // Only what poreplab could have left there is removed: a regular file or a symbolic link
  // (unlinked, never followed). Asked first, so that a read-only filesystem reports the
  // create, not the removal of a name that never existed.
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    require_replaceable(path, "a file of poreplab's own");
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
      fail(staged_for(path), "cannot remove what is there: " + errno_text(errno));
  }
  unique_fd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (fd.get() < 0) {
    const int e = errno;
    if (::lstat(path.c_str(), &st) == 0) require_replaceable(path, "a file of poreplab's own");
    // What keeps a file from being made in a directory is the directory's: it is named,
    // never the staging name in it.
    const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    if (e == ENOENT || e == ENOTDIR) fail(dir, "no such directory");
    if (e == EACCES || e == EPERM || e == EROFS || e == ENOSPC || e == EDQUOT)
      fail(dir, "cannot create a file there: " + errno_text(e));
    fail(staged_for(path), "cannot create: " + errno_text(e));
  }
  try {
    reserve_file_space(fd.get(), bytes, path);
  } catch (...) {
    ::unlink(path.c_str());
    throw;
  }
  return fd;
}

void write_staging_file(const fs::path& path, const void* data, std::uint64_t n) {
  unique_fd fd = create_staging_file(path, n);
  try {
    pwrite_exact(fd.get(), data, n, 0, path);
    sync_file(fd.get(), path);
    if (::close(fd.release()) != 0) fail(staged_for(path), "write failed: " + errno_text(errno));
  } catch (...) {
    ::unlink(path.c_str());
    throw;
  }
}

fs::path staging_path(const fs::path& path) { return path.string() + ".tmp." + std::to_string(::getpid()); }

void remove_stale_staging_files(const fs::path& path) {
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  const std::string prefix = path.filename().string() + ".tmp.";
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(prefix) || name.size() == prefix.size() || name.size() - prefix.size() > 9) continue;
    const std::string digits = name.substr(prefix.size());
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    // A process of that id that is still alive may be writing it (or another process
    // reuses the id: its file then stays until a later run).
    const auto pid = static_cast<pid_t>(std::stol(digits));
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
      ::unlink(it->path().c_str());
  }
}

void write_file_atomic(const fs::path& path, std::string_view content, const fs::path& staging) {
  const fs::path tmp = staging.empty() ? staging_path(path) : staging;
  require_replaceable(path, "this file");
  if (staging.empty()) remove_stale_staging_files(path);
  write_staging_file(tmp, content.data(), content.size());
  try {
    rename_into_place(tmp, path);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  sync_directory(path.parent_path());
}

unique_fd open_own_file(const fs::path& path, int flags) {
  struct stat st {};
  unique_fd fd = open_nonblocking(path, flags | O_NOFOLLOW, st);
  if (!S_ISREG(st.st_mode)) fail(path, std::string("is ") + kind_of(st.st_mode) + ", not a regular file");
  return fd;
}

void rename_into_place(const fs::path& from, const fs::path& to) {
  // Checked just before the rename: a FIFO or a device made at the name during the work
  // is not replaced either.
  require_replaceable(to, "a file");
  if (::rename(from.c_str(), to.c_str()) == 0) return;
  const int e = errno;
  struct stat st {};
  if ((e == EISDIR || e == ENOTEMPTY || e == EEXIST) && ::lstat(to.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    fail(to, "is a directory, where poreplab writes a file: remove it or write elsewhere");
  fail(to, "cannot rename " + from.filename().string() + " into place: " + errno_text(e));
}

void require_replaceable(const fs::path& path, const std::string& what) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) return;
  if (S_ISDIR(st.st_mode)) fail(path, "is a directory, where " + what + " goes: remove it or write elsewhere");
  fail(path, std::string("is ") + kind_of(st.st_mode) + ", where " + what +
                 " goes: poreplab replaces only a regular file or a symbolic link (remove it or write elsewhere)");
}

void refuse_existing_output(const fs::path& path, bool force) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) fail(path, "is a directory, not an output file");
  if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
    fail(path, std::string("is ") + kind_of(st.st_mode) +
                   ", not an output file poreplab replaces (only a regular file or a symbolic link, even with --force)");
  if (!force) fail(path, "already exists; pass --force to replace it");
}

void make_directories(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::error_code made = ec;  // the questions below reset ec
  if (fs::is_directory(dir, ec)) return;
  if (fs::exists(fs::symlink_status(dir, ec))) fail(dir, "exists and is not a directory");
  for (fs::path up = dir.parent_path(); !up.empty() && up != up.root_path(); up = up.parent_path())
    if (fs::exists(fs::symlink_status(up, ec)) && !fs::is_directory(up, ec))
      fail(dir, "cannot create: " + up.string() + " is not a directory");
  if (made) fail(dir, "cannot create the directory: " + errno_text(made.value()));
  // No reason given: the directory itself is made once more to learn why not.
  const int e = ::mkdir(dir.c_str(), 0755) == 0 ? 0 : errno;
  if (e == 0 || fs::is_directory(dir, ec)) return;
  fail(dir, "cannot create the directory: " + errno_text(e));
}

void check_own_directory(const fs::path& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    fail(dir, "cannot inspect: " + errno_text(errno));
  }
  if (S_ISDIR(st.st_mode)) return;
  fail(dir, std::string("is ") + (S_ISLNK(st.st_mode) ? "a link" : S_ISREG(st.st_mode) ? "a file" : kind_of(st.st_mode)) +
                ", where poreplab makes its own directory: remove it or write elsewhere");
}

void make_own_directory(const fs::path& dir) {
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
    fail(dir, "cannot create the directory: " + errno_text(errno));
  check_own_directory(dir);
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

unique_fd open_regular_for_reading(const fs::path& path, bool follow_links) {
  std::uint64_t size = 0;
  return open_regular(path, size, follow_links);
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
    if (w <= 0) fail(staged_for(path), "write failed: " + errno_text(w < 0 ? errno : EIO));
    p += w;
    n -= static_cast<std::uint64_t>(w);
    offset += static_cast<std::uint64_t>(w);
  }
}

void start_writeback(int fd) { ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE); }

void flush_and_drop(int fd, const fs::path& path) {
  if (::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) !=
      0)
    fail(staged_for(path), "write-back failed: " + errno_text(errno));
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

void sync_file(int fd, const fs::path& path) {
  if (::fsync(fd) != 0) fail(staged_for(path), "flush failed: " + errno_text(errno));
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
