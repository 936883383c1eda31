#include "src/model/config.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "src/core/affinity.hpp"
#include "src/core/embedded.hpp"
#include "src/core/error.hpp"
#include "src/core/file_read.hpp"
#include "src/core/limits.hpp"
#include "src/model/json_fields.hpp"
#include "src/model/json_text.hpp"
#include "src/model/kernel_names.hpp"
#include "src/core/numbers.hpp"
#include "src/core/units.hpp"

namespace kex {

using nlohmann::json;

uint64_t max_config_size() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (f >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024 / 4;
  return 1ull << 30;
}

namespace {

std::string too_long_text() {
  return "longer than " + std::to_string(kMaxConfigBytes >> 20) + " MiB: a config is at most that";
}

/// Walks the config with the current JSON path, so every error names file and path.
struct Reader {
  const std::string& source;

  [[noreturn]] void fail(const std::string& path, const json& value, const std::string& allowed) const {
    throw InputError(source + ": " + (path.empty() ? "/" : path) + ": " + shown_value(value) + ": " + allowed);
  }

  void keys(const json& obj, const std::string& path, const std::set<std::string>& allowed) const {
    if (!obj.is_object()) fail(path, obj, "expected an object");
    for (auto it = obj.begin(); it != obj.end(); ++it)
      if (!allowed.count(it.key())) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        throw InputError(source + ": " + path + "/" + it.key() + ": unknown key (allowed: " + list + ")");
      }
  }

  uint64_t uint(const json& v, const std::string& path, uint64_t lo, uint64_t hi) const {
    if (!v.is_number_integer() || (v.is_number_integer() && v.get<int64_t>() < 0 && !v.is_number_unsigned()))
      fail(path, v, "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
    uint64_t x = v.get<uint64_t>();
    if (x < lo || x > hi) fail(path, v, "out of range (allowed " + std::to_string(lo) + ".." + std::to_string(hi) + ")");
    return x;
  }

  int64_t sint(const json& v, const std::string& path, int64_t lo, int64_t hi) const {
    if (!v.is_number_integer()) fail(path, v, "expected an integer");
    int64_t x = v.get<int64_t>();
    if (x < lo || x > hi) fail(path, v, "out of range (allowed " + std::to_string(lo) + ".." + std::to_string(hi) + ")");
    return x;
  }

  double number(const json& v, const std::string& path, double lo, double hi) const {
    if (!v.is_number()) fail(path, v, "expected a number");
    double x = v.get<double>();
    if (!(x >= lo && x <= hi)) {
      std::ostringstream o;
      o << "out of range (allowed " << lo << ".." << hi << ")";
      fail(path, v, o.str());
    }
    return x;
  }

  bool boolean(const json& v, const std::string& path) const {
    if (!v.is_boolean()) fail(path, v, "expected true or false");
    return v.get<bool>();
  }

  std::string string(const json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, v, "expected a string");
    return v.get<std::string>();
  }

  uint64_t bytes(const json& v, const std::string& path, uint64_t lo, uint64_t hi) const {
    uint64_t x;
    if (v.is_string()) {
      auto b = parse_bytes(v.get<std::string>());
      if (!b) fail(path, v, "expected a byte size such as 4096, \"4KiB\" or \"64MiB\" (binary units K/KiB, M/MiB, G/GiB)");
      x = *b;
    } else if (v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0)) {
      x = v.get<uint64_t>();
    } else {
      fail(path, v, "expected a byte size such as 4096, \"4KiB\" or \"64MiB\" (binary units K/KiB, M/MiB, G/GiB)");
    }
    if (x < lo || x > hi)
      fail(path, v, "out of range (allowed " + format_bytes(lo) + " .. " + format_bytes(hi) + ")");
    return x;
  }

  /// A value or a list of values: calls f(element, element_path) for each.
  template <class F>
  void each(const json& v, const std::string& path, F f) const {
    if (v.is_array()) {
      if (v.empty()) fail(path, v, "an empty list gives no points");
      for (size_t i = 0; i < v.size(); ++i) f(v[i], path + "/" + std::to_string(i));
    } else {
      f(v, path);
    }
  }
};

