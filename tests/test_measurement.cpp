// How far a figure can be trusted: the bootstrap interval of a median, against a known
// distribution and by hand.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "poreplab/stats.hpp"

using namespace poreplab;

namespace {

// Fraction of `trials` samples of n draws from a distribution whose median is `truth`
// for which the interval at `level` covers it. Each trial has its own fixed seed.
template <class Draw>
double coverage(Draw draw, double truth, std::size_t n, double level, int trials) {
  splitmix64 rng(12345);
  int covered = 0;
  std::vector<double> v(n);
  for (int t = 0; t < trials; ++t) {
    for (auto& x : v) x = draw(rng);
    const interval ci = bootstrap_median_interval(v, level, 1000, 1000 + static_cast<std::uint64_t>(t));
    covered += ci.lo <= truth && truth <= ci.hi ? 1 : 0;
  }
  return static_cast<double>(covered) / trials;
}

double exponential(splitmix64& rng) { return -std::log(1 - rng.unit()); }  // median ln 2

}  // namespace

TEST_CASE("stats: quantiles and the bootstrap by hand", "[stats]") {
  CHECK(sorted_quantile({1, 2, 3, 4}, 0) == 1);
  CHECK(sorted_quantile({1, 2, 3, 4}, 1) == 4);
  CHECK(sorted_quantile({1, 2, 3, 4}, 0.5) == Approx(2.5));
  CHECK(sorted_quantile({1, 2, 3, 4}, 0.25) == Approx(1.75));  // h = 0.75 between 1 and 2
  CHECK(sorted_quantile({}, 0.5) == 0);
  CHECK(relative_spread({10, 12, 11, 30}) == Approx(20 / 11.5));
  CHECK(relative_spread({7}) == 0);

  // {1, 2, 3} resampled: the median is 1 when at least two of the three draws are 1,
  // 3 * (1/3)^2 * (2/3) + (1/3)^3 = 7/27; likewise 3; else 2 (13/27).
  const auto m = bootstrap_medians({1, 2, 3}, 20000);
  REQUIRE(m.size() == 20000);
  const auto share = [&](double v) { return static_cast<double>(std::count(m.begin(), m.end(), v)) / 20000.0; };
  CHECK(share(1) == Approx(7.0 / 27).margin(0.01));
  CHECK(share(2) == Approx(13.0 / 27).margin(0.01));
  CHECK(share(3) == Approx(7.0 / 27).margin(0.01));
  // Both tails hold far more than 2.5%: the 95% interval is the whole range.
  const interval ci = bootstrap_median_interval({1, 2, 3});
  CHECK(ci.lo == 1);
  CHECK(ci.hi == 3);
  CHECK(ci.half_width() == 1);

  // Degenerate samples.
  CHECK(bootstrap_median_interval({5, 5, 5, 5}).lo == 5);
  CHECK(bootstrap_median_interval({5, 5, 5, 5}).hi == 5);
  CHECK(bootstrap_median_interval({4.5}).lo == 4.5);
  CHECK(bootstrap_median_interval({4.5}).hi == 4.5);
  CHECK(bootstrap_median_interval({}).hi == 0);

  // Fixed seed: the same data gives the same interval, every time and everywhere.
  const std::vector<double> v = {0.88, 0.86, 0.91, 0.87, 0.89, 0.9, 0.85};
  CHECK(bootstrap_medians(v) == bootstrap_medians(v));
  CHECK(bootstrap_medians(v, 2000, 1) != bootstrap_medians(v, 2000, 2));
  const interval a = bootstrap_median_interval(v);
  CHECK(a.lo <= median(v));
  CHECK(median(v) <= a.hi);
  CHECK(a.lo >= 0.85);
  CHECK(a.hi <= 0.91);
}

TEST_CASE("stats: the median's 95% interval covers the true median about 95% of the time", "[stats]") {
  // Exponential(1), skewed, median ln 2; and a uniform on [10, 20], median 15.
  const double e95 = coverage(exponential, std::log(2.0), 25, 0.95, 400);
  CHECK(e95 > 0.90);
  CHECK(e95 < 0.99);
  const double u95 = coverage([](splitmix64& r) { return 10 + 10 * r.unit(); }, 15.0, 41, 0.95, 400);
  CHECK(u95 > 0.90);
  CHECK(u95 < 0.99);
  // A narrower level covers less, as it should: not simply a wide interval.
  const double e50 = coverage(exponential, std::log(2.0), 25, 0.5, 400);
  CHECK(e50 > 0.38);
  CHECK(e50 < 0.65);
}
