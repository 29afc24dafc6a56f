#pragma once
// The SASS that the build embedded for the GPU latency model (cmake/sass_embed.cmake
// generates the definitions): per architecture, the kernels' disassembly in chunks.
#include <cstddef>

namespace poreplab::gpu_model::embedded {

struct sass_blob {
  const char* arch;            // "sm_80"
  const char* const* chunks;   // concatenated: cuobjdump -sass text, compacted
  std::size_t chunk_count;
  const char* resources;       // "<mangled name> REG:<n> STACK:<n>" lines
};

// Why there is no SASS ("no SASS in this build (built without CUDA)"), or "".
const char* note();
const sass_blob* blobs();
std::size_t blob_count();

}  // namespace poreplab::gpu_model::embedded
