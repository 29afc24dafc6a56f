#pragma once
// replica_id = mask(SHA256(prover_id || u64_BE(sector_id) || ticket || comm_d || porep_id))
// (docs/spec/sdr.md section 6).
#include <array>
#include <cstdint>

namespace poreplab::sdr {

using bytes32 = std::array<std::uint8_t, 32>;

bytes32 replica_id(const bytes32& prover_id, std::uint64_t sector_id, const bytes32& ticket, const bytes32& comm_d,
                   const bytes32& porep_id);

}  // namespace poreplab::sdr
