// The Why figures: a `kex explain` section's effects as bars with their intervals, one
// figure per explained kernel and group (`kex plot`, `kex report`'s Why section).
#pragma once
#include <vector>

#include "src/model/context.hpp"
#include "src/results/plot_parts.hpp"

namespace kex {

/// One figure per explain point with measured effects ("why-N", N from `first` on in the
/// section's order; at most 24): a horizontal bar per measured effect from 1 to its time
/// ratio (neighbour / kernel; > 1: the kernel is faster), its 95% interval as error bars,
/// the tie zone 1 ± resolution shaded, effects largest first. Effect labels ("store t ->
/// nt") go to the .dat through dat_string and reach the script only as ytic(1); the title
/// through gp_label. None without an explain section.
std::vector<PlotFigure> explain_figures(const RunDoc& run, size_t first = 1);

}  // namespace kex
