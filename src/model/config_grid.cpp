// The kernel grids of a config: each spec axis's values (config_fields::map_grid), their
// cartesian product, each valid spec once; and a spec written back as a grid.
#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include "src/core/error.hpp"
#include "src/model/config_fields.hpp"
#include "src/model/config_reader.hpp"

namespace kex::config_detail {

namespace {

using config_fields::GridKeys;
using config_forms::fail_at;
using config_forms::PrefetchAt;

/// Sets the value of one grid axis in a spec.
using Setter = std::function<void(KernelSpec&)>;

/// The spec axes grid `k` lists, each a setter per value, in the order they apply: op and
/// regs first (the others apply over the class's defaults), then unroll, scratch,
/// prefetch, pf_every, store, direction, align, edges, small, rep_above, block, fill.
std::vector<std::vector<Setter>> spec_axes(const GridKeys& k) {
  std::vector<std::vector<Setter>> axes;
  auto add = [&](const auto& values, auto assign) {
    if (values.empty()) return;
    std::vector<Setter> setters;
    for (const auto& v : values) setters.push_back([assign, v](KernelSpec& s) { assign(s, v); });
    axes.push_back(std::move(setters));
  };
  add(k.ops, [](KernelSpec& s, Op v) { s.op = v; });
  add(k.regs, [](KernelSpec& s, RegClass v) { s.regs = v; });
  add(k.unrolls, [](KernelSpec& s, uint32_t v) { s.unroll = v; });
  add(k.scratches, [](KernelSpec& s, uint32_t v) { s.scratch = v; });
  add(k.prefetches, [](KernelSpec& s, PrefetchAt v) {
    s.prefetch = v.kind;
    s.pf_distance = v.distance;
  });
  add(k.pf_every, [](KernelSpec& s, uint32_t v) { s.pf_every = v; });
  add(k.stores, [](KernelSpec& s, Store v) { s.store = v; });
  add(k.directions, [](KernelSpec& s, Direction v) { s.direction = v; });
  add(k.aligns, [](KernelSpec& s, Align v) { s.align = v; });
  add(k.edges, [](KernelSpec& s, Edges v) { s.edges = v; });
  add(k.smalls, [](KernelSpec& s, Small v) { s.small = v; });
  add(k.rep_aboves, [](KernelSpec& s, uint32_t v) { s.rep_above = v; });
  add(k.blocks, [](KernelSpec& s, BlockPrefetch v) { s.block = v; });
  add(k.fills, [](KernelSpec& s, uint8_t v) { s.fill = v; });
  return axes;
}

/// The valid specs of the cartesian product of grid `k` (the JSON `g` at `at`), in
/// product order (the first axis varies fastest), each once. A spec takes its class's
/// defaults, then one value of every axis; without a "scratch" axis, fit_scratch. An
/// invalid spec is an InputError unless skip_invalid drops it; a product with no valid
/// spec is one too.
std::vector<KernelSpec> spec_product(const GridKeys& k, const json& g, const std::string& at) {
  const std::vector<std::vector<Setter>> axes = spec_axes(k);
  std::vector<KernelSpec> out;
  std::set<std::string> seen;  // canonical names: de-duplication in O(n log n)
  std::vector<size_t> idx(axes.size(), 0);
  for (;;) {
    KernelSpec s;
    for (size_t a = 0; a < 2; ++a) axes[a][idx[a]](s);
    KernelSpec d = default_spec(s.op, s.regs);
    for (size_t a = 0; a < axes.size(); ++a) axes[a][idx[a]](d);
    if (k.scratches.empty()) d.scratch = fit_scratch(d);
    std::string why = validate(d);
    if (!why.empty()) {
      if (!k.skip_invalid)
        throw InputError(at + ": " + spec_name(d) + ": " + why +
                         " (or set \"skip_invalid\": true to drop such combinations)");
    } else if (seen.insert(spec_name(d)).second) {
      out.push_back(d);
    }
    size_t a = 0;
    for (; a < axes.size(); ++a) {
      if (++idx[a] < axes[a].size()) break;
      idx[a] = 0;
    }
    if (a == axes.size()) break;
  }
  if (out.empty()) fail_at(at, g, "every combination of this grid is invalid");
  return out;
}

/// Expands one kernel grid object `g` at `at` over the top level's axes `top` (every
/// list-valued axis is a cartesian product). InputError at a bad value or an invalid spec.
Grid read_grid(const json& g, const std::string& at, const Axes& top) {
  FieldReader in(g, at, Keys::partial);
  in.check_keys([&](FieldReader& names) {
    GridKeys keys;
    Axes axes;
    config_fields::map_grid(names, keys);
    config_fields::map_axes(names, axes, top);
  });
  if (!in.raw("op")) fail_at(at, g, "a kernel grid needs \"op\" (copy, clear or read)");
  if (!in.raw("regs")) fail_at(at, g, "a kernel grid needs \"regs\" (" + reg_class_names() + ")");
  GridKeys keys;
  config_fields::map_grid(in, keys);
  Grid grid;
  grid.specs = spec_product(keys, g, at);
  grid.axes = read_axes(in, top);
  if (grid.axes.sizes.empty() && grid.axes.streams.empty()) fail_at(in.path("sizes"), json(), "kernels need a list of sizes (here or at the top level)");
  check_axes(in, grid.axes);
  return grid;
}

/// A kernel spec as the keys of one kernel grid, every axis written out, so that the
/// grid expands to exactly `s` (one value each, "scratch" given: no fit_scratch).
GridKeys keys_of(const KernelSpec& s) {
  GridKeys k{{s.op}, {s.regs}, {s.unroll}, {s.scratch}, {}, {}, {s.store}, {s.direction}, {s.align}, {}, {}, {}, {}};
  if (s.prefetch != Prefetch::none) {
    k.prefetches = {{s.prefetch, s.pf_distance}};
    k.pf_every = {s.pf_every};
  }
  if (s.edges != Edges::bytes) k.edges = {s.edges};
  if (s.small != Small::bytes) k.smalls = {s.small};
  if (s.rep_above) k.rep_aboves = {s.rep_above};
  if (s.block.bytes) k.blocks = {s.block};
  if (s.op == Op::clear) k.fills = {s.fill};
  return k;
}

}  // namespace

}  // namespace kex::config_detail

