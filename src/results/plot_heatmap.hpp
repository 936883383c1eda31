// Heatmap figures of `kex plot`: a value over two axes on an index grid.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "src/model/filter.hpp"
#include "src/results/plot_parts.hpp"

namespace kex {

/// What a heatmap shows: its file stem, title, axis names, the tic labels of its
/// columns (x) and rows (y), the quantity of its cells with their unit (the colour
/// box's label), and the cells by (column, row). `high_is_good`: bright cells for
/// high values (GB/s); else bright for low ones (ns).
struct HeatmapData {
  std::string base, title, xname, yname, quantity;
  std::vector<std::string> xs, ys;
  std::map<std::pair<size_t, size_t>, double> cells;
  bool high_is_good = true;
};

/// A heatmap on an index grid (gnuplot `with image`), the axes' values as tic labels
/// and each cell's value printed in it (white on dark cells, black on bright ones)
/// while the cells are wide enough for a number. `.dat`: a row per cell (x index,
/// y index, value, the value as the cell prints it; NaN and "-": not measured).
/// Every text of `h` reaches the script through gp_label / gp_comment.
PlotFigure heatmap_figure(const HeatmapData& h);

/// Heatmaps of GB/s over two swept axes of `run` (opts.heatmap, else size and the swept
/// layout axis with most values; none when fewer than two are swept): one per kernel and
/// condition the filter keeps, at most 48, `heatmap-<kernel>[-<condition>]-by-<x>-and-<y>`.
std::vector<PlotFigure> heatmap_figures(const RunDoc& run, const PlotOptions& opts, const NameFilter& filter);

}  // namespace kex
