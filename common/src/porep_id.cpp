#include "poreplab/sdr/porep_id.hpp"

#include <stdexcept>

#include "poreplab/byte_units.hpp"
#include "poreplab/hash/bytes.hpp"

namespace poreplab::sdr {

namespace {

// filecoin-proofs-api registry.rs (ids, api versions), filecoin-proofs constants.rs (LAYERS).
constexpr registered_proof kProofs[] = {
    {"StackedDrg2KiBV1", 0, api_version::v1_0_0, 2, 2 * kKiB},
    {"StackedDrg8MiBV1", 1, api_version::v1_0_0, 2, 8 * kMiB},
    {"StackedDrg512MiBV1", 2, api_version::v1_0_0, 2, 512 * kMiB},
    {"StackedDrg32GiBV1", 3, api_version::v1_0_0, 11, 32 * kGiB},
    {"StackedDrg64GiBV1", 4, api_version::v1_0_0, 11, 64 * kGiB},
    {"StackedDrg2KiBV1_1", 5, api_version::v1_1_0, 2, 2 * kKiB},
    {"StackedDrg8MiBV1_1", 6, api_version::v1_1_0, 2, 8 * kMiB},
    {"StackedDrg512MiBV1_1", 7, api_version::v1_1_0, 2, 512 * kMiB},
    {"StackedDrg32GiBV1_1", 8, api_version::v1_1_0, 11, 32 * kGiB},
    {"StackedDrg64GiBV1_1", 9, api_version::v1_1_0, 11, 64 * kGiB},
    {"StackedDrg2KiBV1_1_Feat_SyntheticPoRep", 10, api_version::v1_2_0, 2, 2 * kKiB},
    {"StackedDrg8MiBV1_1_Feat_SyntheticPoRep", 11, api_version::v1_2_0, 2, 8 * kMiB},
    {"StackedDrg512MiBV1_1_Feat_SyntheticPoRep", 12, api_version::v1_2_0, 2, 512 * kMiB},
    {"StackedDrg32GiBV1_1_Feat_SyntheticPoRep", 13, api_version::v1_2_0, 11, 32 * kGiB},
    {"StackedDrg64GiBV1_1_Feat_SyntheticPoRep", 14, api_version::v1_2_0, 11, 64 * kGiB},
    {"StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", 15, api_version::v1_2_0, 2, 2 * kKiB},
    {"StackedDrg8MiBV1_2_Feat_NonInteractivePoRep", 16, api_version::v1_2_0, 2, 8 * kMiB},
    {"StackedDrg512MiBV1_2_Feat_NonInteractivePoRep", 17, api_version::v1_2_0, 2, 512 * kMiB},
    {"StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", 18, api_version::v1_2_0, 11, 32 * kGiB},
    {"StackedDrg64GiBV1_2_Feat_NonInteractivePoRep", 19, api_version::v1_2_0, 11, 64 * kGiB},
};

}  // namespace

std::span<const registered_proof> registered_proofs() { return kProofs; }

bytes32 benchmark_porep_id(std::uint64_t sector_size) {
  for (const auto& p : registered_proofs())
    if (p.sector_size == sector_size && p.api == api_version::v1_1_0) return porep_id_of(p);
  return porep_id_of(find_registered_proof("StackedDrg32GiBV1_1"));
}

const registered_proof& find_registered_proof(std::string_view name) {
  for (const auto& p : kProofs)
    if (p.name == name) return p;
  std::string msg = "unknown registered proof '" + std::string(name) + "'; valid names:";
  for (const auto& p : kProofs) {
    msg += ' ';
    msg += p.name;
  }
  throw std::invalid_argument(msg);
}

bytes32 make_porep_id(std::uint64_t proof_id, std::uint64_t nonce) {
  bytes32 id{};
  store_le64(id.data(), proof_id);
  store_le64(id.data() + 8, nonce);
  return id;
}


}  // namespace poreplab::sdr
