// The two Poseidon forms of neptune: the plain permutation (poseidon_alt.rs
// hash_correct) and the optimized one it runs by default (poseidon.rs
// hash_optimized_static). They agree on every input.
#include <stdexcept>
#include <string>

#include "poreplab/hash/poseidon.hpp"

namespace poreplab::poseidon {

namespace {

namespace m = fr::mont;

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

// s = s^T P: neptune applies the pre-sparse matrix to the state as a row vector.
void mds_pre_sparse(const constants& c, state& st) {
  const int t = st.t;
  elem out[kMaxWidth];
  for (int j = 0; j < t; ++j) {
    elem acc = m::zero();
    for (int i = 0; i < t; ++i) acc = m::add(acc, m::mul(st.s[i], c.pre_sparse[static_cast<std::size_t>(i * t + j)]));
    out[j] = acc;
  }
  for (int i = 0; i < t; ++i) st.s[i] = out[i];
}

// s = s^T S_k with S_k sparse: 2t - 1 multiplications instead of t^2.
void mds_sparse(const constants& c, state& st, int k) {
  const int t = st.t;
  const elem* w = &c.sparse_w_hat[static_cast<std::size_t>(k * t)];
  const elem* v = &c.sparse_v_rest[static_cast<std::size_t>(k * (t - 1))];
  elem first = m::zero();
  for (int i = 0; i < t; ++i) first = m::add(first, m::mul(w[i], st.s[i]));
  const elem s0 = st.s[0];
  for (int j = 1; j < t; ++j) st.s[j] = m::add(st.s[j], m::mul(v[j - 1], s0));
  st.s[0] = first;
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

elem hash(const constants& c, const elem* preimage) {
  state st = initial(c, preimage);
  const int t = c.width;
  const int half = c.full_rounds / 2;
  const elem* k = c.compressed_round_constants.data();
  for (int i = 0; i < t; ++i) st.s[i] = m::add(st.s[i], k[i]);
  k += t;
  // Full rounds add the next round's keys (moved through M^-1) right after the S-box.
  for (int r = 0; r < half; ++r) {
    for (int i = 0; i < t; ++i) st.s[i] = m::add(m::pow5(st.s[i]), k[i]);
    k += t;
    if (r == half - 1)
      mds_pre_sparse(c, st);
    else
      mds_dense(c, st);
  }
  for (int r = 0; r < c.partial_rounds; ++r) {
    st.s[0] = m::add(m::pow5(st.s[0]), *k++);
    mds_sparse(c, st, r);
  }
  for (int r = 0; r < half - 1; ++r) {
    for (int i = 0; i < t; ++i) st.s[i] = m::add(m::pow5(st.s[i]), k[i]);
    k += t;
    mds_dense(c, st);
  }
  for (int i = 0; i < t; ++i) st.s[i] = m::pow5(st.s[i]);
  mds_dense(c, st);
  return st.s[1];
}

void hash_bytes(int arity, const std::uint8_t* preimage, std::uint8_t* out) {
  const constants& c = constants_for(arity);
  elem in[kMaxWidth];
  for (int i = 0; i < arity; ++i)
    if (!m::from_bytes(preimage + 32 * i, in[i]))
      throw std::invalid_argument("poseidon: input " + std::to_string(i) + " is not a canonical field element (>= r)");
  m::to_bytes(hash(c, in), out);
}

}  // namespace poreplab::poseidon