std::vector<uint64_t> read_sizes(const Reader& r, const json& v, const std::string& path) {
  const uint64_t hi = max_config_size();
  std::vector<uint64_t> out;
  auto one = [&](const json& e, const std::string& p) {
    if (e.is_object()) {
      r.keys(e, p, {"from", "to", "factor", "step", "steps_per_octave"});
      if (!e.contains("from") || !e.contains("to")) r.fail(p, e, "a range needs from and to");
      uint64_t from = r.bytes(e["from"], p + "/from", 1, hi), to = r.bytes(e["to"], p + "/to", 1, hi);
      if (to < from) r.fail(p + "/to", e["to"], "must be >= from");
      if (e.contains("factor") + e.contains("step") + e.contains("steps_per_octave") != 1)
        r.fail(p, e, "a range needs exactly one of factor, step or steps_per_octave");
      if (e.contains("factor")) {
        double f = r.number(e["factor"], p + "/factor", 1.0001, 1024);
        if (std::log(static_cast<double>(to) / from) / std::log(f) > 10000)
          r.fail(p + "/factor", e["factor"], "gives more than 10000 sizes; use a larger factor");
        for (double x = static_cast<double>(from); x <= static_cast<double>(to) * (1 + 1e-9); x *= f)
          out.push_back(static_cast<uint64_t>(std::llround(x)));
      } else if (e.contains("steps_per_octave")) {
        const auto steps = static_cast<uint32_t>(r.uint(e["steps_per_octave"], p + "/steps_per_octave", 1, 64));
        if (std::log2(static_cast<double>(to) / from) * steps > 10000)
          r.fail(p + "/steps_per_octave", e["steps_per_octave"], "gives more than 10000 sizes; use fewer steps");
        for (uint64_t x : sizes_per_octave(from, to, steps)) out.push_back(x);
      } else {
        uint64_t step = r.bytes(e["step"], p + "/step", 1, hi);
        if ((to - from) / step > 10000) r.fail(p + "/step", e["step"], "gives more than 10000 sizes; use a larger step");
        for (uint64_t x = from; x <= to; x += step) out.push_back(x);
      }
    } else {
      out.push_back(r.bytes(e, p, 1, hi));
    }
  };
  r.each(v, path, one);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// Unique values of a list in first-seen order (an axis lists each value once).
template <class T>
std::vector<T> unique_in_order(const std::vector<T>& v) {
  std::vector<T> out;
  for (const auto& x : v)
    if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  return out;
}

/// The coordinate axes a config's top level or a grid gives (keys sizes, layout,
/// cache, chunk, prefill, consume, threads), applied over `base`.
Axes read_axes(const Reader& r, const json& j, const std::string& path, Axes base) {
  const uint64_t hi = max_config_size();
  if (j.contains("sizes")) base.sizes = read_sizes(r, j["sizes"], path + "/sizes");
  if (j.contains("layout")) {
    const json& l = j["layout"];
    const std::string lp = path + "/layout";
    r.keys(l, lp, {"src_offset", "dst_offset", "distance", "huge_pages"});
    if (l.contains("src_offset")) {
      base.src_offsets.clear();
      r.each(l["src_offset"], lp + "/src_offset",
             [&](const json& e, const std::string& p) { base.src_offsets.push_back(r.bytes(e, p, 0, hi)); });
    }
    if (l.contains("dst_offset")) {
      base.dst_offsets.clear();
      r.each(l["dst_offset"], lp + "/dst_offset",
             [&](const json& e, const std::string& p) { base.dst_offsets.push_back(r.bytes(e, p, 0, hi)); });
    }
    if (l.contains("distance")) {
      base.distances.clear();
      r.each(l["distance"], lp + "/distance", [&](const json& e, const std::string& p) {
        if (e.is_null()) base.distances.push_back(std::nullopt);
        else base.distances.push_back(r.sint(e, p, -static_cast<int64_t>(hi), static_cast<int64_t>(hi)));
      });
    }
    if (l.contains("huge_pages")) {
      base.huge_pages.clear();
      r.each(l["huge_pages"], lp + "/huge_pages",
             [&](const json& e, const std::string& p) { base.huge_pages.push_back(r.boolean(e, p)); });
    }
  }
  if (j.contains("cache")) {
    base.caches.clear();
    r.each(j["cache"], path + "/cache", [&](const json& e, const std::string& p) {
      auto m = parse_cache_mode(r.string(e, p));
      if (!m) r.fail(p, e, "allowed: warm, cold");
      base.caches.push_back(*m);
    });
  }
  if (j.contains("chunk")) {
    base.chunks.clear();
    r.each(j["chunk"], path + "/chunk", [&](const json& e, const std::string& p) {
      if (e.is_string() && e.get<std::string>() == "none") base.chunks.push_back(0);
      else base.chunks.push_back(r.bytes(e, p, 1, hi));
    });
  }
  if (j.contains("prefill")) {
    base.prefills.clear();
    r.each(j["prefill"], path + "/prefill", [&](const json& e, const std::string& p) {
      if (e.is_string() && e.get<std::string>() == "none") base.prefills.push_back(std::nullopt);
      else if (e.is_number_integer()) base.prefills.push_back(static_cast<uint8_t>(r.uint(e, p, 0, 255)));
      else r.fail(p, e, "allowed: \"none\" or a byte value 0..255 written to the destination before each sample");
    });
  }
  if (j.contains("consume")) {
    base.consumes.clear();
    r.each(j["consume"], path + "/consume",
           [&](const json& e, const std::string& p) { base.consumes.push_back(r.boolean(e, p)); });
  }
  if (j.contains("threads")) {
    base.threads.clear();
    r.each(j["threads"], path + "/threads", [&](const json& e, const std::string& p) {
      if (e.is_string() && e.get<std::string>() == "all") {
        const size_t n = startup_cpus().size();
        base.threads.push_back(static_cast<uint32_t>(std::clamp<size_t>(n, 1, kMaxThreads)));
      } else if (e.is_number_integer()) {
        base.threads.push_back(static_cast<uint32_t>(r.uint(e, p, 1, kMaxThreads)));
      } else {
        r.fail(p, e, "allowed: a number of threads 1.." + std::to_string(kMaxThreads) +
                         ", or \"all\" (every CPU of the affinity mask)");
      }
    });
  }
  base.src_offsets = unique_in_order(base.src_offsets);
  base.dst_offsets = unique_in_order(base.dst_offsets);
  base.distances = unique_in_order(base.distances);
  base.huge_pages = unique_in_order(base.huge_pages);
  base.caches = unique_in_order(base.caches);
  base.chunks = unique_in_order(base.chunks);
  base.prefills = unique_in_order(base.prefills);
  base.consumes = unique_in_order(base.consumes);
  base.threads = unique_in_order(base.threads);
  return base;
}

/// Checks one set of axes: a distance places dst itself (no dst_offset with it),
/// and the buffers fit in memory.
void check_axes(const Reader& r, const json& j, const std::string& path, const Axes& a) {
  const bool any_distance = std::any_of(a.distances.begin(), a.distances.end(), [](auto d) { return d.has_value(); });
  const bool any_dst = std::any_of(a.dst_offsets.begin(), a.dst_offsets.end(), [](auto o) { return o != 0; });
  const json layout = j.contains("layout") ? j["layout"] : json::object();
  if (any_distance && any_dst)
    r.fail(path + "/layout", layout,
           "dst_offset and distance both place dst: give distance (dst = src + distance) or dst_offset (separate "
           "buffers), not both");
  if (a.sizes.empty()) return;
  const uint64_t m = a.sizes.back();
  const uint64_t so = *std::max_element(a.src_offsets.begin(), a.src_offsets.end());
  const uint64_t dof = *std::max_element(a.dst_offsets.begin(), a.dst_offsets.end());
  uint64_t dist = 0;
  for (auto d : a.distances)
    if (d) dist = std::max<uint64_t>(dist, static_cast<uint64_t>(*d < 0 ? -*d : *d));
  const long double need = (long double)so + m + std::max<long double>((long double)dof + m, (long double)dist + m);
  const uint64_t limit = 2 * max_config_size();
  if (need > limit)
    r.fail(path + (any_distance ? "/layout/distance" : "/sizes"),
           any_distance ? layout.value("distance", json()) : j.value("sizes", json()),
           "src and dst need " + format_bytes(static_cast<uint64_t>(need)) +
               " of buffers (sizes, offsets and distances together); allowed up to " + format_bytes(limit) +
               " here (half of MemAvailable)");
}

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

/// Expands one kernel grid object (every list-valued axis is a cartesian product).
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

}  // namespace

