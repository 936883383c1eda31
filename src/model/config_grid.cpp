// The kernel grids of a config: each spec axis's values, their cartesian product, each
// valid spec once.
#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include "src/core/numbers.hpp"
#include "src/model/config_reader.hpp"
#include "src/model/kernel_names.hpp"

namespace kex::config_detail {

namespace {

/// Sets the value of one grid axis in a spec.
using Setter = std::function<void(KernelSpec&)>;

/// One spec axis of a kernel grid: its key and a setter per value listed, in order.
struct SpecAxis {
  std::string key;
  std::vector<Setter> values;
};

/// A store kind: "t", "nt" or its name.
std::optional<Store> store_alias(std::string_view t) {
  if (t == "t") return Store::temporal;
  if (t == "nt") return Store::nontemporal;
  return parse_store(t);
}

/// A direction: "fwd", "bwd" or its name.
std::optional<Direction> dir_alias(std::string_view t) {
  if (t == "fwd") return Direction::forward;
  if (t == "bwd") return Direction::backward;
  return parse_direction(t);
}

/// One "prefetch" value at `p`: "none" or "KIND@D" (D bytes ahead, -2^20..2^20, the
/// grammar of kernel names), as its setter. Throws InputError.
Setter prefetch_setter(const Reader& r, const json& e, const std::string& p) {
  std::string t = r.string(e, p);
  auto at = t.find('@');
  auto kind = parse_prefetch(t.substr(0, at));
  if (!kind) r.fail(p, e, "allowed: none, nta@D, t0@D, t1@D, t2@D, w@D, load@D (D = distance in bytes)");
  int32_t dist = 0;
  if (at != std::string::npos) {
    try {  // the grammar of kernel names too (src/core/numbers.hpp)
      dist = static_cast<int32_t>(parse_integer(std::string_view(t).substr(at + 1), -kMaxPfDistance, kMaxPfDistance));
    } catch (const NumberError& err) {
      r.fail(p, e, std::string("the distance after @: ") + err.what());
    }
  } else if (*kind != Prefetch::none) {
    r.fail(p, e, "give a distance, e.g. \"" + t + "@256\"");
  }
  auto k = *kind;
  return [k, dist](KernelSpec& s) { s.prefetch = k; s.pf_distance = dist; };
}

/// One "block" value at `p`: 0 (no block prefetch) or {"bytes": 64 B..1 MiB, "order":
/// forward|backward}, as its setter. Throws InputError.
Setter block_setter(const Reader& r, const json& e, const std::string& p) {
  BlockPrefetch b;
  if (e.is_number_integer() && e.get<int64_t>() == 0) {
  } else if (e.is_object()) {
    r.keys(e, p, {"bytes", "order"});
    b.bytes = static_cast<uint32_t>(r.bytes(e.value("bytes", json(0)), p + "/bytes", 64, 1 << 20));
    if (e.contains("order")) {
      auto o = dir_alias(r.string(e["order"], p + "/order"));
      if (!o) r.fail(p + "/order", e["order"], "allowed: forward, backward");
      b.order = *o;
    }
  } else {
    r.fail(p, e, "expected 0 or {\"bytes\": N, \"order\": \"backward\"}");
  }
  return [b](KernelSpec& s) { s.block = b; };
}

/// Collects the spec axes grid `g` (at `path`) lists, each value parsed to its setter.
struct SpecAxesReader {
  const Reader& r;
  const json& g;
  const std::string& path;
  std::vector<SpecAxis> axes;

  /// The axis `key`, when g has it: parse_one(element, element_path) gives each value's setter.
  template <class F>
  void axis(const std::string& key, F parse_one) {
    if (!g.contains(key)) return;
    std::vector<Setter> v;
    r.each(g[key], path + "/" + key, [&](const json& e, const std::string& p) { v.push_back(parse_one(e, p)); });
    axes.push_back({key, std::move(v)});
  }

  /// An axis of words: parse(word) gives the value (nullopt: not one of `allowed_text`),
  /// assign(spec, value) sets it.
  template <class P, class A>
  void enum_axis(const std::string& key, P parse, const char* allowed_text, A assign) {
    axis(key, [&](const json& e, const std::string& p) -> Setter {
      auto v = parse(r.string(e, p));
      if (!v) r.fail(p, e, std::string("allowed: ") + allowed_text);
      auto val = *v;
      return [assign, val](KernelSpec& s) { assign(s, val); };
    });
  }

