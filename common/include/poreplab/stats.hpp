#pragma once
// Sample statistics shared by the benchmarks and the experiment records. Host only.
#include <algorithm>
#include <cstddef>
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

}  // namespace poreplab
