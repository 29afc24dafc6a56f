#pragma once
// BLAKE2s: 32-bit words, 64-byte blocks, digests of 1..32 bytes, keys of 0..32 bytes.
#include "poreplab/hash/blake2_core.hpp"

namespace poreplab {
using blake2s = blake2::hasher<blake2::traits_s>;
}