  /// An axis of integers in lo..hi; assign(spec, value) sets one.
  template <class A>
  void uint_axis(const std::string& key, uint64_t lo, uint64_t hi, A assign) {
    axis(key, [&](const json& e, const std::string& p) -> Setter {
      const uint64_t v = r.uint(e, p, lo, hi);
      return [assign, v](KernelSpec& s) { assign(s, v); };
    });
  }
};

/// The spec axes grid `g` (at `path`) lists, in the order they apply: op and regs first
/// (the others apply over the class's defaults), then unroll, scratch, prefetch,
/// pf_every, store, direction, align, edges, block, fill. Throws InputError at a bad value.
std::vector<SpecAxis> read_spec_axes(const Reader& r, const json& g, const std::string& path) {
  SpecAxesReader a{r, g, path, {}};
  const std::string ops = op_names();
  a.enum_axis("op", parse_op, ops.c_str(), [](KernelSpec& s, Op v) { s.op = v; });
  const std::string class_names = reg_class_names();
  a.enum_axis("regs", parse_reg_class, class_names.c_str(), [](KernelSpec& s, RegClass v) { s.regs = v; });
  a.uint_axis("unroll", 1, 8192, [](KernelSpec& s, uint64_t v) { s.unroll = static_cast<uint32_t>(v); });
  a.uint_axis("scratch", 1, 32, [](KernelSpec& s, uint64_t v) { s.scratch = static_cast<uint32_t>(v); });
  a.axis("prefetch", [&](const json& e, const std::string& p) { return prefetch_setter(r, e, p); });
  a.uint_axis("pf_every", kMinPfEvery, kMaxPfEvery, [](KernelSpec& s, uint64_t v) { s.pf_every = static_cast<uint32_t>(v); });
  a.enum_axis("store", store_alias, "temporal, nontemporal", [](KernelSpec& s, Store v) { s.store = v; });
  a.enum_axis("direction", dir_alias, "forward, backward", [](KernelSpec& s, Direction v) { s.direction = v; });
  a.enum_axis("align", parse_align, "aligned, unaligned", [](KernelSpec& s, Align v) { s.align = v; });
  a.enum_axis("edges", parse_edges, "bytes, overlap", [](KernelSpec& s, Edges v) { s.edges = v; });
  a.axis("block", [&](const json& e, const std::string& p) { return block_setter(r, e, p); });
  a.uint_axis("fill", 0, 255, [](KernelSpec& s, uint64_t v) { s.fill = static_cast<uint8_t>(v); });
  return std::move(a.axes);
}

/// The valid specs of the cartesian product of `axes` (of grid `g` at `path`; op and
/// regs are its first two), in product order (the first axis varies fastest), each
/// once. A spec takes its class's defaults, then one value of every axis; without a
/// "scratch" axis, fit_scratch. An invalid spec is an InputError unless skip_invalid
/// drops it; a product with no valid spec is one too.
std::vector<KernelSpec> spec_product(const Reader& r, const json& g, const std::string& path,
                                     const std::vector<SpecAxis>& axes, bool skip_invalid) {
  std::vector<KernelSpec> out;
  std::set<std::string> seen;  // canonical names: de-duplication in O(n log n)
  std::vector<size_t> idx(axes.size(), 0);
  for (;;) {
    KernelSpec s;
    for (size_t a = 0; a < 2; ++a) axes[a].values[idx[a]](s);
    KernelSpec d = default_spec(s.op, s.regs);
    for (size_t a = 0; a < axes.size(); ++a) axes[a].values[idx[a]](d);
    if (!g.contains("scratch")) d.scratch = fit_scratch(d);
    std::string why = validate(d);
    if (!why.empty()) {
      if (!skip_invalid) {
        throw InputError(r.source + ": " + path + ": " + spec_name(d) + ": " + why +
                        " (or set \"skip_invalid\": true to drop such combinations)");
      }
    } else if (seen.insert(spec_name(d)).second) {
      out.push_back(d);
    }
    size_t a = 0;
    for (; a < axes.size(); ++a) {
      if (++idx[a] < axes[a].values.size()) break;
      idx[a] = 0;
    }
    if (a == axes.size()) break;
  }
  if (out.empty()) r.fail(path, g, "every combination of this grid is invalid");
  return out;
}

}  // namespace

Grid read_grid(const Reader& r, const json& g, const std::string& path, const Axes& top) {
  static const std::set<std::string> allowed = {"op", "regs", "unroll", "scratch", "prefetch", "pf_every", "store",
                                                "direction", "align", "edges", "block", "fill", "skip_invalid",
                                                "sizes", "layout", "cache", "chunk", "prefill", "consume",
                                                "threads"};
  r.keys(g, path, allowed);
  if (!g.contains("op")) r.fail(path, g, "a kernel grid needs \"op\" (copy, clear or read)");
  if (!g.contains("regs")) r.fail(path, g, "a kernel grid needs \"regs\" (" + reg_class_names() + ")");
  const bool skip_invalid = g.contains("skip_invalid") && r.boolean(g["skip_invalid"], path + "/skip_invalid");
  Grid grid;
  grid.path = path;
  grid.specs = spec_product(r, g, path, read_spec_axes(r, g, path), skip_invalid);
  grid.axes = read_axes(r, g, path, top);
  if (grid.axes.sizes.empty()) r.fail(path + "/sizes", json(), "kernels need a list of sizes (here or at the top level)");
  check_axes(r, g, path, grid.axes);
  return grid;
}


}  // namespace kex::config_detail
