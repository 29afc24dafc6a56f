#pragma once
// The registered seal proofs of filecoin-proofs-api (docs/spec/sdr.md section 1): porep_id bytes,
// api version, layer count and sector size. Host only.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "poreplab/graph/graph_params.hpp"
#include "poreplab/name_table.hpp"

namespace poreplab::sdr {

using bytes32 = std::array<std::uint8_t, 32>;
using graph::api_version;

struct registered_proof {
  std::string_view name;  // as in filecoin-proofs-api, e.g. "StackedDrg2KiBV1_1"
  std::uint64_t id;       // RegisteredSealProof discriminant, the first porep_id word
  api_version api;
  std::uint32_t layers;
  std::uint64_t sector_size;  // bytes
  std::uint64_t nodes() const { return sector_size / 32; }
};

// All 20 registered proofs, in id order.
std::span<const registered_proof> registered_proofs();

// Throws std::invalid_argument naming the unknown proof and listing the valid names.
const registered_proof& find_registered_proof(std::string_view name);

// u64_LE(id) || u64_LE(nonce) || 16 zero bytes.
bytes32 make_porep_id(std::uint64_t proof_id, std::uint64_t nonce = 0);
inline bytes32 porep_id_of(const registered_proof& p) { return make_porep_id(p.id); }

// The graph of a registered proof at its own sector size.
inline graph::graph_params graph_params_of(const registered_proof& p) {
  const bytes32 id = porep_id_of(p);
  return graph::make_graph_params(id.data(), p.api, p.nodes());
}

// The porep_id benchmarks label a sector of this size with: the V1_1 proof of that size
// when one exists, else the 32GiB V1_1 porep_id on a custom-size graph (as the Custom
// reference vector does).
bytes32 benchmark_porep_id(std::uint64_t sector_size);

inline constexpr name_table kApiVersions{
    "api_version", std::array{named<api_version>{api_version::v1_0_0, "1.0.0"}, named<api_version>{api_version::v1_1_0, "1.1.0"},
                              named<api_version>{api_version::v1_2_0, "1.2.0"}}};
// Throws std::invalid_argument for another text.
inline api_version parse_api_version(std::string_view text) { return kApiVersions.parse(text); }
inline std::string_view api_version_name(api_version v) { return kApiVersions.name(v); }

}  // namespace poreplab::sdr
