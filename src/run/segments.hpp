// Segment-override loads (`kex segments`): Jeremy Fitzhardinge's 2006 segment test with
// JIT loops, its "mixed" variant, and modern override/selector-load costs.
// See docs/seed-kernels.md §8 and docs/methodology.md §3.
#pragma once
#include <csignal>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

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
/// the previous affinity restored afterwards) and returns the `segments` section:
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
nlohmann::ordered_json run_segments(const SegmentOptions& opts);

/// The section as a table in the layout of Jeremy's results (seed 002) with more
/// figures: a header `"<model>" @<MHz>Mhz (family,model,stepping):` and
/// `ds=.. ss=.. fs=.. gs=.. ldt=.. gdt=.. TSC`, then one block per loaded selector
/// with lines `   fs with LDT selector, entry fs=2b: 26ns/iteration (...)`, where
/// `entry fs=2b` is the selector fs held on entry to the loop; skipped cases print
/// `skipped: <reason>`. Mixed and modern cases follow in their own blocks.
/// Throws nlohmann::json::exception when `section` has no header, selectors or cases.
std::string format_segment_table(const nlohmann::ordered_json& section);

/// The section in a few lines, for a run's closing text: the 2006 loop's cost when the
/// pop reloads a null selector and a non-null one (fs and gs each, medians over the
/// selectors measured), the modern costs (a load's latency and throughput plain and
/// through fs/gs with a zero and a non-zero base, a null selector load), and the
/// selector kinds that were not measured with their first reason. Figures in ns and
/// estimated core cycles. "" for a section with no measured case.
std::string format_segment_summary(const nlohmann::ordered_json& section);

/// The section exactly as Jeremy's program printed its results (seed 002), one table
/// per entry configuration: `"<model>" @<MHz>Mhz (f,m,s):`, then
/// `ds=2b fs=0 gs=63 ldt=f gdt=6b CPUTIME ` (fs= and gs= are the selectors the
/// registers held on entry to the loop; ds= is the data selector loaded, ss's value,
/// as ds is null in a 64-bit process; the trailing space is the seed's empty SYNC
/// field), then blocks of `   fs with LDT selector: 26ns/iteration` in integer ns
/// (CLOCK_PROCESS_CPUTIME_ID ns / iterations, truncated, as the seed divided). The
/// first table is the i386 situation (fs null, gs a non-null GDT selector), then one
/// per entry selector with both registers holding it. The GDT block is the
/// set_thread_area selector, or 0x7b where that is unavailable (gdt=7b says so).
/// Cases that did not run print `skipped: <reason>` in place of the figure. Without
/// cputime_ns (older results) the clock field says TSC and TSC ns are used.
/// Throws nlohmann::json::exception when `section` has no header or cases.
std::string format_segment_seed_text(const nlohmann::ordered_json& section);

}  // namespace kex
