// Timing one kernel at one size: the sampling protocol of docs/DESIGN.md "Measuring".
#pragma once
#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/config.hpp"
#include "generators/emit.hpp"
#include "src/core/stats.hpp"

namespace kex {

/// Raw samples and their summary for one point. Times are TSC ticks.
struct Measurement {
  uint32_t calls_per_sample = 1;
  std::vector<uint64_t> sample_ticks;  ///< each: ticks for calls_per_sample back-to-back calls
  SampleStats per_call;                ///< ticks per call
  std::string stop_reason;             ///< "precision", "time_cap", "sample_cap", "interrupted"
  double cycles_per_tick = 0;          ///< core cycles per TSC tick during this point
  std::string cycles_method;           ///< "perf" (measured) or "imul-chain estimate"
  uint64_t context_switches = 0;       ///< during sampling (software perf counter; 0 if unavailable)
  uint64_t migrations = 0;             ///< CPU migrations during sampling
  double seconds = 0;                  ///< wall time spent on the point, warm-up included
};

/// Warm-up (>= 3 calls and >= 2 ms), then samples of about policy.sample_us each
/// (warm) or one call after flushing src and dst (cold), 11 first and then batches
/// of 10 until the median's CI is within policy.precision, the time cap or the
/// sample cap. `stop` is polled between batches.
Measurement measure(KernelFn fn, void* dst, const void* src, size_t bytes, CacheMode cache, const Policy& policy,
                    const volatile std::sig_atomic_t* stop);

/// Median ticks of an empty `lfence;rdtsc;lfence` pair (subtracted from samples).
uint64_t timer_overhead_ticks();

}  // namespace kex
