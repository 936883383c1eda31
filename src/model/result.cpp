#include "src/model/result.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "src/core/stats.hpp"

namespace kex {

std::vector<const Repetition*> counted_reps(const Result& r) {
  std::vector<const Repetition*> v;
  for (const auto& rep : r.reps)
    if (!rep.disturbed) v.push_back(&rep);
  if (v.empty())
    for (const auto& rep : r.reps) v.push_back(&rep);
  return v;
}

namespace {

/// The mean, standard deviation, cv and MAD of the repetitions' medians (TSC ticks per
/// call; `ns` per tick), into `a`. Two repetitions at least.
void spread_over_reps(const std::vector<double>& medians, double median, double ns, Aggregate& a) {
  double mean = 0;
  for (double m : medians) mean += m;
  mean /= double(medians.size());
  double var = 0;
  for (double m : medians) var += (m - mean) * (m - mean);
  var /= double(medians.size() - 1);
  std::vector<double> dev;
  for (double m : medians) dev.push_back(std::fabs(m - median));
  a.mean_ns = mean * ns;
  a.stddev_ns = std::sqrt(var) * ns;
  a.cv = mean > 0 ? std::sqrt(var) / mean : 0;
  a.mad_ns = summarize(dev).median * ns;
}

}  // namespace

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
    spread_over_reps(medians, over_reps.median, ns, a);
  }
  if (reps.size() == 1) a.mean_ns = a.median_ns;
  a.cycles_per_tick = cyc / double(reps.size());
  std::vector<double> harness;
  for (const Repetition* rp : reps)
    if (rp->harness_ticks > 0) harness.push_back(rp->harness_ticks);
  if (!harness.empty()) a.harness_ns = summarize(harness).median * ns;
  a.cycles_method = reps.front()->cycles_method;
  a.stop_reason = reps.front()->stop_reason;
  return a;
}

double median_gbps(const Result& r) {
  if (!r.ok()) return 0;
  return gbps_at(moved_bytes(r.point.at), aggregate(r).median_ns);
}

namespace {

/// The medians of the counters over the counted repetitions, per operation and per byte.
void counter_figures(const Result& r, EntryFigures& f) {
  std::map<std::string, std::vector<double>> counts;
  std::vector<std::string> order;
  for (const Repetition* rep : counted_reps(r))
    for (const auto& v : rep->counters) {
      if (!counts.count(v.name)) order.push_back(v.name);
      counts[v.name].push_back(v.per_op);
    }
  const double size = double(r.point.at.size);
  for (const auto& name : order) {
    const double m = median(counts[name]);
    f.counters_per_op.emplace_back(name, m);
    f.counters_per_byte.emplace_back(name, size > 0 ? m / size : 0);
  }
}

}  // namespace

EntryFigures entry_figures(const Result& r) {
  EntryFigures f;
  f.a = aggregate(r);
  const Aggregate& a = f.a;
  const uint64_t bytes = moved_bytes(r.point.at);  // every worker's
  const double size = double(bytes);
  for (const auto& rep : r.reps) f.iterations += uint64_t(rep.calls_per_sample) * rep.sample_ticks.size();
  f.gbps = gbps_at(bytes, a.median_ns);
  f.gbps_best = gbps_at(bytes, a.min_ns);
  f.gbps_p10 = gbps_at(bytes, a.p90_ns);
  f.gbps_p90 = gbps_at(bytes, a.p10_ns);
  // Non-temporal stores of generated kernels cause no write-allocate reads; libc,
  // rep-string and preset kernels are counted as temporal.
  const double rw = r.op == Op::copy ? 2 * size : size;
  const bool nt = r.spec && r.spec->store == Store::nontemporal;
  const double rfo = rw + (nt || r.op == Op::read ? 0 : size);  // a read stores 8 bytes: no write-allocate of size
  f.bytes_read_written = rw;
  f.gbps_read_written = a.median_ns > 0 ? rw / a.median_ns : 0;
  f.bytes_with_write_allocate = rfo;
  f.gbps_with_write_allocate = a.median_ns > 0 ? rfo / a.median_ns : 0;
  const double cyc_per_ns = a.cycles_per_tick * r.tsc_hz / 1e9;
  f.est_cycles = a.median_ns * cyc_per_ns;
  f.harness_cycles = a.harness_ns * cyc_per_ns;
  f.bytes_per_cycle = a.median_ns > 0 && cyc_per_ns > 0 ? size / (a.median_ns * cyc_per_ns) : 0;
  f.cycles_per_page = size > 0 ? a.median_ns * cyc_per_ns * 4096 / size : 0;
  f.ticks_per_page = size > 0 ? a.median_ns * r.tsc_hz / 1e9 * 4096 / size : 0;
  counter_figures(r, f);
  return f;
}

}  // namespace kex
