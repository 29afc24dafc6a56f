// How far a figure can be trusted: the bootstrap interval of a median (against a known
// distribution and by hand), the interleaved floor/label pairs of bench_label, the clock
// flag, and the stopping rule.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/label.hpp"
#include "poreplab/sampling.hpp"
#include "poreplab/stats.hpp"
#include "support.hpp"

using namespace poreplab;
using nlohmann::json;
namespace test = poreplab::test;

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

label_bench_options tiny(std::uint32_t samples) {
  label_bench_options o;
  o.backend = &find_backend("reference");
  o.sector_size = 2048;
  o.layers = 2;
  o.warmup = 0;
  o.samples = samples;
  return o;
}

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

TEST_CASE("measurement: samples flagged when the clock beside them is >3% off", "[measurement]") {
  // Pairs: readings before the floor, between, after the label: 2n + 1 for n samples.
  const clock_track c = track_clock({3e9, 3e9, 3e9, 3e9, 2.8e9, 3e9, 2.95e9}, 3, true);
  CHECK(c.median_hz == 3e9);
  REQUIRE(c.sample_hz.size() == 3);
  CHECK(c.sample_hz[0] == 3e9);
  CHECK(c.sample_hz[1] == Approx(2.9e9));  // its label ran between readings 3 and 4
  CHECK(c.sample_hz[2] == Approx(2.975e9));
  // Reading 4 (6.7% slow) ends sample 1's label and starts sample 2's floor; 2.95 GHz
  // (1.7% off) is within the tolerance.
  CHECK(c.flagged == std::vector<std::size_t>{1, 2});

  // Without a floor: readings around each label, n + 1.
  const clock_track d = track_clock({3e9, 3.2e9, 3e9, 3e9}, 3, false);
  CHECK(d.median_hz == 3e9);
  CHECK(d.flagged == std::vector<std::size_t>{0, 1});
  CHECK(d.sample_hz[2] == 3e9);

  // Steady clock: nothing flagged. Missing or zero readings (no add-chain kernel): no clock.
  CHECK(track_clock({3e9, 3.01e9, 2.99e9}, 1, true).flagged.empty());
  CHECK(track_clock({3e9, 0, 3e9}, 1, true).median_hz == 0);
  CHECK(track_clock({3e9, 3e9}, 1, true).median_hz == 0);
}

TEST_CASE("measurement: bench_label pairs each sample with its own floor", "[measurement]") {
  const label_bench_result r = bench_label(tiny(4));
  REQUIRE(r.verified);
  REQUIRE(r.pairs.size() == 4);
  REQUIRE(r.samples_ns_per_node_layer.size() == 4);
  std::vector<double> ratios, floors;
  for (std::size_t i = 0; i < 4; ++i) {
    const label_pair& p = r.pairs[i];
    CHECK(p.label_ns == r.samples_ns_per_node_layer[i]);
    CHECK(p.floor_ns > 0);
    CHECK(p.ratio == Approx(p.floor_ns / p.label_ns));
    ratios.push_back(p.ratio);
    floors.push_back(p.floor_ns);
  }
  // The old fields keep their meaning, now from the pairs' medians.
  CHECK(r.efficiency == Approx(median(ratios)));
  CHECK(r.floor_ns_per_node_layer == Approx(median(floors)));
  CHECK(r.efficiency_lo <= r.efficiency);
  CHECK(r.efficiency <= r.efficiency_hi);
  CHECK(r.efficiency_spread == Approx(relative_spread(ratios)));
  CHECK(r.ns_lo <= r.ns_per_node_layer);
  CHECK(r.ns_per_node_layer <= r.ns_hi);
  CHECK(r.stopped_by == stop_reason::samples);
  // The timing thread's share of each sample's wall time on a core; a sample below
  // kMinCpuShare (or whose floor was) is listed as preempted.
  REQUIRE(r.cpu_share.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(r.cpu_share[i] > 0);
    CHECK(r.cpu_share[i] < 1.05);
    if (r.cpu_share[i] < kMinCpuShare) CHECK(std::count(r.preempted.begin(), r.preempted.end(), i) == 1);
  }
#if defined(__x86_64__)
  REQUIRE(r.clock_hz.size() == 4);
  CHECK(r.core_hz > 0.3e9);
  CHECK(r.cycles_per_byte_core > 0);
#endif

  const json j = to_json(r);
  REQUIRE(j["efficiency_pairs"].size() == 4);
  CHECK(j["efficiency_pairs"][2]["floor_ns"] == r.pairs[2].floor_ns);
  CHECK(j["efficiency_pairs"][2]["label_ns"] == r.pairs[2].label_ns);
  CHECK(j["efficiency_ci95"].size() == 2);
  CHECK(j["efficiency"] == r.efficiency);
  CHECK(j["stopped_by"] == "samples");
  CHECK(j["samples_taken"] == 4);
  CHECK(j["cpu_share"].size() == 4);
  CHECK(j["preempted"] == r.preempted.size());
}

