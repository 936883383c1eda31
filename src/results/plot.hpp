// gnuplot output: `.dat` data plus a `.gp` script per figure, rendered to PNG
// and SVG when gnuplot is on PATH (docs/peers.md §4.6: pmbw, TheBandwidthBenchmark).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kex {

struct PlotOptions {
  std::string filter;   ///< ECMAScript regex on curve names; baselines are always kept
  int best = 0;         ///< keep only the N generated curves with the highest geometric-mean GB/s (0: all)
  bool render = true;   ///< run gnuplot (when on PATH) to write .png and .svg
  bool force = false;   ///< overwrite existing files in dir
};

/// Writes the figures for one or more results documents into `dir` (created if
/// missing) and returns the paths written, in order. Figures: bandwidth against
/// size, one per op and cache mode (`copy-warm.dat/.gp`, ...; one curve per
/// kernel, `.dat` columns size_bytes median_gbps best_gbps p10_gbps p90_gbps, one
/// gnuplot `index` block per curve; log2 x axis with KiB/MiB tics; cache sizes
/// drawn as labelled vertical lines); `presets` (cycles per page, bars) and
/// `segments` (ns per iteration, bars) when the results hold them. Several
/// documents (or a multi-machine merge) put every run's curves in the same
/// figures, labelled by host. Throws InputError for a bad filter, an existing file
/// without `force`, or a gnuplot failure.
std::vector<std::string> write_plots(const std::vector<nlohmann::json>& results, const std::string& dir,
                                     const PlotOptions& opts);

/// Absolute path of `gnuplot` when it is on PATH, else "".
std::string find_gnuplot();

}  // namespace kex
