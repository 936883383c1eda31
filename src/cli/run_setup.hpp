// kex run's arguments and setup, shared by its files: run.cpp (the command and the
// steps every run takes), run_fresh.cpp (a fresh run from the command line),
// run_resume.cpp (a run from its journal) and run_outputs.cpp (where a run's files go,
// and writing them).
#pragma once
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "src/model/results_format.hpp"
#include "src/model/config.hpp"
#include "src/model/run_request.hpp"
#include "src/run/journal.hpp"
#include "src/run/sweep.hpp"

namespace kex {


/// kex run's options as CLI11 parses them (strings are checked by the run's setup).
struct RunArgs {
  std::vector<std::string> configs;
  std::string out, plot_dir, shard, resume;
  std::vector<std::string> presets;
  std::vector<std::string> loads;  ///< --load NAME=PATH:SYMBOL[:copy|move|clear], checked by the setup
  Harness harness = Harness::kex;  ///< --harness (CLI11 checks the word against kHarnesses)
  std::string repeat;  ///< --repeat N (seed harnesses), checked by hand for one clear line
  std::string seed;    ///< --seed S, checked by hand: 0..2^64-1, never wrapped
  ResultsFormat format = ResultsFormat::json;  ///< --format (checked against kResultsFormats)
  bool force = false, no_fsave = false, segments_seed_exact = false;
  uint32_t repetitions = 0;
  int cpu = -1;
  bool no_shuffle = false, no_sentinel = false, list = false, allow_large = false, no_journal = false;
  bool separate = false;
  bool explain = false;  ///< --explain: each group's winner raced against its neighbours after the sweep
  bool full = false;  ///< the whole preset and segment tables beside generated kernels
  bool seed_exact = false, no_plot = false, no_report = false, resume_any_build = false;
  std::string graph_dir;
  std::string filter, sizes, cache, counters, threads, placement, stream, footprint;
  std::vector<std::string> layout;
};

/// A run once its arguments, or its journal, are read: what it measures and where it writes.
struct RunSetup {
  RunRequest request;                   ///< what it measures (a resume's from its journal's header)
  std::string out, plot_dir, graph_dir;
  std::string report;                   ///< the HTML report beside the results ("": none)
  bool in_folder = false;               ///< the outputs go into a new run folder, made before the sweep
  std::unique_ptr<Journal> journal;     ///< a resume's (locked) journal; a fresh run's is created later
  std::optional<JournalState> resumed;  ///< what the journal says was done
  bool replace = false;                 ///< the output may be replaced (--force, or a resume's own partial output)
  bool replace_figures = false;         ///< files in the plot folder may be replaced (--force, or a resume's own)
  std::string counters_where = "--counters";  ///< where the counter names came from, for errors
};

// ---- run_fresh.cpp ----

/// A fresh run from its arguments: configs, protocol, where the results and figures go.
/// InputError for an option that does not apply or a bad value.
void fresh_setup(RunArgs& a, const CLI::App& cmd, RunSetup& s);

/// The journal header of a fresh run (it must not be written with --no-journal or -o -).
JournalHeader journal_header(const RunSetup& s);

// ---- run_resume.cpp ----

/// The run a journal describes (--resume): its configs and protocol, where its output goes.
void resume_setup(const RunArgs& a, const CLI::App& cmd, RunSetup& s);

/// A journal being resumed (kex run, kex tune) checked against this kex: written by this
/// build (unless `any_build`), on this machine, and loading no code (a journal never
/// makes kex load, assemble or run code). InputError in one line naming `journal`.
void check_journal_origin(const JournalHeader& h, const std::string& journal, bool any_build);

/// The records of `files` (paths) as they are now: what a resume may draw over.
std::vector<PartialFile> partial_files(const std::vector<std::string>& files);

// ---- run_outputs.cpp ----

/// The HTML report beside the results `out`: "<stem>.html" ("report.html" in a run
/// folder of kex's own); "" for stdout or a name longer than a file name may be. Never
/// `out` itself.
std::string report_beside(const std::string& out);

/// "<stem>-plots" beside `out` (its name without the extension); "plots" in the same
/// folder for a run folder's own "results.*", as a fresh run's default.
std::string plots_beside(const std::string& out);

/// Makes the run's folder and puts its results, figures and report there.
void place_in_folder(RunSetup& s, const RunArgs& a);

/// What the run prints and checks about its outputs, found before the sweep.
struct OutputKinds {
  bool seed_exact = false, asami = false;
};

/// Checks every output before anything is measured (InputError: one line, nothing written).
OutputKinds check_outputs(RunSetup& s, const RunArgs& a);
/// Writes the results file (atomically; not over an existing file unless s.replace).
void write_results(const RunSetup& s, const RunDoc& run);
/// What the run wrote after its results, for the reporter of files written.
struct FilesWritten {
  std::optional<size_t> plots;        ///< figure files written into plot_dir (none: no figures asked)
  std::string plot_dir;
  std::optional<size_t> graph_files;  ///< Asami's graph files written into graph_dir (none: not asked)
  std::string graph_dir;
  std::vector<std::string> svgs;      ///< the SVG files gnuplot drew, in the plot writer's order
  std::string report;                 ///< the HTML report written ("": none)
  std::string results;                ///< where the results went: "stdout" or the file, as printed
};
/// The figures and Asami's graph files beside the results (an interrupted run's recorded
/// in its journal), into `w`.
void write_figures(const RunSetup& s, const RunDoc& run, bool force, FilesWritten& w);
/// The HTML report of a finished run beside its results, into `w`. Its figures are
/// w.svgs (what write_figures drew) when there are any; else gnuplot draws them for it.
void write_report(const RunSetup& s, const RunDoc& run, FilesWritten& w);

// ---- run_reporters.cpp ----

/// What the reporters print over: the finished run and how compact its tables are.
struct Finished {
  const SweepRun& sweep;
  const RunDoc& run;
  bool compact = false;  ///< beside generated kernels: preset and segment tables a few lines each, after the answer
};

/// One part of what kex run prints at its end (as google/benchmark's reporters,
/// docs/STYLE.md): `runs` over the finished run, before any file but the results
/// is written; `files` once the figures and report are written.
class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void runs(const Finished&, FILE*) const {}
  virtual void files(const Finished&, const FilesWritten&, FILE*) const {}
};

/// Whether the tables print compact: beside generated kernels, without --full.
bool compact_tables(const RunDoc& run, const RunArgs& a);

/// The reporters the flags choose, in the order they print: --seed-exact's or the seed
/// tables, the answer and the tables (first when `compact`, else after the segment table),
/// the presets, the segment table, the findings, the noise, the files written. With -q
/// only what was asked for by name (--seed-exact, --segments-seed-exact).
std::vector<std::unique_ptr<Reporter>> run_reporters(const OutputKinds& k, const RunArgs& a, bool compact);

/// Where the reporters print: stdout, or stderr when stdout carries the results (-o -) or
/// only what the seed programs printed (--seed-exact).
FILE* report_text_stream(const RunSetup& s, const OutputKinds& k);
/// What the final messages say of the journal: how to resume, or why one cannot ("" without one).
std::string journal_note(const Journal* j, const std::string& how);

}  // namespace kex
