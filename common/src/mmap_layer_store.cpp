#include "poreplab/sdr/mmap_layer_store.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "poreplab/file_io.hpp"
#include "poreplab/memory_check.hpp"

namespace poreplab::sdr {

mmap_layer_store::mmap_layer_store(std::filesystem::path dir, std::uint64_t layer_bytes,
                                   std::function<std::string(std::uint32_t)> file_name, mmap_layer_options opt)
    : dir_(std::move(dir)), bytes_(layer_bytes), file_name_(std::move(file_name)), opt_(opt) {}

mmap_layer_store::~mmap_layer_store() {
  for (auto& m : maps_) unmap(m);
}

void mmap_layer_store::unmap(mapping& m) {
  if (m.data != nullptr) munmap(m.data, bytes_);
  m.data = nullptr;
  if (m.fd >= 0) ::close(m.fd);
  m.fd = -1;
}

std::uint8_t* mmap_layer_store::load_resident(std::uint32_t l) {
  if (resident_.size() != bytes_) {
    require_memory(bytes_, "the previous layer in memory");
    resident_ = huge_buffer(bytes_);
  }
  const auto p = path(l);
  {
    const std::lock_guard<std::mutex> lock(mu_);
    for (auto& m : maps_)
      if (m.layer == l) unmap(m);
  }
  unique_fd fd = open_regular_for_reading(p);
  pread_exact(fd.get(), resident_.data(), bytes_, 0, p);
  // Its pages are in memory once: the copy.
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
  resident_layer_ = l;
  return resident_.data();
}

std::uint8_t* mmap_layer_store::layer(std::uint32_t l) {
  for (auto& m : maps_)
    if (m.layer == l && m.data != nullptr) {
      // Asked for as the previous layer of the one being written.
      if (opt_.resident_previous && m.fd < 0) return load_resident(l);
      return m.data;
    }
  if (opt_.resident_previous && resident_layer_ == l) return resident_.data();
  const auto p = path(l);
  const bool existing = l < opt_.first_new_layer;
  if (existing && opt_.resident_previous) return load_resident(l);
  // A new layer is created new, never through what was at its name, and allocated, not
  // only sized: a sparse file on a full disk would fail the first write to an unbacked
  // page through the mapping with SIGBUS, half-way through a layer. A kept one is a
  // regular file of its size, not a link.
  unique_fd owner = existing ? open_regular_for_reading(p, false) : create_staging_file(p, bytes_);
  struct stat st {};
  if (existing && (::fstat(owner.get(), &st) != 0 || static_cast<std::uint64_t>(st.st_size) != bytes_))
    throw std::runtime_error(p.string() + ": not " + std::to_string(bytes_) + " bytes");
  void* addr = ::mmap(nullptr, bytes_, existing ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, owner.get(), 0);
  if (addr == MAP_FAILED) throw std::runtime_error(p.string() + ": cannot map layer file: " + std::strerror(errno));
  const int fd = owner.release();
  // Parents are read at random: a fault reads its page, not the device's read-ahead
  // around it (8 MiB here), which in a memory cgroup evicts what the next reads need.
  ::madvise(addr, bytes_, MADV_RANDOM);
  const std::lock_guard<std::mutex> lock(mu_);
  maps_.push_back({l, static_cast<std::uint8_t*>(addr), existing ? -1 : fd});
  if (existing) ::close(fd);
  return maps_.back().data;
}

void mmap_layer_store::start_writeback() {
  const std::lock_guard<std::mutex> lock(mu_);
  for (const auto& m : maps_)
    if (m.fd >= 0) poreplab::start_writeback(m.fd);
}

void mmap_layer_store::layer_done(std::uint32_t l) {
  const std::lock_guard<std::mutex> lock(mu_);
  for (auto& m : maps_) {
    if (m.data == nullptr) continue;
    if (m.layer == l) {
      if (::msync(m.data, bytes_, MS_SYNC) != 0)
        throw std::runtime_error(path(l).string() + ": flush failed: " + std::strerror(errno));
      if (m.fd >= 0) ::close(m.fd);
      m.fd = -1;
    }
    if (m.layer + 1 == l) unmap(m);
  }
  if (resident_layer_ + 1 == l) resident_layer_ = 0;
}

}  // namespace poreplab::sdr