TEST_CASE("measurement: the stopping rule says which limit ended the sampling", "[measurement]") {
  SECTION("a loose target is met, and not before the fewest samples it looks at") {
    // On a loaded machine an outlier pair can keep even a loose target open for a few
    // more pairs: the rule is that it stops once met, never before kMinPairsForTarget.
    label_bench_options o = tiny(1);
    o.target_ci = 0.99;
    const auto r = bench_label(o);
    CHECK(r.stopped_by == stop_reason::ci_target);
    CHECK(r.pairs.size() >= kMinPairsForTarget);
    CHECK(r.efficiency_hi - r.efficiency_lo <= 2 * 0.99 * r.efficiency);
  }
  SECTION("an unreachable target ends with the time budget") {
    label_bench_options o = tiny(3);
    o.target_ci = 1e-9;
    o.max_seconds = 0.4;
    const auto r = bench_label(o);
    CHECK(r.stopped_by == stop_reason::time_budget);
    CHECK(r.pairs.size() >= 1);
    CHECK(r.pairs.size() < 100);
  }
  SECTION("a budget without a target caps the samples") {
    label_bench_options o = tiny(1000);
    o.max_seconds = 0.3;
    const auto r = bench_label(o);
    CHECK(r.stopped_by == stop_reason::time_budget);
    CHECK(r.pairs.size() < 1000);
  }
  SECTION("bad values are refused") {
    label_bench_options o = tiny(3);
    o.target_ci = 1.5;
    CHECK_THROWS_WITH(bench_label(o), Catch::Contains("target CI: 1.5 is not from 0 to 1"));
    o.target_ci = 0;
    o.max_seconds = -1;
    CHECK_THROWS_WITH(bench_label(o), Catch::Contains("max seconds: -1"));
  }
}

TEST_CASE("measurement: bench label prints efficiency with its interval and keeps the pairs in --json", "[measurement]") {
  test::temp_dir dir("measurement");
  const auto text = test::run_poreplab("bench label --backend reference --samples 3 --warmup 0", dir);
  INFO(text.err);
  REQUIRE(text.status == 0);
  CHECK(text.out.find("efficiency ") != std::string::npos);
  CHECK(text.out.find("(median of 3 floor/label pairs, 95% interval; pair spread") != std::string::npos);
  CHECK(text.out.find("stopped by         the sample count (3 samples)") != std::string::npos);
  CHECK(text.out.find("median (timing thread's CPU time / wall time)") != std::string::npos);
#if defined(__x86_64__)
  CHECK(text.out.find("GHz median (add chain)") != std::string::npos);
  CHECK(text.out.find("(core clock)") != std::string::npos);
#endif

  const auto js = test::run_poreplab("bench label --backend reference --samples 1 --target-ci 0.99 --json", dir);
  REQUIRE(js.status == 0);
  const json j = json::parse(js.out);
  CHECK(j["stopped_by"] == "ci_target");
  CHECK(j["efficiency_pairs"].size() >= kMinPairsForTarget);

  const auto bad = test::run_poreplab("bench label --backend reference --target-ci 2", dir);
  CHECK(bad.status == 1);
  CHECK(bad.err.find("poreplab: error: target CI: 2 is not from 0 to 1") != std::string::npos);
}

// The one stopping rule every sampler uses (bench label, disk labeling, PC2, the hash
// engines, the runner's budget), on its own.
TEST_CASE("the stopping rule stops at the count, the interval target, the cap or the budget", "[measurement]") {
  using clk = stopping_rule::clock;
  const auto now = clk::now();
  SECTION("a fixed count") {
    stopping_rule rule{stopping_options{3}};
    const std::vector<double> v{1, 2, 3};
    CHECK_FALSE(rule.after(1, v, now));
    CHECK_FALSE(rule.after(2, v, now));
    CHECK(rule.after(3, v, now) == stop_reason::samples);
  }
  SECTION("an interval target is looked at from the least count on") {
    stopping_rule rule{stopping_options{5, 0.01}};
    const std::vector<double> flat(5, 2.0);
    CHECK_FALSE(rule.after(4, flat, now));  // met, but fewer than the least
    CHECK(rule.after(5, flat, now) == stop_reason::ci_target);
  }
  SECTION("an interval that stays wide runs to the cap") {
    stopping_options o{2, 1e-6};
    o.max_samples = 40;
    stopping_rule rule{o};
    std::vector<double> wide;
    std::optional<stop_reason> why;
    std::size_t n = 0;
    while (!why) {
      wide.push_back(n % 2 == 0 ? 1.0 : 3.0);
      why = rule.after(++n, wide, clk::now());
    }
    CHECK(why == stop_reason::samples);
    CHECK(n == 40);
  }
  SECTION("the budget stops before a sample that would overrun it, after at least one") {
    stopping_rule rule{stopping_options{1000, 0, 1.0}, now - std::chrono::milliseconds(100)};
    const std::vector<double> v{1};
    CHECK_FALSE(rule.after(1, v, clk::now() - std::chrono::milliseconds(1)));
    CHECK(rule.after(2, v, clk::now() - std::chrono::milliseconds(950)) == stop_reason::time_budget);
  }
  SECTION("sample_until counts what it took") {
    stopping_rule rule{stopping_options{4}};
    std::vector<double> taken;
    CHECK(sample_until(rule, [&](std::size_t i) { taken.push_back(double(i)); },
                       [&]() -> const std::vector<double>& { return taken; }) == stop_reason::samples);
    CHECK(taken == std::vector<double>{0, 1, 2, 3});
  }
  SECTION("batches: what fits the time left") {
    CHECK(stopping_rule{stopping_options{10}}.more_that_fit(1, 5.0) == 9);
    const stopping_rule budget{stopping_options{10, 0, 1.0}, now - std::chrono::milliseconds(400)};
    const std::size_t more = budget.more_that_fit(1, 0.1);  // under 0.6 s left
    CHECK(more >= 3);
    CHECK(more <= 5);
    CHECK(budget.more_that_fit(1, 2.0) == 0);
    CHECK(stopping_rule{stopping_options{3, 0, 100}}.more_that_fit(3, 0.1) == 0);
  }
  CHECK(kStopReasons.name(stop_reason::time_budget) == "time_budget");
}
