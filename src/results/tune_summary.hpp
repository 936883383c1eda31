// kex summary and kex report of a file `kex tune` wrote: the tune's own verdicts, dispatch
// and validation, never a "fastest" recomputed from groups whose members were measured in
// unequal numbers of rounds (a candidate that left the race after its first stage).
#pragma once
#include <string>
#include <vector>

#include "src/model/context.hpp"
#include "src/model/tune.hpp"

namespace kex {

/// What `kex summary` prints of a tune's file (`run` as read, or its race_view): the
/// tune's report (format_tune: the verdict per size, the dispatch, the race's course, the
/// validation), the outside implementations the paired rounds show faster than the
/// dispatch, then, of race_view (the members that stayed in each size's race): where
/// loaded code stands. Names are escaped for a terminal.
std::string tune_summary_text(const RunDoc& run, const TuneRecord& tune);

/// The same as GitHub Markdown (format_tune_markdown, then the outside implementations and
/// ifunc's pick as paragraphs), names through md_text.
std::string tune_summary_markdown(const RunDoc& run, const TuneRecord& tune);

/// The lines after the tune's own report: outside implementations faster than the
/// dispatch, then ifunc's pick against its siblings (of race_view); unescaped.
std::vector<std::string> tune_outside_lines(const RunDoc& run, const TuneRecord& tune);

}  // namespace kex
