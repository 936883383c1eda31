#include "src/results/plot.hpp"

#include <cstdio>
#include <filesystem>
#include <map>

#include "src/core/atomic_write.hpp"
#include "src/core/error.hpp"
#include "src/core/terminal_text.hpp"
#include "src/model/filter.hpp"
#include "src/results/plot_bandwidth.hpp"
#include "src/results/plot_bars.hpp"
#include "src/results/plot_explain.hpp"
#include "src/results/plot_heatmap.hpp"
#include "src/results/plot_parts.hpp"
#include "src/results/plot_roofline.hpp"
#include "src/results/plot_scaling.hpp"
#include "src/results/plot_segments.hpp"
#include "src/results/plot_speedup.hpp"
#include "src/results/plot_streams.hpp"
#include "src/results/render.hpp"
#include "src/results/results.hpp"

namespace kex {

namespace fs = std::filesystem;

size_t longest_label(const std::vector<std::string>& rows) {
  size_t m = 0;
  for (const auto& r : rows) {
    size_t n = 0;
    for (unsigned char c : r) n += (c & 0xc0) != 0x80;
    m = std::max(m, n);
  }
  return m;
}

namespace {

/// Which files a figure named `base` produces.
std::vector<std::string> figure_files(const std::string& dir, const std::string& base, bool render) {
  std::vector<std::string> v{dir + "/" + base + ".dat", dir + "/" + base + ".gp"};
  if (render) {
    v.push_back(dir + "/" + base + ".png");
    v.push_back(dir + "/" + base + ".svg");
  }
  return v;
}

/// The runs to draw, each with its label (--label, else host and CPU), labels made distinct.
std::vector<PlotRun> labelled_runs(const std::vector<RunDoc>& docs, const PlotOptions& opts) {
  if (opts.best < 0) throw InputError("--best: " + std::to_string(opts.best) + ": a count >= 0 is needed (0: all)");
  if (!opts.labels.empty() && opts.labels.size() != docs.size())
    throw InputError("--label: " + std::to_string(opts.labels.size()) + " labels for " + std::to_string(docs.size()) +
                     " runs: give one label per results file");
  if (opts.ratio && docs.size() < 2)
    throw InputError("--ratio: needs two results files (B / A: the second against the first)");
  std::vector<PlotRun> runs;
  for (size_t i = 0; i < docs.size(); ++i)
    runs.push_back({&docs[i], opts.labels.empty() ? run_label(docs[i].context) : opts.labels[i]});
  std::map<std::string, int> seen;  // two runs with one host label: "#2"
  for (auto& r : runs)
    if (int n = seen[r.label]++; n > 0) r.label += " #" + std::to_string(n + 1);
  return runs;
}

/// Appends `more` to `out`.
void append_figures(std::vector<PlotFigure>& out, std::vector<PlotFigure> more) {
  for (PlotFigure& f : more) out.push_back(std::move(f));
}

}  // namespace

std::vector<PlotFigure> plot_figures(const std::vector<RunDoc>& docs, const PlotOptions& opts) {
  const NameFilter filter = parse_name_filter(opts.filter, "--filter");
  const std::vector<PlotRun> runs = labelled_runs(docs, opts);
  std::vector<PlotFigure> out = bandwidth_figures(runs, opts, filter);
  if (!runs.empty()) append_figures(out, heatmap_figures(*runs.front().doc, opts, filter));
  if (!runs.empty()) append_figures(out, scaling_figures(*runs.front().doc, filter));
  if (runs.size() == 1 && !filter.re)  // one run's answer: a filter would change which kernel is fastest
    append_figures(out, speedup_figures(*runs.front().doc));
  if (runs.size() == 1 && !filter.re)  // the same: a stream's ranking is the whole group's
    append_figures(out, stream_figures(*runs.front().doc));
  append_figures(out, preset_bar_figures(runs, filter));
  if (!filter.re) append_figures(out, segment_figures(runs));  // the table has no kernel names to match
  size_t why = 1;  // each run's explain section (kex explain, kex run --explain): why-1, why-2, ...
  if (!filter.re)
    for (const PlotRun& r : runs)
      for (PlotFigure& f : explain_figures(*r.doc, why)) {
        ++why;
        out.push_back(std::move(f));
      }
  // Each run's ceilings (kex ceilings -o, kex explain): roofline-copy, roofline-copy-2, ...
  // A filter would change which entry is the best at a size.
  if (!filter.re)
    for (size_t ri = 0; ri < runs.size(); ++ri)
      append_figures(out, roofline_figures(*runs[ri].doc, ri ? "-" + std::to_string(ri + 1) : ""));
  return out;
}

std::vector<std::string> write_plots(const std::vector<RunDoc>& docs, const std::string& dir,
                                     const PlotOptions& opts) {
  const std::vector<PlotFigure> out = plot_figures(docs, opts);
  if (out.empty()) throw InputError(dir + ": nothing to plot: no measured entries" +
                                   std::string(opts.filter.empty() ? "" : " match --filter " + opts.filter));
  std::string gnuplot = opts.render ? find_gnuplot() : "";
  bool render = !gnuplot.empty();
  // Refuse before writing anything.
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir + ": cannot create the directory: " + ec.message());
  if (!opts.force)
    for (const auto& f : out)
      for (const auto& p : figure_files(dir, f.base, render))
        if (fs::exists(p)) throw InputError(p + ": exists: pass --force to overwrite it");

  std::vector<std::string> written;
  for (const auto& f : out) {
    write_file_atomic(dir + "/" + f.base + ".dat", f.dat, opts.force);
    written.push_back(dir + "/" + f.base + ".dat");
    write_file_atomic(dir + "/" + f.base + ".gp", f.gp, opts.force);
    written.push_back(dir + "/" + f.base + ".gp");
    if (!render) continue;
    for (const ImageFormat fmt : {ImageFormat::png, ImageFormat::svg}) {
      const std::string ext = to_string(fmt);
      std::string warn = render_figure(gnuplot, dir, f.base + ".gp", fmt, f.base + "." + ext, opts.force);
      if (!warn.empty())  // gnuplot quotes script lines: one line, escaped like every text kex prints
        std::fprintf(stderr, "kex: gnuplot on %s/%s.gp: %s\n", terminal_text(dir).c_str(), f.base.c_str(),
                     terminal_text(warn.substr(0, warn.find_last_not_of('\n') + 1)).c_str());
      written.push_back(dir + "/" + f.base + "." + ext);
    }
  }
  return written;
}

}  // namespace kex
