#pragma once
// Sample statistics shared by the benchmarks and the experiment records. Host only.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace poreplab {

// Median of samples sorted ascending: the middle one, or the mean of the middle two for
// an even count; 0 for none.
inline double sorted_median(const std::vector<double>& sorted) {
  if (sorted.empty()) return 0;
  const std::size_t m = sorted.size() / 2;
  return sorted.size() % 2 != 0 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
}

// Median of samples in any order (see sorted_median).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return sorted_median(v);
}

// The p-quantile (0 <= p <= 1) of samples sorted ascending, interpolating linearly between
// order statistics (R's type 7: p = 0 is the minimum, p = 1 the maximum); 0 for none.
inline double sorted_quantile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double h = std::clamp(p, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

// A small, fully specified generator (SplitMix64), so that a resampling with a given seed
// picks the same samples with every compiler and standard library.
class splitmix64 {
 public:
  explicit splitmix64(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); the modulo bias (about n / 2^64) is far below any use here.
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t s_;
};

// Calls visit(i) for the indices a sampled check looks at: every one of 0..n-1 when
// n <= samples (the exhaustive check then costs no more), else `samples` indices drawn
// uniformly (with replacement) from seed, so that a check is reproducible.
template <class Visit>
void for_each_sampled_index(std::uint64_t n, std::uint64_t samples, std::uint64_t seed, Visit&& visit) {
  if (n <= samples) {
    for (std::uint64_t i = 0; i < n; ++i) visit(i);
    return;
  }
  splitmix64 rng(seed);
  for (std::uint64_t k = 0; k < samples; ++k) visit(rng.next() % n);
}

inline constexpr std::uint64_t kBootstrapSeed = 0x706f726570ull;  // fixed: same data, same interval
inline constexpr std::size_t kBootstrapResamples = 2000;

// The medians of `resamples` bootstrap resamples of `samples` (each n draws with
// replacement), sorted ascending. Empty for no samples.
inline std::vector<double> bootstrap_medians(const std::vector<double>& samples,
                                             std::size_t resamples = kBootstrapResamples,
                                             std::uint64_t seed = kBootstrapSeed) {
  std::vector<double> medians;
  if (samples.empty()) return medians;
  splitmix64 rng(seed);
  std::vector<double> draw(samples.size());
  medians.reserve(resamples);
  for (std::size_t r = 0; r < resamples; ++r) {
    for (auto& d : draw) d = samples[rng.below(samples.size())];
    std::sort(draw.begin(), draw.end());
    medians.push_back(sorted_median(draw));
  }
  std::sort(medians.begin(), medians.end());
  return medians;
}

struct interval {
  double lo = 0, hi = 0;
  double half_width() const { return (hi - lo) / 2; }
};

// Percentile bootstrap interval of the median at `level` (0.95: the 2.5% and 97.5%
// quantiles of the resampled medians). Deterministic for a given seed. One sample gives
// the degenerate interval [x, x]; none gives [0, 0].
inline interval bootstrap_median_interval(const std::vector<double>& samples, double level = 0.95,
                                          std::size_t resamples = kBootstrapResamples,
                                          std::uint64_t seed = kBootstrapSeed) {
  if (samples.size() < 2) return samples.empty() ? interval{} : interval{samples[0], samples[0]};
  const std::vector<double> m = bootstrap_medians(samples, resamples, seed);
  const double tail = (1 - level) / 2;
  return {sorted_quantile(m, tail), sorted_quantile(m, 1 - tail)};
}

// (max - min) / median: how far apart the samples lie, relative to their middle; 0 for
// fewer than two samples or a median of 0.
inline double relative_spread(std::vector<double> v) {
  if (v.size() < 2) return 0;
  std::sort(v.begin(), v.end());
  const double m = sorted_median(v);
  return m != 0 ? (v.back() - v.front()) / m : 0;
}

}  // namespace poreplab
