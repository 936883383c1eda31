#include "src/core/stats.hpp"

#include <algorithm>
#include <cmath>

namespace kex {

namespace {
double quantile(const std::vector<double>& s, double q) {
  double pos = q * static_cast<double>(s.size() - 1);
  size_t lo = static_cast<size_t>(pos);
  size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (s[hi] - s[lo]) * (pos - static_cast<double>(lo));
}
}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return quantile(v, 0.5);
}

SampleStats summarize(std::vector<double> s) {
  SampleStats r;
  r.n = s.size();
  if (s.empty()) return r;
  std::sort(s.begin(), s.end());
  r.min = s.front();
  r.max = s.back();
  r.p10 = quantile(s, 0.10);
  r.median = quantile(s, 0.5);
  r.p90 = quantile(s, 0.90);
  const double n = static_cast<double>(s.size());
  const double half = 0.98 * std::sqrt(n);
  long lo = static_cast<long>(std::floor(n / 2 - half));      // 1-based rank
  long hi = static_cast<long>(std::ceil(n / 2 + half + 1));
  lo = std::clamp(lo, 1L, static_cast<long>(s.size()));
  hi = std::clamp(hi, 1L, static_cast<long>(s.size()));
  r.ci_low = s[static_cast<size_t>(lo - 1)];
  r.ci_high = s[static_cast<size_t>(hi - 1)];
  r.ci_rel = r.median > 0 ? (r.ci_high - r.ci_low) / 2 / r.median : 0;
  return r;
}

}  // namespace kex
