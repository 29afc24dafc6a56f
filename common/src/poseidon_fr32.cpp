// Poseidon's constants packed in 32-bit words for the device kernels.
#include "poreplab/hash/poseidon_fr32.hpp"

namespace poreplab::poseidon {

packed_constants pack_constants(const constants& c) {
  packed_constants p;
  p.arity = c.arity;
  p.width = c.width;
  p.full_rounds = c.full_rounds;
  p.partial_rounds = c.partial_rounds;
  p.domain_tag = fr32::from_limbs(c.domain_tag);
  const auto append = [&](const std::vector<elem>& table) {
    const std::size_t at = p.words.size();
    for (const elem& e : table) p.words.push_back(fr32::from_limbs(e));
    return at;
  };
  p.round_constants_at = append(c.compressed_round_constants);
  p.mds_at = append(c.mds);
  p.pre_sparse_at = append(c.pre_sparse);
  p.w_hat_at = append(c.sparse_w_hat);
  p.v_rest_at = append(c.sparse_v_rest);
  return p;
}

}  // namespace poreplab::poseidon
