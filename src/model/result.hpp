// Result: everything any writer needs about one point, built in one place
// (src/run/result_build.cpp) and turned into JSON and back in one file
// (src/model/result_json.cpp). Writers (summary, compare, merge, export,
// crossovers, plots, seed tables) take these, never JSON keys (docs/STYLE.md rule 11).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>


#include "src/core/stats.hpp"
#include "src/model/plan.hpp"
#include "src/model/point.hpp"

namespace kex {

/// A point that did not run is a state of its Result, not a missing row (STYLE.md rule 3).
enum class StatusKind { ok, skipped, error };

struct Status {
  Status(StatusKind k = StatusKind::ok, std::string m = {}, int sig = 0, std::optional<int64_t> off = {})
      : kind(k), message(std::move(m)), signal(sig), fault_offset(off) {}
  StatusKind kind = StatusKind::ok;
  std::string message;            ///< why it was skipped or failed ("" when ok)
  int signal = 0;                 ///< the signal that killed the measuring process (0: none)
  std::optional<int64_t> fault_offset;  ///< faulting instruction relative to the kernel's first byte
  bool operator==(const Status&) const = default;
};

/// Where a point actually ran, after any rounding for aligned kernels.
struct Placement {
  int64_t src_offset = 0;         ///< bytes past the src buffer's 2 MiB-aligned start, as used
  int64_t dst_offset = 0;         ///< bytes past the dst buffer's start; with a distance, past the src
                                  ///< buffer's (src_offset + distance, may be negative)
  uint32_t src_page_offset = 0;   ///< src address mod 4096
  uint32_t dst_page_offset = 0;   ///< dst address mod 4096
  uint32_t relative_offset = 0;   ///< (dst - src) mod 4096: 4 KiB aliasing
  uint32_t rounded_to = 1;        ///< offsets were rounded up to this alignment (1: as configured)
  bool operator==(const Placement&) const = default;
};

/// One repetition of a point: one full adaptive measurement (or a seed program's single pass).
/// One event counter over a repetition's timed samples (`kex run --counters`):
/// the count per operation (multiplexing scaled) and the share of the time it was counted.
struct CounterReading {
  std::string name;     ///< as requested ("instructions", "perf::PERF_COUNT_SW_TASK_CLOCK")
  double per_op = 0;    ///< count / operations timed
  double running = 1;   ///< time counted / time enabled (1 = counted all the time)
  bool operator==(const CounterReading&) const = default;
};

/// One worker of a multi-threaded repetition: where it ran and its own time per operation
/// (from its start after the common barrier to its own end).
struct ThreadFigure {
  int cpu = -1;               ///< OS CPU it was pinned to
  double median_ticks = 0;    ///< median over the samples of its TSC ticks per operation
  double min_ticks = 0;       ///< the fastest
  bool operator==(const ThreadFigure&) const = default;
};

struct Repetition {
  uint32_t calls_per_sample = 1;        ///< operations between the two TSC reads of a sample
  std::vector<uint64_t> sample_ticks;   ///< each sample's TSC ticks (all calls_per_sample operations)
  SampleStats per_call;                 ///< TSC ticks per operation over the samples
  std::string stop_reason;              ///< "precision", "time_cap", "sample_cap", "interrupted", "single pass"
  double cycles_per_tick = 0;           ///< core cycles per TSC tick during the repetition
  std::string cycles_method;            ///< "perf" (measured) or "imul-chain estimate"; "" unknown
  uint64_t context_switches = 0;        ///< during sampling
  uint64_t migrations = 0;
  double seconds = 0;                   ///< wall time, warm-up included
  double steal_s = 0;                   ///< time the hypervisor gave the pinned CPU to others (/proc/stat steal)
  uint64_t order = 0;                   ///< position of this repetition in the run's measuring order
  uint64_t round = 0;                   ///< the round it was measured in, with the other members of its group
                                        ///< (unique in a run; 0: measured alone)
  std::string previous;                 ///< the point measured just before it ("" for the first)
  bool disturbed = false;               ///< the sentinel after it deviated: re-measured when the budget allowed
  std::vector<CounterReading> counters; ///< the counters that counted, in request order (none unless asked)
  /// threads > 1: each worker's own figures (0 = the measuring thread), in placement order;
  /// the samples then run from the common start to the last worker's end. Empty for one thread.
  std::vector<ThreadFigure> threads;
  double start_spread_ticks = 0;        ///< threads > 1: median over samples of the last start - the first
  /// The timed loop's own TSC ticks per operation: the empty routine (a bare ret) timed on
  /// the same calls, in the same round (a separate repetition: right after it); 0 when not
  /// measured (threads > 1, a seed harness, an earlier kex).
  double harness_ticks = 0;
  bool operator==(const Repetition&) const = default;
};

/// A seed program's own figures (fastc/hahn harness points), as it printed them.
struct SeedFigures {
  uint64_t pages = 0;            ///< pages per timed pass
  uint64_t divisor = 0;          ///< what the TSC delta was divided by for the printed figure
  int64_t printed_ticks = 0;     ///< the printed "cycles" (TSC ticks), truncated as the seed did
  double mb_per_s = 0;           ///< hahn: MB/s (2^20 bytes/s) as athlon.c printed it; 0 for fastc
  double mhz = 0;                ///< hahn: athlon.c's own TSC calibration; 0 for fastc
  uint64_t buffer_offset = 0;    ///< the buffer's offset from page alignment
  uint64_t buffer_bytes = 0;
  uint64_t src_minus_dst = 0;    ///< copies: src - dst in bytes
  bool warm_up_pass = false;     ///< an untimed pass ran first (hahn)
  double sleep_before_s = 0;     ///< fastc copies: sleep(1) before the pass
  std::string label;             ///< the name printed on the line ('warm up run', ...)
  std::string note;
  bool operator==(const SeedFigures&) const = default;
};

/// The generated code that ran.
struct CodeInfo {
  size_t bytes = 0;
  uint64_t fnv1a = 0;
  bool operator==(const CodeInfo&) const = default;
};

struct Result {
  Point point;                          ///< kernel key and every coordinate
  KernelKind kind = KernelKind::generated;
  Op op = Op::copy;
  std::optional<KernelSpec> spec;       ///< generated kernels and rep-string baselines
  std::optional<PresetFacts> preset;
  std::optional<LibcFacts> libc;
  std::optional<ImplFacts> impl;        ///< implementations kex did not generate
  std::optional<Placement> placed;      ///< absent when the point never got buffers
  Status status;
  std::optional<CodeInfo> code;
  std::vector<Repetition> reps;         ///< empty unless status is ok
  std::optional<SeedFigures> seed;
  double tsc_hz = 0;                    ///< TSC ticks per second of the machine that measured it
  bool operator==(const Result&) const = default;