namespace {

/// The config text as JSON (comments allowed). Throws InputError naming `source`: a
/// text above kMaxConfigBytes, nesting deeper than 64, what parse_json_text refuses (a
/// NUL byte, a key twice in one object), malformed JSON (at its line:column).
json parse_json(const std::string& text, const std::string& source) {
  if (text.size() > kMaxConfigBytes) throw InputError(source + ": " + too_long_text());
  try {
    return parse_json_text(text, source, 64, "a kex config needs at most 5", /*comments=*/true);
  } catch (const json::parse_error& e) {
    // Recompute line and column from the byte offset for a compiler-style message.
    size_t line = 1, col = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') { ++line; col = 1; } else ++col;
    }
    std::string msg = e.what();
    auto pos = msg.find("syntax error");
    throw InputError(source + ":" + std::to_string(line) + ":" + std::to_string(col) + ": malformed JSON: " +
                    (pos == std::string::npos ? msg : msg.substr(pos)));
  } catch (const json::exception& e) {
    throw InputError(source + ": malformed JSON: " + e.what());
  }
}

/// Checks the top level: an object, its name fields strings, every key one kex knows.
void check_top_level(const Reader& r, const json& j) {
  if (!j.is_object()) r.fail("", j, "expected an object (a kex config)");
  for (const char* k : {"$schema", "name", "description"})
    if (j.contains(k)) r.string(j[k], std::string("/") + k);
  r.keys(j, "", {"$schema", "name", "description", "sizes", "kernels", "presets", "harness", "repeat", "preset_options",
                 "baselines", "load", "layout", "cache", "chunk", "prefill", "consume", "threads", "precision", "max_time_per_point",
                 "min_time_per_point", "min_samples", "max_samples", "sample_us", "repetitions", "protocol", "segments", "outputs"});
}

