#pragma once
// One writer of an output at a time. Two processes writing one results directory, one
// sealed directory or one unsealed file would each remove or rename the other's staging
// files and leave a mix of both. The lock is an exclusive flock on a lock file beside
// (or in) the output, with the holder's pid in it: it goes with the process however it
// ends, SIGKILL included, so a stale lock file never blocks the next writer.
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>

namespace poreplab {

// The lock file of a directory: <dir>/.lock.
inline constexpr const char* kLockFile = ".lock";

// Another process holds the lock.
struct output_busy : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "<output> is being written by process N" (or "by another process" when its pid is not
// in the lock file yet).
std::string being_written(const std::filesystem::path& output, const std::string& pid);

class writer_lock {
 public:
  // What release() does with the lock file: a results directory keeps its .lock; a sealed
  // directory or an output file is left as an uninterrupted writer leaves it.
  enum class file_after { kept, removed };
  // Takes the lock on `file` (created if missing, never through a link planted there or a
  // FIFO) or throws output_busy with busy(<holder's pid>, "" when unknown). Other failures
  // are std::runtime_error "cannot lock <file>: <reason>".
  writer_lock(std::filesystem::path file, std::function<std::string(const std::string& pid)> busy,
              file_after after = file_after::kept);
  ~writer_lock();
  writer_lock(const writer_lock&) = delete;
  writer_lock& operator=(const writer_lock&) = delete;
  // Unlocks (once), removing the lock file first when it is `removed` and still the file
  // this lock holds.
  void release() noexcept;
  // The writer is refused before its first write: the lock file goes if this lock made it,
  // so the output is left as it was found (one that was there before stays).
  void refused() noexcept;

 private:
  bool holds_name() const noexcept;
  std::filesystem::path file_;
  file_after after_;
  bool created_ = false;
  int fd_ = -1;
};

}  // namespace poreplab
