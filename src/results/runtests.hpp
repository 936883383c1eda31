// Satoshi Asami's experiment (seed 003, docs/seed-kernels.md §7.5) as his `runtests`
// printed and plotted it: a "size bandwidth" table per copy function, and with
// `-graph` one gnuplot data file per function plus a plot.gp with a curve each.
// The functions are the run's asami presets and the libc memcpy baseline; a run under
// the mem_cp harness (Asami's mem_cp.c itself) prints the same tables with its figures.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "src/model/context.hpp"
#include "src/model/seed.hpp"
#include "src/results/seed_text_mode.hpp"

namespace kex {

/// One function of the experiment: its name as runtests would print it (the preset's
/// printed name, e.g. "unrolled_96_32_2", with anything but letters, digits, '_', '.'
/// and '-' turned into '_'; "memcpy" for libc), its kex key, and (size in bytes, MB/s
/// of 2^20 bytes per second, bytes counted once) for every size it was measured at, at
/// the default coordinates (warm, no offsets, whole calls), ascending.
struct RuntestsCurve {
  std::string name;
  std::string key;
  std::vector<std::pair<uint64_t, double>> points;
};

/// The functions in the run's order; empty when the run has no measured asami preset
/// (memcpy alone is not Asami's experiment). `with_mem_cp`: also a curve per kernel the
/// mem_cp harness ran (its first listing), named NAME_mem_cp, key KERNEL/harness:mem_cp,
/// with mem_cp's own MB/s.
std::vector<RuntestsCurve> runtests_curves(const RunDoc& doc, bool with_mem_cp = false);

/// One table per function, separated by an empty line: the function's name, then
/// runtests' header "    size    bandwidth", then one "%8llu%13.2f" row per size (size
/// under "size", MB/s under "bandwidth"). Annotated: a '#' line first saying what the
/// figures are, and the kex key after the name. "" when runtests_curves is empty.
std::string runtests_text(const RunDoc& doc, SeedText mode = SeedText::annotated);

/// The table of a mem_cp-harness run (Harness::mem_cp) as runtests printed it: per
/// preset, its name, "    size    bandwidth" and one "%8llu%13.2f" row per size that ran
/// (mem_cp's MB/s of 2^20 bytes). Annotated: '#' lines first (the protocol, the CPU, and
/// each point that did not run, with why). Names are escaped for a terminal.
std::string mem_cp_text(const SeedRun& run, SeedText mode = SeedText::annotated);

/// runtests -graph (the mem_cp harness's curves included): DIR/NAME.dat per function ("size MB/s" rows under a '#' line) and
/// DIR/plot.gp plotting each as 'DIR/NAME.dat' with linespoints (log2 size axis), so
/// gnuplot's `load 'DIR/plot.gp'` shows them, as Asami's README said. Creates DIR if
/// missing. InputError when there is nothing to write, when DIR cannot be created, or
/// when a file exists and !force (checked before anything is written). Returns the
/// paths written.
std::vector<std::string> write_runtests_graph(const RunDoc& doc, const std::string& dir, bool force);

}  // namespace kex
