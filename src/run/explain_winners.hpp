// `kex run --explain`: after a sweep, each group's winner explained at its size and cache
// state (run_explain, src/run/explain.hpp), the sections joined into the run's own.
#pragma once
#include <string>
#include <vector>

#include "src/model/explain_section.hpp"
#include "src/run/explain.hpp"

namespace kex {

/// The most winners --explain races (the groups' order in the results; the rest are named).
inline constexpr size_t kMaxExplainedWinners = 12;

/// The winner of each group of `run` (answer_groups), explained in `rounds` paired rounds
/// at its size and cache state. A winner kex did not generate (a preset, a libc function,
/// an outside implementation) has no neighbours and no marked loop: a note says so; so does
/// a group with a layout, chunk, prefill, consume or threads coordinate (not raced here).
/// At most kMaxExplainedWinners, each once per size and cache state. Then the ceilings,
/// in `ceiling_rounds` paired rounds, unless `run` holds them already.
WinnersExplained explain_winners(const RunDoc& run, uint32_t rounds, RunOptions opt, uint32_t ceiling_rounds = 5);

/// --explain as the last step of run_sweep: explain_winners of `r`'s run in
/// opt.explain_rounds rounds, its section and ceilings put in r.doc.context, what it did
/// in r.explained; a second stop marks `r` abandoned. Nothing for an interrupted run.
void explain_into(SweepRun& r, const RunOptions& opt);

}  // namespace kex
