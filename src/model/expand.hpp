// Points of a config: each kernel plan times the cartesian product of its axes.
#pragma once
#include <cstdint>
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

/// The points of a config, each once (by name): per grid, its coordinates × its
/// plans; presets at the top-level coordinates (page presets only where size and
/// chunk are multiples of their region); baselines at every coordinate another
/// point of the same op has (at the top level's when the config has only
/// baselines). A baseline whose op no other kernel has is left out. With c.filter,
/// only the points whose full name it keeps: the kernels' points first, then the
/// baselines at the coordinates of the kernel points kept (of every kernel point
/// when the filter keeps none), each kept only when its own name passes too.
std::vector<PlannedPoint> expand_points(const Config& c, const ConfigPlans& plans);

}  // namespace kex
