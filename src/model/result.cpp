#include "src/model/result.hpp"

#include <algorithm>
#include <cmath>

namespace kex {

std::vector<const Repetition*> counted_reps(const Result& r) {
  std::vector<const Repetition*> v;
  for (const auto& rep : r.reps)
    if (!rep.disturbed) v.push_back(&rep);
  if (v.empty())
    for (const auto& rep : r.reps) v.push_back(&rep);
  return v;
}

Aggregate aggregate(const Result& r) {
  Aggregate a;
  if (!r.ok() || r.tsc_hz <= 0) return a;
  const double ns = 1e9 / r.tsc_hz;
  const std::vector<const Repetition*> reps = counted_reps(r);
  a.repetitions = reps.size();
  for (const auto& rep : r.reps) a.disturbed += rep.disturbed;
  std::vector<double> medians, all;
  double cyc = 0;
  for (const Repetition* rp : reps) {
    const Repetition& rep = *rp;
    medians.push_back(rep.per_call.median);
    a.samples += rep.per_call.n;
    cyc += rep.cycles_per_tick;
    if (rep.sample_ticks.empty()) {
      // A repetition without raw samples (an imported file): its order statistics stand in.
      for (double v : {rep.per_call.min, rep.per_call.p10, rep.per_call.median, rep.per_call.p90, rep.per_call.max})
        all.push_back(v);
    } else {
      for (uint64_t t : rep.sample_ticks) all.push_back(double(t) / rep.calls_per_sample);
    }
  }
  const SampleStats over_reps = summarize(medians);
  a.median_ns = over_reps.median * ns;
  if (reps.size() == 1) {
    const SampleStats& s = reps.front()->per_call;
    a.min_ns = s.min * ns;
    a.p10_ns = s.p10 * ns;
    a.p90_ns = s.p90 * ns;
    a.max_ns = s.max * ns;
    a.ci_low_ns = s.ci_low * ns;
    a.ci_high_ns = s.ci_high * ns;
    a.ci_rel = s.ci_rel;
  } else {
    const SampleStats pooled = summarize(all);
    a.min_ns = pooled.min * ns;
    a.p10_ns = pooled.p10 * ns;
    a.p90_ns = pooled.p90 * ns;
    a.max_ns = pooled.max * ns;
    a.ci_low_ns = over_reps.ci_low * ns;
    a.ci_high_ns = over_reps.ci_high * ns;
    a.ci_rel = over_reps.ci_rel;
    double mean = 0;
    for (double m : medians) mean += m;
    mean /= double(medians.size());
    double var = 0;
    for (double m : medians) var += (m - mean) * (m - mean);
    var /= double(medians.size() - 1);
    std::vector<double> dev;
    for (double m : medians) dev.push_back(std::fabs(m - over_reps.median));
    a.mean_ns = mean * ns;
    a.stddev_ns = std::sqrt(var) * ns;
    a.cv = mean > 0 ? std::sqrt(var) / mean : 0;
    a.mad_ns = summarize(dev).median * ns;
  }
  if (reps.size() == 1) a.mean_ns = a.median_ns;
  a.cycles_per_tick = cyc / double(reps.size());
  a.cycles_method = reps.front()->cycles_method;
  a.stop_reason = reps.front()->stop_reason;
  return a;
}

double median_gbps(const Result& r) {
  if (!r.ok()) return 0;
  return gbps_at(r.point.at.size, aggregate(r).median_ns);
}

}  // namespace kex
