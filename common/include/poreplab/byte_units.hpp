#pragma once
// Binary byte units, for sizes written as 32 * kGiB.
#include <cstdint>

namespace poreplab {

inline constexpr std::uint64_t kKiB = 1024;
inline constexpr std::uint64_t kMiB = 1024 * kKiB;
inline constexpr std::uint64_t kGiB = 1024 * kMiB;

}  // namespace poreplab
