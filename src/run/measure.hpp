// Timing one kernel at one point: the sampling protocol of docs/DESIGN.md "Measuring".
#pragma once
#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/config.hpp"
#include "src/model/point.hpp"
#include "src/model/result.hpp"
#include "src/model/spec.hpp"

namespace kex {

/// The operation one sample times, per the point's call pattern and data axes:
/// `chunk` 0 is one call over `size` bytes, else consecutive calls of `chunk`
/// bytes (the last one shorter) in ascending address order; with `consume`, each
/// call is followed by a read of the bytes it wrote, inside the timing. `prefill`
/// (untimed) writes the destination before each sample; cold mode flushes src and
/// dst (clflushopt + mfence) before each single-operation sample.
struct Operation {
  KernelFn fn = nullptr;
  uint8_t* dst = nullptr;
  const uint8_t* src = nullptr;
  Coords at;
};

/// Runs `op` once (for verification of the call pattern and warm-up).
void run_operation(const Operation& op);

/// Warm-up (>= 3 operations and >= 2 ms), then samples of about policy.sample_us
/// each (warm) or one operation (cold), 11 first and then batches of 10 until the
/// median's CI is within policy.precision, the time cap or the sample cap. `stop`
/// is polled between batches. Returns one repetition (TSC ticks). With `counters`
/// (opened on this thread), each sample's TSC window is bracketed by a counter
/// snapshot pair outside it, and the repetition records the counters that counted,
/// per operation timed.
class CounterSet;
Repetition measure(const Operation& op, const Policy& policy, const volatile std::sig_atomic_t* stop,
                   CounterSet* counters = nullptr);

/// Median ticks of an empty `lfence;rdtsc;lfence` pair (subtracted from samples).
uint64_t timer_overhead_ticks();

}  // namespace kex
