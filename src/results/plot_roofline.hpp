// The roofline figure of `kex plot` and the report's Why section (issue 35): how close
// the best kernel per size comes to what one core of this machine moves at each cache
// level (context.ceilings, from `kex ceilings -o` or `kex explain`).
#pragma once
#include <vector>

#include "src/model/context.hpp"
#include "src/results/plot_parts.hpp"

namespace kex {

/// One figure per op `run` measured, when its context holds ceilings (`roofline-copy`,
/// `roofline-clear`, `roofline-read`; `suffix` appended to each, "" for the first run):
/// x the size (log2), y GB/s. Per level, its ceilings as horizontal segments across the
/// sizes whose working set (a copy's src + dst = 2 x size) the level holds, from the level
/// below's cache size to its own (DRAM: onwards): read (copy, read), temporal write and
/// non-temporal write (copy, clear); a ceiling of 0 (not measured) is not drawn; each level
/// named with the size its probes ran at. Points:
/// the best median GB/s at each size over the op's entries of kex's harness, warm cache,
/// one thread. `.dat`: a block per ceiling kind (`size_bytes gbps`, two rows per level,
/// levels apart), then the points (`size_bytes gbps`). Level names come from the file and
/// reach the script only through gp_label, the data only through gp_comment. None without
/// ceilings or without such entries.
std::vector<PlotFigure> roofline_figures(const RunDoc& run, const std::string& suffix = "");

}  // namespace kex
