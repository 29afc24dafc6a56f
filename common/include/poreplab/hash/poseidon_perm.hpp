#pragma once
// neptune's optimized Poseidon (poseidon::hash) written once over the field arithmetic,
// so that an engine with its own multiply (cpu/: mulx/adcx/adox) instantiates the same
// rounds. F supplies static elem mul(a, b), sqr(a) and add(a, b) on the fr::mont
// representation, each returning canonical elements, and may supply
// dot(c, stride, s, n) = sum of c[k * stride] * s[k] (k < n) in one reduction.
#include <cstddef>

#include "poreplab/hash/poseidon.hpp"

namespace poreplab::poseidon {

template <class F>
struct optimized_rounds {
  static elem pow5(const elem& a) { return F::mul(F::sqr(F::sqr(a)), a); }

  // Sum over k < n of c[k * stride] * s[k].
  static elem dot(const elem* c, std::size_t stride, const elem* s, int n) {
    if constexpr (requires { F::dot(c, stride, s, n); }) {
      return F::dot(c, stride, s, n);
    } else {
      elem acc = F::mul(c[0], s[0]);
      for (int k = 1; k < n; ++k) acc = F::add(acc, F::mul(c[static_cast<std::size_t>(k) * stride], s[k]));
      return acc;
    }
  }

  // s = M s with the dense MDS (symmetric, so the row/column order does not matter).
  static void mds_dense(const constants& c, elem* s) {
    const int t = c.width;
    elem out[kMaxWidth];
    for (int i = 0; i < t; ++i) out[i] = mds_row(c, s, i);
    for (int i = 0; i < t; ++i) s[i] = out[i];
  }
  static elem mds_row(const constants& c, const elem* s, int i) {
    return dot(&c.mds[static_cast<std::size_t>(i * c.width)], 1, s, c.width);
  }

  // s = s^T P: neptune applies the pre-sparse matrix to the state as a row vector.
  static void mds_pre_sparse(const constants& c, elem* s) {
    const int t = c.width;
    elem out[kMaxWidth];
    const auto stride = static_cast<std::size_t>(t);
    for (int j = 0; j < t; ++j) out[j] = dot(&c.pre_sparse[static_cast<std::size_t>(j)], stride, s, t);
    for (int i = 0; i < t; ++i) s[i] = out[i];
  }

  // s = s^T S_k with S_k sparse: 2t - 1 multiplications instead of t^2.
  static void mds_sparse(const constants& c, elem* s, int k) {
    const int t = c.width;
    const elem* w = &c.sparse_w_hat[static_cast<std::size_t>(k * t)];
    const elem* v = &c.sparse_v_rest[static_cast<std::size_t>(k * (t - 1))];
    const elem first = dot(w, 1, s, t);
    const elem s0 = s[0];
    for (int j = 1; j < t; ++j) s[j] = F::add(s[j], F::mul(v[j - 1], s0));
    s[0] = first;
  }

  static elem hash(const constants& c, const elem* preimage) {
    elem s[kMaxWidth];
    const int t = c.width;
    const int half = c.full_rounds / 2;
    const elem* k = c.compressed_round_constants.data();
    s[0] = F::add(c.domain_tag, k[0]);
    for (int i = 1; i < t; ++i) s[i] = F::add(preimage[i - 1], k[i]);
    k += t;
    // Full rounds add the next round's keys (moved through M^-1) right after the S-box.
    for (int r = 0; r < half; ++r) {
      for (int i = 0; i < t; ++i) s[i] = F::add(pow5(s[i]), k[i]);
      k += t;
      if (r == half - 1)
        mds_pre_sparse(c, s);
      else
        mds_dense(c, s);
    }
    for (int r = 0; r < c.partial_rounds; ++r) {
      s[0] = F::add(pow5(s[0]), *k++);
      mds_sparse(c, s, r);
    }
    for (int r = 0; r < half - 1; ++r) {
      for (int i = 0; i < t; ++i) s[i] = F::add(pow5(s[i]), k[i]);
      k += t;
      mds_dense(c, s);
    }
    // The digest is s[1]: the last matrix needs only that row.
    for (int i = 0; i < t; ++i) s[i] = pow5(s[i]);
    return mds_row(c, s, 1);
  }
};

}  // namespace poreplab::poseidon
