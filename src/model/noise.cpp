#include "src/model/noise.hpp"

#include <algorithm>
#include <cmath>

#include "src/core/error.hpp"
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

void check_sentinel_readings(const RunContext& c) {
  if (!c.rest.is_object() || !c.rest.contains("sentinel_readings")) return;
  const auto& v = c.rest["sentinel_readings"];
  const std::string at = "context/sentinel_readings";
  if (!v.is_array()) throw InputError(at, v.dump().substr(0, 60) + ": expected a list of readings");
  for (size_t i = 0; i < v.size(); ++i) {
    const auto& r = v[i];
    const std::string w = at + "/" + std::to_string(i);
    if (!r.is_object()) throw InputError(w, r.dump().substr(0, 60) + ": expected an object (a reading)");
    for (const char* k : {"l1_ticks_per_kib", "mem_ticks_per_kib"})
      if (r.contains(k) && !(r[k].is_number() && r[k].get<double>() >= 0 && std::isfinite(r[k].get<double>())))
        throw InputError(w + "/" + k, r[k].dump() + ": expected a number >= 0");
    for (const char* k : {"disturbed", "requeued"})
      if (r.contains(k) && !r[k].is_boolean()) throw InputError(w + "/" + k, r[k].dump() + ": expected true or false");
  }
}

}  // namespace kex