namespace kex::config_forms {

using nlohmann::json;

std::vector<Grid> KernelsForm::read(const json& x, const std::string& at) const {
  if (!x.is_array() || x.empty()) fail_at(at, x, "expected a non-empty list of kernel grids");
  std::vector<Grid> grids;
  for (size_t i = 0; i < x.size(); ++i) grids.push_back(config_detail::read_grid(x[i], at + "/" + std::to_string(i), top));
  return grids;
}

void KernelsForm::check(const std::vector<Grid>& grids, const std::string& at) const {
  size_t n = 0;
  for (const Grid& g : grids)
    for (const KernelSpec& s : g.specs) {
      const std::string here = at + "/" + std::to_string(n++);
      if (const std::string why = validate(s); !why.empty()) throw InputError(here + ": " + spec_name(s) + ": " + why);
      FieldChecker fields(here);
      config_fields::GridKeys keys = config_detail::keys_of(s);
      config_fields::map_grid(fields, keys);
      config_fields::map_axes(fields, g.axes, top);
      json written;  // the grid's axes as write() gives them: only to quote a value in an error
      FieldWriter w(written);
      config_fields::map_axes(w, g.axes, top);
      const FieldReader in(written, here, Keys::partial);
      if (g.axes.sizes.empty() && g.axes.streams.empty())
        fail_at(in.path("sizes"), json(), "kernels need a list of sizes (here or at the top level)");
      config_detail::check_listed_once(g.axes, here + ": ");
      config_detail::check_axes(in, g.axes);
    }
}

json KernelsForm::write(const std::vector<Grid>& grids) const {
  json out = json::array();
  for (const Grid& g : grids)
    for (const KernelSpec& s : g.specs) {
      json k;
      FieldWriter w(k);
      config_fields::GridKeys keys = config_detail::keys_of(s);
      config_fields::map_grid(w, keys);
      config_fields::map_axes(w, g.axes, top);
      out.push_back(std::move(k));
    }
  return out;
}

}  // namespace kex::config_forms
