// The results file of `kex tune`: written from a TuneRun, read back as a run with its
// `tune` section, and the run as the tune decided it (race_view) for the commands that
// show a tune's file (kex summary, kex report).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/tune.hpp"
#include "src/run/tune.hpp"

namespace kex {

/// The tune record of `path`. InputError("<path>...: ...") when the file cannot be read,
/// is not JSON, has no tune section, or the section is malformed (naming its JSON path).
TuneRecord load_tune(const std::string& path);

/// A results file as kex summary and kex report read it: its runs (load_results), and the
/// tune record when `kex tune` wrote it (then `runs` holds one run).
struct ResultsFile {
  std::vector<RunDoc> runs;
  std::optional<TuneRecord> tune;
};

/// Reads `path` once: InputError as load_results and load_tune say.
ResultsFile load_results_file(const std::string& path);

/// The run as its tune decided it: at each size the candidates that left the race
/// (tune.drops, slower than the leader) are left out, so that every group's members are
/// the ones the verdict ranked, measured in the same rounds (a dropped candidate's few
/// early rounds, ranked against a round mean of other members, could look fastest); its
/// totals are the whole tune's (tune_totals).
RunDoc race_view(const RunDoc& run, const TuneRecord& tune);

/// `totals` made the whole tune's: its wall time (`tune.used_s`, race and validation:
/// the run's context holds the last stage's) and `points` written.
RunTotals tune_totals(std::optional<RunTotals> totals, const TuneRecord& tune, size_t points);

/// The file `kex tune` writes: the run's results with a `tune` section. Its
/// context.interrupted is the run's: a stop in any phase (the race or the validation of
/// the tunables after it) marks the file, not only a stop inside a stage; its totals are
/// tune_totals. Each repetition's samples_ticks are written empty: a tune's rounds are
/// many short repetitions, and their raw samples made most of its file (the verdicts,
/// the summary and the figures use each repetition's statistics, which are kept; an
/// entry's "stats" are computed from the samples before they are dropped).
nlohmann::ordered_json tune_results_json(const TuneRun& run);

}  // namespace kex
