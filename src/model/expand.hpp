// Points of a config: each kernel plan times the cartesian product of its axes.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "src/model/config.hpp"
#include "src/model/plan.hpp"
#include "src/model/point.hpp"

namespace kex {

/// The plans of one config, and which axes each uses. Plans are unique by key.
struct ConfigPlans {
  std::vector<KernelPlan> plans;
  std::vector<std::vector<size_t>> grid_plans;  ///< per grid of the config: its plans (indices into plans)
  std::vector<size_t> preset_plans;             ///< kex-harness presets (top-level axes)
  std::vector<size_t> baseline_plans;           ///< baselines (the coordinates of the same op's other points)
};

/// One point to measure: a plan (index into ConfigPlans::plans) at coordinates.
struct PlannedPoint {
  size_t plan = 0;
  Coords at;
};

/// Every coordinate combination of `a`, in axis order cache, size, src_offset,
/// dst_offset, distance, huge_pages, chunk, prefill, consume (the last varies fastest).
std::vector<Coords> coordinate_product(const Axes& a);

/// coordinate_product one combination at a time, without building the list;
/// `visit` returns false to stop (visit_coordinates then returns false).
bool visit_coordinates(const Axes& a, const std::function<bool(const Coords&)>& visit);

/// The points of a config, each once (by name): per grid, its coordinates × its
/// plans; presets at the top-level coordinates (page presets only where size and
/// chunk are multiples of their region); baselines at every coordinate another
/// point of the same op has (at the top level's when the config has only
/// baselines). A baseline whose op no other kernel has is left out. With c.filter,
/// only the points whose full name it keeps: the kernels' points first, then the
/// baselines at the coordinates of the kernel points kept (of every kernel point
/// when the filter keeps none), each kept only when its own name passes too.
std::vector<PlannedPoint> expand_points(const Config& c, const ConfigPlans& plans);

/// expand_points one point at a time, in the same order, without building any
/// product first, so a caller can stop early (a count that only needs to know it
/// is past a limit stops there): `visit` returns false to stop, and visit_points
/// then returns false. The kernel points are visited before the baselines.
bool visit_points(const Config& c, const ConfigPlans& plans, const std::function<bool(const PlannedPoint&)>& visit);

}  // namespace kex
