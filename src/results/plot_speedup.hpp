// The speedup figures: the fastest kernel's speed over libc's at each size, with the
// interval of their time ratio in the same rounds (answer_blocks, answer_text.hpp).
#pragma once
#include <cstddef>
#include <vector>

#include "src/results/plot_parts.hpp"

namespace kex {

/// The most winners a speedup figure's key names (by sizes won); the others' points are
/// drawn alike and counted in one key entry.
inline constexpr size_t kMaxSpeedupWinners = 8;

/// One figure per op and condition of a run measured in paired rounds where libc raced
/// (`speedup-copy`, `speedup-clear-fill-0xaa`, ...): x the size, y the fastest kernel's
/// speed over memcpy's (memset's) in the same rounds, with its 95% interval as error bars,
/// and 1 (libc itself) as a dashed line. Each size's point has its winner's colour and
/// number, and the key names the numbers (kMaxSpeedupWinners at most: "1: copy/avx/...").
/// Sizes where libc is the fastest are at 1 (memcpy their winner); sizes with fewer than
/// kMinIntervalCount shared rounds are left out (no interval). `.dat` index 0 columns:
/// size_bytes speedup low high tag winner (a dat_string); then a block per winner. Nothing
/// from the file reaches the script but through gp_label.
std::vector<PlotFigure> speedup_figures(const RunDoc& run);

}  // namespace kex
