// Seed tables: results printed the way the seed programs printed them, byte for byte
// (docs/seed-kernels.md §1 and §1.5, which give each printf and where it was read):
// Arjan van de Ven's fast.c v1.6 ("clear_page function '%s'\t took %4lli cycles per page"),
// Benjamin LaHaise's xmm64.c (the same lines under its own banner) and Mark Hahn's
// athlon.c ("copy_page by '%s'\t took %4Lu cycles (%0.1f MB/s)").
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "src/model/context.hpp"
#include "src/model/seed.hpp"
#include "src/results/seed_text_mode.hpp"

namespace kex {

/// One result line in the seed program's layout, without the newline:
///   fastc, xmm64: "copy_page function 'faster_copy'\t took 9807 cycles per page"
///                 (fast.c v1.6: "%s function '%s'\t took %4lli cycles per page")
///   hahn:         "clear_page by 'normal_clear_page'  \t took 7221 cycles (324.6 MB/s)",
///                 "copy_page by 'faster_copy'\t took 2746 cycles (853.5 MB/s)"
///                 (athlon.c: "... '%s'  \t took %4Lu cycles (%0.1f MB/s)" for clears,
///                 "... '%s'\t took %4Lu ..." for copies)
///   kex:          the fastc line, plus " (X MB/s)" when mb_per_s > 0.
/// cycles_per_page is truncated to an integer as the seeds printed it; mb_per_s is MB/s
/// of 2^20 bytes. `label` replaces the printed name (e.g. "warm up run"); otherwise hahn
/// prints the preset's hahn_printed name and the others its printed name, escaped for a
/// terminal (terminal_text). No annotation.
std::string format_seed_line(const PresetFacts& p, Op op, Harness h, double cycles_per_page, double mb_per_s,
                             std::string_view label = {});

/// The table of a seed-harness run as its program printed it (fastc: banner, the
/// "clear_page() tests " section, an empty line, the "copy_page() tests " section;
/// xmm64: the same under "SSE test program ... buffer = 0x..."; hahn: "N.NNN MHz", the
/// clear lines, an empty line, the copy lines); a section without kernels is left out.
/// Annotated by default (see SeedText). Labels, messages, substitutions and the CPU
/// model are escaped for a terminal (terminal_text).
std::string seed_table_text(const SeedRun& run, SeedText mode = SeedText::annotated);

/// Each pass of a seed-harness run repeated N times (config "repeat", --repeat):
/// pass k keeps each Result's k-th repetition and the figures the program printed for
/// it (ticks / divisor, truncated; hahn's MB/s from its own MHz). A Result with fewer
/// passes (it failed in one) is in the passes it has. One pass: the run itself.
std::vector<SeedRun> seed_passes(const SeedRun& run);

/// The kex-harness presets measured at 4096 bytes in a line or two: how many, and the
/// fastest clear_page and copy_page (the printed name, its id, median TSC ticks per
/// page); "" when there are none. kex_seed_text is the whole table.
std::string kex_seed_summary(const RunDoc& doc);

/// Seed-layout lines for the kex-harness preset results measured at 4096 bytes
/// (median TSC ticks per page), with a header; "" when there are none.
std::string kex_seed_text(const RunDoc& doc);

}  // namespace kex
