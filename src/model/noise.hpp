// The run's noise: how much the sentinel spread, how many windows it flagged, how
// much was re-measured, and how much the repetitions of a point differed. Computed
// once by the sweep into context.protocol.noise (a Noise, src/model/context.hpp),
// read for the summary's noise line and for `kex compare` (a sentinel shift between
// two runs).
#pragma once
#include <cstddef>
#include <optional>
#include <vector>


#include "src/model/context.hpp"

namespace kex {

/// Spread of one figure (zeros for no readings).
SentinelSpread sentinel_spread(std::vector<double> v);

/// The noise of a run from its sentinel figures and results.
Noise compute_noise(const std::vector<double>& l1, const std::vector<double>& mem, size_t disturbed,
                    size_t tasks_measured, size_t remeasured, double budget, size_t budget_tasks,
                    const std::vector<Result>& results);

/// context.protocol.noise of a run, when it has one.
std::optional<Noise> run_noise(const RunContext& c);
/// context.protocol.sentinel.threshold of a run (0.15 = a reading 15% slower than the
/// baseline was disturbed), when it has a protocol record.
std::optional<double> run_sentinel_threshold(const RunContext& c);

}  // namespace kex
