// Poseidon `ifma`: eight hashes at once, one per 64-bit lane of zmm registers, on AVX-512
// IFMA (vpmadd52luq / vpmadd52huq: 52 x 52-bit products added into 64-bit lanes).
// An element is five 52-bit limbs in Montgomery form with R = 2^260. Accumulators have 12
// spare bits, so a sum of products is formed in ten columns and reduced once, and a
// reduction absorbs the round key that follows it; values stay below a few r rather than
// r (2^260 / r ~ 35 leaves room), and only the digest is made canonical.
// neptune's optimized form: the partial rounds are a serial chain per hash, so two groups
// of eight hashes run in step (permute<T, 2>) for the out-of-order core to overlap.
#include "poseidon_kernels.hpp"

#include <algorithm>
#include <cstring>

#if defined(POREPLAB_HAVE_IFMA)
#include "avx512_intrinsics.hpp"

namespace poreplab::cpu::kernels {

namespace {

#define PL_INLINE inline __attribute__((always_inline))

using u64 = std::uint64_t;
constexpr u64 kMask52 = (u64{1} << 52) - 1;
// r in radix 2^52, and -r^-1 mod 2^52.
constexpr u64 kR[5] = {0xfffff00000001ull, 0x2fffe5bfefffull, 0x9a1d80553bda4ull, 0x7d483339d8080ull,
                       0x73eda753299dull};
constexpr u64 kInv = 0xffffeffffffffull;
// 2^520 mod r (into Montgomery form) and 2^264 mod r (R = 2^260 to R = 2^256), radix 2^52.
constexpr u64 kR2[5] = {0x99103f29c6cf0ull, 0x57927663d999eull, 0xa1c0ed631138bull, 0x3c829f7715f1bull,
                        0x9ff646cc027ull};
// 2^260 mod r: one, in Montgomery form.
constexpr u64 kOne[5] = {0x22ffffffddull, 0x9700396c23000ull, 0xedf77458d1293ull, 0xdf20ff1776e6aull,
                         0x26821fa14f77ull};
constexpr u64 kTo256[5] = {0x234fffffdcbull, 0x61039ef635000ull, 0xdce3c3e2e7505ull, 0x7fa6f1563642bull,
                           0x247db575276aull};

struct fe {
  __m512i l[5];
};

// Column sums of a product before reduction: column j holds the low halves of limb
// products a_i b_(j-i) and the high halves of a_i b_(j-1-i), 52 bits each, in 64-bit lanes.
struct cols {
  __m512i c[10];
};
// The same for long sums of products: lo[j] gathers low halves of column j, hi[j] high
// halves, so that no single register carries a long chain of dependent adds.
struct acc {
  __m512i lo[9];
  __m512i hi[10];  // hi[0] unused
};

PL_INLINE __m512i bc(u64 x) { return _mm512_set1_epi64(static_cast<long long>(x)); }
PL_INLINE __m512i madlo(__m512i a, __m512i b, __m512i c) { return _mm512_madd52lo_epu64(a, b, c); }
PL_INLINE __m512i madhi(__m512i a, __m512i b, __m512i c) { return _mm512_madd52hi_epu64(a, b, c); }

PL_INLINE void clear(acc& w) {
  for (int j = 0; j < 9; ++j) w.lo[j] = _mm512_setzero_si512();
  for (int j = 0; j < 10; ++j) w.hi[j] = _mm512_setzero_si512();
}
PL_INLINE void clear(cols& w) {
  for (int j = 0; j < 10; ++j) w.c[j] = _mm512_setzero_si512();
}

PL_INLINE cols combine(const acc& w) {
  cols c;
  c.c[0] = w.lo[0];
  for (int j = 1; j < 9; ++j) c.c[j] = _mm512_add_epi64(w.lo[j], w.hi[j]);
  c.c[9] = w.hi[9];
  return c;
}

// w += a * b
PL_INLINE void mac(cols& w, const fe& a, const fe& b) {
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) {
      w.c[i + j] = madlo(w.c[i + j], a.l[i], b.l[j]);
      w.c[i + j + 1] = madhi(w.c[i + j + 1], a.l[i], b.l[j]);
    }
}

// w += a * k for a constant k (five words, broadcast).
PL_INLINE void mac(acc& w, const fe& a, const u64* k) {
  for (int j = 0; j < 5; ++j) {
    const __m512i kj = bc(k[j]);
    for (int i = 0; i < 5; ++i) {
      w.lo[i + j] = madlo(w.lo[i + j], a.l[i], kj);
      w.hi[i + j + 1] = madhi(w.hi[i + j + 1], a.l[i], kj);
    }
  }
}
PL_INLINE void mac(cols& w, const fe& a, const u64* k) {
  for (int j = 0; j < 5; ++j) {
    const __m512i kj = bc(k[j]);
    for (int i = 0; i < 5; ++i) {
      w.c[i + j] = madlo(w.c[i + j], a.l[i], kj);
      w.c[i + j + 1] = madhi(w.c[i + j + 1], a.l[i], kj);
    }
  }
}

// a^2: the ten cross products once (low and high halves apart), joined and doubled, then
// the five squares.
PL_INLINE cols sqr(const fe& a) {
  acc x;
  clear(x);
  for (int i = 0; i < 5; ++i)
    for (int j = i + 1; j < 5; ++j) {
      x.lo[i + j] = madlo(x.lo[i + j], a.l[i], a.l[j]);
      x.hi[i + j + 1] = madhi(x.hi[i + j + 1], a.l[i], a.l[j]);
    }
  cols w;
  w.c[0] = _mm512_setzero_si512();
  w.c[1] = _mm512_add_epi64(x.lo[1], x.lo[1]);
  for (int j = 2; j < 8; ++j) {
    const __m512i t = _mm512_add_epi64(x.lo[j], x.hi[j]);
    w.c[j] = _mm512_add_epi64(t, t);
  }
  w.c[8] = _mm512_add_epi64(x.hi[8], x.hi[8]);
  w.c[9] = _mm512_setzero_si512();
  for (int i = 0; i < 5; ++i) {
    w.c[2 * i] = madlo(w.c[2 * i], a.l[i], a.l[i]);
    w.c[2 * i + 1] = madhi(w.c[2 * i + 1], a.l[i], a.l[i]);
  }
  return w;
}

// (w + m r) / 2^260 with m < 2^260 making the low five columns vanish: below T / 2^260 + r.
// The result's limbs are carried down to 52 bits each (the multiplier reads only those).
PL_INLINE fe redc(cols w) {
  __m512i* c = w.c;
  const __m512i zero = _mm512_setzero_si512(), mask = bc(kMask52), inv = bc(kInv);
  for (int i = 0; i < 5; ++i) {
    const __m512i m = madlo(zero, c[i], inv);
    // c[i] + lo(m r0) is a multiple of 2^52: its carry is c[i] >> 52, plus one unless
    // c[i]'s low 52 bits were already zero, i.e. (c[i] + 2^52 - 1) >> 52. No need to
    // wait for m.
    c[i + 1] = _mm512_add_epi64(c[i + 1], _mm512_srli_epi64(_mm512_add_epi64(c[i], mask), 52));
    c[i + 1] = madhi(c[i + 1], m, bc(kR[0]));
    for (int j = 1; j < 5; ++j) {
      c[i + j] = madlo(c[i + j], m, bc(kR[j]));
      c[i + j + 1] = madhi(c[i + j + 1], m, bc(kR[j]));
    }
  }
  fe out;
  for (int j = 5; j < 9; ++j) {
    c[j + 1] = _mm512_add_epi64(c[j + 1], _mm512_srli_epi64(c[j], 52));
    out.l[j - 5] = _mm512_and_si512(c[j], mask);
  }
  out.l[4] = c[9];
  return out;
}
PL_INLINE fe redc(const acc& w) { return redc(combine(w)); }

// redc(w) + k, for a constant k: k * 2^260 joins the high columns before the reduction.
PL_INLINE fe redc_plus(cols w, const u64* k) {
  for (int j = 0; j < 5; ++j) w.c[5 + j] = _mm512_add_epi64(w.c[5 + j], bc(k[j]));
  return redc(w);
}

PL_INLINE fe mul(const fe& a, const fe& b) {
  cols w;
  clear(w);
  mac(w, a, b);
  return redc(w);
}

PL_INLINE fe square(const fe& a) { return redc(sqr(a)); }

// The Poseidon steps below run G independent groups (states s[g], g < G) in step: each
// product and reduction is issued for every group before the next one, so that the
// serial chain of one group (a reduction is five dependent steps, an S-box three
// multiplies) overlaps the others' and the multipliers stay busy.

template <int T, int G>
PL_INLINE void square_at(fe (*s)[T], int i) {
  cols w[G];
  for (int g = 0; g < G; ++g) w[g] = sqr(s[g][i]);
  for (int g = 0; g < G; ++g) s[g][i] = redc(w[g]);
}

// s[g][i] = s[g][i]^5, plus k when k is not null.
template <int T, int G>
PL_INLINE void pow5_at(fe (*s)[T], int i, const u64* k) {
  fe a[G];
  for (int g = 0; g < G; ++g) a[g] = s[g][i];
  square_at<T, G>(s, i);
  square_at<T, G>(s, i);
  cols w[G];
  for (int g = 0; g < G; ++g) {
    clear(w[g]);
    mac(w[g], s[g][i], a[g]);
  }
  for (int g = 0; g < G; ++g) s[g][i] = k != nullptr ? redc_plus(w[g], k) : redc(w[g]);
}

// out[g] = sum over k of s[g][k] * m[k] (m: T constants of five words), reduced once.
// s[g][0] last: in the partial rounds it is the only input just computed.
template <int T, int G>
PL_INLINE void dot(fe (*s)[T], const u64* m, fe* out) {
  acc w[G];
  for (int g = 0; g < G; ++g) {
    clear(w[g]);
    for (int k = T - 1; k >= 0; --k) mac(w[g], s[g][k], m + 5 * k);
  }
  for (int g = 0; g < G; ++g) out[g] = redc(w[g]);
}

// s = M s for M stored row-major (the dense MDS, and the pre-sparse matrix transposed).
template <int T, int G>
void matrix(fe (*s)[T], const u64* m) {
  fe out[T][G];
  for (int i = 0; i < T; ++i) dot<T, G>(s, m + 5 * T * i, out[i]);
  for (int i = 0; i < T; ++i)
    for (int g = 0; g < G; ++g) s[g][i] = out[i][g];
}

// neptune's sparse matrix: s0' = w . s, sj' = sj + v[j-1] s0. Reducing, sj * one joins the
// product sum, so that sj' comes out of the reduction below 2r. Lazily, sj * 2^260 joins
// it instead (five adds for a product): sj' = sj + (v[j-1] s0 reduced) grows by ~1.06r a
// round, which the next rounds' sums of products absorb for kLazyRounds<T> rounds.
template <int T, int G>
PL_INLINE void sparse(fe (*s)[T], const u64* w_hat, const u64* v, bool reduce) {
  fe first[G];
  dot<T, G>(s, w_hat, first);
  for (int j = 1; j < T; ++j) {
    if (reduce) {
      acc w[G];
      for (int g = 0; g < G; ++g) {
        clear(w[g]);
        mac(w[g], s[g][j], kOne);
        mac(w[g], s[g][0], v + 5 * (j - 1));
      }
      for (int g = 0; g < G; ++g) s[g][j] = redc(w[g]);
    } else {
      cols w[G];
      for (int g = 0; g < G; ++g) {
        clear(w[g]);
        mac(w[g], s[g][0], v + 5 * (j - 1));
        for (int l = 0; l < 5; ++l) w[g].c[5 + l] = _mm512_add_epi64(w[g].c[5 + l], s[g][j].l[l]);
      }
      for (int g = 0; g < G; ++g) s[g][j] = redc(w[g]);
    }
  }
  for (int g = 0; g < G; ++g) s[g][0] = first[g];
}

// Lazy sparse rounds between reducing ones: the most that keeps every sum of products
// below r 2^260 (the dot product w . s over sj grown by ~1.06r a round, t - 1 of them)
// with margin. poseidon_ifma_bounds.py propagates worst-case bounds through the whole
// permutation with this schedule.
template <int T>
constexpr int kLazyRounds = T <= 3 ? 12 : T <= 5 ? 5 : T <= 9 ? 2 : 1;

template <int T, int G>
void permute(const ifma_poseidon_constants& c, fe (*s)[T]) {
  const int half = c.full_rounds / 2;
  const u64* k = c.round_keys;
  for (int r = 0; r < half; ++r) {
    for (int i = 0; i < T; ++i) pow5_at<T, G>(s, i, k + 5 * i);
    k += 5 * T;
    matrix<T, G>(s, r == half - 1 ? c.pre_sparse : c.mds);
  }
  for (int r = 0; r < c.partial_rounds; ++r) {
    pow5_at<T, G>(s, 0, k);
    k += 5;
    // The last partial round reduces: the full rounds' S-boxes take inputs below ~5r.
    const bool reduce = r % (kLazyRounds<T> + 1) == kLazyRounds<T> || r == c.partial_rounds - 1;
    sparse<T, G>(s, c.w_hat + 5 * T * r, c.v_rest + 5 * (T - 1) * r, reduce);
  }
  for (int r = 0; r < half - 1; ++r) {
    for (int i = 0; i < T; ++i) pow5_at<T, G>(s, i, k + 5 * i);
    k += 5 * T;
    matrix<T, G>(s, c.mds);
  }
  for (int i = 0; i < T; ++i) pow5_at<T, G>(s, i, nullptr);
  fe digest[G];
  dot<T, G>(s, c.mds + 5 * T, digest);  // the digest's row only
  for (int g = 0; g < G; ++g) s[g][1] = digest[g];
}

// Four 64-bit words <-> five 52-bit limbs (values below 2^256).
PL_INLINE void split52(const u64 x[4], u64 o[5]) {
  o[0] = x[0] & kMask52;
  o[1] = ((x[0] >> 52) | (x[1] << 12)) & kMask52;
  o[2] = ((x[1] >> 40) | (x[2] << 24)) & kMask52;
  o[3] = ((x[2] >> 28) | (x[3] << 36)) & kMask52;
  o[4] = x[3] >> 16;
}
PL_INLINE void join52(const u64 o[5], u64 x[4]) {
  x[0] = o[0] | (o[1] << 52);
  x[1] = (o[1] >> 12) | (o[2] << 40);
  x[2] = (o[2] >> 24) | (o[3] << 28);
  x[3] = (o[3] >> 36) | (o[4] << 16);
}

// x mod r for x < 2r.
PL_INLINE void canonical(u64 x[4]) {
  constexpr u64 r[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull, 0x73eda753299d7d48ull};
  u64 d[4];
  unsigned char borrow = 0;
  for (int i = 0; i < 4; ++i) {
    const u64 y = r[i] + borrow;
    const unsigned char b2 = static_cast<unsigned char>((y < borrow) | (x[i] < y));
    d[i] = x[i] - y;
    borrow = b2;
  }
  if (!borrow)
    for (int i = 0; i < 4; ++i) x[i] = d[i];
}

// Lanes' limbs through memory: lane-major rows of 8 (one zmm per limb).
struct lanes52 {
  alignas(64) u64 v[5][kIfmaLanes];
  PL_INLINE void put(std::size_t lane, const u64 x[4]) {
    u64 o[5];
    split52(x, o);
    for (int j = 0; j < 5; ++j) v[j][lane] = o[j];
  }
  PL_INLINE void get(std::size_t lane, u64 x[4]) const {
    u64 o[5];
    for (int j = 0; j < 5; ++j) o[j] = v[j][lane];
    join52(o, x);
  }
  PL_INLINE fe load() const {
    fe a;
    for (int j = 0; j < 5; ++j) a.l[j] = _mm512_load_si512(v[j]);
    return a;
  }
  PL_INLINE void store(const fe& a) {
    for (int j = 0; j < 5; ++j) _mm512_store_si512(v[j], a.l[j]);
  }
};

// x / 2^260 made canonical: out of Montgomery form.
PL_INLINE fe from_mont(const fe& x) {
  cols w;
  clear(w);
  for (int j = 0; j < 5; ++j) w.c[j] = x.l[j];
  return redc(w);
}

PL_INLINE fe to_mont(const fe& x) {
  cols w;
  clear(w);
  mac(w, x, kR2);
  return redc(w);
}

// Hashes first .. first + lanes - 1 into one group's state, in Montgomery form with the
// first round key added; spare lanes of a short group repeat its last hash.
template <int T>
void load_group(const ifma_poseidon_constants& c, const std::uint8_t* const* in, std::size_t stride,
                std::size_t first, std::size_t lanes, fe* s) {
  for (int j = 0; j < 5; ++j) s[0].l[j] = bc(c.state0[j]);
  for (int k = 1; k < T; ++k) {
    lanes52 b;
    for (std::size_t lane = 0; lane < kIfmaLanes; ++lane) {
      const std::uint8_t* p = in[k - 1] + (first + (lane < lanes ? lane : lanes - 1)) * stride;
      u64 x[4];
      std::memcpy(x, p, 32);  // little-endian words
      b.put(lane, x);
    }
    cols w;
    clear(w);
    mac(w, b.load(), kR2);
    s[k] = redc_plus(w, c.first_keys + 5 * k);
  }
}

PL_INLINE void store_digests(const fe& d, std::size_t lanes, std::uint8_t* out) {
  lanes52 b;
  b.store(from_mont(d));
  for (std::size_t lane = 0; lane < lanes; ++lane) {
    u64 x[4];
    b.get(lane, x);
    canonical(x);
    std::memcpy(out + 32 * lane, x, 32);
  }
}

template <int T, int G>
void hash_run(const ifma_poseidon_constants& c, const std::uint8_t* const* in, std::size_t stride, std::size_t first,
              std::size_t n, std::uint8_t* out) {
  fe s[G][T];
  for (int g = 0; g < G; ++g) {
    const std::size_t at = first + kIfmaLanes * static_cast<std::size_t>(g);
    load_group<T>(c, in, stride, at, n > at ? std::min(n - at, kIfmaLanes) : 1, s[g]);
  }
  permute<T, G>(c, s);
  for (int g = 0; g < G; ++g) {
    const std::size_t at = first + kIfmaLanes * static_cast<std::size_t>(g);
    if (at < n) store_digests(s[g][1], std::min(n - at, kIfmaLanes), out + 32 * at);
  }
}

// Two groups (16 hashes) at a time while more than one group's worth remains.
template <int T>
void hash_groups(const ifma_poseidon_constants& c, const std::uint8_t* const* in, std::size_t stride, std::size_t n,
                 std::uint8_t* out) {
  std::size_t first = 0;
  for (; first < n && n - first > kIfmaLanes; first += 2 * kIfmaLanes) hash_run<T, 2>(c, in, stride, first, n, out);
  if (first < n) hash_run<T, 1>(c, in, stride, first, n, out);
}

}  // namespace

