#include "src/run/ceilings.hpp"

#include <algorithm>
#include <chrono>

#include "generators/emit.hpp"
#include "src/core/error.hpp"
#include "src/model/config_json.hpp"
#include "src/run/machine.hpp"
#include "src/run/topology.hpp"

namespace kex {

Config ceilings_config(const std::vector<KernelSpec>& probes, const std::vector<ProbeLevel>& levels) {
  Config c;
  c.description = "kex ceilings: one core's read, write and non-temporal write bandwidth per cache level";
  for (const ProbeLevel& l : levels) c.axes.sizes.push_back(l.size);
  std::sort(c.axes.sizes.begin(), c.axes.sizes.end());
  c.axes.sizes.erase(std::unique(c.axes.sizes.begin(), c.axes.sizes.end()), c.axes.sizes.end());
  for (const KernelSpec& s : probes) c.grids.push_back(spec_grid_of(s, c.axes));
  c.policy.precision = 0.02;
  c.policy.min_samples = 5;
  c.policy.max_time_per_point = 0.02;
  return make_config(c, "built-in:ceilings");
}

CeilingsRun measure_ceilings(RunOptions opt, uint32_t rounds) {
  const auto start = std::chrono::steady_clock::now();
  const int cpu = opt.protocol.cpu >= 0 ? opt.protocol.cpu : default_pin_cpu();
  opt.protocol.cpu = cpu;
  const CpuCaches caches = caches_of(cpu);
  const std::vector<ProbeLevel> levels = probe_levels(caches.l1d(), caches.l2(), caches.llc());
  if (levels.empty()) throw InputError("ceilings: no cache size of CPU " + std::to_string(cpu) + " is known, so no level to probe");
  const std::vector<KernelSpec> probes =
      probe_kernels([](const KernelSpec& s) { return cpu_unsupported_reason(s).empty(); });
  if (probes.empty()) throw InputError("ceilings: no vector class (sse, avx, avx512) runs on this CPU");
  opt.protocol.paired = true;
  opt.protocol.repetitions = rounds;
  CeilingsRun out;
  out.run = run_sweep({ceilings_config(probes, levels)}, opt);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.ceilings = ceilings_from(out.run.doc, levels, rounds, seconds);
  out.run.doc.context.ceilings = out.ceilings;  // the probes' run says what they found
  return out;
}

}  // namespace kex
