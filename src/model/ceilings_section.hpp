// The `ceilings` record of a results file (context.ceilings, configs/schema/results.schema.json
// "ceilings"): this machine's read, write and non-temporal-write bandwidth per cache level
// as one core reached it, and where each level's size came from. Plain records only:
// src/model/ceilings.hpp computes them, src/model/cache_knee.hpp finds a level by
// measurement, src/model/ceilings_fields.hpp maps them.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kex {

/// Where a level's size came from: the CPU's report (hwloc, sysfs or CPUID: the machine's
/// cache_source) or kex's own measurement (the read bandwidth's knee, CacheKnee).
enum class SizeSource { reported, measured };
/// Every size source in enum order (enum_words gives "reported", "measured").
inline constexpr std::array kSizeSources{SizeSource::reported, SizeSource::measured};
constexpr std::string_view to_string(SizeSource s) { return s == SizeSource::measured ? "measured" : "reported"; }
/// "reported" | "measured"; nullopt otherwise.
constexpr std::optional<SizeSource> parse_size_source(std::string_view w) {
  for (SizeSource s : kSizeSources)
    if (to_string(s) == w) return s;
  return std::nullopt;
}

/// One level's ceilings: the fastest probe of each kind at `size` (GB/s, bytes counted
/// once; 0 and "" when no probe of that kind was measured).
struct CeilingLevel {
  std::string level;                 ///< "L1d", "L2", "LLC" or "DRAM"
  uint64_t cache_bytes = 0;          ///< the level's size (DRAM: 0)
  uint64_t size = 0;                 ///< the probes' size in bytes, inside the level
  double read_gbps = 0, write_gbps = 0, nt_write_gbps = 0;
  std::string read_kernel, write_kernel, nt_write_kernel;  ///< the fastest probe of each kind
  /// Where cache_bytes came from; none for DRAM and in files of kex before it was recorded
  /// (there: the machine's report).
  std::optional<SizeSource> size_from;
  bool operator==(const CeilingLevel&) const = default;
};

/// One footprint of the knee probe: the read probe's best median there.
struct KneePoint {
  uint64_t footprint = 0;            ///< bytes read per call
  double read_gbps = 0;
  bool operator==(const KneePoint&) const = default;
};

/// Why the CPU's LLC size was not believed, and what measuring found instead: one read
/// probe at footprints from above the L2 to a DRAM-sized one (src/model/cache_knee.hpp).
struct CacheKnee {
  uint64_t reported_llc = 0;         ///< bytes the CPU reported (0: none)
  std::string doubt;                 ///< why it was not believed
  std::string kernel;                ///< the read probe
  std::vector<KneePoint> points;     ///< smallest footprint first; the last is DRAM-sized
  double threshold_gbps = 0;         ///< a footprint at or above it ran in a cache (0: no level found)
  uint64_t measured_llc = 0;         ///< the largest footprint of the LLC's speed; 0: no level above the L2
  bool operator==(const CacheKnee&) const = default;
};

/// The ceilings of one run (context.ceilings), smallest level first.
struct Ceilings {
  std::vector<CeilingLevel> levels;
  /// Bytes per core cycle (estimated core cycles, src/run/machine.hpp) of the best read
  /// and temporal write at the L1d size: the L1d's load and store bytes per cycle as one
  /// core reaches them; 0 when not measured.
  double l1d_load_bytes_per_cycle = 0, l1d_store_bytes_per_cycle = 0;
  uint32_t rounds = 0;               ///< paired rounds per level
  double seconds = 0;                ///< wall time of the probe
  std::optional<CacheKnee> knee;     ///< when the reported LLC was measured instead
  bool operator==(const Ceilings&) const = default;
};

}  // namespace kex
