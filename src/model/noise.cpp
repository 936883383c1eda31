#include "src/model/noise.hpp"

#include <algorithm>
#include <cmath>

#include "src/core/stats.hpp"

namespace kex {

SentinelSpread sentinel_spread(std::vector<double> v) {
  SentinelSpread s;
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !(x > 0); }), v.end());
  if (v.empty()) return s;
  const SampleStats st = summarize(v);
  s.median = st.median;
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::fabs(x - st.median));
  s.p10 = st.p10 / st.median;
  s.p90 = st.p90 / st.median;
  s.max = st.max / st.median;
  s.mad = median(dev) / st.median;
  return s;
}

Noise compute_noise(const std::vector<double>& l1, const std::vector<double>& mem, size_t disturbed,
                    size_t tasks_measured, size_t remeasured, double budget, size_t budget_tasks,
                    const std::vector<Result>& results) {
  Noise n;
  n.l1 = sentinel_spread(l1);
  n.mem = sentinel_spread(mem);
  n.readings = std::max(l1.size(), mem.size());
  n.disturbed = disturbed;
  n.tasks_measured = tasks_measured;
  n.remeasured_tasks = remeasured;
  n.budget = budget;
  n.budget_tasks = budget_tasks;
  std::vector<double> cvs;
  for (const Result& r : results) {
    if (!r.ok() || r.point.at.harness != Harness::kex) continue;
    const Aggregate a = aggregate(r);
    if (a.repetitions >= 2) cvs.push_back(a.cv);
  }
  n.points_with_cv = cvs.size();
  n.median_repetition_cv = median(cvs);
  return n;
}

std::optional<Noise> run_noise(const RunContext& c) {
  return c.protocol ? c.protocol->noise : std::nullopt;
}

std::optional<double> run_sentinel_threshold(const RunContext& c) {
  if (!c.protocol) return std::nullopt;
  return c.protocol->sentinel.threshold;
}

}  // namespace kex
