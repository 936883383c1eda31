// What kex run prints at its end, as a list of reporters over the finished run (issue 49;
// docs/STYLE.md, google/benchmark's reporters): the seed programs' tables, the answer, the
// tables, the presets, the segment table, the findings, the noise, and the files written.
// The flags choose the reporters and their order; each prints its own part.
#include <algorithm>
#include <memory>

#include "src/cli/run_setup.hpp"
#include "src/core/output.hpp"
#include "src/core/terminal_text.hpp"
#include "src/results/answer_text.hpp"
#include "src/results/explain_text.hpp"
#include "src/results/render.hpp"
#include "src/results/runtests.hpp"
#include "src/results/scaling.hpp"
#include "src/results/seed_text.hpp"
#include "src/results/segment_text.hpp"
#include "src/results/summary.hpp"

namespace kex {

namespace {

/// --seed-exact: only what the seed programs printed, on stdout (the rest of the run's
/// text goes to stderr: report_text_stream).
class SeedExactReporter : public Reporter {
 public:
  void runs(const Finished& f, FILE*) const override {
    size_t silent = 0;
    for (const auto& [source, seed] : f.sweep.seed_runs) {
      for (const SeedRun& pass : seed_passes(seed))  // as if the program had been run N times
        std::fputs(seed_table_text(pass, SeedText::exact).c_str(), stdout);
      for (const auto& r : seed.results) silent += r.status.kind != StatusKind::ok;
    }
    std::fputs(runtests_text(f.run, SeedText::exact).c_str(), stdout);
    if (silent)
      std::fprintf(stderr, "kex: --seed-exact: %zu kernel%s did not run and %s no line (see the results file)\n", silent,
                   silent == 1 ? "" : "s", silent == 1 ? "has" : "have");
  }
};

/// The seed harnesses' tables as their programs printed them, and Asami's runtests table.
class SeedTablesReporter : public Reporter {
 public:
  void runs(const Finished& f, FILE* text) const override {
    for (const auto& t : f.run.context.seed_tables) std::fprintf(text, "\n%s", t.text.c_str());
    if (std::string rt = runtests_text(f.run); !rt.empty()) std::fprintf(text, "\n%s", rt.c_str());
  }
};

/// The answer per group: the fastest kernel against libc.
class AnswerReporter : public Reporter {
 public:
  void runs(const Finished& f, FILE* text) const override {
    if (std::string first = answer_text(f.run, f.compact); !first.empty()) std::fprintf(text, "\n%s", first.c_str());
  }
};

/// The summary, layout and scaling tables, and --explain's section.
class TablesReporter : public Reporter {
 public:
  void runs(const Finished& f, FILE* text) const override {
    if (std::string table = summary_table(f.run, f.compact); !table.empty()) std::fputs(table.c_str(), text);
    if (std::string lt = layout_table(f.run); !lt.empty()) std::fputs(lt.c_str(), text);
    if (std::string st = scaling_table(f.run); !st.empty()) std::fputs(st.c_str(), text);
    if (std::string et = explain_text(f.run); !et.empty()) std::fprintf(text, "\n%s", et.c_str());
  }
};

/// The kex-harness presets' table (its summary beside generated kernels).
class PresetsReporter : public Reporter {
 public:
  void runs(const Finished& f, FILE* text) const override {
    const std::string presets = f.compact ? kex_seed_summary(f.run) : kex_seed_text(f.run);
    if (!presets.empty()) std::fprintf(text, "\n%s", presets.c_str());
  }
};

/// The segment table: as Jeremy's program printed it (--segments-seed-exact), its
/// summary beside generated kernels, or whole.
class SegmentsReporter : public Reporter {
 public:
  explicit SegmentsReporter(bool seed_exact) : seed_exact_(seed_exact) {}
  void runs(const Finished& f, FILE* text) const override {
    if (!f.run.context.segments) return;
    const SegmentSection& s = *f.run.context.segments;  // a resumed table's strings come from its journal
    std::fprintf(text, "%s%s", f.compact && !seed_exact_ ? "" : "\n",
                 terminal_lines(seed_exact_ ? format_segment_seed_text(s)
                                : f.compact ? format_segment_summary(s)
                                            : format_segment_table(s))
                     .c_str());
  }

