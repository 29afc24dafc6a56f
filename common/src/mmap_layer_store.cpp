#include "poreplab/sdr/mmap_layer_store.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "poreplab/file_io.hpp"

namespace poreplab::sdr {

mmap_layer_store::mmap_layer_store(std::filesystem::path dir, std::uint64_t layer_bytes,
                                   std::function<std::string(std::uint32_t)> file_name)
    : dir_(std::move(dir)), bytes_(layer_bytes), file_name_(std::move(file_name)) {}

mmap_layer_store::~mmap_layer_store() {
  for (auto& m : maps_) unmap(m);
}

void mmap_layer_store::unmap(mapping& m) {
  if (m.data != nullptr) munmap(m.data, bytes_);
  m.data = nullptr;
}

std::uint8_t* mmap_layer_store::layer(std::uint32_t l) {
  for (auto& m : maps_)
    if (m.layer == l && m.data != nullptr) return m.data;
  const auto p = path(l);
  const int fd = ::open(p.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(p.string() + ": cannot create layer file: " + std::strerror(errno));
  // Allocated, not only sized: a sparse file on a full disk would fail the first write to
  // an unbacked page through the mapping with SIGBUS, half-way through a layer.
  try {
    reserve_file_space(fd, bytes_, p);
  } catch (...) {
    ::close(fd);
    throw;
  }
  void* addr = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  ::close(fd);
  if (addr == MAP_FAILED) throw std::runtime_error(p.string() + ": cannot map layer file: " + std::strerror(err));
  maps_.push_back({l, static_cast<std::uint8_t*>(addr)});
  return maps_.back().data;
}

void mmap_layer_store::layer_done(std::uint32_t l) {
  for (auto& m : maps_) {
    if (m.data == nullptr) continue;
    if (m.layer == l && ::msync(m.data, bytes_, MS_SYNC) != 0)
      throw std::runtime_error(path(l).string() + ": flush failed: " + std::strerror(errno));
    if (m.layer + 1 == l) unmap(m);
  }
}

}  // namespace poreplab::sdr
