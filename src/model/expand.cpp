#include "src/model/expand.hpp"

#include <map>
#include <set>
#include <string>

namespace kex {

bool visit_coordinates(const Axes& a, const std::function<bool(const Coords&)>& visit) {
  for (CacheMode cache : a.caches)
    for (uint64_t size : a.sizes)
      for (uint64_t so : a.src_offsets)
        for (uint64_t dof : a.dst_offsets)
          for (const auto& dist : a.distances)
            for (bool huge : a.huge_pages)
              for (uint64_t chunk : a.chunks)
                for (const auto& prefill : a.prefills)
                  for (bool consume : a.consumes)
                    for (uint32_t threads : a.threads) {
                    Coords c;
                    c.size = size;
                    c.layout.src_offset = so;
                    c.layout.dst_offset = dist ? 0 : dof;
                    c.layout.distance = dist;
                    c.layout.huge_pages = huge;
                    c.cache = cache;
                    c.chunk = chunk;
                    c.prefill = prefill;
                    c.consume = consume;
                    c.threads = threads;
                    if (!visit(c)) return false;
                  }
  for (Coords c : a.stream_coords)
    for (uint32_t threads : a.threads) {  // each worker the stream's calls in an order of its own
      c.threads = threads;
      if (!visit(c)) return false;
    }
  return true;
}

std::vector<Coords> coordinate_product(const Axes& a) {
  std::vector<Coords> out;
  visit_coordinates(a, [&](const Coords& c) {
    out.push_back(c);
    return true;
  });
  return out;
}

namespace {

/// The kernel points of a config (grids, then presets) before the filter: visit(plan,
/// at) for each that its plan's region allows, in expand_points' order; false: stop.
bool visit_kernel_points(const Config& c, const ConfigPlans& cp,
                         const std::function<bool(size_t plan, const Coords& at)>& visit) {
  auto each = [&](const Axes& axes, const std::vector<size_t>& plans) {
    return visit_coordinates(axes, [&](const Coords& at) {
      for (size_t plan : plans) {
        const KernelPlan& k = cp.plans[plan];
        if (k.region > 1 && (at.size % k.region || at.chunk % k.region)) continue;
        if (!visit(plan, at)) return false;
      }
      return true;
    });
  };
  for (size_t g = 0; g < c.grids.size() && g < cp.grid_plans.size(); ++g)
    if (!each(c.grids[g].axes, cp.grid_plans[g])) return false;
  return cp.preset_plans.empty() || each(c.axes, cp.preset_plans);
}

/// The distinct coordinates (in first-seen order) of kernel points of each op: where
/// the baselines of that op are measured.
struct PlacedCoords {
  std::map<Op, std::vector<Coords>> at;
  std::map<Op, std::set<std::string>> seen;
  void add(const KernelPlan& k, const Coords& c) {
    if (k.kind != KernelKind::baseline && seen[k.op].insert(point_name({"", c})).second) at[k.op].push_back(c);
  }
};

}  // namespace

bool visit_points(const Config& c, const ConfigPlans& cp, const std::function<bool(const PlannedPoint&)>& visit) {
  std::set<std::string> names;  // each point once, by name
  const auto passes = [&](const std::string& name) { return !c.filter || c.filter->keep(name); };
  // The kernels' points through the filter (kex run --filter) first, so the baselines
  // follow the kernel points kept. Filtering before the name check keeps the same
  // points: a name the filter drops once, it drops every time.
  PlacedCoords kept;
  bool any_kernel = false, any_kept = false;
  const bool all_visited = visit_kernel_points(c, cp, [&](size_t plan, const Coords& at) {
    any_kernel = true;
    const std::string name = point_name({cp.plans[plan].key, at});
    if (!passes(name) || !names.insert(name).second) return true;
    any_kept = true;
    kept.add(cp.plans[plan], at);
    return visit({plan, at});
  });
  if (!all_visited) return false;
  // The filter kept none: the baselines go wherever any kernel point is (a second pass).
  PlacedCoords every;
  if (any_kernel && !any_kept)
    visit_kernel_points(c, cp, [&](size_t plan, const Coords& at) {
      every.add(cp.plans[plan], at);
      return true;
    });
  PlacedCoords& placed = any_kept ? kept : every;
  // Baselines: wherever a kernel of their op was placed, so every ratio has its baseline.
  // A baseline runs where its own name passes the filter, and (a positive filter)
  // wherever a kernel point kept needs it; a negated filter drops it by name.
  const std::vector<Coords> top = any_kernel ? std::vector<Coords>() : coordinate_product(c.axes);
  for (size_t plan : cp.baseline_plans) {
    const KernelPlan& k = cp.plans[plan];
    const std::vector<Coords>& where = any_kernel ? placed.at[k.op] : top;
    for (const Coords& at : where) {
      if (k.region > 1 && (at.size % k.region || at.chunk % k.region)) continue;
      const std::string name = point_name({k.key, at});
      if (c.filter && !c.filter->keep(name) && (c.filter->negate || !any_kept)) continue;
      if (names.insert(name).second && !visit({plan, at})) return false;
    }
  }
  return true;
}

std::vector<PlannedPoint> expand_points(const Config& c, const ConfigPlans& cp) {
  std::vector<PlannedPoint> out;
  visit_points(c, cp, [&](const PlannedPoint& p) {
    out.push_back(p);
    return true;
  });
  return out;
}

}  // namespace kex
