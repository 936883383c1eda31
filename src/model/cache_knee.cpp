#include "src/model/cache_knee.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "src/core/units.hpp"

namespace kex {

std::string llc_size_doubt(uint64_t llc, uint32_t cpus) {
  cpus = std::max(cpus, 1u);
  if (llc == 0 || llc <= kMaxLlcPerCpu * cpus) return "";
  return fmt::format("the CPU reports an LLC of {} for {} CPU{}, more than {} per CPU", format_bytes(llc), cpus,
                     cpus == 1 ? "" : "s", format_bytes(kMaxLlcPerCpu));
}

std::string llc_speed_doubt(const Ceilings& c) {
  const CeilingLevel *llc = nullptr, *dram = nullptr;
  for (const CeilingLevel& l : c.levels) {
    if (l.level == "LLC") llc = &l;
    if (l.level == "DRAM") dram = &l;
  }
  if (!llc || !dram || llc->read_gbps <= 0 || dram->read_gbps <= 0) return "";
  if (llc->read_gbps >= kLevelStep * dram->read_gbps) return "";
  return fmt::format("the reported LLC ({}) read {:.1f} GB/s at {}, less than {:.1f}x DRAM's {:.1f} GB/s at {}",
                     format_bytes(llc->cache_bytes), llc->read_gbps, format_bytes(llc->size), kLevelStep,
                     dram->read_gbps, format_bytes(dram->size));
}

std::vector<uint64_t> knee_footprints(uint64_t l2, uint64_t dram) {
  std::vector<uint64_t> out;
  for (uint64_t f = l2 ? 2 * l2 : 1ull << 20; f <= kMaxCacheProbe && f < dram; f *= 2) out.push_back(f);
  out.push_back(dram);
  return out;
}

void find_knee(CacheKnee& knee) {
  knee.threshold_gbps = 0;
  knee.measured_llc = 0;
  const std::vector<KneePoint>& p = knee.points;
  if (p.size() < 2 || p.back().read_gbps <= 0 || p.front().read_gbps < kLevelStep * p.back().read_gbps) return;
  knee.threshold_gbps = std::sqrt(p.front().read_gbps * p.back().read_gbps);
  for (size_t i = 0; i + 1 < p.size() && p[i].read_gbps >= knee.threshold_gbps; ++i) knee.measured_llc = p[i].footprint;
}

std::vector<ProbeLevel> knee_levels(uint64_t l1d, uint64_t l2, const CacheKnee& knee) {
  std::vector<ProbeLevel> out = probe_levels(l1d, l2, knee.measured_llc);
  for (ProbeLevel& l : out)
    if (l.level == "LLC") l.from = SizeSource::measured;
  if (out.empty() || out.back().level != "DRAM" || knee.points.empty()) return out;
  out.back().size = knee.points.back().footprint;  // DRAM's speed there, as the knee showed
  return out;
}

std::string knee_text(const CacheKnee& knee, std::string (*escape)(const std::string&)) {
  std::string out = escape(knee.doubt) + "; measured instead: one read probe (" + escape(knee.kernel) + ") ran";
  for (size_t i = 0; i < knee.points.size(); ++i)
    out += fmt::format("{} {:.1f} GB/s at {}", i ? "," : "", knee.points[i].read_gbps, format_bytes(knee.points[i].footprint));
  if (knee.measured_llc)
    return out + fmt::format(": the LLC holds at least {} (the largest footprint at or above {:.1f} GB/s, between the "
                             "first's speed and DRAM's)",
                             format_bytes(knee.measured_llc), knee.threshold_gbps);
  return out + fmt::format(": no level between the L2 and DRAM (the first footprint read less than {:.1f}x the last)",
                           kLevelStep);
}

}  // namespace kex