 private:
  bool seed_exact_;
};

/// The findings (three beside generated kernels, else all).
class FindingsReporter : public Reporter {
 public:
  void runs(const Finished& f, FILE* text) const override {
    if (std::string s = findings(f.run, f.compact); !s.empty()) std::fputs(s.c_str(), text);
  }
};

/// The sentinel's noise over the run.
class NoiseReporter : public Reporter {
 public:
  void runs(const Finished& f, FILE* text) const override {
    if (std::string ns = noise_summary(f.run); !ns.empty()) std::fputs(ns.c_str(), text);
  }
};

/// The files the run wrote: its figures, Asami's graph files, its report and its results.
class FilesReporter : public Reporter {
 public:
  void files(const Finished& f, const FilesWritten& w, FILE* text) const override {
    if (w.plots)
      std::fprintf(text, "\nplots: %zu files in %s%s\n", *w.plots, terminal_text(w.plot_dir).c_str(),
                   find_gnuplot().empty() ? " (gnuplot not installed: .dat/.gp only)" : "");
    if (w.graph_files)
      std::fprintf(text, "\nruntests graph: %zu files in %s (gnuplot: load '%s/plot.gp')\n", *w.graph_files,
                   terminal_text(w.graph_dir).c_str(), terminal_text(w.graph_dir).c_str());
    if (!w.report.empty()) std::fprintf(text, "\nreport: %s\n", terminal_text(w.report).c_str());
    const size_t n = f.run.results.size();
    std::fprintf(text, "\nresults: %s (%zu %s, %.1f s)\n", w.results.c_str(), n, n == 1 ? "entry" : "entries",
                 f.run.context.totals ? f.run.context.totals->elapsed_s : 0.0);
  }
};

}  // namespace

bool compact_tables(const RunDoc& run, const RunArgs& a) {
  return !a.full && std::any_of(run.results.begin(), run.results.end(),
                                [](const Result& r) { return r.kind == KernelKind::generated; });
}

std::vector<std::unique_ptr<Reporter>> run_reporters(const OutputKinds& k, const RunArgs& a, bool compact) {
  const bool chatter = !quiet();  // -q: the files and the output asked for by name only
  std::vector<std::unique_ptr<Reporter>> out;
  const auto add = [&](bool when, auto make) {
    if (when) out.push_back(make());
  };
  add(k.seed_exact, [] { return std::make_unique<SeedExactReporter>(); });
  add(!k.seed_exact && chatter, [] { return std::make_unique<SeedTablesReporter>(); });
  // Beside generated kernels the preset and segment tables are a few lines each, after
  // the answer per group; a run of presets or segments alone prints them whole, first.
  const auto answers = [&] {
    add(chatter, [] { return std::make_unique<AnswerReporter>(); });
    add(chatter, [] { return std::make_unique<TablesReporter>(); });
  };
  if (compact) answers();
  add(chatter, [] { return std::make_unique<PresetsReporter>(); });
  add(chatter || a.segments_seed_exact, [&] { return std::make_unique<SegmentsReporter>(a.segments_seed_exact); });
  if (!compact) answers();
  add(chatter, [] { return std::make_unique<FindingsReporter>(); });
  add(chatter, [] { return std::make_unique<NoiseReporter>(); });
  add(chatter, [] { return std::make_unique<FilesReporter>(); });
  return out;
}

FILE* report_text_stream(const RunSetup& s, const OutputKinds& k) {
  return s.out == "-" || k.seed_exact ? stderr : stdout;  // with -o -, stdout carries only the JSON
}

}  // namespace kex
