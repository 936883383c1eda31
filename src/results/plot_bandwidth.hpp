// The bandwidth figures of `kex plot`: GB/s against size, one per op, cache mode,
// presets and thread count (write_plots in plot.hpp describes them).
#pragma once
#include <vector>

#include "src/model/filter.hpp"
#include "src/results/plot_parts.hpp"

namespace kex {

/// The bandwidth figures of `runs` (`copy-warm`, `copy-warm-presets`, `clear-cold-threads-4`, ...) in
/// first-seen order, each preceded by its speedup figure (`ratio-<base>`, B / A) with opts.ratio.
/// Curves: one per kernel and condition the filter keeps (baselines always), opts.best of them at most.
std::vector<PlotFigure> bandwidth_figures(const std::vector<PlotRun>& runs, const PlotOptions& opts,
                                          const NameFilter& filter);

}  // namespace kex
