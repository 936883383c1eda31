#include "src/model/expand.hpp"

#include <set>
#include <string>

namespace kex {

std::vector<Coords> coordinate_product(const Axes& a) {
  std::vector<Coords> out;
  for (CacheMode cache : a.caches)
    for (uint64_t size : a.sizes)
      for (uint64_t so : a.src_offsets)
        for (uint64_t dof : a.dst_offsets)
          for (const auto& dist : a.distances)
            for (bool huge : a.huge_pages)
              for (uint64_t chunk : a.chunks)
                for (const auto& prefill : a.prefills)
                  for (bool consume : a.consumes) {
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
                    out.push_back(c);
                  }
  return out;
}

std::vector<PlannedPoint> expand_points(const Config& c, const ConfigPlans& cp) {
  std::vector<PlannedPoint> out;
  std::set<std::string> names;
  auto add = [&](size_t plan, const Coords& at) {
    const KernelPlan& k = cp.plans[plan];
    if (k.region > 1 && (at.size % k.region || at.chunk % k.region)) return;
    if (names.insert(point_name({k.key, at})).second) out.push_back({plan, at});
  };
  for (size_t g = 0; g < c.grids.size() && g < cp.grid_plans.size(); ++g)
    for (const Coords& at : coordinate_product(c.grids[g].axes))
      for (size_t plan : cp.grid_plans[g]) add(plan, at);
  if (!cp.preset_plans.empty())
    for (const Coords& at : coordinate_product(c.axes))
      for (size_t plan : cp.preset_plans) add(plan, at);
  // The filter (kex run --filter) before the baselines, so they follow the kernel points kept.
  const auto passes = [&](const PlannedPoint& p) { return !c.filter || c.filter->keep(point_name({cp.plans[p.plan].key, p.at})); };
  std::vector<PlannedPoint> kept;
  for (const auto& p : out)
    if (passes(p)) kept.push_back(p);
  const std::vector<PlannedPoint> all_kernels = out;
  const std::vector<PlannedPoint>& placed = kept.empty() ? all_kernels : kept;
  out = kept;
  // Baselines: wherever a kernel of their op was placed, so every ratio has its baseline.
  const bool only_baselines = all_kernels.empty();
  for (size_t plan : cp.baseline_plans) {
    const Op op = cp.plans[plan].op;
    std::vector<Coords> where;
    std::set<std::string> seen;
    for (const auto& p : placed)
      if (cp.plans[p.plan].op == op && cp.plans[p.plan].kind != KernelKind::baseline &&
          seen.insert(point_name({"", p.at})).second)
        where.push_back(p.at);
    if (only_baselines) where = coordinate_product(c.axes);
    // A baseline runs where its own name passes the filter, and (a positive filter)
    // wherever a kernel point kept needs it; a negated filter drops it by name.
    for (const Coords& at : where)
      if (!c.filter || c.filter->keep(point_name({cp.plans[plan].key, at})) || (!c.filter->negate && !kept.empty()))
        add(plan, at);
  }
  return out;
}

}  // namespace kex
