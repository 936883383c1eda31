// Where the code a user brought stands (issue 53): for each routine loaded from outside
// (lib/NAME, asm/NAME), a row per group it raced in, whether or not it won: its rank, its
// time over the fastest's, over libc's and over glibc's fastest variant in the same
// rounds, each with its 95% interval.
#pragma once
#include <string>
#include <vector>

#include "src/model/context.hpp"
#include "src/model/paired.hpp"

namespace kex {

/// "where your code stands" and a block per loaded kernel of `answers` (by its first
/// appearance): a row per group it is a member of, fixed sizes by op, condition and size,
/// then streams; rank "N/M" (M the group's measured members), "fastest" or the time over
/// the fastest's with its interval ("tie" when within the tie margin), over libc's ("-"
/// without libc in the group) and over glibc's fastest variant in the group (named; "-"
/// when none raced). Names are escaped for a terminal. "" when no member is loaded code.
std::string standing_table(const RunDoc& run, const std::vector<GroupAnswer>& answers);

}  // namespace kex
