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
  const std::string at = "context/protocol/noise";
  if (!j.is_object()) throw InputError(at, j.dump() + ": expected an object");
  // A missing figure reads as 0; a present one must be a number (a count: a whole number >= 0).
  auto number = [](const nlohmann::ordered_json& o, const std::string& where, const char* key) {
    if (!o.contains(key)) return 0.0;
    const auto& v = o[key];
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
      throw InputError(where + "/" + key, v.dump() + ": expected a number >= 0");
    return v.get<double>();
  };
  auto count = [&](const char* key) {
    if (j.contains(key) && !j[key].is_number_unsigned())
      throw InputError(at + "/" + key, j[key].dump() + ": expected a whole number >= 0");
    return j.contains(key) ? j[key].get<size_t>() : size_t(0);
  };
  auto spread = [&](const char* key) {
    SentinelSpread s;
    if (!j.contains(key)) return s;
    const auto& o = j[key];
    const std::string where = at + "/" + key;
    if (!o.is_object()) throw InputError(where, o.dump() + ": expected an object");
    s.median = number(o, where, "median_ticks_per_kib");
    s.p10 = number(o, where, "p10_over_median");
    s.p90 = number(o, where, "p90_over_median");
    s.max = number(o, where, "max_over_median");
    s.mad = number(o, where, "mad_over_median");
    return s;
  };
  Noise n;
  n.l1 = spread("sentinel_l1");
  n.mem = spread("sentinel_mem");
  n.readings = count("readings");
  n.disturbed = count("disturbed_readings");
  n.tasks_measured = count("tasks_measured");
  n.remeasured_tasks = count("remeasured_tasks");
  n.budget = number(j, at, "budget");
  if (n.budget > 1) throw InputError(at + "/budget", j["budget"].dump() + ": expected a fraction of 0 to 1");
  n.budget_tasks = count("budget_tasks");
  n.points_with_cv = count("points_with_cv");
  n.median_repetition_cv = number(j, at, "median_repetition_cv");
  return n;
}

std::optional<Noise> run_noise(const RunContext& c) {
  if (!c.rest.is_object() || !c.rest.contains("protocol")) return std::nullopt;
  const auto& p = c.rest["protocol"];
  if (!p.is_object() || !p.contains("noise")) return std::nullopt;
  return noise_from_json(p["noise"]);
}

std::optional<double> run_sentinel_threshold(const RunContext& c) {
  if (!c.rest.is_object() || !c.rest.contains("protocol")) return std::nullopt;
  const auto& p = c.rest["protocol"];
  if (!p.is_object() || !p.contains("sentinel") || !p["sentinel"].is_object()) return std::nullopt;
  const auto& s = p["sentinel"];
  if (!s.contains("threshold")) return std::nullopt;
  const auto& t = s["threshold"];
  if (!t.is_number() || t.get<double>() <= 0)
    throw InputError("context/protocol/sentinel/threshold", t.dump() + ": expected a number > 0");
  return t.get<double>();
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