/// What the config runs: its kernel grids (over c.axes, read before), presets, seed
/// harness, repeat and preset options, into `c`.
void read_kernels(const Reader& r, const json& j, Config& c) {
  if (j.contains("kernels")) {
    if (!j["kernels"].is_array() || j["kernels"].empty())
      r.fail("/kernels", j["kernels"], "expected a non-empty list of kernel grids");
    for (size_t i = 0; i < j["kernels"].size(); ++i)
      c.grids.push_back(read_grid(r, j["kernels"][i], "/kernels/" + std::to_string(i), c.axes));
  }
  if (j.contains("presets")) {
    r.each(j["presets"], "/presets", [&](const json& e, const std::string& p) { c.presets.push_back(r.string(e, p)); });
  }
  if (j.contains("harness")) {
    auto h = parse_harness(r.string(j["harness"], "/harness"));
    if (!h) r.fail("/harness", j["harness"], "allowed: kex, fastc, hahn, xmm64, mem_cp");
    c.harness = *h;
    // A seed program is one thread: its presets run as it ran them.
    if (c.harness != Harness::kex && j.contains("threads") && c.axes.threads != std::vector<uint32_t>{1})
      r.fail("/threads", j["threads"], "a seed harness (" + std::string(to_string(c.harness)) +
                                           ") runs its program's single thread: leave threads at 1");
  }
  if (j.contains("repeat")) {
    if (!j.contains("harness")) r.fail("/repeat", j["repeat"], "applies to a seed harness: give \"harness\"");
    c.repeat = static_cast<uint32_t>(r.uint(j["repeat"], "/repeat", 1, 1000));
  }
  if (j.contains("preset_options")) {
    r.keys(j["preset_options"], "/preset_options", {"fsave"});
    if (j["preset_options"].contains("fsave")) c.preset_fsave = r.boolean(j["preset_options"]["fsave"], "/preset_options/fsave");
  }
}

