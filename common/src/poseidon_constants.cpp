// Poseidon parameters as neptune derives them (src/round_constants.rs, src/mds.rs,
// src/preprocessing.rs); docs/spec/pc2.md describes each step.
#include <array>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "poreplab/hash/poseidon.hpp"

namespace poreplab::poseidon {

namespace {

namespace m = fr::mont;

// ---- Grain LFSR (Poseidon paper, appendix F) ----

class grain {
 public:
  grain(int t, int full_rounds, int partial_rounds) {
    int n = 0;
    const auto put = [&](unsigned bits, std::uint64_t value) {
      for (int i = static_cast<int>(bits) - 1; i >= 0; --i) state_[n++] = static_cast<std::uint8_t>((value >> i) & 1);
    };
    put(2, 1);    // field: GF(p)
    put(4, 1);    // S-box: x^alpha (neptune's SBOX = 1 for x^5)
    put(12, 255); // field size in bits
    put(12, static_cast<std::uint64_t>(t));
    put(10, static_cast<std::uint64_t>(full_rounds));
    put(10, static_cast<std::uint64_t>(partial_rounds));
    put(30, (std::uint64_t{1} << 30) - 1);
    for (int i = 0; i < 160; ++i) step();
  }

  // Self-shrinking: of each pair, a first bit 1 outputs the second; 0 drops it.
  int next_bit() {
    for (;;) {
      const int keep = step();
      const int bit = step();
      if (keep != 0) return bit;
    }
  }

 private:
  // b[i+80] = b[i+62] ^ b[i+51] ^ b[i+38] ^ b[i+23] ^ b[i+13] ^ b[i]; the oldest bit sits
  // at head_.
  int step() {
    const auto at = [&](int k) { return state_[static_cast<std::size_t>((head_ + k) % 80)]; };
    const auto b = static_cast<std::uint8_t>(at(62) ^ at(51) ^ at(38) ^ at(23) ^ at(13) ^ at(0));
    state_[static_cast<std::size_t>(head_)] = b;
    head_ = (head_ + 1) % 80;
    return b;
  }

  std::array<std::uint8_t, 80> state_{};
  int head_ = 0;
};

// ---- small dense matrices, row-major ----

using matrix = std::vector<elem>;

elem& at(matrix& a, int n, int i, int j) { return a[static_cast<std::size_t>(i * n + j)]; }
const elem& at(const matrix& a, int n, int i, int j) { return a[static_cast<std::size_t>(i * n + j)]; }

matrix mat_mul(const matrix& a, const matrix& b, int n) {
  matrix c(static_cast<std::size_t>(n * n), m::zero());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      elem s = m::zero();
      for (int k = 0; k < n; ++k) s = m::add(s, m::mul(at(a, n, i, k), at(b, n, k, j)));
      at(c, n, i, j) = s;
    }
  return c;
}

// M v, v a column.
std::vector<elem> apply_left(const matrix& a, const std::vector<elem>& v, int n) {
  std::vector<elem> out(static_cast<std::size_t>(n), m::zero());
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) out[i] = m::add(out[i], m::mul(at(a, n, i, k), v[k]));
  return out;
}

matrix transpose(const matrix& a, int n) {
  matrix t(a.size());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) at(t, n, j, i) = at(a, n, i, j);
  return t;
}

// Gauss-Jordan; the inverse is unique, so any pivoting order gives neptune's matrix.
matrix invert(matrix a, int n) {
  matrix inv(static_cast<std::size_t>(n * n), m::zero());
  for (int i = 0; i < n; ++i) at(inv, n, i, i) = m::one();
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    while (pivot < n && m::is_zero(at(a, n, pivot, col))) ++pivot;
    if (pivot == n) throw std::logic_error("poseidon: singular matrix");
    if (pivot != col)
      for (int j = 0; j < n; ++j) {
        std::swap(at(a, n, col, j), at(a, n, pivot, j));
        std::swap(at(inv, n, col, j), at(inv, n, pivot, j));
      }
    const elem s = m::inverse(at(a, n, col, col));
    for (int j = 0; j < n; ++j) {
      at(a, n, col, j) = m::mul(at(a, n, col, j), s);
      at(inv, n, col, j) = m::mul(at(inv, n, col, j), s);
    }
    for (int i = 0; i < n; ++i) {
      if (i == col || m::is_zero(at(a, n, i, col))) continue;
      const elem f = at(a, n, i, col);
      for (int j = 0; j < n; ++j) {
        at(a, n, i, j) = m::sub(at(a, n, i, j), m::mul(f, at(a, n, col, j)));
        at(inv, n, i, j) = m::sub(at(inv, n, i, j), m::mul(f, at(inv, n, col, j)));
      }
    }
  }
  return inv;
}

// The Cauchy matrix 1 / (x_i + y_j) with x_i = i, y_j = t + j (symmetric).
matrix cauchy_mds(int t) {
  matrix a(static_cast<std::size_t>(t * t));
  for (int i = 0; i < t; ++i)
    for (int j = 0; j < t; ++j) at(a, t, i, j) = m::inverse(m::from_u64(static_cast<std::uint64_t>(i + t + j)));
  return a;
}

