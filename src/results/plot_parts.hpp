// What the figure writers behind `kex plot` share (plot.cpp assembles them): the options,
// a figure as text, a run with its label, and the limits that keep a figure within what
// Cairo renders and a screen shows.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/model/axis.hpp"
#include "src/model/context.hpp"

namespace kex {

/// The most generated curves a bandwidth panel draws by default: its fastest by
/// geometric-mean GB/s; a label says how many more there are (a panel of 17 curves had a
/// key no one could read once the report scaled the figure to its page).
inline constexpr int kMaxPanelCurves = 8;

/// What `kex plot` (and the report's figures) is asked to draw.
struct PlotOptions {
  std::string filter;   ///< filter on curve names, kernel and condition without the run label (parse_name_filter: a regex, a leading - inverts); baselines are always kept
  int best = 0;         ///< keep only the N generated curves with the highest geometric-mean GB/s (0: all)
  int per_panel = kMaxPanelCurves;  ///< in each bandwidth panel, the N kernels with the highest geometric-mean GB/s (0: all)
  bool render = true;   ///< run gnuplot (when on PATH) to write .png and .svg
  bool force = false;   ///< overwrite existing files in dir
  std::vector<std::string> labels;  ///< a label per run, in order ("" entries not allowed; empty: host and CPU)
  bool ratio = false;   ///< also draw B / A speedup curves (`ratio-<op>-<cache>`): run N against run 1
  std::optional<std::pair<Axis, Axis>> heatmap;  ///< x and y axes of the heatmaps (none: the first two swept)
};

/// One figure as text: `base` is the file name stem (kex's own: "copy-warm",
/// "heatmap-memcpy-by-size-and-distance", "segments", ...), `dat` the data file, `gp` the gnuplot script that reads it.
/// Text from the results reaches `gp` only through gp_string() (gnuplot_text.hpp).
struct PlotFigure {
  std::string base;
  std::string dat, gp;
};

/// One results file being drawn and its label (--label, else host and CPU; made distinct).
struct PlotRun {
  const RunDoc* doc = nullptr;
  std::string label;
};

/// A key lists at most kMaxKeyRows curves per panel (the others are drawn without an
/// entry and a label says how many), a bar chart shows at most kMaxBarRows rows (the
/// .dat keeps all), a heatmap's cells shrink to fit kMaxSide pixels.
inline constexpr size_t kMaxKeyRows = 100;
inline constexpr size_t kMaxBarRows = 200;
inline constexpr int kMaxSide = 4000;

/// Longest row name in characters (UTF-8 continuation bytes not counted).
size_t longest_label(const std::vector<std::string>& rows);

}  // namespace kex
