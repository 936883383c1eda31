// The axes of a config (sizes, layout, cache, chunk, prefill, consume, threads): read,
// checked against this machine's memory, and the size ranges' expansion.
#include <algorithm>
#include <cmath>
#include <fstream>

#include "src/core/affinity.hpp"
#include "src/model/config_reader.hpp"

namespace kex {

uint64_t max_config_size() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (f >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024 / 4;
  return 1ull << 30;
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

namespace config_detail {

namespace {

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

/// When `obj` has `key` (at `path`): `v` becomes its values, one(element, element_path)
/// each, listed once in first-seen order.
template <class T, class F>
void read_list(const Reader& r, const json& obj, const char* key, const std::string& path, std::vector<T>& v, F one) {
  if (!obj.contains(key)) return;
  v.clear();
  r.each(obj[key], path + "/" + key, [&](const json& e, const std::string& p) { v.push_back(one(e, p)); });
  v = unique_in_order(v);
}

/// The "layout" object's axes (at `path`/layout) over `a`'s.
void read_layout(const Reader& r, const json& j, const std::string& path, Axes& a) {
  if (!j.contains("layout")) return;
  const uint64_t hi = max_config_size();
  const json& l = j["layout"];
  const std::string lp = path + "/layout";
  r.keys(l, lp, {"src_offset", "dst_offset", "distance", "huge_pages"});
  auto offset = [&](const json& e, const std::string& p) { return r.bytes(e, p, 0, hi); };
  read_list(r, l, "src_offset", lp, a.src_offsets, offset);
  read_list(r, l, "dst_offset", lp, a.dst_offsets, offset);
  read_list(r, l, "distance", lp, a.distances, [&](const json& e, const std::string& p) -> std::optional<int64_t> {
    if (e.is_null()) return std::nullopt;
    return r.sint(e, p, -static_cast<int64_t>(hi), static_cast<int64_t>(hi));
  });
  read_list(r, l, "huge_pages", lp, a.huge_pages, [&](const json& e, const std::string& p) { return r.boolean(e, p); });
}

/// One "threads" value: a count 1..kMaxThreads, or "all" (the affinity mask's CPUs).
uint32_t thread_count(const Reader& r, const json& e, const std::string& p) {
  if (e.is_string() && e.get<std::string>() == "all")
    return static_cast<uint32_t>(std::clamp<size_t>(startup_cpus().size(), 1, kMaxThreads));
  if (!e.is_number_integer())
    r.fail(p, e, "allowed: a number of threads 1.." + std::to_string(kMaxThreads) +
                     ", or \"all\" (every CPU of the affinity mask)");
  return static_cast<uint32_t>(r.uint(e, p, 1, kMaxThreads));
}

}  // namespace

Axes read_axes(const Reader& r, const json& j, const std::string& path, Axes base) {
  const uint64_t hi = max_config_size();
  if (j.contains("sizes")) base.sizes = read_sizes(r, j["sizes"], path + "/sizes");
  read_layout(r, j, path, base);
  read_list(r, j, "cache", path, base.caches, [&](const json& e, const std::string& p) {
    auto m = parse_cache_mode(r.string(e, p));
    if (!m) r.fail(p, e, "allowed: warm, cold");
    return *m;
  });
  read_list(r, j, "chunk", path, base.chunks, [&](const json& e, const std::string& p) -> uint64_t {
    if (e.is_string() && e.get<std::string>() == "none") return 0;
    return r.bytes(e, p, 1, hi);
  });
  read_list(r, j, "prefill", path, base.prefills, [&](const json& e, const std::string& p) -> std::optional<uint8_t> {
    if (e.is_string() && e.get<std::string>() == "none") return std::nullopt;
    if (!e.is_number_integer())
      r.fail(p, e, "allowed: \"none\" or a byte value 0..255 written to the destination before each sample");
    return static_cast<uint8_t>(r.uint(e, p, 0, 255));
  });
  read_list(r, j, "consume", path, base.consumes, [&](const json& e, const std::string& p) { return r.boolean(e, p); });
  read_list(r, j, "threads", path, base.threads, [&](const json& e, const std::string& p) { return thread_count(r, e, p); });
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

}  // namespace config_detail
}  // namespace kex
