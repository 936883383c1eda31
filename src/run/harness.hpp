// The seed posts' own measuring protocols for presets: Arjan van de Ven's fast.c v1.6,
// Benjamin LaHaise's xmm64.c and Mark Hahn's athlon.c (docs/seed-kernels.md §1), and
// Satoshi Asami's mem_cp (§7.6). kex's
// own robust statistics (Harness::kex) are run by the sweep, not here; the table text is
// written by src/results/seed_text.
#pragma once
#include <csignal>
#include <vector>

#include "generators/presets/presets.hpp"
#include "src/model/seed.hpp"

namespace kex {

/// Runs `list` (clears first, then copies, each in the given order; a preset listed
/// twice runs twice, as pass 2; the first MMX run of fast.c labelled 'warm up run')
/// under the fastc, xmm64 or hahn protocol:
///  - generates every kernel into one CodeArena and verifies it in the sandbox at
///    1-3 regions (failures -> error Results); presets this CPU cannot run ->
///    skipped Results;
///  - pins to one CPU and maps the seed's buffer;
///  - fastc: 16 MiB memset to 0xfe; every kernel at 8 bytes past page alignment, as
///    fast.c's malloc'd buffer was (a kernel needing 16-byte alignment runs page-aligned,
///    with a note); one unserialised rdtsc pass: clear 4096 pages, copy 2048 pages with
///    src = dst + 8 MiB after sleep(1); prints delta/pages (integer).
///  - xmm64: as fastc, but every kernel on the page-aligned buffer (xmm64.c printed it,
///    "buffer = 0x...000"); the pass counts are fast.c's (inferred, §1.3).
///  - hahn: 32 MiB page-aligned, not memset (athlon.c only mmapped it); calibrates the
///    TSC MHz as athlon.c did (30 sleeps of 10-210 ms, ~3.3 s, once per process); an
///    untimed pass, then rdtsc; cpuid; pass; cpuid; rdtsc: clear 8192 pages, copy 4096
///    pages with src = dst + 16 MiB; prints delta/8192 (for copies half the per-copy
///    cost, as athlon.c did) and MB/s = 32 MiB / time.
///  - mem_cp (Asami's mem_cp.c, docs/seed-kernels.md §7.6): every preset in list order
///    at every size of `sizes` ascending (empty: mem_cp_sizes()); per point, 4 MiB
///    (TOTALSIZE) of copies through two page-aligned 4 MiB buffers (src random()
///    words, dst zeroed): TOTALSIZE / size calls dst + i*size <- src + i*size, timed
///    with gettimeofday (and the TSC), then dst checked byte by byte (a difference: an
///    error Result with mem_cp's "byte N, should be XX is YY"); mb_per_s = MB/s of 2^20
///    bytes, counted once. Clears are skipped (mem_cp timed bcopy).
/// Each Result is the point preset@4096/harness:fastc|xmm64|hahn[/pass:N] (mem_cp:
/// preset@SIZE/harness:mem_cp[/pass:N]) with one repetition of one sample (the pass)
/// and the seed's figures. Cycles are TSC ticks. `stop` (may be null) is polled between
/// kernels (and points) and during fast.c's sleep: a stop returns within a second with
/// the kernels done so far. Throws std::invalid_argument for Harness::kex.
SeedRun run_seed_harness(const std::vector<const Preset*>& list, Harness h, const PresetOptions& opts,
                         const volatile std::sig_atomic_t* stop = nullptr, const std::vector<uint64_t>& sizes = {});

/// The sizes mem_cp runs at when none are given: runtests' loop from 32 to 10000 bytes
/// (its step was not recovered: kex doubles, 32 .. 8192, then the bound 10000 itself).
const std::vector<uint64_t>& mem_cp_sizes();

}  // namespace kex
