// `kex run --explain`: after a sweep, each group's winner explained at its size and cache
// state (run_explain, src/run/explain.hpp), the sections joined into the run's own.
#pragma once
#include <string>
#include <vector>

#include "src/model/explain_section.hpp"
#include "src/run/explain.hpp"

namespace kex {

/// What --explain did, for its lines at the end of the run.
struct WinnersExplained {
  std::optional<ExplainSection> section;  ///< the joined sections; none when nothing was raced
  std::vector<std::string> notes;         ///< one line per winner not explained, with the reason
  size_t raced = 0;                       ///< winners explained
  size_t points = 0;                      ///< points measured for it (kernels and neighbours, baselines)
  double seconds = 0;                     ///< wall time of the races (the ceilings' is theirs)
  bool abandoned = false;                 ///< a second stop: nothing more should be written
  /// The per-level ceilings (src/run/ceilings.hpp), measured once after the races for the
  /// report's roofline; none when nothing was raced, the run was stopped or no level is
  /// known (a note says why). Their probes are not the run's points.
  std::optional<Ceilings> ceilings;
};

/// The most winners --explain races (the groups' order in the results; the rest are named).
inline constexpr size_t kMaxExplainedWinners = 12;

/// The winner of each group of `run` (answer_groups), explained in `rounds` paired rounds
/// at its size and cache state. A winner kex did not generate (a preset, a libc function,
/// an outside implementation) has no neighbours and no marked loop: a note says so; so does
/// a group with a layout, chunk, prefill, consume or threads coordinate (not raced here).
/// At most kMaxExplainedWinners, each once per size and cache state. Then the ceilings,
/// in `ceiling_rounds` paired rounds, unless `run` holds them already.
WinnersExplained explain_winners(const RunDoc& run, uint32_t rounds, RunOptions opt, uint32_t ceiling_rounds = 5);

}  // namespace kex
