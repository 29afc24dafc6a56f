#pragma once
// Private to poreplab_cpu: SHA-256 padding (FIPS 180-4 5.1.1) as constant chunks. The
// SHA-256 engines read a message as 32-byte chunks from wherever they lie, so a message
// of whole chunks ends in chunks that never change: 0x80, zeros, the 64-bit big-endian
// bit length. They are built here once per message length and pointed at.
#include <cstddef>
#include <cstdint>

namespace poreplab::cpu::detail {

template <std::uint64_t Bytes>
struct sha256_tail {
  static_assert(Bytes % 32 == 0, "a message of whole 32-byte chunks");
  // One chunk when the message ends mid-block, a whole padding block when it ends on one.
  static constexpr std::size_t kChunks = Bytes % 64 == 0 ? 2 : 1;
  static constexpr std::size_t kBlocks = (Bytes + 32 * kChunks) / 64;  // of the padded message

  alignas(64) std::uint8_t bytes[32 * kChunks] = {};
  constexpr sha256_tail() {
    bytes[0] = 0x80;
    for (std::size_t i = 0; i < 8; ++i) bytes[sizeof bytes - 1 - i] = static_cast<std::uint8_t>((Bytes * 8) >> (8 * i));
  }
  constexpr const std::uint8_t* chunk(std::size_t k) const { return bytes + 32 * k; }
};

template <std::uint64_t Bytes>
inline constexpr sha256_tail<Bytes> kSha256Tail{};

}  // namespace poreplab::cpu::detail
