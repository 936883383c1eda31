#include "src/results/plot_explain.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "src/model/explain.hpp"
#include "src/results/gnuplot_text.hpp"

namespace kex {

namespace {

constexpr size_t kMaxWhyFigures = 24;

std::string why_num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

bool effect_measured(const ExplainEffect& e) { return e.refused.empty() && e.rounds >= 3 && e.ratio > 0; }

PlotFigure why_figure(const ExplainPoint& p, double res, const std::string& base) {
  PlotFigure f;
  f.base = base;
  std::ostringstream d;
  d << "# kex explain: " << gp_comment(p.kernel) << " at " << gp_comment(p.group)
    << "\n# columns: change ratio low high (time neighbour / kernel, median of per-round ratios, 95% interval)\n";
  double lo = 1, hi = 1;
  size_t rows = 0;
  for (const ExplainEffect& e : p.effects) {
    if (!effect_measured(e)) continue;
    d << dat_string(e.coordinate + " " + e.from + " -> " + e.to) << " " << why_num(e.ratio) << " " << why_num(e.low) << " "
      << why_num(e.high) << "\n";
    lo = std::min(lo, e.low);
    hi = std::max(hi, e.high);
    ++rows;
  }
  f.dat = d.str();
  const double pad = (hi - lo) * 0.08 + 0.01;
  std::ostringstream g;
  g << "# kex: the effects of explain point " << gp_comment(base) << ". Data: " << gp_comment(base) << ".dat\n"
    << gp_terminal(base, 900, int(std::max<size_t>(300, 120 + rows * 34)));
  g << "set title " << gp_label("why " + p.kernel + " at " + p.group + " (" + std::to_string(p.rounds) + " rounds)") << "\n"
    << "set xlabel " << gp_label("time of the neighbour / the kernel's (> 1: the kernel is faster), 95% interval") << "\n"
    << "set xrange [" << why_num(lo - pad) << ":" << why_num(hi + pad) << "]\n"
    << "set yrange [" << why_num(double(rows) - 0.4) << ":-0.6]   # largest effect on top\n"
    << "set ytics nomirror font \",10\"\n"
    << "set grid xtics lc rgb \"#dddddd\" lt 1\n"
    << "set style fill solid 0.6 border lc rgb \"#333333\"\n"
    << "set lmargin 34\n"
    << "unset key\n"
    << "set object 1 rect from " << why_num(1 / (1 + res)) << ", graph 0 to " << why_num(1 + res)
    << ", graph 1 fc rgb \"#eeeeee\" fs solid 1.0 noborder behind   # the tie zone: no effect\n"
    << "set arrow 1 from 1, graph 0 to 1, graph 1 nohead lc rgb \"#555555\"\n";
  g << "plot " << gp_string(base + ".dat")
    << " using ((1+$2)/2):($0):(abs($2-1)/2):(0.3):ytic(1) with boxxyerror lc rgb \"#1f77b4\", \\\n"
    << "  \"\" using 2:($0):3:4 with xerrorbars pt 7 ps 0.6 lc rgb \"#222222\"\n";
  f.gp = g.str();
  return f;
}

}  // namespace

std::vector<PlotFigure> explain_figures(const RunDoc& run, size_t first) {
  std::vector<PlotFigure> out;
  if (!run.context.explain) return out;
  const ExplainSection& s = *run.context.explain;
  for (const ExplainPoint& p : s.points) {
    if (out.size() == kMaxWhyFigures) break;
    if (std::none_of(p.effects.begin(), p.effects.end(), effect_measured)) continue;
    out.push_back(why_figure(p, s.resolution, "why-" + std::to_string(first + out.size())));
  }
  return out;
}

}  // namespace kex
