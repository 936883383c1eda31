// The coordinate axes of a point (src/model/point.hpp) as one table: how configs, the
// summary and plots name each axis, its value in a point as text and as a number, the
// unit a plot's axis says, and how a point is put back on the axis's default.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/model/point.hpp"

namespace kex {

/// A coordinate axis, in the table's order (the order the summary lists swept axes in).
enum class Axis {
  size, src_offset, dst_offset, distance, huge_pages, cache, chunk, prefill, consume, threads, harness, stream, footprint
};

/// One row of the axes table.
struct AxisRow {
  Axis axis;
  const char* name;  ///< as configs and the summary spell it: "src_offset"
  /// A plot's axis label for an axis of bytes ("bytes per operation"); nullptr for the
  /// others, which no heatmap draws.
  const char* unit;
  bool layout;  ///< one of the buffer layout's axes (src_offset, dst_offset, distance, huge_pages)
  std::string (*text)(const Coords&);            ///< "4096", "-64", "none", "whole", "warm", "0x5a", ...
  std::optional<double> (*number)(const Coords&);  ///< the value as a number; nullopt for a word ("none", "whole")
  void (*reset)(Coords&);                        ///< puts the point on the axis's default
};

/// Every axis, in Axis order (a row per enum value, checked at compile time).
const std::vector<AxisRow>& axis_rows();
/// The row of `a`.
const AxisRow& axis_row(Axis a);
/// The axis a config or the summary names ("distance"); nullopt for any other text.
std::optional<Axis> parse_axis(std::string_view name);
std::string_view to_string(Axis a);

/// The value of axis `a` of `c` as text, for tables and plot labels.
std::string axis_value(const Coords& c, Axis a);

/// The axes on which the points differ, in table order.
std::vector<Axis> swept_axes(const std::vector<Coords>& points);

}  // namespace kex
