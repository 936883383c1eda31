#include "src/model/result_check.hpp"

#include <cmath>

#include "src/core/error.hpp"

namespace kex {

void check_repetition(const Repetition& rep, const std::string& w) {
  const SampleStats& s = rep.per_call;
  if (!(std::isfinite(s.median) && s.median > 0 && s.median < 1e15))
    throw InputError(w + "/median_ticks", std::to_string(s.median) + ": expected a time > 0 and < 1e15 ticks");
  for (double v : {s.min, s.p10, s.p90, s.max, s.ci_low, s.ci_high})
    if (!(std::isfinite(v) && v >= 0 && v < 1e15))
      throw InputError(w, "a tick statistic of " + std::to_string(v) + ": expected >= 0 and < 1e15");
  if (s.n == 0) throw InputError(w + "/n", "0: expected at least one sample");
  if (rep.calls_per_sample == 0) throw InputError(w + "/calls_per_sample", "0: expected at least 1");
}

void check_tsc_rate(double hz, const std::string& where) {
  if (!(std::isfinite(hz) && hz >= 1e6 && hz <= 1e11))
    throw InputError(where, "TSC rate " + std::to_string(hz) + " Hz: expected 1e6 to 1e11 (context.machine.tsc_hz)");
}

}  // namespace kex
