// What the figure writers behind `kex plot` share (plot.cpp assembles them): a run with
// its label, and the limits that keep a figure within what Cairo renders and a screen shows.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "src/model/context.hpp"

namespace kex {

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