  std::string name() const { return point_name(point); }
  /// Clears: the byte every destination byte gets (of the spec, libc or implementation); 0 for copies.
  uint8_t fill() const { return spec ? spec->fill : libc ? libc->fill : impl ? impl->fill : uint8_t(0); }
  bool ok() const { return status.kind == StatusKind::ok && !reps.empty(); }
};

/// Figures of a measured Result, across its repetitions. Per-operation times; an
/// operation is one call, or the chunked calls over the whole extent.
struct Aggregate {
  size_t repetitions = 0;        ///< repetitions the figures come from
  size_t disturbed = 0;          ///< repetitions the sentinel flagged (kept in the record, not counted)
  size_t samples = 0;            ///< over the counted repetitions
  double median_ns = 0;          ///< median of the repetition medians (the entry's figure)
  double min_ns = 0, p10_ns = 0, p90_ns = 0, max_ns = 0;  ///< over every sample of every repetition
  double ci_low_ns = 0, ci_high_ns = 0;  ///< 95% CI of the median: one repetition, of its samples;
                                         ///< several, of the repetition medians (order statistics)
  double ci_rel = 0;             ///< CI half-width / median
  double mean_ns = 0, stddev_ns = 0, cv = 0, mad_ns = 0;  ///< across repetition medians (0 for one)
  double cycles_per_tick = 0;    ///< mean over repetitions
  std::string cycles_method;
  std::string stop_reason;       ///< of the first repetition
  /// The timed loop's own time per operation (Repetition::harness_ticks), the median over the
  /// repetitions that measured it; 0 when none did. Included in median_ns, never subtracted.
  double harness_ns = 0;
};

/// The figures of a measured result, from its undisturbed repetitions (all of them
/// when every one was disturbed). Zeros unless r.ok() and r.tsc_hz > 0.
Aggregate aggregate(const Result& r);

/// What an entry says of a measured Result beyond its Aggregate: the results JSON's
/// entry and "stats", and the Google Benchmark export, write these (computed here once).
struct EntryFigures {
  Aggregate a;
  uint64_t iterations = 0;  ///< calls timed, over every repetition
  double gbps = 0, gbps_best = 0;          ///< at the median and the minimum time
  double gbps_p10 = 0, gbps_p90 = 0;       ///< the 10th and 90th percentiles of bandwidth (90th and 10th of time)
  /// Bytes moved per operation in the other conventions users compare: read + written
  /// (STREAM, likwid), and with the write-allocate reads a temporal store causes.
  double bytes_read_written = 0, gbps_read_written = 0;
  double bytes_with_write_allocate = 0, gbps_with_write_allocate = 0;
  double est_cycles = 0;                   ///< core cycles of the median operation
  double harness_cycles = 0;               ///< core cycles of the timed loop's own time per operation
  double bytes_per_cycle = 0, cycles_per_page = 0, ticks_per_page = 0;
  /// kex run --counters: the median over the counted repetitions, per operation and per
  /// byte (bytes counted once), in the order the counters first appear.
  std::vector<std::pair<std::string, double>> counters_per_op, counters_per_byte;
};

/// The figures of a measured Result (r.ok()).
EntryFigures entry_figures(const Result& r);

/// The repetitions the figures come from: the undisturbed ones, or all when none is.
std::vector<const Repetition*> counted_reps(const Result& r);

/// GB/s (1e9 bytes per second, bytes counted once) at a time per operation in ns.
inline double gbps_at(uint64_t size, double ns) { return ns > 0 ? double(size) / ns : 0.0; }

/// The result's median GB/s; 0 when it was not measured.
double median_gbps(const Result& r);

}  // namespace kex
