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

nlohmann::ordered_json noise_to_json(const Noise& n) {
  auto spread = [](const SentinelSpread& s) {
    return nlohmann::ordered_json{{"median_ticks_per_kib", s.median},
                                  {"p10_over_median", s.p10},
                                  {"p90_over_median", s.p90},
                                  {"max_over_median", s.max},
                                  {"mad_over_median", s.mad}};
  };
  nlohmann::ordered_json j;
  j["sentinel_l1"] = spread(n.l1);
  j["sentinel_mem"] = spread(n.mem);
  j["readings"] = n.readings;
  j["disturbed_readings"] = n.disturbed;
  j["tasks_measured"] = n.tasks_measured;
  j["remeasured_tasks"] = n.remeasured_tasks;
  j["budget"] = n.budget;
  j["budget_tasks"] = n.budget_tasks;
  j["budget_used_tasks"] = std::min(n.remeasured_tasks, n.budget_tasks);
  j["budget_left_tasks"] = n.budget_tasks - std::min(n.remeasured_tasks, n.budget_tasks);
  j["points_with_cv"] = n.points_with_cv;
  j["median_repetition_cv"] = n.median_repetition_cv;
  return j;
}

Noise noise_from_json(const nlohmann::ordered_json& j) {
  if (!j.is_object()) throw InputError("context/protocol/noise", "expected an object");
  auto spread = [&](const char* key) {
    SentinelSpread s;
    if (!j.contains(key)) return s;
    const auto& o = j[key];
    if (!o.is_object()) throw InputError(std::string("context/protocol/noise/") + key, "expected an object");
    s.median = o.value("median_ticks_per_kib", 0.0);
    s.p10 = o.value("p10_over_median", 0.0);
    s.p90 = o.value("p90_over_median", 0.0);
    s.max = o.value("max_over_median", 0.0);
    s.mad = o.value("mad_over_median", 0.0);
    return s;
  };
  Noise n;
  n.l1 = spread("sentinel_l1");
  n.mem = spread("sentinel_mem");
  n.readings = j.value("readings", size_t(0));
  n.disturbed = j.value("disturbed_readings", size_t(0));
  n.tasks_measured = j.value("tasks_measured", size_t(0));
  n.remeasured_tasks = j.value("remeasured_tasks", size_t(0));
  n.budget = j.value("budget", 0.0);
  n.budget_tasks = j.value("budget_tasks", size_t(0));
  n.points_with_cv = j.value("points_with_cv", size_t(0));
  n.median_repetition_cv = j.value("median_repetition_cv", 0.0);
  return n;
}

std::optional<Noise> run_noise(const RunContext& c) {
  if (!c.rest.is_object() || !c.rest.contains("protocol")) return std::nullopt;
  const auto& p = c.rest["protocol"];
  if (!p.is_object() || !p.contains("noise")) return std::nullopt;
  return noise_from_json(p["noise"]);
}

}  // namespace kex
