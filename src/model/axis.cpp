#include "src/model/axis.hpp"

#include <array>
#include <cstdio>

namespace kex {

namespace {

std::string byte_text(uint8_t b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", b);
  return buf;
}

std::optional<double> no_number(const Coords&) { return std::nullopt; }

constexpr size_t kAxes = size_t(Axis::footprint) + 1;

constexpr std::array<AxisRow, kAxes> kRows = {{
    {Axis::size, "size", "bytes per operation", false, [](const Coords& c) { return std::to_string(c.size); },
     [](const Coords& c) -> std::optional<double> { return double(c.size); }, [](Coords& c) { c.size = 0; }},
    {Axis::src_offset, "src_offset", "bytes past a 2 MiB boundary", true,
     [](const Coords& c) { return std::to_string(c.layout.src_offset); },
     [](const Coords& c) -> std::optional<double> { return double(c.layout.src_offset); },
     [](Coords& c) { c.layout.src_offset = 0; }},
    {Axis::dst_offset, "dst_offset", "bytes past a 2 MiB boundary", true,
     [](const Coords& c) { return std::to_string(c.layout.dst_offset); },
     [](const Coords& c) -> std::optional<double> { return double(c.layout.dst_offset); },
     [](Coords& c) { c.layout.dst_offset = 0; }},
    {Axis::distance, "distance", "dst - src, bytes; rel = mod 4096", true,
     [](const Coords& c) { return c.layout.distance ? std::to_string(*c.layout.distance) : std::string("none"); },
     [](const Coords& c) -> std::optional<double> {
       if (!c.layout.distance) return std::nullopt;
       return double(*c.layout.distance);
     },
     [](Coords& c) { c.layout.distance.reset(); }},
    {Axis::huge_pages, "huge_pages", nullptr, true,
     [](const Coords& c) { return std::string(c.layout.huge_pages ? "true" : "false"); }, no_number,
     [](Coords& c) { c.layout.huge_pages = true; }},
    {Axis::cache, "cache", nullptr, false, [](const Coords& c) { return std::string(to_string(c.cache)); }, no_number,
     [](Coords& c) { c.cache = CacheMode::warm; }},
    {Axis::chunk, "chunk", "bytes per call", false,
     [](const Coords& c) { return c.chunk ? std::to_string(c.chunk) : std::string("whole"); },
     [](const Coords& c) -> std::optional<double> {
       if (!c.chunk) return std::nullopt;
       return double(c.chunk);
     },
     [](Coords& c) { c.chunk = 0; }},
    {Axis::prefill, "prefill", nullptr, false,
     [](const Coords& c) { return c.prefill ? byte_text(*c.prefill) : std::string("none"); }, no_number,
     [](Coords& c) { c.prefill.reset(); }},
    {Axis::consume, "consume", nullptr, false, [](const Coords& c) { return std::string(c.consume ? "true" : "false"); },
     no_number, [](Coords& c) { c.consume = false; }},
    {Axis::threads, "threads", nullptr, false, [](const Coords& c) { return std::to_string(c.threads); },
     [](const Coords& c) -> std::optional<double> { return double(c.threads); }, [](Coords& c) { c.threads = 1; }},
    {Axis::harness, "harness", nullptr, false, [](const Coords& c) { return std::string(to_string(c.harness)); },
     no_number, [](Coords& c) { c.harness = Harness::kex; }},
    {Axis::stream, "stream", nullptr, false, [](const Coords& c) { return c.stream.empty() ? std::string("none") : c.stream; },
     no_number, [](Coords& c) { c.stream.clear(); }},
    {Axis::footprint, "footprint", "bytes each region a stream walks", false,
     [](const Coords& c) { return std::to_string(c.footprint); },
     [](const Coords& c) -> std::optional<double> {
       if (!c.footprint) return std::nullopt;
       return double(c.footprint);
     },
     [](Coords& c) { c.footprint = 0; }},
}};

constexpr bool rows_in_enum_order() {
  for (size_t i = 0; i < kRows.size(); ++i)
    if (kRows[i].axis != Axis(i)) return false;
  return true;
}
static_assert(rows_in_enum_order(), "the axes table has a row per Axis value, in enum order");

}  // namespace

const std::vector<AxisRow>& axis_rows() {
  static const std::vector<AxisRow> rows(kRows.begin(), kRows.end());
  return rows;
}

const AxisRow& axis_row(Axis a) {
  static_assert(kRows.size() == kAxes, "a row per Axis value");
  return kRows.at(size_t(a));
}

std::optional<Axis> parse_axis(std::string_view name) {
  for (const AxisRow& r : kRows)
    if (name == r.name) return r.axis;
  return std::nullopt;
}

std::string_view to_string(Axis a) { return axis_row(a).name; }

std::string axis_value(const Coords& c, Axis a) { return axis_row(a).text(c); }

std::vector<Axis> swept_axes(const std::vector<Coords>& points) {
  std::vector<Axis> out;
  if (points.empty()) return out;
  for (const AxisRow& r : kRows)
    for (const auto& c : points)
      if (r.text(c) != r.text(points.front())) {
        out.push_back(r.axis);
        break;
      }
  return out;
}

}  // namespace kex
