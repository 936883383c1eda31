#include "src/results/plot_bars.hpp"

#include <algorithm>
#include <sstream>

#include "src/results/gnuplot_text.hpp"
#include "src/results/results.hpp"

namespace kex {

namespace {

/// The bar chart's .dat: a quoted row label, then a value per run (NaN: not measured).
std::string bar_dat(const std::vector<std::string>& rows, const std::vector<std::string>& run_labels,
                    const std::map<std::pair<std::string, size_t>, double>& values, const std::string& comment) {
  std::ostringstream d;
  d << "# kex " << gp_comment(comment) << "\n# columns: label";
  for (size_t r = 0; r < run_labels.size(); ++r) d << " " << dat_string(run_labels[r]);
  d << "   (NaN: not measured in that run)\n";
  for (const auto& row : rows) {
    d << dat_string(row);
    for (size_t r = 0; r < run_labels.size(); ++r) {
      auto it = values.find({row, r});
      d << " " << (it == values.end() ? std::string("NaN") : gp_number(it->second));
    }
    d << "\n";
  }
  return d.str();
}

/// The presets' bars gathered from every run: rows in first-seen order, values by (row, run), per op.
struct PresetBars {
  std::map<Op, std::vector<std::string>> rows;
  std::map<Op, std::map<std::pair<std::string, size_t>, double>> vals;
};

/// A point at one page and default conditions (the seeds' unit): a bar of TSC ticks per
/// page, for a preset or a libc baseline of kex's harness. A preset the filter does not
/// keep (by its kernel key) is left out; baselines stay, as on curves.
void add_bar(PresetBars& g, const Result& r, size_t run, const NameFilter& filter) {
  const Coords& at = r.point.at;
  Coords page;
  page.size = 4096;
  page.harness = at.harness;
  page.pass = at.pass;
  if (at != page || !(r.kind == KernelKind::preset || (r.kind == KernelKind::baseline && at.harness == Harness::kex)))
    return;
  if (r.kind == KernelKind::preset && !filter.keep(r.point.kernel)) return;
  std::string row = r.preset ? r.preset->printed + "  (" + r.preset->id + ")" : r.point.kernel + "  (baseline)";
  if (at.harness != Harness::kex) row += " [" + std::string(to_string(at.harness)) + "]";
  if (at.pass > 1) row += " #" + std::to_string(at.pass);
  auto& rows = g.rows[r.op];
  if (std::find(rows.begin(), rows.end(), row) == rows.end()) rows.push_back(row);
  g.vals[r.op][{row, run}] = aggregate(r).median_ns * r.tsc_hz / 1e9;
}

}  // namespace

PlotFigure bar_figure(const std::string& base, const std::string& title, const std::string& xlabel,
                      const std::vector<std::string>& rows, const std::vector<std::string>& run_labels,
                      const std::map<std::pair<std::string, size_t>, double>& values, const std::string& comment) {
  PlotFigure f;
  f.base = base;
  f.dat = bar_dat(rows, run_labels, values, comment);
  double vmax = 0;
  for (const auto& [row_run, v] : values) vmax = std::max(vmax, v);

  size_t R = run_labels.size();
  // At most kMaxBarRows rows drawn (gnuplot's `every`); the .dat keeps them all.
  const size_t shown = std::min(rows.size(), kMaxBarRows);
  const std::string every = shown < rows.size() ? " every ::0::" + std::to_string(shown - 1) : "";
  const std::string shown_title =
      shown < rows.size() ? title + "\n(the first " + std::to_string(shown) + " of " + std::to_string(rows.size()) +
                                " rows; " + base + ".dat holds all)"
                          : title;
  const size_t label_w = std::min<size_t>(longest_label(rows), 80);
  const int h = std::clamp(int(140 + shown * (18 + 14 * std::min<size_t>(R, 40))), 420, 2 * kMaxSide);
  std::ostringstream g;
  g << "# kex: " << gp_comment(comment) << ". Data: " << gp_comment(base) << ".dat\n" << gp_terminal(base, int(800 + 8 * label_w), h);
  g << "set title " << gp_label(shown_title) << "\n"
    << "set xlabel " << gp_label(xlabel) << "\n"
    << "set xrange [0:" << gp_number(vmax > 0 ? vmax * 1.15 : 1) << "]\n"
    << "set yrange [" << gp_number(double(shown) - 0.4) << ":-0.6]   # first row on top\n"
    << "set ytics nomirror font \",10\"\n"
    << "set grid xtics lc rgb \"#dddddd\" lt 1\n"
    << "set style fill solid 0.8 border lc rgb \"#333333\"\n"
    << "set lmargin " << std::max<size_t>(20, label_w + 2) << "   # room for the row names\n"
    << (R > 1 ? "set key outside top center horizontal\n" : "unset key\n");
  double bw = 0.8 / double(R);
  // Row names as y tics at the middle of each cluster (an invisible point per row carries them).
  g << "plot " << gp_string(base + ".dat") << every << " using (0):($0):ytic(1) with points pt 0 ps 0 notitle, \\\n";
  for (size_t r = 0; r < R; ++r) {
    double off = -0.4 + bw * (double(r) + 0.5);
    g << "  \"\"" << every << " using (0.5*$" << r + 2 << "):($0+" << gp_number(off) << "):(0.5*$"
      << r + 2 << "):(" << gp_number(bw / 2 * 0.9) << ") with boxxyerror lc rgb \""
      << gp_color(r) << "\" title " << gp_label(run_labels[r]) << ", \\\n"
      << "  \"\"" << every << " using ($" << r + 2 << "):($0+" << gp_number(off) << "):(sprintf(\" %.4g\", $" << r + 2
      << ")) with labels left font \",9\" notitle" << (r + 1 < R ? ", \\\n" : "\n");
  }
  f.gp = g.str();
  return f;
}

std::vector<PlotFigure> preset_bar_figures(const std::vector<PlotRun>& runs, const NameFilter& filter) {
  PresetBars g;
  std::vector<std::string> run_labels;
  for (size_t ri = 0; ri < runs.size(); ++ri) {
    run_labels.push_back(runs[ri].label);
    for (const Result& r : runs[ri].doc->results)
      if (r.ok()) add_bar(g, r, ri, filter);
  }
  std::vector<PlotFigure> out;
  for (Op op : {Op::clear, Op::copy}) {
    if (!g.rows.count(op)) continue;
    bool any_preset = false, any_baseline = false;
    for (const auto& row : g.rows.at(op)) {
      const bool baseline = row.find("(baseline)") != std::string::npos;
      any_preset |= !baseline;
      any_baseline |= baseline;
    }
    if (!any_preset) continue;
    const std::string what = op == Op::clear ? "clear_page" : "copy_page";
    out.push_back(bar_figure("presets-" + std::string(to_string(op)),
                             "named presets, " + what + ": TSC ticks per 4096-byte page (fewer is faster)" +
                                 (any_baseline ? "\nlibc baselines from the same run" : "\nno baselines in this run"),
                             "TSC ticks per page (median; seed harnesses: their single pass)", g.rows.at(op),
                             run_labels, g.vals.at(op), "presets (" + what + "): TSC ticks per page, one column per run"));
  }
  return out;
}

}  // namespace kex
