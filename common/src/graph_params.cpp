#include "poreplab/graph/graph_params.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#include "poreplab/hash/bytes.hpp"
#include "poreplab/hash/sha256.hpp"

namespace poreplab::graph {

namespace {

// derive_porep_domain_seed: SHA256(tag || porep_id), the tag without terminator.
void domain_seed(std::uint8_t out[32], const char* tag, const std::uint8_t* porep_id) {
  sha256::ctx c;
  sha256::init(c);
  sha256::update(c, tag, std::strlen(tag));
  sha256::update(c, porep_id, 32);
  sha256::final(c, out);
}

}  // namespace

graph_params make_graph_params(const std::uint8_t* porep_id, api_version api, std::uint64_t nodes) {
  if (nodes < 2 || nodes > (std::uint64_t{1} << 32) || (nodes & (nodes - 1)) != 0)
    throw std::invalid_argument("graph: nodes must be a power of two in [2, 2^32], got " + std::to_string(nodes));
  if (static_cast<std::uint32_t>(api) > static_cast<std::uint32_t>(api_version::v1_2_0))
    throw std::invalid_argument("graph: unknown api_version value " + std::to_string(static_cast<std::uint32_t>(api)));
  graph_params g{};
  g.nodes = nodes;
  g.api = api;
  std::uint8_t h[32];
  domain_seed(h, "Filecoin_DRSample", porep_id);
  std::memcpy(g.drg_seed, h, sizeof g.drg_seed);
  domain_seed(h, "Filecoin_Feistel", porep_id);
  for (int j = 0; j < 4; ++j) g.feistel_keys[j] = load_le64(h + 8 * j);
  g.feistel_pre = feistel_precompute(nodes * kExpDegree);
  return g;
}

}  // namespace poreplab::graph
