#include "poreplab/machine_key.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "poreplab/file_io.hpp"
#include "poreplab/hash/hmac_sha256.hpp"
#include "poreplab/hex.hpp"

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

// Reads the key file; empty `why` and true on success. A FIFO there cannot block the read,
// a link is not followed.
bool read_key(const std::filesystem::path& file, machine_key& key, std::string& why) {
  struct stat st {};
  std::string bytes;
  try {
    bytes = read_small_file(file, {.max_bytes = 4096, .follow_links = false}, &st);
  } catch (const std::runtime_error& e) {
    why = e.what();
    return false;
  }
  if (st.st_uid != ::geteuid()) why = file.string() + " belongs to another user";
  else if ((st.st_mode & 022) != 0) why = file.string() + " may be written by others (mode " + mode_text(st.st_mode) + ")";
  else if (bytes.size() != 32) why = file.string() + " holds " + std::to_string(bytes.size()) + " bytes, not 32";
  if (!why.empty()) return false;
  std::copy(bytes.begin(), bytes.end(), key.bytes.begin());
  key.file = file;
  return true;
}

// Writes 32 random bytes into a private staging file and links it into place: a reader
// never sees a partial key, and of two processes creating it, one key wins.
bool create_key(const std::filesystem::path& dir, const std::filesystem::path& file, std::string& why) {
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
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    why = "cannot create " + dir.string() + ": " + ec.message();
    return false;
  }
  const std::filesystem::path tmp = staging_path(file);
  try {
    unique_fd fd = create_staging_file(tmp, 0, 0600);
    pwrite_exact(fd.get(), bytes, sizeof bytes, 0, tmp);
    sync_file(fd.get(), tmp);
  } catch (const std::runtime_error& e) {
    ::unlink(tmp.c_str());
    why = e.what();
    return false;
  }
  const bool linked = ::link(tmp.c_str(), file.c_str()) == 0 || errno == EEXIST;
  if (!linked) why = errno_text("cannot link", file);
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

std::string json_mac(const nlohmann::json& fields, const machine_key& key) {
  const std::string text = fields.dump();
  std::uint8_t mac[32];
  sha256::hmac(mac, key.bytes.data(), key.bytes.size(), text.data(), text.size());
  return to_hex(mac, 32);
}

}  // namespace poreplab
