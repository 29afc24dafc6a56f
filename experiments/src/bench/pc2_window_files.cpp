// PC2 of a node window from files: its scratch files (pc2_window_files.hpp).
#include "bench/pc2_window_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "poreplab/file_io.hpp"
#include "poreplab/interrupt.hpp"
#include "poreplab/storage/disk_probe.hpp"

namespace poreplab {

namespace fs = std::filesystem;

std::string pc2_window_files::layer_name(std::uint32_t l) { return "poreplab-pc2-window-layer-" + std::to_string(l) + ".dat"; }
std::string pc2_window_files::replica_name() { return "poreplab-pc2-window-replica.dat"; }

pc2_window_files::pc2_window_files(const fs::path& dir, std::uint32_t layers, std::uint64_t nodes) : file_bytes_(nodes * 32) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw std::runtime_error(dir.string() + ": no such directory (where the window's layer files go: --layer-dir, or " +
                             "POREPLAB_LAYER_DIR)");
  for (std::uint32_t l = 1; l <= layers; ++l) paths_.push_back(dir / layer_name(l));
  paths_.push_back(dir / replica_name());
  for (const auto& p : paths_)
    if (fs::symlink_status(p, ec).type() != fs::file_type::not_found)
      throw std::runtime_error(p.string() + ": already exists; the window's scratch files are never written over "
                               "(remove it, or name another --layer-dir)");
  require_disk_space(dir, bytes());
  created_.assign(paths_.size(), false);
}

pc2_window_files::~pc2_window_files() {
  for (std::size_t i = 0; i < paths_.size(); ++i)
    if (created_[i]) ::unlink(paths_[i].c_str());
}

void pc2_window_files::write(std::uint32_t input, const std::uint8_t* bytes) {
  const fs::path& p = paths_.at(input);
  if (created_[input]) throw std::logic_error(p.string() + ": written twice");
  const int raw = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (raw < 0) {
    const int e = errno;
    throw std::runtime_error(p.string() + (e == EEXIST ? std::string(": already exists; the window's scratch files "
                                                                     "are never written over")
                                                       : ": cannot create: " + std::string(std::strerror(e))));
  }
  unique_fd fd(raw);
  created_[input] = true;
  registered_.push_back(std::make_unique<registered_path>(p));
  reserve_file_space(fd.get(), file_bytes_, p);
  pwrite_exact(fd.get(), bytes, file_bytes_, 0, p);
  start_writeback(fd.get());
}

double pc2_window_files::sync_and_drop() {
  double most = 0;
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    if (!created_[i]) throw std::logic_error(paths_[i].string() + ": not written");
    const unique_fd fd = open_regular_for_reading(paths_[i]);
    sync_file(fd.get(), paths_[i]);
    const double left = storage::drop_cached_pages(paths_[i]);
    most = left < 0 || most < 0 ? -1 : std::max(most, left);
  }
  return most;
}

seal::pc2_input_files pc2_window_files::inputs() const {
  seal::pc2_input_files f;
  f.layers.assign(paths_.begin(), paths_.end() - 1);
  f.replica = paths_.back();
  f.bytes = file_bytes_;
  f.of_what = "this window's " + std::to_string(file_bytes_ / 32) + " nodes";
  return f;
}

}  // namespace poreplab