/// The libc baselines "baselines" asks for: every one when absent or true, none for
/// false, else the names listed (each one of baseline_names(), an implementation set
/// such as glibc-copy, or an implementation name glibc/SYMBOL: which exist is known only
/// when the plans are made, src/run/plans.hpp).
std::vector<std::string> read_baselines(const Reader& r, const json& j) {
  const std::vector<std::string>& all_baselines = baseline_names();
  if (!j.contains("baselines") || (j["baselines"].is_boolean() && j["baselines"].get<bool>())) return all_baselines;
  if (j["baselines"].is_boolean()) return {};
  if (!j["baselines"].is_array())
    r.fail("/baselines", j["baselines"],
           "expected true, false or a list of memcpy, memset, rep_movsb, rep_stosb, glibc-copy, glibc-move, glibc-clear, "
           "glibc/SYMBOL");
  std::vector<std::string> out;
  for (size_t i = 0; i < j["baselines"].size(); ++i) {
    std::string b = r.string(j["baselines"][i], "/baselines/" + std::to_string(i));
    if (std::find(all_baselines.begin(), all_baselines.end(), b) == all_baselines.end() && !find_impl_set(b) &&
        !parse_impl_name(b))
      r.fail("/baselines/" + std::to_string(i), j["baselines"][i],
             "allowed: memcpy, memset, rep_movsb, rep_stosb, glibc-copy, glibc-move, glibc-clear, glibc/SYMBOL");
    if (const auto n = parse_impl_name(b); n && n->source != ImplSource::glibc)
      r.fail("/baselines/" + std::to_string(i), j["baselines"][i],
             "loaded code is named in \"load\" ({\"name\": \"" + n->symbol + "\", \"path\": ..., \"symbol\": ...}), "
             "and races with the rest from there");
    out.push_back(b);
  }
  return out;
}

/// The "load" list (map_load's records, at most 64, each NAME once) into `c`.
void read_loads(const json& j, Config& c) {
  if (!j.contains("load")) return;
  FieldReader r(j, c.source + ": ");
  r.list("load", c.loads, 1, 64, [](FieldReader& f, LoadSpec& l) { map_load(f, l); });
  for (size_t i = 0; i < c.loads.size(); ++i) check_load(c.loads[i], c.source + ": /load/" + std::to_string(i));
  check_load_names(c.loads, c.source + ": /load");
}

/// The measurement policy's keys (precision, seconds per point, samples per repetition,
/// sample_us in µs) over `p`'s values; a minimum above its maximum is an error.
void read_policy(const Reader& r, const json& j, Policy& p) {
  if (j.contains("precision")) p.precision = r.number(j["precision"], "/precision", 0.0001, 0.5);
  if (j.contains("max_time_per_point"))
    p.max_time_per_point = r.number(j["max_time_per_point"], "/max_time_per_point", 0.001, 3600);
  if (j.contains("min_time_per_point")) {
    p.min_time_per_point = r.number(j["min_time_per_point"], "/min_time_per_point", 0, 3600);
    if (p.min_time_per_point > p.max_time_per_point)
      r.fail("/min_time_per_point", j["min_time_per_point"],
             "must be <= max_time_per_point (" + json(p.max_time_per_point).dump() + ")");
  }
  if (j.contains("min_samples")) p.min_samples = static_cast<uint32_t>(r.uint(j["min_samples"], "/min_samples", 3, 1000000));
  if (j.contains("max_samples")) p.max_samples = static_cast<uint32_t>(r.uint(j["max_samples"], "/max_samples", 3, 1000000));
  if (p.max_samples < p.min_samples) {
    // j is const: operator[] of an absent key is undefined, so name the key that was given.
    if (j.contains("max_samples"))
      r.fail("/max_samples", j["max_samples"], "must be >= min_samples (" + std::to_string(p.min_samples) + ")");
    r.fail("/min_samples", j["min_samples"], "must be <= max_samples (" + std::to_string(p.max_samples) + ", the default)");
  }
  if (j.contains("sample_us")) p.sample_us = r.number(j["sample_us"], "/sample_us", 20, 1000);
}

/// The "segments" section, true/false or an object of options, into `s`.
void read_segments(const Reader& r, const json& j, SegmentsRequest& s) {
  if (!j.contains("segments")) return;
  const json& v = j["segments"];
  if (v.is_boolean()) {
    s.enabled = v.get<bool>();
    return;
  }
  r.keys(v, "/segments", {"iterations", "mixed", "modern"});
  s.enabled = true;
  if (v.contains("iterations")) s.iterations = r.uint(v["iterations"], "/segments/iterations", 1000, 1ull << 32);
  if (v.contains("mixed")) s.mixed = r.boolean(v["mixed"], "/segments/mixed");
  if (v.contains("modern")) s.modern = r.boolean(v["modern"], "/segments/modern");
}

