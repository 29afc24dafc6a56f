#pragma once
// One stopping rule for every sampled measurement (bench label, disk labeling, PC2, the hash
// engines, the runner's time budget): a sample count, a target interval on the median, a
// time budget, a hard cap; and why sampling stopped.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "poreplab/name_table.hpp"
#include "poreplab/stats.hpp"

namespace poreplab {

// A hard cap on samples, whatever the target.
inline constexpr std::size_t kMaxSamples = 10000;

enum class stop_reason { samples, ci_target, time_budget };
inline constexpr name_table<stop_reason, 3> kStopReasons{
    "stopping reason",
    {named<stop_reason>{stop_reason::samples, "samples"}, named<stop_reason>{stop_reason::ci_target, "ci_target"},
     named<stop_reason>{stop_reason::time_budget, "time_budget"}}};

struct stopping_options {
  // Without a target: exactly this many. With one: the interval is first looked at after
  // this many.
  std::size_t samples = 1;
  // > 0: stop once the 95% bootstrap interval of the watched values' median has a
  // half-width <= target_ci x the median.
  double target_ci = 0;
  // > 0: stop when the next sample, as long as the last, would end past this many seconds
  // after the start. At least one sample is always taken.
  double max_seconds = 0;
  std::size_t max_samples = kMaxSamples;
};

class stopping_rule {
 public:
  using clock = std::chrono::steady_clock;

  explicit stopping_rule(const stopping_options& o, clock::time_point start = clock::now()) : o_(o), start_(start) {}

  // After n samples, the last begun at last_start, `watched` holding the values the
  // interval is on: the reason to stop, or nothing to go on. The interval is looked at
  // again only after every tenth more samples: bootstrapping after each of thousands of
  // short samples would cost more than the samples.
  std::optional<stop_reason> after(std::size_t n, const std::vector<double>& watched, clock::time_point last_start) {
    if (o_.target_ci > 0) {
      if (n >= o_.samples && (checked_at_ == 0 || n >= checked_at_ + std::max<std::size_t>(1, checked_at_ / 10))) {
        checked_at_ = n;
        const double m = median(watched);
        if (m > 0 && bootstrap_median_interval(watched).half_width() <= o_.target_ci * m) return stop_reason::ci_target;
      }
    } else if (n >= o_.samples) {
      return stop_reason::samples;
    }
    if (n >= o_.max_samples) return stop_reason::samples;
    if (o_.max_seconds > 0) {
      const auto now = clock::now();
      const double elapsed = std::chrono::duration<double>(now - start_).count();
      const double last = std::chrono::duration<double>(now - last_start).count();
      if (elapsed + last > o_.max_seconds) return stop_reason::time_budget;
    }
    return std::nullopt;
  }

  // For work sampled in batches: after `taken` samples costing `per_sample_s` each, how many
  // more of the fixed count fit the time left (all of them without a budget).
  std::size_t more_that_fit(std::size_t taken, double per_sample_s) const {
    const std::size_t wanted = std::min(o_.samples, o_.max_samples);  // the cap holds here too
    const std::size_t left = wanted > taken ? wanted - taken : 0;
    if (o_.max_seconds <= 0 || left == 0) return left;
    const double remaining = o_.max_seconds - std::chrono::duration<double>(clock::now() - start_).count();
    if (remaining <= 0 || per_sample_s <= 0) return 0;
    return static_cast<std::size_t>(std::min<double>(static_cast<double>(left), std::floor(remaining / per_sample_s)));
  }

 private:
  stopping_options o_;
  clock::time_point start_;
  std::size_t checked_at_ = 0;
};

// Samples until the rule stops: take(i) takes sample i, watched() gives the values the
// interval is on. Returns why it stopped.
template <class Take, class Watched>
stop_reason sample_until(stopping_rule& rule, Take&& take, Watched&& watched) {
  for (std::size_t i = 0;; ++i) {
    const auto begun = stopping_rule::clock::now();
    take(i);
    if (const auto why = rule.after(i + 1, watched(), begun)) return *why;
  }
}

}  // namespace poreplab
