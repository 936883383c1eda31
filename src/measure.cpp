#include "measure.hpp"

#include <algorithm>
#include <cmath>

#include "buffers.hpp"
#include "machine.hpp"

namespace kex {

uint64_t timer_overhead_ticks() {
  static const uint64_t overhead = [] {
    std::vector<double> v;
    for (int i = 0; i < 1001; ++i) {
      uint64_t a = tsc_fenced();
      uint64_t b = tsc_fenced();
      v.push_back(static_cast<double>(b - a));
    }
    return static_cast<uint64_t>(summarize(v).median);
  }();
  return overhead;
}

Measurement measure(KernelFn fn, void* dst, const void* src, size_t bytes, CacheMode cache, const Policy& policy,
                    const volatile std::sig_atomic_t* stop) {
  Measurement m;
  const double hz = machine().tsc_hz;
  const uint64_t start = tsc_fenced();
  const uint64_t overhead = timer_overhead_ticks();

  // Warm-up: at least 3 calls and 2 ms; the fastest call sizes the samples.
  uint64_t one = ~0ull;
  for (int i = 0;; ++i) {
    uint64_t a = tsc_fenced();
    fn(dst, src, bytes);
    uint64_t b = tsc_fenced();
    one = std::min(one, b - a);
    if (i >= 2 && double(b - start) / hz >= 0.002) break;
  }
  const double sample_ticks = std::clamp(policy.sample_us, 20.0, 1000.0) * 1e-6 * hz;
  m.calls_per_sample = cache == CacheMode::cold
                           ? 1
                           : static_cast<uint32_t>(std::clamp(sample_ticks / std::max<double>(one, 1), 1.0, 1e7));
  m.cycles_per_tick = core_cycles_per_tick();

  std::vector<double> per_call;
  const uint64_t cap_ticks = static_cast<uint64_t>(policy.max_time_per_point * hz);
  auto take = [&](uint32_t count) {
    for (uint32_t i = 0; i < count; ++i) {
      if (cache == CacheMode::cold) {
        Buffers::flush(src, bytes);
        Buffers::flush(dst, bytes);
      }
      const uint32_t k = m.calls_per_sample;
      uint64_t a = tsc_fenced();
      for (uint32_t c = 0; c < k; ++c) fn(dst, src, bytes);
      uint64_t b = tsc_fenced();
      uint64_t t = b - a;
      // Subtract the timer pair only where it matters (> 0.1% of the sample).
      if (overhead * 1000 > t) t = t > overhead ? t - overhead : 0;
      m.sample_ticks.push_back(t);
      per_call.push_back(static_cast<double>(t) / k);
    }
  };
  take(std::max<uint32_t>(policy.min_samples, 3));
  for (;;) {
    m.per_call = summarize(per_call);
    if (m.per_call.ci_rel <= policy.precision) { m.stop_reason = "precision"; break; }
    if (m.sample_ticks.size() >= policy.max_samples) { m.stop_reason = "sample_cap"; break; }
    if (tsc_fenced() - start >= cap_ticks) { m.stop_reason = "time_cap"; break; }
    if (stop && *stop) { m.stop_reason = "interrupted"; break; }
    take(std::min<uint32_t>(10, policy.max_samples - static_cast<uint32_t>(m.sample_ticks.size())));
  }
  // Average the cycle estimate from before and after the samples (clock drift).
  m.cycles_per_tick = (m.cycles_per_tick + core_cycles_per_tick()) / 2;
  m.seconds = double(tsc_fenced() - start) / hz;
  return m;
}

}  // namespace kex