// One factoring step of neptune's mds.rs: a = M' M'' with M' = diag(1, a_hat) and M''
// sparse (dense first row and column, identity elsewhere). Returns M' and writes M''
// as its first column (w_hat) and its first row past [0][0] (v_rest).
matrix factor_once(const matrix& a, int n, std::vector<elem>& w_hat, std::vector<elem>& v_rest) {
  const int k = n - 1;
  matrix a_hat(static_cast<std::size_t>(k * k));
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) at(a_hat, k, i, j) = at(a, n, i + 1, j + 1);
  const matrix a_hat_inv = invert(a_hat, k);
  std::vector<elem> w(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) w[i] = at(a, n, i + 1, 0);
  const auto wh = apply_left(a_hat_inv, w, k);
  w_hat.assign(1, at(a, n, 0, 0));
  w_hat.insert(w_hat.end(), wh.begin(), wh.end());
  v_rest.clear();
  for (int j = 1; j < n; ++j) v_rest.push_back(at(a, n, 0, j));
  matrix prime(static_cast<std::size_t>(n * n), m::zero());
  at(prime, n, 0, 0) = m::one();
  for (int i = 1; i < n; ++i)
    for (int j = 1; j < n; ++j) at(prime, n, i, j) = at(a, n, i, j);
  return prime;
}

std::pair<int, int> round_numbers(int arity) {
  // neptune src/round_numbers.rs (calc_round_numbers with the security margin), Standard.
  switch (arity) {
    case 2: return {8, 55};
    case 4: return {8, 56};
    case 8: return {8, 57};
    case 11: return {8, 57};
    case 16: return {8, 59};
    default: throw std::invalid_argument("poseidon: unsupported arity " + std::to_string(arity));
  }
}

std::unique_ptr<constants> build(int arity) {
  auto c = std::make_unique<constants>();
  const auto [rf, rp] = round_numbers(arity);
  const int t = arity + 1;
  c->arity = arity;
  c->width = t;
  c->full_rounds = rf;
  c->partial_rounds = rp;
  c->domain_tag = m::from_u64((std::uint64_t{1} << arity) - 1);
  c->round_constants = generate_round_constants(t, rf, rp);
  c->mds = cauchy_mds(t);
  const matrix mds_inv = invert(c->mds, t);
  const int half = rf / 2;

  // Compressed round constants (preprocessing.rs with every partial round preprocessed).
  const auto keys = [&](int round) {
    return std::vector<elem>(c->round_constants.begin() + round * t, c->round_constants.begin() + (round + 1) * t);
  };
  auto& out = c->compressed_round_constants;
  const auto append = [&](const std::vector<elem>& v) { out.insert(out.end(), v.begin(), v.end()); };
  append(keys(0));
  // A full round's next keys, moved before its MDS: M^-1 k.
  for (int r = 1; r < half; ++r) append(apply_left(mds_inv, keys(r), t));
  // Walk the partial rounds backwards: the keys of round i+1 become M^-1 k before round
  // i's MDS; all but the S-boxed first component fold into round i's keys.
  std::vector<elem> acc = keys(half + rp);
  std::vector<elem> partial_keys;
  for (int i = 0; i < rp; ++i) {
    auto inv = apply_left(mds_inv, acc, t);
    partial_keys.push_back(inv[0]);
    inv[0] = m::zero();
    const auto prev = keys(half + rp - 1 - i);
    for (int j = 0; j < t; ++j) inv[j] = m::add(inv[j], prev[j]);
    acc = inv;
  }
  append(apply_left(mds_inv, acc, t));
  out.insert(out.end(), partial_keys.rbegin(), partial_keys.rend());
  for (int r = 1; r < half; ++r) append(apply_left(mds_inv, keys(half + rp + r), t));
  if (out.size() != static_cast<std::size_t>(rf * t + rp)) throw std::logic_error("poseidon: compressed constants");

  // Sparse factorization of the partial rounds' matrices (factor_to_sparse_matrices on
  // M^T, which is M here), last partial round first.
  const matrix base = transpose(c->mds, t);
  matrix cur = base;
  std::vector<std::vector<elem>> w_hats, v_rests;
  for (int i = 0; i < rp; ++i) {
    std::vector<elem> w_hat, v_rest;
    const matrix prime = factor_once(cur, t, w_hat, v_rest);
    w_hats.push_back(std::move(w_hat));
    v_rests.push_back(std::move(v_rest));
    cur = mat_mul(base, prime, t);
  }
  c->pre_sparse = cur;
  for (int i = rp - 1; i >= 0; --i) {
    c->sparse_w_hat.insert(c->sparse_w_hat.end(), w_hats[i].begin(), w_hats[i].end());
    c->sparse_v_rest.insert(c->sparse_v_rest.end(), v_rests[i].begin(), v_rests[i].end());
  }
  return c;
}

}  // namespace

std::vector<elem> generate_round_constants(int t, int full_rounds, int partial_rounds) {
  grain g(t, full_rounds, partial_rounds);
  std::vector<elem> out;
  const int count = (full_rounds + partial_rounds) * t;
  while (static_cast<int>(out.size()) < count) {
    // 255 bits, the first one most significant; a value >= r is skipped.
    std::uint64_t x[4] = {0, 0, 0, 0};
    for (int i = 254; i >= 0; --i)
      if (g.next_bit() != 0) x[i / 64] |= std::uint64_t{1} << (i % 64);
    if (!fr::geq_modulus(x)) out.push_back(m::to_mont(x));
  }
  return out;
}

bool supported_arity(int arity) {
  return arity == 2 || arity == 4 || arity == 8 || arity == 11 || arity == 16;
}

const constants& constants_for(int arity) {
  if (!supported_arity(arity)) throw std::invalid_argument("poseidon: unsupported arity " + std::to_string(arity));
  static std::array<std::once_flag, 17> once;
  static std::array<std::unique_ptr<constants>, 17> table;
  const auto i = static_cast<std::size_t>(arity);
  std::call_once(once[i], [&] { table[i] = build(arity); });
  return *table[i];
}

}  // namespace poreplab::poseidon
