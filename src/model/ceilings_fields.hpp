// The ceilings record's one field table (src/model/ceilings.hpp), for the model's reader
// and writer only (src/model/context_json.cpp).
#pragma once
#include <cstdint>

#include "src/model/ceilings.hpp"
#include "src/model/json_fields.hpp"

namespace kex::ceilings_fields {

/// Kernel names and level words as kex wrote them (every writer escapes them for its medium).
inline const TextRule kCeilingText{4096, nullptr, "", false};
inline constexpr double kMaxGbps = 1e7;

/// The knee probe's record (CacheKnee): why the reported LLC was doubted and what was measured.
template <class IO, class K>
void map_knee(IO& io, K& k) {
  io.whole("reported_llc", k.reported_llc, uint64_t(0), UINT64_MAX);
  io.text("doubt", k.doubt, kCeilingText);
  io.text("kernel", k.kernel, kCeilingText);
  io.list("points", k.points, 0, 64, [](auto& p, auto& x) {
    p.whole("footprint", x.footprint, uint64_t(0), UINT64_MAX);
    p.real("read_gbps", x.read_gbps, 0, kMaxGbps);
  });
  io.real("threshold_gbps", k.threshold_gbps, 0, kMaxGbps);
  io.whole("measured_llc", k.measured_llc, uint64_t(0), UINT64_MAX);
}

template <class IO, class C>
void map_ceilings(IO& io, C& c) {
  io.list("levels", c.levels, 0, 64, [](auto& p, auto& l) {
    p.text("level", l.level, kCeilingText);
    p.whole("cache_bytes", l.cache_bytes, uint64_t(0), UINT64_MAX);
    p.whole("size", l.size, uint64_t(0), UINT64_MAX);
    p.real("read_gbps", l.read_gbps, 0, kMaxGbps);
    p.real("write_gbps", l.write_gbps, 0, kMaxGbps);
    p.real("nt_write_gbps", l.nt_write_gbps, 0, kMaxGbps);
    p.text("read_kernel", l.read_kernel, kCeilingText);
    p.text("write_kernel", l.write_kernel, kCeilingText);
    p.text("nt_write_kernel", l.nt_write_kernel, kCeilingText);
    if (p.has("size_from", l.size_from))
      p.choice("size_from", *l.size_from, parse_size_source, [](SizeSource v) { return to_string(v); },
               "reported, measured");
  });
  io.real("l1d_load_bytes_per_cycle", c.l1d_load_bytes_per_cycle, 0, 1e6);
  io.real("l1d_store_bytes_per_cycle", c.l1d_store_bytes_per_cycle, 0, 1e6);
  io.whole("rounds", c.rounds, uint32_t(0), uint32_t(100000));
  io.real("seconds", c.seconds, 0, 1e9);
  if (io.has("knee", c.knee)) io.object("knee", [&](auto& k) { map_knee(k, *c.knee); });
}

}  // namespace kex::ceilings_fields
