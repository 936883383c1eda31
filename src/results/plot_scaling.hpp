// The scaling figures: aggregate GB/s against threads, from scaling_rows (scaling.hpp).
#pragma once
#include <vector>

#include "src/model/filter.hpp"
#include "src/results/plot_parts.hpp"

namespace kex {

/// One figure per op and condition of `run` that has points at several thread counts
/// (`scaling-copy`, `scaling-clear`, `scaling-copy-<condition>`): a panel per size (bytes
/// per worker), x the threads, y the aggregate GB/s, a curve per kernel the filter keeps
/// (baselines always), and a dashed line of perfect scaling from the fastest 1-thread
/// figure. `.dat` columns: threads aggregate_gbps per_thread_gbps speedup, one gnuplot
/// `index` block per curve. Kernel names reach the script only through gp_string.
std::vector<PlotFigure> scaling_figures(const RunDoc& run, const NameFilter& filter);

}  // namespace kex