/// The "outputs" section (file and directory names as written) into `c`.
void read_outputs(const Reader& r, const json& j, Config& c) {
  if (!j.contains("outputs")) return;
  const json& o = j["outputs"];
  r.keys(o, "/outputs", {"json", "plot_dir", "seed_exact", "graph_dir"});
  if (o.contains("json")) c.out_json = r.string(o["json"], "/outputs/json");
  if (o.contains("plot_dir")) c.plot_dir = r.string(o["plot_dir"], "/outputs/plot_dir");
  if (o.contains("seed_exact")) c.seed_exact = r.boolean(o["seed_exact"], "/outputs/seed_exact");
  if (o.contains("graph_dir")) c.graph_dir = r.string(o["graph_dir"], "/outputs/graph_dir");
}

/// Refuses a config with nothing to run or baselines without sizes; presets measured
/// by kex without sizes get the seeds' unit, one 4096-byte page. Then checks the top
/// level's axes again (their buffers with those sizes).
void check_runnable(const Reader& r, const json& j, Config& c) {
  if (c.grids.empty() && c.presets.empty() && !c.segments.enabled && c.baselines.empty() && c.loads.empty())
    r.fail("", j, "nothing to run: give kernels, presets, baselines, load or segments");
  if (c.axes.sizes.empty()) {
    if (!c.presets.empty() && c.harness == Harness::kex) c.axes.sizes = {4096};  // the seeds' unit: one page
    else if (c.grids.empty() && (!c.baselines.empty() || !c.loads.empty()) && c.presets.empty())
      r.fail("/sizes", json(), c.loads.empty() ? "baselines need a list of sizes" : "loaded code needs a list of sizes");
  }
  check_axes(r, j, "", c.axes);
}

}  // namespace

nlohmann::json spec_grid(const KernelSpec& s) {
  nlohmann::json g = {{"op", std::string(to_string(s.op))},
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


Config parse_config(const std::string& text, const std::string& source) {
  Config c;
  c.source = source;
  const Reader r{source};
  c.raw = parse_json(text, source);
  const json& j = c.raw;
  check_top_level(r, j);
  c.axes = read_axes(r, j, "", Axes{});
  check_axes(r, j, "", c.axes);  // the top level's own conflicts first, named at the top level
  read_kernels(r, j, c);
  c.baselines = read_baselines(r, j);
  read_loads(j, c);
  read_policy(r, j, c.policy);
  c.protocol = ProtocolRequest::read(j, source);
  read_segments(r, j, c.segments);
  read_outputs(r, j, c);
  check_runnable(r, j, c);
  return c;
}

std::vector<uint64_t> sizes_per_octave(uint64_t from, uint64_t to, uint32_t steps) {
  std::vector<uint64_t> out;
  if (from == 0 || to < from || steps == 0) return out;
  for (uint64_t k = 0;; ++k) {
    const double x = double(from) * std::exp2(double(k) / steps);
    if (x > double(to) * (1 + 1e-12)) break;
    const auto v = static_cast<uint64_t>(std::llround(x));
    if (out.empty() || v != out.back()) out.push_back(v);
  }
  if (out.back() != to) out.push_back(to);
  return out;
}

Config load_config(const std::string& path) {
  if (path.rfind("built-in:", 0) == 0) {
    std::string name = path.substr(9);
    if (name.size() < 5 || name.compare(name.size() - 5, 5, ".json") != 0) name += ".json";
    const char* t = name.find(".schema.") == std::string::npos ? embedded_file(name) : nullptr;
    if (!t)
      throw InputError(path + ": no such built-in config (built-in: default, unroll, reference, asami, aliasing, tune, "
                              "clear_pages, threads)");
    return parse_config(t, path);
  }
  try {
    const std::string text = read_regular_file(path, kMaxConfigBytes, "config");
    return parse_config(text, path);
  } catch (const std::bad_alloc&) {
    throw out_of_memory_reading(path);
  }
}

}  // namespace kex
