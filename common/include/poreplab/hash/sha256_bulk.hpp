#pragma once
// Host SHA-256 of long inputs (file and table digests): the same streaming state as
// sha256::ctx, compressed with the x86 SHA extensions where the CPU has them.
#include <cstddef>
#include <cstdint>

#include "poreplab/hash/sha256.hpp"

namespace poreplab::sha256 {

// The compression `update_bulk` uses on this CPU: "shani" or "portable".
const char* bulk_engine();

// nblocks consecutive 64-byte blocks into h, by the named path (tests compare them).
void compress_blocks_portable(std::uint32_t h[8], const std::uint8_t* p, std::size_t nblocks);
// Only where bulk_engine() is "shani".
void compress_blocks_shani(std::uint32_t h[8], const std::uint8_t* p, std::size_t nblocks);

// sha256::update, with bulk_engine()'s compression.
void update_bulk(ctx& c, const void* data, std::size_t len);

// sha256::digest, with bulk_engine()'s compression.
void digest_bulk(std::uint8_t out[32], const void* data, std::size_t len);

}  // namespace poreplab::sha256
