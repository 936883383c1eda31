#include "src/run/ceilings.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "generators/emit.hpp"
#include "src/core/error.hpp"
#include "src/core/units.hpp"
#include "src/model/cache_knee.hpp"
#include "src/model/config_json.hpp"
#include "src/run/machine.hpp"
#include "src/run/topology.hpp"

namespace kex {

namespace {

/// A config of `probes` at `sizes`, paired, short points.
Config probe_config(const std::vector<KernelSpec>& probes, std::vector<uint64_t> sizes, const std::string& description) {
  Config c;
  c.description = description;
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  c.axes.sizes = sizes;
  for (const KernelSpec& s : probes) c.grids.push_back(spec_grid_of(s, c.axes));
  c.policy.precision = 0.02;
  c.policy.min_samples = 5;
  c.policy.max_time_per_point = 0.02;
  return make_config(c, "built-in:ceilings");
}

/// The CPUs sharing the LLC: the cache's own count, else every online CPU.
uint32_t llc_sharing(const CpuCaches& caches) {
  for (auto it = caches.levels.rbegin(); it != caches.levels.rend(); ++it)
    if (it->type != "Instruction") return it->num_sharing > 0 ? uint32_t(it->num_sharing) : 0;
  return 0;
}

uint32_t sharing_cpus(const CpuCaches& caches) {
  if (const uint32_t n = llc_sharing(caches)) return n;
  return uint32_t(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
}

/// The knee probe: the first read probe at knee_footprints, its best median per footprint.
/// Its run is returned so a stop is seen; its entries do not join the ceilings' results.
SweepRun measure_knee(const RunOptions& opt, const std::vector<KernelSpec>& probes, const CpuCaches& caches,
                      CacheKnee& knee) {
  const auto read = std::find_if(probes.begin(), probes.end(), [](const KernelSpec& s) { return s.op == Op::read; });
  knee.kernel = spec_name(*read);
  knee.reported_llc = caches.llc();
  const std::vector<uint64_t> at = knee_footprints(caches.l2(), kMaxDramProbe);
  SweepRun run = run_sweep({probe_config({*read}, at, "kex ceilings: the read bandwidth's knee above the L2")}, opt);
  for (uint64_t f : at) {
    KneePoint p{f, 0};
    for (const Result& r : run.doc.results)
      if (r.ok() && r.point.at.size == f) p.read_gbps = std::max(p.read_gbps, gbps_at(moved_bytes(r.point.at), aggregate(r).median_ns));
    knee.points.push_back(p);
  }
  find_knee(knee);
  return run;
}

/// The probes at `levels`, and the ceilings they give.
CeilingsRun probe_levels_run(const RunOptions& opt, const std::vector<KernelSpec>& probes,
                             const std::vector<ProbeLevel>& levels, uint32_t rounds,
                             std::chrono::steady_clock::time_point start) {
  CeilingsRun out;
  out.run = run_sweep({ceilings_config(probes, levels)}, opt);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.ceilings = ceilings_from(out.run.doc, levels, rounds, seconds);
  return out;
}

bool stopped(const SweepRun& r) { return r.abandoned || r.doc.context.interrupted; }

}  // namespace

Config ceilings_config(const std::vector<KernelSpec>& probes, const std::vector<ProbeLevel>& levels) {
  std::vector<uint64_t> sizes;
  for (const ProbeLevel& l : levels) sizes.push_back(l.size);
  return probe_config(probes, sizes, "kex ceilings: one core's read, write and non-temporal write bandwidth per cache level");
}

CeilingsRun measure_ceilings(RunOptions opt, uint32_t rounds) {
  const auto start = std::chrono::steady_clock::now();
  const int cpu = opt.protocol.cpu >= 0 ? opt.protocol.cpu : default_pin_cpu();
  opt.protocol.cpu = cpu;
  const CpuCaches caches = caches_of(cpu);
  const std::vector<ProbeLevel> reported = probe_levels(caches.l1d(), caches.l2(), caches.llc());
  if (reported.empty()) throw InputError("ceilings: no cache size of CPU " + std::to_string(cpu) + " is known, so no level to probe");
  const std::vector<KernelSpec> probes =
      probe_kernels([](const KernelSpec& s) { return cpu_unsupported_reason(s).empty(); });
  if (probes.empty()) throw InputError("ceilings: no vector class (sse, avx, avx512) runs on this CPU");
  opt.protocol.paired = true;
  opt.protocol.repetitions = rounds;
  CacheKnee knee;
  knee.doubt = llc_size_doubt(caches.llc(), sharing_cpus(caches));
  CeilingsRun out;
  if (knee.doubt.empty()) {  // the report is believed until the probes show its LLC no faster than DRAM
    out = probe_levels_run(opt, probes, reported, rounds, start);
    knee.doubt = llc_speed_doubt(out.ceilings);
    if (knee.doubt.empty() || stopped(out.run)) {
      out.run.doc.context.ceilings = out.ceilings;  // the probes' run says what they found
      return out;
    }
  }
  if (SweepRun k = measure_knee(opt, probes, caches, knee); stopped(k)) {
    const bool abandoned = k.abandoned;
    if (out.run.doc.results.empty()) out.run = std::move(k);  // nothing else measured: the stop is this run's
    out.run.abandoned = out.run.abandoned || abandoned;
    out.run.doc.context.interrupted = true;
    out.run.doc.context.ceilings = out.ceilings;
    return out;
  }
  out = probe_levels_run(opt, probes, knee_levels(caches.l1d(), caches.l2(), knee), rounds, start);
  out.ceilings.knee = knee;
  out.run.doc.context.ceilings = out.ceilings;
  return out;
}

}  // namespace kex
