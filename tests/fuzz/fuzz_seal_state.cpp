// libFuzzer target: the seal-state.json reader a resumed seal uses (seal/src/seal.cpp).
// Anything but std::runtime_error escaping is a bug; a state that parses must be within
// bounds: at most the seal's layers, every digest 64 lowercase hex digits.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "poreplab/seal/seal.hpp"

namespace {

bool is_digest(const std::string& d) {
  if (d.size() != 64) return false;
  for (char c : d)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::uint32_t kLayers = 11;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto st = poreplab::seal::parse_seal_state(text, "seal-state.json", kLayers);
    if (st.layers.size() > kLayers || !st.identity.is_object() || !is_digest(st.tree_d_sha256)) std::abort();
    for (const auto& d : st.layers)
      if (!is_digest(d)) std::abort();
  } catch (const std::runtime_error&) {
  }
  return 0;
}