void poseidon_ifma(const ifma_poseidon_constants& c, const std::uint8_t* const* in, std::size_t stride, std::size_t n,
                   std::uint8_t* out) {
  switch (c.width) {
    case 3: return hash_groups<3>(c, in, stride, n, out);
    case 5: return hash_groups<5>(c, in, stride, n, out);
    case 9: return hash_groups<9>(c, in, stride, n, out);
    case 12: return hash_groups<12>(c, in, stride, n, out);
    default: break;
  }
}

void fr_mul_ifma(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* out, std::size_t n) {
  for (std::size_t first = 0; first < n; first += kIfmaLanes) {
    const std::size_t lanes = n - first < kIfmaLanes ? n - first : kIfmaLanes;
    lanes52 x, y;
    for (std::size_t lane = 0; lane < kIfmaLanes; ++lane) {
      const std::size_t i = first + (lane < lanes ? lane : lanes - 1);
      x.put(lane, a + 4 * i);
      if (b != nullptr) y.put(lane, b + 4 * i);
    }
    const fe p = b != nullptr ? mul(x.load(), y.load()) : square(x.load());
    // p = a b / 2^260; times 2^264 / 2^260 gives fr::mont's a b / 2^256.
    cols w;
    clear(w);
    mac(w, p, kTo256);
    x.store(redc(w));
    for (std::size_t lane = 0; lane < lanes; ++lane) {
      u64 v[4];
      x.get(lane, v);
      canonical(v);
      for (int j = 0; j < 4; ++j) out[4 * (first + lane) + j] = v[j];
    }
  }
}

