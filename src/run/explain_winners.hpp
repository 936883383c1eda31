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
/// at its size and cache state. A winner kex did not generate (rep_movsb, memcpy, a preset,
/// glibc/SYMBOL, loaded code) has no neighbours: it is raced alone through the
/// explain-any-competitor path (ExplainRequest::outside: its standing, counters and
/// llvm-mca of its bytes). A group with a layout, chunk, prefill, consume or threads
/// coordinate is not raced here, nor outside code clearing another byte than 0: a note says so.
/// At most kMaxExplainedWinners, each once per size and cache state. Then the ceilings,
/// in `ceiling_rounds` paired rounds, unless `run` holds them already.
WinnersExplained explain_winners(const RunDoc& run, uint32_t rounds, RunOptions opt, uint32_t ceiling_rounds = 5);

/// `kex run` with or without --explain: run_sweep of `plan`, then, with `rounds` > 0 and
/// the run neither interrupted nor abandoned, explain_winners of it in `rounds` rounds,
/// its section and ceilings put in the run's context and what it did in `explained`; a
/// second stop during the races marks the run abandoned. The races are sweeps of their
/// own, one after the other: run_sweep never calls itself.
SweepRun run_and_explain(const SweepPlan& plan, const RunOptions& opt, uint32_t rounds);

}  // namespace kex
