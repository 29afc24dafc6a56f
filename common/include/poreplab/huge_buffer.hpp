#pragma once
// Zero-filled host memory that asks the kernel for transparent huge pages. Labeling
// reads parents at random across whole layers and the parent table; with 4 KiB pages
// most of those reads also miss the TLB.
#include <cstddef>
#include <cstdint>

namespace poreplab {

class huge_buffer {
 public:
  huge_buffer() = default;
  explicit huge_buffer(std::size_t bytes);  // throws std::bad_alloc
  huge_buffer(huge_buffer&& o) noexcept;
  huge_buffer& operator=(huge_buffer&& o) noexcept;
  huge_buffer(const huge_buffer&) = delete;
  huge_buffer& operator=(const huge_buffer&) = delete;
  ~huge_buffer();

  std::uint8_t* data() { return data_; }
  const std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  void release() noexcept;
  void* map_ = nullptr;
  std::size_t map_len_ = 0;
  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace poreplab
