#include "src/model/config_json.hpp"

#include <stdexcept>

#include "src/model/config_fields.hpp"
#include "src/model/json_fields.hpp"
#include "src/model/kernel_names.hpp"

namespace kex {

using nlohmann::json;

namespace {

/// A kernel spec as the keys of one kernel grid, every axis written out, so that the
/// grid expands to exactly `s` (one value each, "scratch" given: no fit_scratch).
json spec_json(const KernelSpec& s) {
  json g = {{"op", std::string(to_string(s.op))},
            {"regs", std::string(to_string(s.regs))},
            {"unroll", s.unroll},
            {"scratch", s.scratch},
            {"store", std::string(to_string(s.store))},
            {"direction", std::string(to_string(s.direction))},
            {"align", std::string(to_string(s.align))}};
  if (s.prefetch != Prefetch::none) {
    g["prefetch"] = std::string(to_string(s.prefetch)) + "@" + std::to_string(s.pf_distance);
    g["pf_every"] = s.pf_every;
  }
  if (s.edges != Edges::bytes) g["edges"] = std::string(to_string(s.edges));
  if (s.block.bytes) g["block"] = {{"bytes", s.block.bytes}, {"order", std::string(to_string(s.block.order))}};
  if (s.op == Op::clear) g["fill"] = s.fill;
  return g;
}

/// A list of `v`'s values, each written by `one`.
template <class T, class F>
json list_of(const std::vector<T>& v, F one) {
  json out = json::array();
  for (const T& x : v) out.push_back(one(x));
  return out;
}

/// The layout axes of `a` that differ from `base`'s, as a "layout" object (empty: none).
json layout_json(const Axes& a, const Axes& base) {
  json l = json::object();
  auto same = [](auto x) { return x; };
  if (a.src_offsets != base.src_offsets) l["src_offset"] = list_of(a.src_offsets, same);
  if (a.dst_offsets != base.dst_offsets) l["dst_offset"] = list_of(a.dst_offsets, same);
  if (a.distances != base.distances)
    l["distance"] = list_of(a.distances, [](const std::optional<int64_t>& d) { return d ? json(*d) : json(nullptr); });
  if (a.huge_pages != base.huge_pages)
    l["huge_pages"] = list_of(a.huge_pages, [](bool h) { return json(h); });
  return l;
}

/// Writes into `out` the axes of `a` that differ from `base`'s (the top level's over
/// Axes{}, a grid's over the top level's).
void axes_json(const Axes& a, const Axes& base, json& out) {
  if (a.sizes != base.sizes) out["sizes"] = a.sizes;
  if (json l = layout_json(a, base); !l.empty()) out["layout"] = std::move(l);
  if (a.caches != base.caches)
    out["cache"] = list_of(a.caches, [](CacheMode m) { return json(std::string(to_string(m))); });
  if (a.chunks != base.chunks)
    out["chunk"] = list_of(a.chunks, [](uint64_t c) { return c ? json(c) : json("none"); });
  if (a.prefills != base.prefills)
    out["prefill"] = list_of(a.prefills, [](const std::optional<uint8_t>& p) { return p ? json(*p) : json("none"); });
  if (a.consumes != base.consumes) out["consume"] = list_of(a.consumes, [](bool c) { return json(c); });
  if (a.threads != base.threads) out["threads"] = a.threads;
}

/// The presets, their harness, repeat and preset options.
void presets_json(const Config& c, json& out) {
  if (c.presets.empty()) return;
  out["presets"] = c.presets;
  if (c.harness != Harness::kex || c.repeat != 1) out["harness"] = std::string(to_string(c.harness));
  if (c.repeat != 1) out["repeat"] = c.repeat;
  if (!c.preset_fsave) {
    FieldWriter w(out["preset_options"]);
    config_fields::map_preset_options(w, c);
  }
}

/// `map`'s fields of `r` written into `out` (records that share the top level's object).
template <class R, class Map>
void write_into(json& out, R& r, Map map) {
  json part;
  FieldWriter w(part);
  map(w, r);
  for (auto it = part.begin(); it != part.end(); ++it) out[it.key()] = it.value();
}

/// The segment table's section and the outputs.
void sections_json(const Config& c, json& out) {
  if (c.segments.enabled) {
    FieldWriter w(out["segments"]);
    config_fields::map_segments(w, c.segments);
  }
  json o;
  FieldWriter w(o);
  config_fields::map_outputs(w, c);
  if (!o.empty()) out["outputs"] = std::move(o);
}

}  // namespace

json config_json(const Config& c) {
  json out = json::object();
  if (!c.name.empty()) out["name"] = c.name;
  if (!c.description.empty()) out["description"] = c.description;
  axes_json(c.axes, Axes{}, out);
  for (const Grid& g : c.grids)
    for (const KernelSpec& s : g.specs) {
      json k = spec_json(s);
      axes_json(g.axes, c.axes, k);
      out["kernels"].push_back(std::move(k));
    }
  presets_json(c, out);
  out["baselines"] = c.baselines.empty() ? json(false) : json(c.baselines);
  for (const LoadSpec& l : c.loads) {
    json e;
    FieldWriter w(e);
    LoadSpec written = l;
    map_load(w, written);
    out["load"].push_back(std::move(e));
  }
  write_into(out, c.policy, [](auto& w, auto& p) { config_fields::map_policy(w, p); });
  if (!c.protocol.knobs().empty()) out["protocol"] = c.protocol.knobs();
  sections_json(c, out);
  return out;
}

Config make_config(const Config& draft, const std::string& source) {
  const json written = config_json(draft);
  Config c = parse_config(written.dump(), source);
  if (config_json(c) != written)
    throw std::logic_error(source + ": a config kex made reads back as another: " + config_json(c).dump().substr(0, 200));
  c.filter = draft.filter;
  return c;
}

Grid spec_grid_of(const KernelSpec& spec, const Axes& axes) {
  Grid g;
  g.specs = {spec};
  g.axes = axes;
  return g;
}

}  // namespace kex
