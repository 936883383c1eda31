// The explain section as text: per kernel and group one heading and one line per
// neighbour's effect, largest first (src/model/explain.hpp's order and wording).
#pragma once
#include <string>

#include "src/model/context.hpp"

namespace kex {

/// "why copy/sse/unroll:64 at copy 4096 (20 rounds; time ratio neighbour/kernel, 95%
/// interval):" then "  store t -> nt: ..." per effect, and with the run's ceilings one line
/// "  where: at 4 KiB this copy moves ..." (standing_text); "" when the run has no explain
/// section; then "core of KERNEL: core-bound: ..." per kernel (core_text) and, without
/// counters, "counters: no PMU here (...)". Names and reasons from the file pass through
/// terminal_text.
std::string explain_text(const RunDoc& run);

}  // namespace kex
