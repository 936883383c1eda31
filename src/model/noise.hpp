// The run's noise: how much the sentinel spread, how many windows it flagged, how
// much was re-measured, and how much the repetitions of a point differed. Computed
// once by the sweep, written into context.protocol.noise, read back typed for the
// summary's noise line and for `kex compare` (a sentinel shift between two runs).
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/context.hpp"

namespace kex {

/// One sentinel figure over a run's readings; the ratios are to the median.
struct SentinelSpread {
  double median = 0;                ///< ticks per KiB
  double p10 = 0, p90 = 0, max = 0; ///< p10/median, p90/median, max/median
  double mad = 0;                   ///< median absolute deviation / median
  bool operator==(const SentinelSpread&) const = default;
};

struct Noise {
  SentinelSpread l1, mem;
  size_t readings = 0;            ///< sentinel readings (= windows)
  size_t disturbed = 0;           ///< readings flagged (= disturbed windows)
  size_t tasks_measured = 0;      ///< tasks done, re-measurements included
  size_t remeasured_tasks = 0;
  double budget = 0;              ///< the policy's fraction of the run's tasks
  size_t budget_tasks = 0;        ///< that fraction as tasks
  size_t points_with_cv = 0;      ///< points with two or more counted repetitions
  double median_repetition_cv = 0;  ///< median over those points of Aggregate.cv
  bool operator==(const Noise&) const = default;
};

/// Spread of one figure (zeros for no readings).
SentinelSpread sentinel_spread(std::vector<double> v);

/// The noise of a run from its sentinel figures and results.
Noise compute_noise(const std::vector<double>& l1, const std::vector<double>& mem, size_t disturbed,
                    size_t tasks_measured, size_t remeasured, double budget, size_t budget_tasks,
                    const std::vector<Result>& results);

nlohmann::ordered_json noise_to_json(const Noise& n);
/// Throws InputError when `j` is not an object; missing figures read as 0.
Noise noise_from_json(const nlohmann::ordered_json& j);
/// context.protocol.noise of a run, when it has one. Throws InputError when it is malformed.
std::optional<Noise> run_noise(const RunContext& c);
/// context.protocol.sentinel.threshold of a run (0.15 = a reading 15% slower than the
/// baseline was disturbed), when it has one. Throws InputError when it is not a number > 0.
std::optional<double> run_sentinel_threshold(const RunContext& c);
/// context.sentinel_readings, when present, is a list of objects whose
/// l1_ticks_per_kib and mem_ticks_per_kib are numbers >= 0 and whose disturbed
/// and requeued are true or false. Throws InputError naming the reading otherwise.
void check_sentinel_readings(const RunContext& c);

}  // namespace kex
