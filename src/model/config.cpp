#include "src/model/config.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "src/core/embedded.hpp"
#include "src/core/error.hpp"
#include "src/core/numbers.hpp"
#include "src/core/units.hpp"

namespace kex {

using nlohmann::json;

std::string_view to_string(CacheMode m) { return m == CacheMode::warm ? "warm" : "cold"; }

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

/// Walks the config with the current JSON path, so every error names file and path.
struct Reader {
  const std::string& source;

  [[noreturn]] void fail(const std::string& path, const json& value, const std::string& allowed) const {
    std::string v = value.dump();
    if (v.size() > 60) v = v.substr(0, 57) + "...";
    throw InputError(source + ": " + (path.empty() ? "/" : path) + ": " + v + ": " + allowed);
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
      r.keys(e, p, {"from", "to", "factor", "step"});
      if (!e.contains("from") || !e.contains("to")) r.fail(p, e, "a range needs from and to");
      uint64_t from = r.bytes(e["from"], p + "/from", 1, hi), to = r.bytes(e["to"], p + "/to", 1, hi);
      if (to < from) r.fail(p + "/to", e["to"], "must be >= from");
      if (e.contains("factor") == e.contains("step")) r.fail(p, e, "a range needs exactly one of factor or step");
      if (e.contains("factor")) {
        double f = r.number(e["factor"], p + "/factor", 1.0001, 1024);
        if (std::log(static_cast<double>(to) / from) / std::log(f) > 10000)
          r.fail(p + "/factor", e["factor"], "gives more than 10000 sizes; use a larger factor");
        for (double x = static_cast<double>(from); x <= static_cast<double>(to) * (1 + 1e-9); x *= f)
          out.push_back(static_cast<uint64_t>(std::llround(x)));
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

/// Expands one kernel grid object (every list-valued axis is a cartesian product).
void read_grid(const Reader& r, const json& g, const std::string& path, std::vector<KernelSpec>& out) {
  static const std::set<std::string> allowed = {"op", "regs", "unroll", "scratch", "prefetch", "pf_every", "store",
                                                "direction", "align", "block", "fill", "skip_invalid"};
  r.keys(g, path, allowed);
  if (!g.contains("op")) r.fail(path, g, "a kernel grid needs \"op\" (copy or clear)");
  if (!g.contains("regs")) r.fail(path, g, "a kernel grid needs \"regs\" (gpr, mmx, x87, sse, avx, avx512, string)");
  bool skip_invalid = g.contains("skip_invalid") && r.boolean(g["skip_invalid"], path + "/skip_invalid");

  // Each axis becomes a list of setters; the product applies one of each.
  using Setter = std::function<void(KernelSpec&)>;
  std::vector<std::pair<std::string, std::vector<Setter>>> axes;
  auto axis = [&](const std::string& key, auto parse_one) {
    if (!g.contains(key)) return;
    std::vector<Setter> v;
    r.each(g[key], path + "/" + key, [&](const json& e, const std::string& p) { v.push_back(parse_one(e, p)); });
    axes.emplace_back(key, std::move(v));
  };
  auto enum_axis = [&](const std::string& key, auto parse, const char* allowed_text, auto assign) {
    axis(key, [&, parse, assign, allowed_text](const json& e, const std::string& p) -> Setter {
      auto v = parse(r.string(e, p));
      if (!v) r.fail(p, e, std::string("allowed: ") + allowed_text);
      auto val = *v;
      return [assign, val](KernelSpec& s) { assign(s, val); };
    });
  };
  enum_axis("op", parse_op, "copy, clear", [](KernelSpec& s, Op v) { s.op = v; });
  enum_axis("regs", parse_reg_class, "gpr, mmx, x87, sse, avx, avx512, string",
            [](KernelSpec& s, RegClass v) { s.regs = v; });
  axis("unroll", [&](const json& e, const std::string& p) -> Setter {
    uint32_t v = static_cast<uint32_t>(r.uint(e, p, 1, 8192));
    return [v](KernelSpec& s) { s.unroll = v; };
  });
  axis("scratch", [&](const json& e, const std::string& p) -> Setter {
    uint32_t v = static_cast<uint32_t>(r.uint(e, p, 1, 32));
    return [v](KernelSpec& s) { s.scratch = v; };
  });
  axis("prefetch", [&](const json& e, const std::string& p) -> Setter {
    std::string t = r.string(e, p);
    auto at = t.find('@');
    auto kind = parse_prefetch(t.substr(0, at));
    if (!kind) r.fail(p, e, "allowed: none, nta@D, t0@D, t1@D, t2@D, w@D, load@D (D = distance in bytes)");
    int32_t dist = 0;
    if (at != std::string::npos) {
      try {  // the grammar of kernel names too (src/core/numbers.hpp)
        dist = static_cast<int32_t>(parse_integer(std::string_view(t).substr(at + 1), -(1 << 20), 1 << 20));
      } catch (const NumberError& err) {
        r.fail(p, e, std::string("the distance after @: ") + err.what());
      }
    } else if (*kind != Prefetch::none) {
      r.fail(p, e, "give a distance, e.g. \"" + t + "@256\"");
    }
    auto k = *kind;
    return [k, dist](KernelSpec& s) { s.prefetch = k; s.pf_distance = dist; };
  });
  axis("pf_every", [&](const json& e, const std::string& p) -> Setter {
    uint32_t v = static_cast<uint32_t>(r.uint(e, p, 8, 8192));
    return [v](KernelSpec& s) { s.pf_every = v; };
  });
  auto store_alias = [](std::string_view t) -> std::optional<Store> {
    if (t == "t") return Store::temporal;
    if (t == "nt") return Store::nontemporal;
    return parse_store(t);
  };
  enum_axis("store", store_alias, "temporal, nontemporal", [](KernelSpec& s, Store v) { s.store = v; });
  auto dir_alias = [](std::string_view t) -> std::optional<Direction> {
    if (t == "fwd") return Direction::forward;
    if (t == "bwd") return Direction::backward;
    return parse_direction(t);
  };
  enum_axis("direction", dir_alias, "forward, backward", [](KernelSpec& s, Direction v) { s.direction = v; });
  enum_axis("align", parse_align, "aligned, unaligned", [](KernelSpec& s, Align v) { s.align = v; });
  axis("block", [&](const json& e, const std::string& p) -> Setter {
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
  });
  axis("fill", [&](const json& e, const std::string& p) -> Setter {
    uint8_t v = static_cast<uint8_t>(r.uint(e, p, 0, 255));
    return [v](KernelSpec& s) { s.fill = v; };
  });

  // Cartesian product; op and regs come first so defaults follow the class.
  std::vector<size_t> idx(axes.size(), 0);
  size_t made = 0, dropped = 0;
  for (;;) {
    KernelSpec s;
    for (size_t a = 0; a < 2; ++a) axes[a].second[idx[a]](s);
    KernelSpec d = default_spec(s.op, s.regs);
    for (size_t a = 0; a < axes.size(); ++a) axes[a].second[idx[a]](d);
    if (!g.contains("scratch")) d.scratch = fit_scratch(d);
    std::string why = validate(d);
    if (!why.empty()) {
      if (!skip_invalid) {
        throw InputError(r.source + ": " + path + ": " + spec_name(d) + ": " + why +
                        " (or set \"skip_invalid\": true to drop such combinations)");
      }
      ++dropped;
    } else if (std::find(out.begin(), out.end(), d) == out.end()) {
      out.push_back(d);
      ++made;
    }
    size_t a = 0;
    for (; a < axes.size(); ++a) {
      if (++idx[a] < axes[a].second.size()) break;
      idx[a] = 0;
    }
    if (a == axes.size()) break;
  }
  if (!made) r.fail(path, g, "every combination of this grid is invalid");
}

}  // namespace

/// Nesting depth of JSON text (strings skipped); the parser recurses, so very deep
/// input is refused before parsing.
size_t json_depth(const std::string& t) {
  size_t depth = 0, max = 0;
  bool str = false;
  for (size_t i = 0; i < t.size(); ++i) {
    char ch = t[i];
    if (str) {
      if (ch == '\\') ++i;
      else if (ch == '"') str = false;
    } else if (ch == '"') {
      str = true;
    } else if (ch == '[' || ch == '{') {
      max = std::max(max, ++depth);
    } else if ((ch == ']' || ch == '}') && depth) {
      --depth;
    }
  }
  return max;
}

Config parse_config(const std::string& text, const std::string& source) {
  Config c;
  c.source = source;
  Reader r{source};
  if (json_depth(text) > 64) throw InputError(source + ": JSON nested deeper than 64 levels; a kex config needs at most 5");
  // Duplicate keys: nlohmann keeps the last silently, so track keys per open object.
  std::vector<std::set<std::string>> open_keys;
  std::vector<std::string> path;
  json::parser_callback_t dup_check = [&](int, json::parse_event_t ev, json& parsed) {
    if (ev == json::parse_event_t::object_start) open_keys.emplace_back();
    else if (ev == json::parse_event_t::object_end && !open_keys.empty()) open_keys.pop_back();
    else if (ev == json::parse_event_t::key && !open_keys.empty()) {
      const std::string k = parsed.get<std::string>();
      if (!open_keys.back().insert(k).second)
        throw InputError(source + ": key \"" + k + "\" appears twice in one object (JSON keeps only the last)");
    }
    return true;
  };
  try {
    c.raw = json::parse(text, dup_check, true, /*ignore_comments=*/true);
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
  const json& j = c.raw;
  if (!j.is_object()) r.fail("", j, "expected an object (a kex config)");
  for (const char* k : {"$schema", "name", "description"})
    if (j.contains(k)) r.string(j[k], std::string("/") + k);
  r.keys(j, "", {"$schema", "name", "description", "sizes", "kernels", "presets", "harness", "preset_options",
                 "baselines", "layout", "cache", "precision", "max_time_per_point", "min_samples", "max_samples",
                 "sample_us", "segments", "outputs"});
  if (j.contains("sizes")) c.sizes = read_sizes(r, j["sizes"], "/sizes");
  if (j.contains("kernels")) {
    if (!j["kernels"].is_array() || j["kernels"].empty())
      r.fail("/kernels", j["kernels"], "expected a non-empty list of kernel grids");
    for (size_t i = 0; i < j["kernels"].size(); ++i) read_grid(r, j["kernels"][i], "/kernels/" + std::to_string(i), c.kernels);
  }
  if (j.contains("presets")) {
    r.each(j["presets"], "/presets", [&](const json& e, const std::string& p) { c.presets.push_back(r.string(e, p)); });
  }
  if (j.contains("harness")) {
    c.harness = r.string(j["harness"], "/harness");
    if (c.harness != "kex" && c.harness != "fastc" && c.harness != "hahn")
      r.fail("/harness", j["harness"], "allowed: kex, fastc, hahn");
  }
  if (j.contains("preset_options")) {
    r.keys(j["preset_options"], "/preset_options", {"fsave"});
    if (j["preset_options"].contains("fsave")) c.preset_fsave = r.boolean(j["preset_options"]["fsave"], "/preset_options/fsave");
  }
  const std::vector<std::string> all_baselines = {"memcpy", "memset", "rep_movsb", "rep_stosb"};
  if (!j.contains("baselines") || (j["baselines"].is_boolean() && j["baselines"].get<bool>())) {
    c.baselines = all_baselines;
  } else if (j["baselines"].is_boolean()) {
    c.baselines.clear();
  } else if (j["baselines"].is_array()) {
    for (size_t i = 0; i < j["baselines"].size(); ++i) {
      std::string b = r.string(j["baselines"][i], "/baselines/" + std::to_string(i));
      if (std::find(all_baselines.begin(), all_baselines.end(), b) == all_baselines.end())
        r.fail("/baselines/" + std::to_string(i), j["baselines"][i], "allowed: memcpy, memset, rep_movsb, rep_stosb");
      c.baselines.push_back(b);
    }
  } else {
    r.fail("/baselines", j["baselines"], "expected true, false or a list of memcpy, memset, rep_movsb, rep_stosb");
  }
  if (j.contains("layout")) {
    const json& l = j["layout"];
    r.keys(l, "/layout", {"src_offset", "dst_offset", "distance", "huge_pages"});
    if (l.contains("src_offset")) c.layout.src_offset = r.uint(l["src_offset"], "/layout/src_offset", 0, 1 << 20);
    if (l.contains("dst_offset")) c.layout.dst_offset = r.uint(l["dst_offset"], "/layout/dst_offset", 0, 1 << 20);
    if (l.contains("distance") && !l["distance"].is_null())
      c.layout.distance = r.sint(l["distance"], "/layout/distance", -(1ll << 40), 1ll << 40);
    if (l.contains("huge_pages")) c.layout.huge_pages = r.boolean(l["huge_pages"], "/layout/huge_pages");
  }
  if (j.contains("cache")) {
    c.caches.clear();
    r.each(j["cache"], "/cache", [&](const json& e, const std::string& p) {
      std::string m = r.string(e, p);
      if (m == "warm") c.caches.push_back(CacheMode::warm);
      else if (m == "cold") c.caches.push_back(CacheMode::cold);
      else r.fail(p, e, "allowed: warm, cold");
    });
  }
  if (j.contains("precision")) c.policy.precision = r.number(j["precision"], "/precision", 0.0001, 0.5);
  if (j.contains("max_time_per_point"))
    c.policy.max_time_per_point = r.number(j["max_time_per_point"], "/max_time_per_point", 0.001, 3600);
  if (j.contains("min_samples")) c.policy.min_samples = static_cast<uint32_t>(r.uint(j["min_samples"], "/min_samples", 3, 1000000));
  if (j.contains("max_samples")) c.policy.max_samples = static_cast<uint32_t>(r.uint(j["max_samples"], "/max_samples", 3, 1000000));
  if (c.policy.max_samples < c.policy.min_samples)
    r.fail("/max_samples", j["max_samples"], "must be >= min_samples (" + std::to_string(c.policy.min_samples) + ")");
  if (j.contains("sample_us")) c.policy.sample_us = r.number(j["sample_us"], "/sample_us", 20, 1000);
  if (j.contains("segments")) {
    const json& s = j["segments"];
    if (s.is_boolean()) {
      c.segments.enabled = s.get<bool>();
    } else {
      r.keys(s, "/segments", {"iterations", "mixed", "modern"});
      c.segments.enabled = true;
      if (s.contains("iterations")) c.segments.iterations = r.uint(s["iterations"], "/segments/iterations", 1000, 1ull << 32);
      if (s.contains("mixed")) c.segments.mixed = r.boolean(s["mixed"], "/segments/mixed");
      if (s.contains("modern")) c.segments.modern = r.boolean(s["modern"], "/segments/modern");
    }
  }
  if (j.contains("outputs")) {
    r.keys(j["outputs"], "/outputs", {"json", "plot_dir"});
    if (j["outputs"].contains("json")) c.out_json = r.string(j["outputs"]["json"], "/outputs/json");
    if (j["outputs"].contains("plot_dir")) c.plot_dir = r.string(j["outputs"]["plot_dir"], "/outputs/plot_dir");
  }
  if (c.kernels.empty() && c.presets.empty() && !c.segments.enabled && c.baselines.empty())
    r.fail("", j, "nothing to run: give kernels, presets, baselines or segments");
  if ((!c.kernels.empty() || (!c.presets.empty() && c.harness == "kex")) && c.sizes.empty()) {
    if (c.kernels.empty()) c.sizes = {4096};
    else r.fail("/sizes", j.value("sizes", json()), "kernels need a list of sizes");
  }
  if (c.kernels.empty() && c.presets.empty() && !c.baselines.empty() && c.sizes.empty())
    r.fail("/sizes", json(), "baselines need a list of sizes");
  if (c.layout.distance) {
    uint64_t mx = c.sizes.empty() ? 0 : c.sizes.back();
    int64_t d = *c.layout.distance;
    if (static_cast<uint64_t>(d < 0 ? -d : d) < mx + 64)
      r.fail("/layout/distance", j["layout"]["distance"],
             "src and dst would overlap: |distance| must be at least the largest size + 64 (" + std::to_string(mx + 64) + ")");
  }
  return c;
}

Config load_config(const std::string& path) {
  if (path.rfind("built-in:", 0) == 0) {
    const char* t = embedded_file(path.substr(9));
    if (!t) throw InputError(path + ": no such built-in config");
    return parse_config(t, path);
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0) throw InputError(path + ": cannot read config (" + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode)) throw InputError(path + ": not a regular file (a JSON config is needed)");
  std::ifstream f(path);
  if (!f) throw InputError(path + ": cannot read config (" + std::strerror(errno) + ")");
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_config(ss.str(), path);
}

}  // namespace kex
