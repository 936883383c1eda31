// When the CPU's LLC size is not believed, and the level found by measurement instead: a VM
// may report its host socket's L3 (508 MiB on the Zen 5 VM, docs/methodology.md §0), so the
// "LLC" probe would run in DRAM. Pure decisions over sizes and probe figures; the probes
// run in src/run/ceilings.cpp, the record is CacheKnee (src/model/ceilings_section.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/ceilings.hpp"

namespace kex {

/// The most LLC per CPU sharing it that kex believes: the largest L3 per core shipped is
/// 48 MiB (AMD's 3D V-Cache parts with few cores).
inline constexpr uint64_t kMaxLlcPerCpu = 64ull << 20;

/// A cache level runs reads at least this many times as fast as the level above it
/// (one core's read bandwidth; L3 against DRAM is 1.5x to 3x on the machines of
/// docs/methodology.md).
inline constexpr double kLevelStep = 1.2;

/// Why a reported LLC of `llc` bytes shared by `cpus` CPUs is not believed: more than
/// kMaxLlcPerCpu per CPU ("the CPU reports an LLC of 508 MiB for 2 CPUs, more than 64 MiB
/// per CPU"); "" when it is believed or unknown (0).
std::string llc_size_doubt(uint64_t llc, uint32_t cpus);

/// Why the ceilings' LLC level is not a level: its best read ran less than kLevelStep
/// times the DRAM level's; "" when it did, or either was not measured.
std::string llc_speed_doubt(const Ceilings& c);

/// The footprints of the knee probe: twice the L2 (1 MiB when the L2 is unknown), doubling
/// up to kMaxCacheProbe, then `dram` (a DRAM-sized footprint, the largest).
std::vector<uint64_t> knee_footprints(uint64_t l2, uint64_t dram);

/// Fills knee.threshold_gbps and knee.measured_llc from knee.points (smallest footprint
/// first, the last DRAM-sized): a level exists when the first footprint read at least
/// kLevelStep times the last; then the threshold is the geometric mean of the two, and
/// the LLC is the largest footprint of the unbroken run from the first at or above it.
/// No level (fewer than 2 points, or a flat curve): both 0.
void find_knee(CacheKnee& knee);

/// The levels to probe after the knee: the L1d and L2 as reported, the LLC at the
/// measured size (none when the knee found no level), DRAM at the knee's DRAM-sized
/// footprint (where it read at DRAM's speed; 4x the measured LLC may still be partly cached).
std::vector<ProbeLevel> knee_levels(uint64_t l1d, uint64_t l2, const CacheKnee& knee);

/// The knee as text: "the CPU reports ...; measured instead: one read probe (KERNEL) ran
/// 45.1 GB/s at 2 MiB, ... : the LLC holds at least 16 MiB (the largest footprint at or
/// above 28.3 GB/s)" or "... : no level between the L2 and DRAM". Kernel names pass
/// through `escape` (the medium's: terminal or HTML).
std::string knee_text(const CacheKnee& knee, std::string (*escape)(const std::string&));

}  // namespace kex
