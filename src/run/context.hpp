// The context of a run on this machine: Google Benchmark's fields, the machine,
// the libraries, the timer, every config as written and the measurement policy.
#pragma once
#include <string>
#include <vector>

#include "src/model/config.hpp"
#include "src/model/context.hpp"

namespace kex {

/// A fresh run id: 16 lowercase hex digits from std::random_device (context.run_id).
std::string new_run_id();

/// The context before any point runs (interrupted false; the sweep fills the rest),
/// with `run_id` (16 hex digits: new_run_id()'s, or a resumed journal's).
RunContext make_context(const std::vector<Config>& configs, int pinned_cpu, size_t shard_index, size_t shard_count,
                        const std::string& run_id);

/// This machine as results describe it.
MachineInfo this_machine();

}  // namespace kex
