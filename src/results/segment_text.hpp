// The segment-override table as text (`kex segments`, `kex run`): the table in the
// layout of Jeremy Fitzhardinge's results (seed 002) with more figures, the same
// exactly as his program printed it, and a few lines for a run's closing text.
// See docs/seed-kernels.md §8.
#pragma once
#include <string>

#include "src/model/segments.hpp"

namespace kex {

/// The section as a table in the layout of Jeremy's results (seed 002) with more
/// figures: a header `"<model>" @<MHz>Mhz (family,model,stepping):` and
/// `ds=.. ss=.. fs=.. gs=.. ldt=.. gdt=.. TSC`, then one block per loaded selector
/// with lines `   fs with LDT selector, entry fs=2b: 26ns/iteration (...)`, where
/// `entry fs=2b` is the selector fs held on entry to the loop; skipped cases print
/// `skipped: <reason>`. Mixed and modern cases follow in their own blocks.
std::string format_segment_table(const SegmentSection& section);

/// The section in a few lines, for a run's closing text: the 2006 loop's cost when the
/// pop reloads a null selector and a non-null one (fs and gs each, medians over the
/// selectors measured), the modern costs (a load's latency and throughput plain and
/// through fs/gs with a zero and a non-zero base, a null selector load), and the
/// selector kinds that were not measured with their first reason. Figures in ns and
/// estimated core cycles. "" for a section with no measured case.
std::string format_segment_summary(const SegmentSection& section);

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
std::string format_segment_seed_text(const SegmentSection& section);

/// "2b" for "0x2b" (as the seed's %x printed a selector), "-" for none, "?" for a
/// text that is not a hex number of at most 8 digits.
std::string compact_hex(const std::optional<std::string>& selector);

}  // namespace kex
