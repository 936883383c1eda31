// The seed posts' own measuring protocols for presets: Arjan van de Ven's fast.c v1.6
// and Mark Hahn's athlon.c (docs/seed-kernels.md §1). kex's own robust
// statistics (Harness::kex) are run by the sweep, not here.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "generators/presets/presets.hpp"

namespace kex {

enum class Harness { kex, fastc, hahn };

std::string_view to_string(Harness);
/// "kex" | "fastc" | "hahn" (also "fast.c", "athlon.c"); nullopt otherwise.
std::optional<Harness> parse_harness(std::string_view);

struct HarnessResult {
  nlohmann::ordered_json entries;  ///< array of result entries, one per preset in the given order
  std::string text;                ///< the run printed in the seed's layout, with a '#' header
};

/// Runs `list` (clears first, then copies, each in the given order; a preset listed
/// twice runs twice, the first MMX run of fast.c printed as 'warm up run') under the
/// fastc or hahn protocol:
///  - generates every kernel into one CodeArena and verifies it in a child process at
///    1-3 regions (failures -> entries with "error_occurred"); presets this CPU cannot
///    run -> entries with "skipped";
///  - pins to one CPU, maps the seed's buffer and memsets it to 0xfe;
///  - fastc: 16 MiB, 8 bytes past page alignment (xmm64-family presets page-aligned, as
///    xmm64.c was); one unserialised rdtsc pass: clear 4096 pages, copy 2048 pages with
///    src = dst + 8 MiB after sleep(1); prints delta/pages (integer).
///  - hahn: 32 MiB page-aligned; calibrates the TSC MHz as athlon.c did (30 sleeps of
///    10-210 ms, ~3.3 s, once per process); an untimed warm-up pass, then rdtsc; cpuid;
///    pass; cpuid; rdtsc: clear 8192 pages, copy 4096 pages with src = dst + 16 MiB;
///    prints delta/8192 (for copies half the per-copy cost, as athlon.c did) and
///    MB/s = 32 MiB / time.
/// Cycles are TSC ticks (no core-cycle counter is read); the header says so.
/// Throws std::invalid_argument for Harness::kex.
HarnessResult run_seed_harness(const std::vector<const Preset*>& list, Harness h, const PresetOptions& opts);

/// One result line in the seed's layout, e.g.
///   fastc: "copy_page function 'faster_copy'\ttook 9807 cycles per page"
///   hahn:  "clear_page by 'normal_clear_page'  \ttook 7221 cycles (324.6 MB/s)"
///   kex:   the fastc line, plus " (X MB/s)" when mb_per_s > 0.
/// cycles_per_page is truncated to an integer as the seeds printed it. `label` replaces
/// the printed name (e.g. "warm up run"); low-confidence presets get a trailing
/// "\t[low-confidence reconstruction]".
std::string format_seed_line(const Preset& p, Harness h, double cycles_per_page, double mb_per_s,
                             std::string_view label = {});

}  // namespace kex
