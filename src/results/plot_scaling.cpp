#include "src/results/plot_scaling.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "src/core/units.hpp"
#include "src/model/kernel_names.hpp"
#include "src/results/gnuplot_text.hpp"
#include "src/results/scaling.hpp"

namespace kex {

namespace {

/// The rows of one figure: one op and condition, in size order.
struct ScalingFigure {
  Op op = Op::copy;
  std::string condition;
  std::string machine;  ///< host and CPU the run measured on (from the file: gp_string only)
  std::vector<const ScalingRow*> rows;
};

std::string figure_base(const ScalingFigure& f) {
  const std::string stem = file_stem(f.condition, 64);  // kex's own condition label, made a file name
  return "scaling-" + std::string(to_string(f.op)) + (stem.empty() ? "" : "-" + stem);
}

/// The .dat: a block per row (curve), `threads aggregate per_thread speedup`.
std::string scaling_dat(const ScalingFigure& f) {
  std::ostringstream d;
  d << "# kex scaling: aggregate GB/s by threads, " << to_string(f.op) << (f.condition.empty() ? "" : " ")
    << gp_comment(f.condition) << "\n# columns: threads aggregate_gbps per_thread_gbps speedup_over_1_thread\n";
  for (size_t i = 0; i < f.rows.size(); ++i) {
    const ScalingRow& r = *f.rows[i];
    d << (i ? "\n\n" : "") << "# " << gp_comment(r.kernel) << " at " << format_bytes(r.size) << " per worker\n";
    for (const auto& c : r.cells)
      d << c.threads << " " << gp_number(c.gbps) << " " << gp_number(c.per_thread) << " " << gp_number(c.speedup) << "\n";
  }
  return d.str();
}

/// One panel: the curves of one size, and perfect scaling from its fastest 1-thread figure.
std::string scaling_panel(const ScalingFigure& f, uint64_t size, const std::string& dat) {
  std::ostringstream g;
  double best1 = 0;
  std::vector<size_t> idx;
  for (size_t i = 0; i < f.rows.size(); ++i)
    if (f.rows[i]->size == size) {
      idx.push_back(i);
      for (const auto& c : f.rows[i]->cells)
        if (c.threads == 1) best1 = std::max(best1, c.gbps);
    }
  g << "set title " << gp_label(format_bytes(size) + " per worker") << "\n";
  g << "plot ";
  if (best1 > 0) g << gp_number(best1) << "*x with lines dt 2 lw 2 lc rgb \"#999999\" title \"perfect scaling\", \\\n     ";
  for (size_t k = 0; k < idx.size(); ++k) {
    const ScalingRow& r = *f.rows[idx[k]];
    g << gp_string(dat) << " index " << idx[k] << " using 1:2 with linespoints lw 2 pt 7 lc rgb \"" << gp_color(k)
      << "\" dt " << 1 + int(k / 12) % 4 << " title " << gp_label(r.kernel) << (k + 1 < idx.size() ? ", \\\n     " : "\n");
  }
  return g.str();
}

std::string scaling_gp(const ScalingFigure& f, const std::string& base) {
  std::vector<uint64_t> sizes;
  uint32_t most = 1;
  size_t per_panel = 0;
  std::map<uint64_t, size_t> count;
  for (const ScalingRow* r : f.rows) {
    if (std::find(sizes.begin(), sizes.end(), r->size) == sizes.end()) sizes.push_back(r->size);
    for (const auto& c : r->cells) most = std::max(most, c.threads);
    per_panel = std::max(per_panel, ++count[r->size]);
  }
  const int w = int(720 * sizes.size()), h = int(std::max<size_t>(560, 460 + 17 * per_panel));
  std::ostringstream g;
  g << "# kex: aggregate GB/s by threads. Data: " << gp_comment(base) << ".dat\n" << gp_terminal(base, w, h);
  g << "set multiplot layout 1," << sizes.size() << " title "
    << gp_label(std::string(to_string(f.op)) + " scaling" + (f.condition.empty() ? "" : " (" + f.condition + ")") +
                 ": aggregate GB/s (bytes of every worker) against threads\n" + f.machine)
    << "\n"
    << "set xlabel \"threads\"\nset ylabel \"GB/s (1e9 B/s), all workers\"\n"
    << "set xrange [0.8:" << most << ".2]\nset xtics 1\nset yrange [0:*]\nset grid lc rgb \"#dddddd\"\n"
    << "set key below vertical font \",9\"\n";
  for (uint64_t s : sizes) g << scaling_panel(f, s, base + ".dat");
  g << "unset multiplot\n";
  return g.str();
}

}  // namespace

std::vector<PlotFigure> scaling_figures(const RunDoc& run, const NameFilter& filter) {
  const std::vector<ScalingRow> rows = scaling_rows(run);
  std::vector<ScalingFigure> figs;
  for (const ScalingRow& r : rows) {
    const auto& names = baseline_names();
    const bool baseline = std::find(names.begin(), names.end(), r.kernel) != names.end();
    if (!baseline && !filter.keep(r.kernel + (r.condition.empty() ? "" : " @ " + r.condition))) continue;
    auto it = std::find_if(figs.begin(), figs.end(), [&](const ScalingFigure& f) { return f.op == r.op && f.condition == r.condition; });
    if (it == figs.end())
      it = figs.insert(figs.end(), ScalingFigure{r.op, r.condition, run.context.host_name + " (" +
                                                                        run.context.machine.cpu_model + ")", {}});
    it->rows.push_back(&r);
  }
  std::vector<PlotFigure> out;
  for (const ScalingFigure& f : figs) {
    const std::string base = figure_base(f);
    out.push_back({base, scaling_dat(f), scaling_gp(f, base)});
  }
  return out;
}

}  // namespace kex
