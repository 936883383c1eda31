// The axes of a config (sizes, layout, cache, chunk, prefill, consume, threads): read by
// their field table (config_fields::map_axes), checked against this machine's memory, and
// the size ranges' steps per octave.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "src/core/units.hpp"
#include "src/model/config_fields.hpp"
#include "src/model/config_forms.hpp"
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

/// Unique values of a list in first-seen order (an axis lists each value once).
template <class T>
void unique_in_order(std::vector<T>& v) {
  std::vector<T> out;
  for (const auto& x : v)
    if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  v = std::move(out);
}

/// The most bytes of src and dst buffers `a` asks for (the largest size, offsets and distance).
long double buffer_bytes(const Axes& a) {
  const uint64_t m = a.sizes.back();
  const uint64_t so = *std::max_element(a.src_offsets.begin(), a.src_offsets.end());
  const uint64_t dof = *std::max_element(a.dst_offsets.begin(), a.dst_offsets.end());
  uint64_t dist = 0;
  for (auto d : a.distances)
    if (d) dist = std::max<uint64_t>(dist, static_cast<uint64_t>(*d < 0 ? -*d : *d));
  return (long double)so + m + std::max<long double>((long double)dof + m, (long double)dist + m);
}

/// `a` as a reader lists it: sizes ascending, every axis's values once, in first-seen order.
Axes listed_once(Axes a) {
  std::sort(a.sizes.begin(), a.sizes.end());
  a.sizes.erase(std::unique(a.sizes.begin(), a.sizes.end()), a.sizes.end());
  unique_in_order(a.src_offsets);
  unique_in_order(a.dst_offsets);
  unique_in_order(a.distances);
  unique_in_order(a.huge_pages);
  unique_in_order(a.caches);
  unique_in_order(a.chunks);
  unique_in_order(a.prefills);
  unique_in_order(a.consumes);
  unique_in_order(a.threads);
  return a;
}

}  // namespace

Axes read_axes(FieldReader& in, const Axes& base) {
  Axes a = base;
  config_fields::map_axes(in, a, base);
  return listed_once(std::move(a));
}

void check_listed_once(const Axes& a, const std::string& at) {
  if (!(listed_once(a) == a))
    throw std::logic_error(at + "a config kex made lists an axis value twice or its sizes out of order");
}

void check_axes(const FieldReader& in, const Axes& a) {
  const bool any_distance = std::any_of(a.distances.begin(), a.distances.end(), [](auto d) { return d.has_value(); });
  const bool any_dst = std::any_of(a.dst_offsets.begin(), a.dst_offsets.end(), [](auto o) { return o != 0; });
  const json* layout = in.raw("layout");
  if (any_distance && any_dst)
    config_forms::fail_at(in.path("layout"), layout ? *layout : json::object(),
                          "dst_offset and distance both place dst: give distance (dst = src + distance) or "
                          "dst_offset (separate buffers), not both");
  if (a.sizes.empty()) return;
  const long double need = buffer_bytes(a);
  const uint64_t limit = 2 * max_config_size();
  if (need <= limit) return;
  // The distance's JSON when one is given (an object: the layout's reader has checked it).
  const json* distance = any_distance && layout ? FieldReader(*layout, in.path("layout")).raw("distance") : nullptr;
  const json* sizes = in.raw("sizes");
  config_forms::fail_at(in.path(any_distance ? "layout/distance" : "sizes"),
                        any_distance ? (distance ? *distance : json()) : (sizes ? *sizes : json()),
                        "src and dst need " + format_bytes(static_cast<uint64_t>(need)) +
                            " of buffers (sizes, offsets and distances together); allowed up to " + format_bytes(limit) +
                            " here (half of MemAvailable)");
}

}  // namespace config_detail
}  // namespace kex
