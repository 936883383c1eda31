// Order statistics of timing samples (docs/methodology.md §2.7: the mean is useless here).
#pragma once
#include <cstddef>
#include <vector>

namespace kex {

/// Summary of n samples (same unit in, same unit out).
struct SampleStats {
  size_t n = 0;
  double min = 0, p10 = 0, median = 0, p90 = 0, max = 0;
  double ci_low = 0, ci_high = 0;  ///< distribution-free 95% CI of the median
  double ci_rel = 0;               ///< (ci_high - ci_low) / 2 / median
  bool operator==(const SampleStats&) const = default;
};

/// Percentiles by linear interpolation between order statistics; the median CI
/// from ranks n/2 ± 0.98·√n (1-based, rounded outward, clamped). n == 0 gives zeros.
SampleStats summarize(std::vector<double> samples);

/// The median of `values` (the mean of the middle two for an even count); 0 when empty.
double median(std::vector<double> values);

}  // namespace kex
