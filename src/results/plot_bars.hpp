// Bar figures of `kex plot`: one value per row and run, horizontal bars.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "src/model/filter.hpp"
#include "src/results/plot_parts.hpp"

namespace kex {

/// Horizontal bar chart `base` of one value per (row, run index), clustered when there
/// are several runs: `rows` top to bottom, `values` keyed by (row, run), missing ones NaN
/// in the `.dat` (a quoted label column then one column per run). At most kMaxBarRows
/// rows drawn. Every text reaches the script through gp_label / gp_comment / dat_string.
PlotFigure bar_figure(const std::string& base, const std::string& title, const std::string& xlabel,
                      const std::vector<std::string>& rows, const std::vector<std::string>& run_labels,
                      const std::map<std::pair<std::string, size_t>, double>& values, const std::string& comment);

/// `presets-clear` / `presets-copy`: TSC ticks per 4096-byte page of each named preset the
/// filter keeps, with the run's libc baselines at one page beside them; none without a preset.
std::vector<PlotFigure> preset_bar_figures(const std::vector<PlotRun>& runs, const NameFilter& filter);

}  // namespace kex
