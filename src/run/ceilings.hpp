// Measures this machine's ceilings per cache level (src/model/ceilings.hpp): kex's probe
// kernels (reads, temporal and non-temporal clears) at one size inside each level of the
// measuring CPU's caches, raced in paired rounds by run_sweep.
#pragma once
#include <vector>

#include "src/model/ceilings.hpp"
#include "src/model/config.hpp"
#include "src/run/sweep.hpp"

namespace kex {

/// The probe config: `probes` at every level's size, paired, no baselines, short points
/// (precision 2%, at most 20 ms of samples per point and repetition).
Config ceilings_config(const std::vector<KernelSpec>& probes, const std::vector<ProbeLevel>& levels);

/// The probe's run and the ceilings it gives.
struct CeilingsRun {
  SweepRun run;        ///< the probes' results (entries of the results file that holds them), with
                       ///< the ceilings in its context
  Ceilings ceilings;
};

/// Runs the probes on `opt`'s CPU (cpu -1: default_pin_cpu(); the caches are read
/// for that CPU) in `rounds` paired rounds. Where the CPU's LLC size is not believed
/// (llc_size_doubt before, llc_speed_doubt after the probes, src/model/cache_knee.hpp) one
/// read probe runs at the knee's footprints first and the levels it finds are probed
/// instead (Ceilings::knee, each level's size_from). Throws InputError when no vector
/// class runs here or no cache size is known (then nothing is a level).
CeilingsRun measure_ceilings(RunOptions opt, uint32_t rounds);

}  // namespace kex
