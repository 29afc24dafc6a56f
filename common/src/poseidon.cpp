// The two Poseidon forms of neptune: the plain permutation (poseidon_alt.rs
// hash_correct) and the optimized one it runs by default (poseidon.rs
// hash_optimized_static). They agree on every input.
#include <stdexcept>
#include <string>

#include "poreplab/hash/poseidon.hpp"
#include "poreplab/hash/poseidon_perm.hpp"

namespace poreplab::poseidon {

namespace {

namespace m = fr::mont;

struct portable_ops {
  static elem mul(const elem& a, const elem& b) { return m::mul(a, b); }
  static elem sqr(const elem& a) { return m::sqr(a); }
  static elem add(const elem& a, const elem& b) { return m::add(a, b); }
};

struct state {
  elem s[kMaxWidth];
  int t;
};

state initial(const constants& c, const elem* preimage) {
  state st{};
  st.t = c.width;
  st.s[0] = c.domain_tag;
  for (int i = 0; i < c.arity; ++i) st.s[i + 1] = preimage[i];
  return st;
}

// s = M s with the dense MDS (symmetric, so the row/column order does not matter).
void mds_dense(const constants& c, state& st) {
  const int t = st.t;
  elem out[kMaxWidth];
  for (int i = 0; i < t; ++i) {
    elem acc = m::zero();
    for (int k = 0; k < t; ++k) acc = m::add(acc, m::mul(c.mds[static_cast<std::size_t>(i * t + k)], st.s[k]));
    out[i] = acc;
  }
  for (int i = 0; i < t; ++i) st.s[i] = out[i];
}

}  // namespace

elem hash_plain(const constants& c, const elem* preimage) {
  state st = initial(c, preimage);
  const int t = c.width;
  const int half = c.full_rounds / 2;
  const elem* rc = c.round_constants.data();
  const auto full = [&] {
    for (int i = 0; i < t; ++i) st.s[i] = m::pow5(m::add(st.s[i], rc[i]));
    rc += t;
    mds_dense(c, st);
  };
  for (int r = 0; r < half; ++r) full();
  for (int r = 0; r < c.partial_rounds; ++r) {
    for (int i = 0; i < t; ++i) st.s[i] = m::add(st.s[i], rc[i]);
    rc += t;
    st.s[0] = m::pow5(st.s[0]);
    mds_dense(c, st);
  }
  for (int r = 0; r < half; ++r) full();
  return st.s[1];
}

elem hash(const constants& c, const elem* preimage) { return optimized_rounds<portable_ops>::hash(c, preimage); }

void hash_bytes(int arity, const std::uint8_t* preimage, std::uint8_t* out) {
  const constants& c = constants_for(arity);
  elem in[kMaxWidth];
  for (int i = 0; i < arity; ++i)
    if (!m::from_bytes(preimage + 32 * i, in[i]))
      throw std::invalid_argument("poseidon: input " + std::to_string(i) + " is not a canonical field element (>= r)");
  m::to_bytes(hash(c, in), out);
}

}  // namespace poreplab::poseidon