template <int V>
void chain(std::uint64_t* x, const std::uint64_t* y, std::size_t reps) {
  fe a[V], b;
  lanes52 t;
  for (std::size_t lane = 0; lane < kIfmaLanes; ++lane) t.put(lane, y + 4 * lane);
  b = to_mont(t.load());
  for (int v = 0; v < V; ++v) {
    for (std::size_t lane = 0; lane < kIfmaLanes; ++lane) t.put(lane, x + 4 * (kIfmaLanes * v + lane));
    a[v] = to_mont(t.load());
  }
  for (std::size_t i = 0; i < reps; ++i)
    for (int v = 0; v < V; ++v) a[v] = mul(a[v], b);
  for (int v = 0; v < V; ++v) {
    t.store(from_mont(a[v]));
    for (std::size_t lane = 0; lane < kIfmaLanes; ++lane) {
      u64* o = x + 4 * (kIfmaLanes * v + lane);
      t.get(lane, o);
      canonical(o);
    }
  }
}

// Up to G groups of eight states (n of them; spare lanes repeat the last) stepped together
// through the dense matrix as the rounds apply it, written back canonical.
template <int T, int G>
void matrix_run(const u64* mds, std::uint64_t* x, std::size_t n, std::size_t reps) {
  fe s[G][T];
  lanes52 t;
  const auto state = [&](int g, std::size_t lane) { return std::min(kIfmaLanes * static_cast<std::size_t>(g) + lane, n - 1); };
  for (int g = 0; g < G; ++g)
    for (int k = 0; k < T; ++k) {
      for (std::size_t lane = 0; lane < kIfmaLanes; ++lane) t.put(lane, x + 4 * (state(g, lane) * T + static_cast<std::size_t>(k)));
      s[g][k] = to_mont(t.load());
    }
  for (std::size_t i = 0; i < reps; ++i) matrix<T, G>(s, mds);
  for (int g = 0; g < G; ++g)
    for (int k = 0; k < T; ++k) {
      t.store(from_mont(s[g][k]));
      for (std::size_t lane = 0; lane < kIfmaLanes && kIfmaLanes * static_cast<std::size_t>(g) + lane < n; ++lane) {
        u64* o = x + 4 * (state(g, lane) * T + static_cast<std::size_t>(k));
        t.get(lane, o);
        canonical(o);
      }
    }
}

