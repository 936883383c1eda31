// The figures of `kex report`: the plot writer's figures (plot_figures) rendered by
// gnuplot's svg terminal in a private temporary folder, each SVG made fit to sit
// inline in one HTML page.
#pragma once
#include <string>
#include <vector>

#include "src/model/context.hpp"

namespace kex {

/// One figure as an inline <svg> element.
struct SvgFigure {
  std::string base;  ///< the plot writer's name for it ("copy-warm", "presets-copy", "segments", ...)
  std::string svg;   ///< "<svg ...>...</svg>", ids prefixed so that figures of one page never share one
};

/// The figures of a report, or why some or all are missing.
struct ReportFigures {
  std::vector<SvgFigure> figures;
  std::vector<std::string> notes;  ///< one line each: "gnuplot is not installed: ...", a failed figure
};

/// `svg` (a whole file gnuplot's svg terminal wrote) as an element to inline: what
/// precedes <svg (the XML declaration) dropped, every id='X' / id="X" and its
/// references (href='#X', url(#X)) prefixed with `prefix`, and a style max-width of the
/// viewBox's width (the figure shrinks to the page, never grows past its drawn size).
/// "" when `svg` has no <svg ...>...</svg> element, or a tag in it could run or load
/// anything: a script, foreignObject, iframe or a element, an on... attribute, an href
/// to anything but #id or a data:image/png;base64 image (text from a results file
/// cannot add a tag: gnuplot writes its < and & as references).
std::string inline_svg(const std::string& svg, const std::string& prefix);

/// plot_figures(runs) (ratio curves too when there are several runs) rendered to SVG
/// by the gnuplot on PATH (find_gnuplot) in a temporary folder under $TMPDIR or /tmp
/// ("kex-report-PID-XXXXXX"), removed afterwards, and also on SIGINT, SIGTERM and SIGHUP
/// (those with their default action: kex then dies of the signal); folders of this user
/// there whose process is gone (killed with SIGKILL) are removed first. Without gnuplot: no figures and a note saying so; a figure
/// gnuplot fails on is left out with a note. Throws InputError only for a temporary
/// folder that cannot be made.
ReportFigures render_report_figures(const std::vector<RunDoc>& runs);

/// The figures `kex run` drew beside its results: `svgs` (the .svg paths write_plots
/// returned, in its order) read and inlined as render_report_figures would, each named by
/// its file stem; one that cannot be read or inlined is left out with a note. Runs no gnuplot.
ReportFigures drawn_report_figures(const std::vector<std::string>& svgs);

}  // namespace kex
