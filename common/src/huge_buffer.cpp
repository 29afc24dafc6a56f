#include "poreplab/huge_buffer.hpp"

#include <sys/mman.h>

#include <new>

#include "poreplab/checked.hpp"
#include <utility>

namespace poreplab {

namespace {
constexpr std::size_t kHugePage = 2u << 20;
}

huge_buffer::huge_buffer(std::size_t bytes) : size_(bytes) {
  if (bytes == 0) return;
  // Over-map by one huge page so the data can start on a 2 MiB boundary.
  map_len_ = checked_add(bytes, bytes >= kHugePage ? kHugePage : 0, "buffer bytes");
  map_ = ::mmap(nullptr, map_len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    throw std::bad_alloc();
  }
  auto addr = reinterpret_cast<std::uintptr_t>(map_);
  if (bytes >= kHugePage) {
    addr = (addr + kHugePage - 1) & ~(kHugePage - 1);
    ::madvise(reinterpret_cast<void*>(addr), bytes & ~(kHugePage - 1), MADV_HUGEPAGE);  // advisory
  }
  data_ = reinterpret_cast<std::uint8_t*>(addr);
}

huge_buffer::huge_buffer(huge_buffer&& o) noexcept
    : map_(std::exchange(o.map_, nullptr)),
      map_len_(std::exchange(o.map_len_, 0)),
      data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)) {}

huge_buffer& huge_buffer::operator=(huge_buffer&& o) noexcept {
  if (this != &o) {
    release();
    map_ = std::exchange(o.map_, nullptr);
    map_len_ = std::exchange(o.map_len_, 0);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

huge_buffer::~huge_buffer() { release(); }

void huge_buffer::release() noexcept {
  if (map_ != nullptr) ::munmap(map_, map_len_);
  map_ = nullptr;
  data_ = nullptr;
  size_ = 0;
}

}  // namespace poreplab
