#pragma once
// BLAKE2b: 64-bit words, 128-byte blocks, digests of 1..64 bytes, keys of 0..64 bytes.
#include "poreplab/hash/blake2_core.hpp"

namespace poreplab {
using blake2b = blake2::hasher<blake2::traits_b>;
}
