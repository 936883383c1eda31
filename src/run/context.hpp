// The context of a run on this machine: Google Benchmark's fields, the machine,
// the libraries, the timer, every config as written and the measurement policy.
#pragma once
#include <vector>

#include "src/model/config.hpp"
#include "src/model/context.hpp"

namespace kex {

/// The context before any point runs (interrupted false; the sweep fills the rest).
RunContext make_context(const std::vector<Config>& configs, int pinned_cpu, size_t shard_index, size_t shard_count);

/// This machine as results describe it.
MachineInfo this_machine();

}  // namespace kex
