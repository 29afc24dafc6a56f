#pragma once
// Files the user names can be anything: a FIFO or a device blocks or never ends, a
// directory fails half-way through a read with a C++ library message, a huge file asks
// for more memory than there is, a symbolic link planted at a name the tool writes sends
// the write elsewhere. Input files are opened without blocking, must be regular files,
// and their size is checked before anything is allocated. Output files are created new
// (never opened through what is already at their name), reserve their space before they
// are written (or mapped), so a full disk is one clear error instead of SIGBUS, and
// become visible by a rename once complete.
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace poreplab {

// The size of a regular file; throws std::runtime_error "<path>: cannot open: <reason>"
// or "<path>: is a FIFO, not a regular file" (directory, device, socket likewise).
std::uint64_t regular_file_size(const std::filesystem::path& path);

// Whether anything is at `path` (links followed, nothing opened); throws "<path>: is a
// FIFO, not a regular file" (directory, device, socket likewise) when what is there is not
// a regular file.
bool regular_file_exists(const std::filesystem::path& path);

// The whole contents of a regular file, after require_memory() for its size.
std::vector<std::uint8_t> read_regular_file(const std::filesystem::path& path);
std::string read_text_file(const std::filesystem::path& path);

// How read_small_file takes a file.
struct small_file_rules {
  std::uint64_t max_bytes = 0;
  // false for a file the tool writes itself (a state file, a key, a cache): a symbolic
  // link there was planted, and is refused (O_NOFOLLOW).
  bool follow_links = true;
  // A stream the user names, such as a pipe from `<(...)`, is read to its end (refused
  // past max_bytes: /dev/zero never ends). Otherwise only a regular file is read.
  bool streams = false;
};

// The one way a small file is read whole (keys, caches, configs, records, vectors,
// manifests): opened with O_NONBLOCK (a FIFO without a writer cannot block the open), then
// fstat'ed and refused unless a regular file (or, where allowed, a stream) of at most
// max_bytes. Throws std::runtime_error "<path>: is a FIFO, not a regular file", "<path>:
// N bytes: larger than the X accepted here", ... `info` receives the fstat when given.
std::string read_small_file(const std::filesystem::path& path, const small_file_rules& rules,
                            struct stat* info = nullptr);

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

// Opens `path` read-only, without blocking, and checks that it is a regular file (see
// regular_file_size); with follow_links false a symbolic link is refused. Throws
// std::runtime_error naming the path.
unique_fd open_regular_for_reading(const std::filesystem::path& path, bool follow_links = true);

// The one way a file is created for writing, always under a staging name that is renamed
// into place once the file is complete. A regular file or a symbolic link at `path` is
// removed first (a leftover of an interrupted run, or a link planted there: unlinked,
// never followed); anything else there (a directory, FIFO, device, socket) is refused.
// The file is then created with O_CREAT | O_EXCL | O_NOFOLLOW, so nothing that was there
// is ever written through (a name that reappears in between is an error). `bytes` are
// reserved. Throws std::runtime_error naming the path, or its directory when the file
// cannot be made there ("<dir>: no such directory"). Here and in the writes below
// (pwrite_exact, sync_file, flush_and_drop), a staging name "<name>.tmp" or
// "<name>.tmp.<pid>" is named as <name>, the file the user knows.
unique_fd create_staging_file(const std::filesystem::path& path, std::uint64_t bytes, mode_t mode = 0644);

// create_staging_file, then `n` bytes written and fsynced; on failure the file is removed.
void write_staging_file(const std::filesystem::path& path, const void* data, std::uint64_t n);

// The staging name write_file_atomic uses for `path`: "<path>.tmp.<pid>".
std::filesystem::path staging_path(const std::filesystem::path& path);

// Removes "<path>.tmp.<pid>" files whose process is gone: what a killed writer left (a
// failure removes its own). Regular files and links only; nothing else is touched.
void remove_stale_staging_files(const std::filesystem::path& path);

// Replaces `path` whole: `content` staged (write_staging_file) at `staging` (default
// staging_path; a killed writer's are removed first), renamed over `path`, the directory
// fsynced. A reader sees the old file or the new one, never a part; a failure leaves the
// old one.
void write_file_atomic(const std::filesystem::path& path, std::string_view content,
                       const std::filesystem::path& staging = {});

// A file poreplab keeps and updates in place (a results directory's records.jsonl, opened
// to append, and its .lock): opened with `flags` (O_WRONLY | O_APPEND | O_CREAT, ...) and
// O_NOFOLLOW | O_NONBLOCK, so a link planted there or a FIFO is refused, not written
// through or waited on; it must be a regular file. Throws naming the path.
unique_fd open_own_file(const std::filesystem::path& path, int flags);

// fsync of a directory, after a rename in it (best effort: the rename itself is atomic).
void sync_directory(const std::filesystem::path& dir);

// rename(from, to), after require_replaceable(to); a `to` that is a directory is named as such.
void rename_into_place(const std::filesystem::path& from, const std::filesystem::path& to);

// What poreplab replaces is only what it could have written: a regular file, or a
// symbolic link (replaced, never followed). Throws "<path>: is a directory, where <what>
// goes: ..." or "<path>: is a FIFO, where <what> goes: ..." (a device or socket likewise),
// checked before the work as well as at the rename. Nothing at `path` is fine.
void require_replaceable(const std::filesystem::path& path, const std::string& what);

// An output file the user names (-o FILE): an existing one is refused unless `force`
// ("<path>: already exists; pass --force to replace it"); what require_replaceable refuses
// (a directory, FIFO, device, socket) always.
void refuse_existing_output(const std::filesystem::path& path, bool force);

// create_directories, with a file in the way named: "<path>: exists and is not a directory".
void make_directories(const std::filesystem::path& dir);

// A directory poreplab makes inside a directory it writes (a results directory's plots/):
// absent, or a real directory. A link planted at its name, or anything else there, is
// refused ("<path>: is a link, where poreplab makes its own directory: ..."), never
// written through. check_own_directory only checks (before the work); make_own_directory
// also creates it (mkdir, its parent must exist).
void check_own_directory(const std::filesystem::path& dir);
void make_own_directory(const std::filesystem::path& dir);

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
