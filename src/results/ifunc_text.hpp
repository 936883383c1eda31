// What a run that raced glibc's own variants says of ifunc's choice: per function, the
// variant this process's ifunc picked and, at each group where the paired rounds show
// it, the sibling that is faster and by how much (docs/methodology.md on paired rounds).
#pragma once
#include <string>
#include <vector>

#include "src/model/paired.hpp"

namespace kex {

/// One line per function (memcpy, memmove, memset) whose pick was raced beside its
/// siblings in `answers` (the run's groups): "glibc memcpy: ifunc picks X; at 256 B Y is
/// 1.31x faster [1.28-1.35]; ... (Holm over 180 comparisons, family-wise error 0.05)": the
/// pick's time over Y's in the same rounds with its 95% interval, claimed only where that
/// interval lies beyond the group's tie margin and a one-sided sign test over the rounds
/// (the pick slower than Y by more than the margin) holds after Holm's adjustment over
/// every sibling at every group of the function; or that none is shown faster. Groups
/// without a claim where a sibling's interval reaches past the margin are named as ones
/// the rounds' spread cannot decide ("; none is shown faster where the rounds' spread
/// cannot decide: 64 MiB (up to 0.71-1.45)"). Empty when the run has no context.ifunc or
/// raced no pick. Names are as the file has them: the caller escapes the lines for its medium.
std::vector<std::string> ifunc_lines(const RunDoc& run, const std::vector<GroupAnswer>& answers);

}  // namespace kex
