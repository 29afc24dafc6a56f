#include "poreplab/storage/scratch_file.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>

namespace poreplab::storage {

namespace fs = std::filesystem;

unique_fd open_scratch_file(const fs::path& dir, bool direct) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw std::runtime_error(dir.string() + ": not a directory" + (ec ? " (" + ec.message() + ")" : ""));
  const int flags = O_RDWR | O_CLOEXEC | (direct ? O_DIRECT : 0);
  int fd = ::open(dir.c_str(), flags | O_TMPFILE, 0600);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == ENOENT || errno == EINVAL)) {
    // No O_TMPFILE on this filesystem: a fresh name, unlinked as soon as it is open, with
    // every signal that can be held held in between, so an interrupt cannot leave it there.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    std::random_device rd;
    for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
      const fs::path p = dir / (".poreplab-scratch-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
      fd = ::open(p.c_str(), flags | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
      if (fd >= 0) ::unlink(p.c_str());
      else if (errno != EEXIST) break;
    }
    const int e = errno;
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    errno = e;
  }
  if (fd < 0) {
    const int e = errno;
    std::string why = std::strerror(e);
    if (direct && e == EINVAL) why = "its filesystem does not take O_DIRECT (tmpfs, say); use a directory on a disk";
    throw std::runtime_error(dir.string() + ": cannot create a scratch file: " + why);
  }
  return unique_fd(fd);
}

}  // namespace poreplab::storage