template <int T>
void matrix_states(const u64* mds, std::uint64_t* x, std::size_t chains, std::size_t reps) {
  constexpr std::size_t most = 4 * kIfmaLanes;  // four groups in step, as the rounds' two
  for (std::size_t first = 0; first < chains; first += most) {
    const std::size_t n = std::min(most, chains - first);
    std::uint64_t* at = x + 4 * T * first;
    switch ((n + kIfmaLanes - 1) / kIfmaLanes) {
      case 1: matrix_run<T, 1>(mds, at, n, reps); break;
      case 2: matrix_run<T, 2>(mds, at, n, reps); break;
      case 3: matrix_run<T, 3>(mds, at, n, reps); break;
      default: matrix_run<T, 4>(mds, at, n, reps); break;
    }
  }
}

void fr_matrix_chain_ifma(const ifma_poseidon_constants& c, std::uint64_t* x, std::size_t chains, std::size_t reps) {
  switch (c.width) {
    case 3: return matrix_states<3>(c.mds, x, chains, reps);
    case 5: return matrix_states<5>(c.mds, x, chains, reps);
    case 9: return matrix_states<9>(c.mds, x, chains, reps);
    case 12: return matrix_states<12>(c.mds, x, chains, reps);
    default: break;
  }
}

void fr_mul_chain_ifma(std::uint64_t* x, const std::uint64_t* y, std::size_t chains, std::size_t reps) {
  switch (chains / kIfmaLanes) {
    case 1: return chain<1>(x, y, reps);
    case 2: return chain<2>(x, y, reps);
    case 4: return chain<4>(x, y, reps);
    default: return chain<8>(x, y, reps);
  }
}

}  // namespace poreplab::cpu::kernels
#endif
