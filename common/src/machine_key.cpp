#include "poreplab/machine_key.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace poreplab {

namespace {

constexpr const char* kKeyFile = "seal-key";

std::string env_text(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

std::string mode_text(mode_t m) {
  char t[8];
  std::snprintf(t, sizeof t, "%03o", static_cast<unsigned>(m & 0777));
  return t;
}

std::string errno_text(const std::string& what, const std::filesystem::path& p) {
  return what + " " + p.string() + ": " + std::strerror(errno);
}

// Reads the key file; empty `why` and true on success.
bool read_key(const std::filesystem::path& file, machine_key& key, std::string& why) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    why = errno_text("cannot open", file);
    return false;
  }
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0;
  if (!ok) why = errno_text("cannot stat", file);
  else if (!S_ISREG(st.st_mode)) why = file.string() + " is not a regular file";
  else if (st.st_uid != ::geteuid()) why = file.string() + " belongs to another user";
  else if ((st.st_mode & 022) != 0) why = file.string() + " may be written by others (mode " + mode_text(st.st_mode) + ")";
  else if (st.st_size != 32) why = file.string() + " holds " + std::to_string(st.st_size) + " bytes, not 32";
  ok = ok && why.empty();
  if (ok && ::pread(fd, key.bytes.data(), 32, 0) != 32) {
    why = errno_text("cannot read", file);
    ok = false;
  }
  ::close(fd);
  key.file = file;
  return ok;
}

// Writes 32 random bytes into a private temporary file and links it into place: a reader
// never sees a partial key, and of two processes creating it, one key wins.
bool create_key(const std::filesystem::path& dir, const std::filesystem::path& file, std::string& why) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    why = "cannot create " + dir.string() + ": " + ec.message();
    return false;
  }
  std::uint8_t bytes[32];
  for (std::size_t got = 0; got < sizeof bytes;) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      why = std::string("getrandom: ") + std::strerror(errno);
      return false;
    }
    got += static_cast<std::size_t>(n);
  }
  std::string tmp = (dir / "seal-key-XXXXXX").string();
  const int fd = ::mkstemp(tmp.data());  // mode 0600
  if (fd < 0) {
    why = errno_text("cannot create a file in", dir);
    return false;
  }
  const bool written = ::write(fd, bytes, sizeof bytes) == static_cast<ssize_t>(sizeof bytes) && ::fsync(fd) == 0;
  ::close(fd);
  const bool linked = written && (::link(tmp.c_str(), file.c_str()) == 0 || errno == EEXIST);
  if (!linked) why = errno_text(written ? "cannot link" : "cannot write", file);
  ::unlink(tmp.c_str());
  return linked;
}

}  // namespace

std::filesystem::path state_dir() {
  if (const std::string d = env_text("POREPLAB_STATE_DIR"); !d.empty()) return d;
  if (const std::string d = env_text("XDG_STATE_HOME"); !d.empty()) return std::filesystem::path(d) / "poreplab";
  if (const std::string h = env_text("HOME"); !h.empty()) return std::filesystem::path(h) / ".local" / "state" / "poreplab";
  return {};
}

std::optional<machine_key> load_machine_key(std::string& why) {
  why.clear();
  const std::filesystem::path dir = state_dir();
  if (dir.empty()) {
    why = "no state directory (POREPLAB_STATE_DIR, XDG_STATE_HOME and HOME are unset)";
    return std::nullopt;
  }
  const std::filesystem::path file = dir / kKeyFile;
  machine_key key;
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(file, ec)) && !create_key(dir, file, why))
    return std::nullopt;
  if (!read_key(file, key, why)) return std::nullopt;
  return key;
}

}  // namespace poreplab
