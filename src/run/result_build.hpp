// The one function that builds a Result (docs/STYLE.md rule 11), used by the sweep
// and by the seed harnesses alike.
#pragma once
#include <optional>
#include <vector>

#include "src/model/plan.hpp"
#include "src/model/point.hpp"
#include "src/model/result.hpp"

namespace kex {

/// A Result for plan `k` at `at`. `status` says whether it ran; `reps` are its
/// repetitions when it did (they are dropped otherwise); `placed` and `code` are
/// what it ran with, when known. The TSC rate is this machine's.
Result make_result(const KernelPlan& k, const Coords& at, Status status, std::vector<Repetition> reps,
                   const std::optional<Placement>& placed = std::nullopt,
                   const std::optional<CodeInfo>& code = std::nullopt,
                   const std::optional<SeedFigures>& seed = std::nullopt);

/// The status a plan has before anything runs: skipped (CPU), error (emission), else ok.
Status plan_status(const KernelPlan& k);

}  // namespace kex
