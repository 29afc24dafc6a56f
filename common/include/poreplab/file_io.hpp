#pragma once
// Files the user names can be anything: a FIFO or a device blocks or never ends, a
// directory fails half-way through a read with a C++ library message, a huge file asks
// for more memory than there is. Input files are opened without blocking, must be
// regular files, and their size is checked against memory before anything is allocated.
// Output files reserve their space before they are written (or mapped), so a full disk
// is one clear error instead of SIGBUS half-way through.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace poreplab {

// The size of a regular file; throws std::runtime_error "<path>: cannot open: <reason>"
// or "<path>: is a FIFO, not a regular file" (directory, device, socket likewise).
std::uint64_t regular_file_size(const std::filesystem::path& path);

// The whole contents of a regular file, after require_memory() for its size.
std::vector<std::uint8_t> read_regular_file(const std::filesystem::path& path);
std::string read_text_file(const std::filesystem::path& path);

// A text input the user names (a config, a vector file): a regular file, or a stream
// such as a pipe from `<(...)`, read to its end but refused past max_bytes (/dev/zero
// never ends). A directory or a device other than a character stream is refused.
// Throws std::runtime_error "<path>: <reason>".
std::string read_text_input(const std::filesystem::path& path, std::uint64_t max_bytes);

// A write refused for lack of disk space (or over the file size limit).
struct no_space : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Bytes an unprivileged writer can still put on the filesystem holding `path` (a file
// or directory that exists), or UINT64_MAX when that cannot be asked.
std::uint64_t available_disk_bytes(const std::filesystem::path& path);

// Throws no_space "no space left on <dir>: need X, have Y" when `need` bytes do not fit.
void require_disk_space(const std::filesystem::path& dir, std::uint64_t need);

// Allocates `bytes` for the open file `fd` (posix_fallocate), so writes through a
// mapping cannot fail later. Throws no_space "no space left on <path>: need X, have Y",
// or "<path>: <bytes> bytes exceed the file size limit (ulimit -f)", or a
// std::runtime_error with the system's reason.
void reserve_file_space(int fd, std::uint64_t bytes, const std::filesystem::path& path);

// Creates (or truncates) `path`, reserves `n` bytes, writes them and closes it; on
// failure removes what it created and throws naming the path.
void write_reserved_file(const std::filesystem::path& path, const void* data, std::uint64_t n);

// An open file descriptor, closed when it goes out of scope.
class unique_fd {
 public:
  unique_fd() = default;
  explicit unique_fd(int fd) : fd_(fd) {}
  unique_fd(unique_fd&& o) noexcept : fd_(o.release()) {}
  unique_fd& operator=(unique_fd&& o) noexcept;
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd();
  int get() const { return fd_; }
  int release() noexcept {
    const int f = fd_;
    fd_ = -1;
    return f;
  }

 private:
  int fd_ = -1;
};

// Opens `path` read-only (a regular file: see regular_file_size) or creates/truncates it
// for writing with `bytes` reserved. Throw std::runtime_error naming the path.
unique_fd open_regular_for_reading(const std::filesystem::path& path);
unique_fd create_reserved_file(const std::filesystem::path& path, std::uint64_t bytes);

// Exactly n bytes at offset, or std::runtime_error naming the path (a short read is "the
// file shrank").
void pread_exact(int fd, void* buf, std::uint64_t n, std::uint64_t offset, const std::filesystem::path& path);
void pwrite_exact(int fd, const void* buf, std::uint64_t n, std::uint64_t offset, const std::filesystem::path& path);

// Writes back the file's dirty pages, waits for them and drops its cached pages. A file
// written or read chunk by chunk then holds no page cache, which a memory cgroup counts
// against its limit and cannot reclaim while it is dirty.
void flush_and_drop(int fd, const std::filesystem::path& path);
// Starts writing back the file's dirty pages without waiting.
void start_writeback(int fd);
// fsync, or std::runtime_error naming the path.
void sync_file(int fd, const std::filesystem::path& path);

// The SHA-256 (lowercase hex) of a regular file read in chunks, each dropped from the page
// cache once hashed (a memory cgroup counts those pages).
std::string file_sha256_hex(const std::filesystem::path& path, std::uint64_t chunk = std::uint64_t{16} << 20);

}  // namespace poreplab
