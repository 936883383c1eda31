// Seed tables: results printed the way the seed programs printed them
// (docs/seed-kernels.md §1): fast.c's "clear_page function 'NAME'<TAB>took N cycles
// per page" and Hahn's "copy_page by 'NAME'<TAB>took N cycles (X MB/s)".
#pragma once
#include <string>
#include <string_view>

#include "src/model/context.hpp"
#include "src/model/seed.hpp"

namespace kex {

/// One result line in the seed's layout, e.g.
///   fastc: "copy_page function 'faster_copy'\ttook 9807 cycles per page"
///   hahn:  "clear_page by 'normal_clear_page'  \ttook 7221 cycles (324.6 MB/s)"
///   kex:   the fastc line, plus " (X MB/s)" when mb_per_s > 0.
/// cycles_per_page is truncated to an integer as the seeds printed it. `label`
/// replaces the printed name (e.g. "warm up run"); low-confidence presets get a
/// trailing "\t[low-confidence reconstruction]".
std::string format_seed_line(const PresetFacts& p, Op op, Harness h, double cycles_per_page, double mb_per_s,
                             std::string_view label = {});

/// The table of a seed-harness run, with a '#' header saying what the figures are.
std::string seed_table_text(const SeedRun& run);

/// Seed-layout lines for the kex-harness preset results measured at 4096 bytes
/// (median TSC ticks per page), with a header; "" when there are none.
std::string kex_seed_text(const RunDoc& doc);

}  // namespace kex
