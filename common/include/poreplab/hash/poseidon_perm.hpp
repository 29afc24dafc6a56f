#pragma once
// neptune's optimized Poseidon (poseidon::hash) written once over the field arithmetic,
// so that an engine with its own multiply (cpu/: mulx/adcx/adox; the GPU's 32-bit words)
// instantiates the same rounds. F supplies static mul(a, b), sqr(a) and add(a, b), each
// returning canonical elements, may name its element type F::elem (default: fr::mont's
// four limbs), and may supply dot(c, stride, s, n) = sum of c[k * stride] * s[k] (k < n)
// in one reduction. C holds the constants as `constants` names them; a C with a
// compile-time kWidth (device_constants) gets fixed-size loops the GPU keeps in registers.
#include <cstddef>

#include "poreplab/hash/poseidon.hpp"
#include "poreplab/hd.hpp"

namespace poreplab::poseidon {

template <class F>
struct elem_of {
  using type = fr::mont::elem;
};
template <class F>
  requires requires { typename F::elem; }
struct elem_of<F> {
  using type = typename F::elem;
};

template <class C>
inline constexpr int static_width = 0;
template <class C>
  requires requires { C::kWidth; }
inline constexpr int static_width<C> = C::kWidth;

#if defined(__CUDA_ARCH__)
// Loops over the state are unrolled so that it stays in registers; loops over rounds and
// over a matrix's rows are not, which keeps a kernel's code within the instruction
// caches (only each row's result goes through local memory).
#define POREPLAB_WIDTH_UNROLL _Pragma("unroll")
#define POREPLAB_ROUND_LOOP _Pragma("unroll 1")
#else
#define POREPLAB_WIDTH_UNROLL
#define POREPLAB_ROUND_LOOP
#endif

template <class F, class C = constants>
struct optimized_rounds {
  using elem = typename elem_of<F>::type;
  static constexpr int kT = static_width<C>;
  static constexpr int kSlots = kT != 0 ? kT : kMaxWidth;
  POREPLAB_HD static int width(const C& c) { return kT != 0 ? kT : c.width; }

  POREPLAB_HD static elem pow5(const elem& a) { return F::mul(F::sqr(F::sqr(a)), a); }

  // Sum over k < n of c[k * stride] * s[k].
  POREPLAB_HD static elem dot(const elem* c, std::size_t stride, const elem* s, int n) {
    if constexpr (requires { F::dot(c, stride, s, n); }) {
      return F::dot(c, stride, s, n);
    } else {
      elem acc = F::mul(c[0], s[0]);
      POREPLAB_WIDTH_UNROLL
      for (int k = 1; k < n; ++k) acc = F::add(acc, F::mul(c[static_cast<std::size_t>(k) * stride], s[k]));
      return acc;
    }
  }

  // s = M s with the dense MDS (symmetric, so the row/column order does not matter).
  POREPLAB_HD static void mds_dense(const C& c, elem* s) {
    const int t = width(c);
    elem out[kSlots];
    POREPLAB_ROUND_LOOP
    for (int i = 0; i < t; ++i) out[i] = mds_row(c, s, i);
    POREPLAB_WIDTH_UNROLL
    for (int i = 0; i < t; ++i) s[i] = out[i];
  }
  POREPLAB_HD static elem mds_row(const C& c, const elem* s, int i) {
    return dot(&c.mds[static_cast<std::size_t>(i * width(c))], 1, s, width(c));
  }

  // s = s^T P: neptune applies the pre-sparse matrix to the state as a row vector.
  POREPLAB_HD static void mds_pre_sparse(const C& c, elem* s) {
    const int t = width(c);
    elem out[kSlots];
    const auto stride = static_cast<std::size_t>(t);
    POREPLAB_ROUND_LOOP
    for (int j = 0; j < t; ++j) out[j] = dot(&c.pre_sparse[static_cast<std::size_t>(j)], stride, s, t);
    POREPLAB_WIDTH_UNROLL
    for (int i = 0; i < t; ++i) s[i] = out[i];
  }

  // s = s^T S_k with S_k sparse: 2t - 1 multiplications instead of t^2.
  POREPLAB_HD static void mds_sparse(const C& c, elem* s, int k) {
    const int t = width(c);
    const elem* w = &c.sparse_w_hat[static_cast<std::size_t>(k * t)];
    const elem* v = &c.sparse_v_rest[static_cast<std::size_t>(k * (t - 1))];
    const elem first = dot(w, 1, s, t);
    const elem s0 = s[0];
    POREPLAB_WIDTH_UNROLL
    for (int j = 1; j < t; ++j) s[j] = F::add(s[j], F::mul(v[j - 1], s0));
    s[0] = first;
  }

  POREPLAB_HD static elem hash(const C& c, const elem* preimage) {
    elem s[kSlots];
    const int t = width(c);
    const int half = c.full_rounds / 2;
    const elem* k = c.compressed_round_constants.data();
    s[0] = F::add(c.domain_tag, k[0]);
    POREPLAB_WIDTH_UNROLL
    for (int i = 1; i < t; ++i) s[i] = F::add(preimage[i - 1], k[i]);
    k += t;
    // Full rounds add the next round's keys (moved through M^-1) right after the S-box.
    POREPLAB_ROUND_LOOP
    for (int r = 0; r < half; ++r) {
      POREPLAB_WIDTH_UNROLL
      for (int i = 0; i < t; ++i) s[i] = F::add(pow5(s[i]), k[i]);
      k += t;
      if (r == half - 1)
        mds_pre_sparse(c, s);
      else
        mds_dense(c, s);
    }
    POREPLAB_ROUND_LOOP
    for (int r = 0; r < c.partial_rounds; ++r) {
      s[0] = F::add(pow5(s[0]), *k++);
      mds_sparse(c, s, r);
    }
    POREPLAB_ROUND_LOOP
    for (int r = 0; r < half - 1; ++r) {
      POREPLAB_WIDTH_UNROLL
      for (int i = 0; i < t; ++i) s[i] = F::add(pow5(s[i]), k[i]);
      k += t;
      mds_dense(c, s);
    }
    // The digest is s[1]: the last matrix needs only that row.
    POREPLAB_WIDTH_UNROLL
    for (int i = 0; i < t; ++i) s[i] = pow5(s[i]);
    return mds_row(c, s, 1);
  }
};

}  // namespace poreplab::poseidon
