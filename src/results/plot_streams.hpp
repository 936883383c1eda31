// The stream figures: per stream group, the distribution's size CDF beside every
// competitor's time per call on the stream (docs/DESIGN.md "Streams").
#pragma once
#include <vector>

#include "src/results/plot_parts.hpp"

namespace kex {

/// One figure per stream group of a run measured in paired rounds (`stream-copy-Memcpy_Fleet-262144`):
/// left, the distribution's size CDF (StreamRecord::cdf, log2 x axis) with the fixed sizes
/// measured beside it marked; right, each member's median ns per call on the stream as a bar
/// with the 95% interval of its ratio to the fastest carried to ns, fastest on top. None for
/// a group whose record has no CDF (a file from before it) or no member measured. `.dat`
/// index 0: size_bytes p; index 1: rank median_ns low_ns high_ns "kernel". Text from the file
/// reaches the script only through gp_label and dat_string.
std::vector<PlotFigure> stream_figures(const RunDoc& run);

}  // namespace kex
