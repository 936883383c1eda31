// gnuplot output: `.dat` data plus a `.gp` script per figure, rendered to PNG
// and SVG when gnuplot is on PATH (docs/peers.md §4.6: pmbw, TheBandwidthBenchmark).
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/model/axis.hpp"
#include "src/model/context.hpp"
#include "src/results/render.hpp"  // find_gnuplot, render_figure: what write_plots runs

namespace kex {

/// The most generated curves a bandwidth panel draws by default: its fastest by
/// geometric-mean GB/s; a label says how many more there are (a panel of 17 curves had a
/// key no one could read once the report scaled the figure to its page).
inline constexpr int kMaxPanelCurves = 8;

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

/// The figures write_plots writes, without writing them (empty: nothing to plot).
/// Throws InputError for a bad filter, --best or --label count.
std::vector<PlotFigure> plot_figures(const std::vector<RunDoc>& runs, const PlotOptions& opts);

/// Writes the figures for one or more runs into `dir` (created if missing) and
/// returns the paths written, in order. Figures: bandwidth against size, one per
/// op and cache mode (`copy-warm.dat/.gp`, ...; one curve per kernel and
/// condition, `.dat` columns size_bytes median_gbps best_gbps p10_gbps p90_gbps,
/// one gnuplot `index` block per curve; log2 x axis with KiB/MiB tics; cache sizes
/// drawn as labelled vertical lines); the presets' curves (`copy-warm-presets`, a
/// panel per family of origin, libc in each); heatmaps of GB/s over two swept axes
/// (size, offsets, distance, chunk), one per kernel and condition, values in the
/// cells (`heatmap-<kernel>[-<condition>]-by-<x>-and-<y>`, the kernel as kex names
/// it, never a file's text); `presets-clear` / `presets-copy` (TSC ticks per page,
/// bars keyed by preset id, with the baselines); `segments` (the table's loops as a
/// heatmap of ns per iteration, `segments-2` for a second run) and `segments-modern`
/// (the modern costs, bars) when the results hold them. Several runs put their curves in the same figures, labelled by
/// host. Throws InputError for a bad filter, an existing file without `force`, or
/// a gnuplot failure.
std::vector<std::string> write_plots(const std::vector<RunDoc>& runs, const std::string& dir, const PlotOptions& opts);

}  // namespace kex
