// The readable tables printed at the end of a run, from its typed results.
#pragma once
#include <string>

#include "src/model/context.hpp"

namespace kex {

/// One block per op and condition (every coordinate but kernel and size: cache,
/// layout, call pattern, data), one row per size: the fastest kernel (by median
/// GB/s), its GB/s, libc's GB/s at the same condition and the ratio fastest/libc,
/// and rep movsb/stosb; then counts of skipped and failed points. A ratio thus
/// always compares kernels measured under the same conditions. "" when nothing
/// was measured. Kernel names and skip reasons are escaped for a terminal
/// (terminal_text) and cut and padded by display width.
/// `compact` (a run's closing text): the first block of each op (its plainest
/// condition) in full, the other blocks named on one line for `kex summary` to print.
std::string summary_table(const RunDoc& run, bool compact = false);

/// summary_table as GitHub Markdown, for a pull request: a bold title and a table per
/// block, the note under them, and the skipped and failed points. Kernel names and skip
/// reasons from the file are escaped (md_text): a name with | ` or a newline stays in
/// its cell. "" when nothing was measured.
std::string summary_markdown(const RunDoc& run);

/// When the run sweeps a layout axis (src_offset, dst_offset, distance,
/// huge_pages): per op, other conditions and size, each kernel's GB/s across the
/// layout values (columns; above 12 values: the worst and best with where), and
/// worst/best. "" when no layout axis is swept. Kernel names as in summary_table.
std::string layout_table(const RunDoc& run);

/// What the data shows, said in words, a line each: a layout cliff (a kernel whose
/// GB/s at its worst layout is below half its best under otherwise equal conditions:
/// the kernel, the sizes, the worst layout values and the factor) and a fill effect
/// (a clear kernel whose GB/s with one fill byte differs from another by more than
/// 1.25x: the kernel, the sizes, both figures). "" when there is nothing to say.
/// `compact`: at most kCompactFindings lines, then how many more `kex summary` prints.
std::string findings(const RunDoc& run, bool compact = false);

/// The lines of findings a compact run text shows.
inline constexpr size_t kCompactFindings = 3;

/// The run's noise (context.protocol.noise) in one line: the sentinel's spread
/// (half the p10..p90 range over the median), disturbed windows, re-measured
/// tasks against the budget, the median repetition cv. "" when the run has none.
std::string noise_summary(const RunDoc& run);

}  // namespace kex
