// The segment table's figures of `kex plot` (from context.segments, `kex segments`).
#pragma once
#include <vector>

#include "src/results/plot_parts.hpp"

namespace kex {

/// `segments-modern` (the measured modern costs, ns per iteration as bars, a column per
/// run) then a heatmap of the table's loops per run holding them (`segments`, `segments-2`,
/// ...); none when no run holds a measured segment table.
std::vector<PlotFigure> segment_figures(const std::vector<PlotRun>& runs);

}  // namespace kex
