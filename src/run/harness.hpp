// The seed posts' own measuring protocols for presets: Arjan van de Ven's fast.c v1.6
// and Mark Hahn's athlon.c (docs/seed-kernels.md §1). kex's own robust statistics
// (Harness::kex) are run by the sweep, not here; the table text is written by
// src/results/seed_text.
#pragma once
#include <vector>

#include "generators/presets/presets.hpp"
#include "src/model/seed.hpp"

namespace kex {

/// Runs `list` (clears first, then copies, each in the given order; a preset listed
/// twice runs twice, as pass 2; the first MMX run of fast.c labelled 'warm up run')
/// under the fastc or hahn protocol:
///  - generates every kernel into one CodeArena and verifies it in the sandbox at
///    1-3 regions (failures -> error Results); presets this CPU cannot run ->
///    skipped Results;
///  - pins to one CPU, maps the seed's buffer and memsets it to 0xfe;
///  - fastc: 16 MiB, 8 bytes past page alignment (xmm64-family presets page-aligned, as
///    xmm64.c was); one unserialised rdtsc pass: clear 4096 pages, copy 2048 pages with
///    src = dst + 8 MiB after sleep(1); prints delta/pages (integer).
///  - hahn: 32 MiB page-aligned; calibrates the TSC MHz as athlon.c did (30 sleeps of
///    10-210 ms, ~3.3 s, once per process); an untimed warm-up pass, then rdtsc; cpuid;
///    pass; cpuid; rdtsc: clear 8192 pages, copy 4096 pages with src = dst + 16 MiB;
///    prints delta/8192 (for copies half the per-copy cost, as athlon.c did) and
///    MB/s = 32 MiB / time.
/// Each Result is the point preset@4096/harness:fastc|hahn[/pass:N] with one
/// repetition of one sample (the pass) and the seed's figures. Cycles are TSC ticks.
/// Throws std::invalid_argument for Harness::kex.
SeedRun run_seed_harness(const std::vector<const Preset*>& list, Harness h, const PresetOptions& opts);

}  // namespace kex
