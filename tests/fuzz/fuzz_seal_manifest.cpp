// libFuzzer target: the seal.json reader unseal and pc2 use (seal/src/seal.cpp). Anything
// but std::runtime_error escaping is a bug; a manifest that parses must be within bounds and
// consistent: its sector size nodes * 32, its replica id the one its inputs give, a digest
// for every layer when it records files, a MAC of 64 hex digits when it has one.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "poreplab/hex.hpp"
#include "poreplab/seal/seal.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto m = poreplab::seal::parse_seal_manifest(text, "seal.json");
    if (m.layers < 1 || m.layers > poreplab::sdr::kMaxLayers || m.nodes < 2 || (m.nodes & (m.nodes - 1)) != 0 ||
        m.sector_bytes / 32 != m.nodes || m.document["inputs"]["sector_size"] != m.sector_bytes)
      std::abort();
    if (!m.mac.empty() && m.mac.size() != 64) std::abort();
    if (!m.layer_sha256.empty() && (m.layer_sha256.size() != m.layers || m.replica_sha256.size() != 64)) std::abort();
    // The replica id the inputs give is the one accepted.
    const auto& in = m.document["inputs"];
    const auto hex32 = [](const std::string& h) {
      poreplab::sdr::bytes32 b{};
      const auto v = poreplab::from_hex(h, 32, "fuzz");
      std::copy(v.begin(), v.end(), b.begin());
      return b;
    };
    if (poreplab::sdr::replica_id(hex32(in["prover_id"]), in["sector_id"].get<std::uint64_t>(), hex32(in["ticket"]),
                                  m.comm_d, m.porep_id) != m.replica_id)
      std::abort();
  } catch (const std::runtime_error&) {
  }
  return 0;
}
