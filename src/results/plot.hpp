// gnuplot output: `.dat` data plus a `.gp` script per figure, rendered to PNG
// and SVG when gnuplot is on PATH (docs/peers.md §4.6: pmbw, TheBandwidthBenchmark).
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/model/context.hpp"
#include "src/results/plot_parts.hpp"  // PlotOptions, PlotFigure: what the figure writers share
#include "src/results/render.hpp"  // find_gnuplot, render_figure: what write_plots runs

namespace kex {

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
