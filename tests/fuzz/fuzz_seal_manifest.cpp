// libFuzzer target: the seal.json reader unseal uses (common/src/seal.cpp). Anything but
// std::runtime_error escaping is a bug; a manifest that parses must be within bounds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "poreplab/sdr/seal.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto m = poreplab::sdr::parse_seal_manifest(text, "seal.json");
    if (m.layers < 1 || m.layers > poreplab::sdr::kMaxLayers || m.nodes < 2 || (m.nodes & (m.nodes - 1)) != 0 ||
        m.sector_bytes / 32 != m.nodes)
      std::abort();
  } catch (const std::runtime_error&) {
  }
  return 0;
}
