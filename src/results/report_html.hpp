// `kex report`: one self-contained HTML page from one or more runs: the machine, the
// summary per group with its uncertainty, the run's noise, what the data shows, the
// figures, the presets, the segment table and, with two runs or more, the comparison.
// The page only arranges what the other writers compute (summary, crossover_text,
// compare, seed_text, the plot writer's figures); it loads nothing and runs no script.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "src/model/context.hpp"
#include "src/model/tune.hpp"
#include "src/results/report_figures.hpp"

namespace kex {

/// One run of the page and where it came from.
struct ReportRun {
  std::string file;  ///< the results file's path as given (shown escaped, never opened again)
  RunDoc run;        ///< a tune's: its race_view (src/results/tune_file.hpp)
  std::optional<TuneRecord> tune;  ///< the file's tune section: its verdicts, dispatch and validation are the answer
};

/// The page: a <head> with a Content-Security-Policy that allows no script, no
/// connection and no resource but inline styles and data: images, a contents list of
/// in-page links (#machine, #summary, #noise, #findings, #figures, #presets, #segments,
/// #comparison: those with something to show) and a section for each. Every text from
/// a results file (host, CPU, names, messages, file names) reaches the page through
/// html_text or markdown_html; the figures are `figures` as rendered (their notes are
/// shown in the figures' section). A run with a tune record answers with the tune's own
/// report (format_tune_markdown) and has no summary per group recomputed from its groups.
/// `runs` must not be empty (std::logic_error).
std::string report_html(const std::vector<ReportRun>& runs, const ReportFigures& figures);

}  // namespace kex
