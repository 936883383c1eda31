// Timing one kernel at one point: the sampling protocol of docs/DESIGN.md "Measuring".
#pragma once
#include <csignal>
#include <optional>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "generators/driver.hpp"
#include "src/model/config.hpp"
#include "src/model/point.hpp"
#include "src/model/protocol.hpp"
#include "src/model/result.hpp"
#include "src/model/spec.hpp"
#include "src/model/stream.hpp"

namespace kex {

/// The operation one sample times, per the point's call pattern and data axes:
/// `chunk` 0 is one call over `size` bytes, else consecutive calls of `chunk`
/// bytes (the last one shorter) in ascending address order; with `consume`, each
/// call is followed by a read of the bytes it wrote, inside the timing. `prefill`
/// (untimed) writes the destination before each sample; cold mode flushes src and
/// dst (clflushopt + mfence) before each single-operation sample.
/// With at.threads > 1, every sample runs the operation on each worker of `team` at once,
/// worker k on its own buffers (peers[k - 1]; worker 0 on dst/src), from a common start at a
/// barrier to the last worker's end (the sample's ticks); prefill and flush are each worker's own.
struct PeerBuffers {
  uint8_t* dst = nullptr;
  const uint8_t* src = nullptr;
};
class Team;
struct Operation {
  /// The operation of `fn` on dst/src at `at` (its calls from operation_calls; with
  /// `esi_fill`, a function of memset's ABI: each call's second argument is that byte).
  /// A point with threads gets its team and peers after.
  /// With `stream` (which must outlive it), its calls instead, in dst's and src's regions:
  /// `calls` when given (stream_calls of the same arguments, built once), else built here.
  Operation(KernelFn fn, uint8_t* dst, const uint8_t* src, const Coords& at, std::optional<uint8_t> esi_fill = {},
            const Stream* stream = nullptr, std::shared_ptr<const std::vector<CallArgs>> calls = nullptr);
  KernelFn fn = nullptr;
  uint8_t* dst = nullptr;
  const uint8_t* src = nullptr;
  Coords at;
  Team* team = nullptr;            ///< at.threads > 1: the workers (at least at.threads of them)
  std::vector<PeerBuffers> peers;  ///< at.threads > 1: workers 1.. buffers, at.threads - 1 of them
  std::optional<uint8_t> esi_fill; ///< memset's ABI: the fill byte each call takes in esi
  /// The calls of one operation, in order (shared: a stream's pass is 65,536 of them by
  /// default, built once per buffers and stream rather than per repetition).
  std::shared_ptr<const std::vector<CallArgs>> calls;
  const Stream* stream = nullptr;  ///< a stream point's calls (its workers make them in orders of their own)
  /// at.threads > 1: each worker's operation (its buffers, its calls), made at the first
  /// sample and kept: a stream's are a pass of calls each, permuted.
  mutable std::vector<Operation> workers;
};

/// The calls one operation makes on dst/src at `at`: one call of at.size bytes, or with a
/// chunk, consecutive calls of `chunk` bytes (the last one shorter) in ascending order.
std::vector<CallArgs> operation_calls(uint8_t* dst, const uint8_t* src, const Coords& at,
                                      std::optional<uint8_t> esi_fill = {});

/// The calls of one pass of `stream` with dst's region at `dst` and src's at `src` (an
/// overlapping call's source lies in dst's region; a clear's has none: null, or the fill
/// byte for memset's ABI).
std::vector<CallArgs> stream_calls(uint8_t* dst, const uint8_t* src, const Stream& stream,
                                   std::optional<uint8_t> esi_fill = {});

/// Runs `op` once (for verification of the call pattern and warm-up), through the timed loop.
void run_operation(const Operation& op);

/// Warm-up (>= 3 operations and >= 2 ms), then samples of about policy.sample_us
/// each (warm) or one operation (cold), 11 first and then batches of 10 until the
/// median's CI is within policy.precision, the time cap or the sample cap. `stop`
/// is polled between batches. Returns one repetition (TSC ticks). With `counters`
/// (opened on this thread), each sample's TSC window is bracketed by a counter
/// snapshot pair outside it, and the repetition records the counters that counted,
/// per operation timed (one-thread points only: with threads the counters stay closed).
/// With threads, the repetition also holds each worker's own figures (Repetition::threads).
class CounterSet;
Repetition measure(const Operation& op, const Policy& policy, const volatile std::sig_atomic_t* stop,
                   CounterSet* counters = nullptr);

/// How one member is sampled in every round: fixed at its first round, so that all its
/// rounds time the same number of calls.
struct MemberPlan {
  uint32_t calls = 0;    ///< operations per sample (0: not planned yet)
  uint32_t samples = 1;  ///< samples per round
  uint32_t settle = 1;   ///< untimed operations before each visit
};

/// Measures one round: a member of `ops` whose plan (plans[i], same order) is not set
/// yet is warmed up and planned first; then the members take turns, in the order of
/// `ops` rotated by one member each visit: each visit settles the member (untimed
/// operations after the previous member ran) and takes `block` samples, until each has
/// its samples. Returns one Repetition per member, in the order of `ops` (stop_reason
/// "round", the cycles estimate of the round). `running`, when given, holds the index
/// + 1 of the member whose code runs (0 between members): what a supervisor reads
/// after the worker died.
std::vector<Repetition> measure_round(const std::vector<Operation>& ops, std::vector<MemberPlan>& plans,
                                      const RoundPolicy& policy, volatile uint32_t* running = nullptr);

/// Median ticks of an empty `lfence;rdtsc;lfence` pair (subtracted from samples).
uint64_t timer_overhead_ticks();

/// Opens this process's perf counters of measure() (cycles, context switches, migrations)
/// now: the measuring worker calls it before its system-call filter, which refuses
/// perf_event_open (src/run/syscall_filter.cpp).
void open_perf_counters();

}  // namespace kex
