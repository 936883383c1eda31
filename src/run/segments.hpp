// Segment-override loads (`kex segments`): Jeremy Fitzhardinge's 2006 segment test with
// JIT loops, its "mixed" variant, and modern override/selector-load costs.
// See docs/seed-kernels.md §8 and docs/methodology.md §3.
#pragma once
#include <csignal>
#include <cstdint>
#include <string>

#include "src/model/segments.hpp"

namespace kex {

struct SegmentOptions {
  uint64_t iterations = 2'000'000;  ///< timed iterations per case, spread over `repetitions` samples
  int repetitions = 101;            ///< samples per case (min and median are reported); many short
                                    ///< samples, so the fastest is one no other task preempted
  bool mixed = true;                ///< also the "mixed" loop: an access through the restored selector
  bool modern = true;               ///< also override-load latency/throughput and null-selector loads
  const volatile std::sig_atomic_t* stop = nullptr;  ///< polled between cases: a stop ends the table early
  bool seed_only = false;           ///< only what format_segment_seed_text prints: the 2006 loop with the
                                    ///< data, LDT and GDT selectors (no mixed, no modern cases)
};

/// The seed's COUNT: iterations per case in Jeremy's program, timed as one run.
inline constexpr uint64_t kSeedIterations = 50'000'000;

/// Runs every segment case on the calling thread (pinned to one CPU for the run,
/// the previous affinity restored afterwards) and returns the `segments` section
/// (src/model/segments.hpp), in JSON:
///   {"header": {cpu_model, mhz, family, model, stepping, selectors{ds,ss,fs,gs,data,ldt,gdt},
///               entry_selectors{null,data,ldt,gdt-tls,gdt-cpunode} (hex strings, null when
///               unavailable), timer:"TSC", seed_clock:"CPUTIME", tsc_hz, iterations, ...},
///    "cases": [{name, segment, selector, selector_kind, variant, entry_selector, entry_selector_kind,
///               ns_per_iteration, ticks_per_iteration, est_cycles_per_iteration, cycles_method,
///               repetitions, iterations_per_sample, min_ticks, median_ticks (per sample),
///               timed_iterations, cputime_ns, ...}
///              or {name, segment, selector, selector_kind, variant, skipped:true, skip_message}]}
/// The 2006 and mixed loops run with each entry selector (null, data, LDT, GDT TLS,
/// GDT CPU/node) loaded into the tested register before the loop, so the loop's
/// push/pop saves and reloads it, as `pop %gs` reloaded glibc's TLS selector on
/// i386. Per-iteration figures come from the fastest sample; cputime_ns is
/// CLOCK_PROCESS_CPUTIME_ID over all timed_iterations (the seed's clock). Every
/// case is first run in a forked child (run_sandboxed); one that faults there
/// (signal), fails its counter check or cannot be set up (modify_ldt/set_thread_area
/// errno) is recorded as skipped with the reason. The fs and gs selectors and bases
/// (glibc TLS in fs) are the same on return as on entry; a kernel that changed them
/// is a bug and throws std::runtime_error.
/// Throws std::invalid_argument when iterations == 0 or repetitions < 1.
SegmentSection run_segments(const SegmentOptions& opts);

}  // namespace kex
