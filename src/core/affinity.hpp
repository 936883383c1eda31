// The CPUs this process may run on: its affinity mask (sched_getaffinity(2)), as
// taskset, cgroups' cpusets and SLURM leave it.
#pragma once
#include <vector>

namespace kex {

/// The OS numbers of the CPUs the calling thread may run on now (its affinity
/// mask), ascending; empty if the mask cannot be read.
std::vector<int> allowed_cpus();

/// The affinity mask as the process started (allowed_cpus() at the first call: main
/// calls it before anything pins a thread, which narrows the mask to one CPU). What
/// `"threads": "all"` counts and where the workers of a multi-threaded point are placed.
const std::vector<int>& startup_cpus();

}  // namespace kex
