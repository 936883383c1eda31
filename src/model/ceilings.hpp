// This machine's ceilings per cache level (context.ceilings; docs/methodology.md
// "Ceilings per level"): the best read, temporal-write and non-temporal-write bandwidth
// one core reached with kex's own probe kernels at one size inside each level, and where
// a measured point stands against them. Plain records and pure functions: the probe runs
// in src/run/ceilings.hpp, the records are src/model/ceilings_section.hpp and their field
// table src/model/ceilings_fields.hpp.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/model/ceilings_section.hpp"
#include "src/model/context.hpp"
#include "src/model/explain_section.hpp"

namespace kex {

/// A level to probe: its name, its size, the probe size inside it and where its size
/// came from (a cache's; DRAM has none).
struct ProbeLevel {
  std::string level;
  uint64_t cache_bytes = 0, size = 0;
  SizeSource from = SizeSource::reported;
  bool operator==(const ProbeLevel&) const = default;
};

/// The largest probe inside a cache, and the largest DRAM probe: a VM may report its host
/// socket's L3 (508 MiB on the Zen 5 VM, docs/methodology.md §0), and a probe of gigabytes
/// would cost tens of seconds. A level probed at such a cap is then measured in DRAM.
inline constexpr uint64_t kMaxCacheProbe = 64ull << 20;
inline constexpr uint64_t kMaxDramProbe = 256ull << 20;

/// The levels to probe for caches of these sizes (bytes; 0 = unknown, left out): L1d,
/// L2 and LLC at half their size (at most kMaxCacheProbe), DRAM at 4 x the LLC (at 4 x
/// the largest known cache when the LLC is unknown; at most kMaxDramProbe; none when no
/// cache is known). A level no larger than the one below it is left out. Sizes are
/// multiples of 4 KiB.
std::vector<ProbeLevel> probe_levels(uint64_t l1d, uint64_t l2, uint64_t llc);

/// The probe kernels: reads, temporal and non-temporal clears of the widest vector class
/// `runs` accepts (avx512, avx, sse), at 4 and 8 registers per iteration (read: 4, and
/// the most a read takes up to 8), and of the next narrower vector class at 4. Empty
/// when no vector class runs.
std::vector<KernelSpec> probe_kernels(const std::function<bool(const KernelSpec&)>& runs);

/// The ceilings a probe run's results give at `levels`: per level, the largest median
/// GB/s of the ok results of each kind at its size (read: op read; write: clear with
/// temporal stores; nt write: clear with non-temporal stores), and the L1d's bytes per
/// core cycle from the fastest read and write there.
Ceilings ceilings_from(const RunDoc& run, const std::vector<ProbeLevel>& levels, uint32_t rounds, double seconds);

/// Where one measured point stands against the ceilings.
struct Standing {
  std::string level;                 ///< the level its working set fits in (copy: src + dst)
  uint64_t size = 0;                 ///< bytes
  Op op = Op::copy;
  double gbps = 0;                   ///< its median, bytes counted once
  double bytes_per_cycle = 0;        ///< per estimated core cycle (0: unknown)
  std::optional<double> of_read;     ///< gbps / the level's read ceiling (copy, read)
  std::optional<double> of_write;    ///< gbps / the write ceiling of its store kind (copy, clear)
  bool nt = false;                   ///< its stores are non-temporal (of_write is of the nt ceiling)
  uint64_t probe_size = 0;           ///< bytes the level's probes ran at (its ceilings' size)
  std::string sizes_from;            ///< where the levels' sizes came from (the machine's cache_source); "" unknown
  std::string bounded_by;            ///< the cache whose size bounds its level (DRAM: the one below it)
  std::optional<SizeSource> bound_from;  ///< where that cache's size came from (none: an older file)
  bool operator==(const Standing&) const = default;
};

/// The standing of `r` (an ok result) against `c`: the smallest level whose cache holds
/// its working set (size, 2 x size for a copy), else DRAM; nullopt when `c` has no level
/// or `r` has no median.
std::optional<Standing> standing_of(const Result& r, const Ceilings& c);

/// The standing of an explained point's kernel (src/model/explain_section.hpp): its
/// result in `run` at the point's size and group, against run.context.ceilings; nullopt
/// when the run has no ceilings or the result is not there or not measured. Its
/// sizes_from is the run's machine.cache_source.
std::optional<Standing> point_standing(const RunDoc& run, const ExplainPoint& p);

/// "at 64 MiB this copy moves 27.2 GB/s (1.21 bytes per core cycle) from DRAM: 0.61 of one
/// core's read bandwidth here, 0.65 of its non-temporal write bandwidth"; a point above a
/// ceiling (a fraction over 1) gets why it can be: "; above the ceiling: the LLC ceilings
/// are what its probes reached at 64 MiB, and the levels' sizes are the machine's report
/// (sysfs), not measured: ..." (or, when the bounding cache's size was measured, "the
/// LLC's size was measured ...").
std::string standing_text(const Standing& s);

}  // namespace kex
