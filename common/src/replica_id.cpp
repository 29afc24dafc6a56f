#include "poreplab/sdr/replica_id.hpp"

#include "poreplab/hash/sha256.hpp"

namespace poreplab::sdr {

bytes32 replica_id(const bytes32& prover_id, std::uint64_t sector_id, const bytes32& ticket, const bytes32& comm_d,
                   const bytes32& porep_id) {
  std::uint8_t id_be[8];
  store_be64(id_be, sector_id);
  sha256::ctx c;
  sha256::init(c);
  sha256::update(c, prover_id.data(), 32);
  sha256::update(c, id_be, 8);
  sha256::update(c, ticket.data(), 32);
  sha256::update(c, comm_d.data(), 32);
  sha256::update(c, porep_id.data(), 32);
  bytes32 out;
  sha256::final(c, out.data());
  out[31] &= 0x3f;
  return out;
}

}  // namespace poreplab::sdr
