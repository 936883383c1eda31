#include "src/results/plot_heatmap.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "src/model/axis.hpp"
#include "src/model/kernel_names.hpp"
#include "src/model/spec.hpp"
#include "src/results/gnuplot_text.hpp"
#include "src/results/plot_parts.hpp"
#include "src/results/results.hpp"

namespace kex {

namespace {

/// The heatmap's .dat: a row per cell (x index, y index, value, the value as the cell
/// prints it; NaN and "-": not measured).
std::string heatmap_dat(const HeatmapData& h) {
  std::ostringstream d;
  d << "# kex heatmap: " << gp_comment(h.title) << "\n# cells: " << gp_comment(h.quantity) << "; NaN = not measured\n"
    << "# columns: x_index y_index value label   (x = " << gp_comment(h.xname) << ", y = " << gp_comment(h.yname)
    << ")\n";
  for (size_t y = 0; y < h.ys.size(); ++y) {
    for (size_t x = 0; x < h.xs.size(); ++x) {
      auto it = h.cells.find({x, y});
      char label[32] = "-";
      if (it != h.cells.end()) std::snprintf(label, sizeof label, "%.3g", it->second);
      d << x << " " << y << " " << (it == h.cells.end() ? std::string("NaN") : gp_number(it->second)) << " \"" << label << "\"\n";
    }
    d << "\n";
  }
  return d.str();
}

/// The two swept axes a heatmap shows: x is size when it is swept (bandwidth against
/// size reads left to right), y the other swept axis of bytes with the most values; every
/// other coordinate is a condition. opts.heatmap overrides. Fewer than two: no heatmaps.
std::vector<Axis> heatmap_axes(const RunDoc& d, const PlotOptions& opts) {
  if (opts.heatmap) return {opts.heatmap->first, opts.heatmap->second};
  std::vector<Coords> measured;
  for (const Result& r : d.results)
    if (r.ok() && r.point.at.harness == Harness::kex) measured.push_back(r.point.at);
  std::vector<std::pair<Axis, size_t>> cand;
  for (const Axis a : swept_axes(measured))
    if (axis_row(a).unit) {
      std::set<std::string> values;
      for (const auto& c : measured) values.insert(axis_value(c, a));
      cand.emplace_back(a, values.size());
    }
  std::stable_sort(cand.begin(), cand.end(), [](const auto& a, const auto& b) {
    if ((a.first == Axis::size) != (b.first == Axis::size)) return a.first == Axis::size;
    return a.second > b.second;
  });
  std::vector<Axis> axes;
  for (const auto& [a, n] : cand) axes.push_back(a);
  return axes;
}

/// One heatmap's cells: (kernel, the condition without the two axes) -> (x value, y value) -> GB/s.
struct Heat {
  std::string kernel, rest;
  std::map<std::pair<std::string, std::string>, double> cells;
  std::string stem;  ///< the kernel in a file name: from its parsed spec or baseline name, never the file's text
};

/// The kernel of `r` for a file name: a baseline's name (one kex knows), the canonical
/// name of a kernel's parsed spec, else "kernel" (a preset or a name from elsewhere).
std::string kernel_stem(const Result& r) {
  if (r.kind == KernelKind::baseline) {
    if (const auto b = parse_baseline_name(r.point.kernel)) return file_stem(baseline_name(b->base, b->fill));
  } else if (r.spec) {
    return file_stem(spec_name(*r.spec));
  }
  return "kernel";
}

/// The values of one axis a heatmap shows: text (what a cell is keyed by) and the number
/// it stands for (none for a word: "none", "whole").
using AxisValues = std::map<std::string, std::optional<double>>;

/// Axis values in numeric order, words ("none", "whole") first.
std::vector<std::string> axis_order(const AxisValues& values) {
  std::vector<std::pair<std::string, std::optional<double>>> v(values.begin(), values.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    if (a.second.has_value() != b.second.has_value()) return !a.second.has_value();
    return a.second ? *a.second < *b.second : a.first < b.first;
  });
  std::vector<std::string> out;
  for (const auto& [text, n] : v) out.push_back(text);
  return out;
}

/// Tic labels of an axis's values: sizes in binary units; far distances with the offset
/// within the page, which is what 4 KiB aliasing sees.
std::vector<std::string> axis_labels(Axis axis, const std::vector<std::string>& order, const AxisValues& values) {
  std::vector<std::string> labels;
  for (const std::string& s : order) {
    const std::optional<double> n = values.at(s);
    std::string l = s;
    if (axis == Axis::size && n && *n > 0) l = human_bytes(*n);
    if (axis == Axis::distance && n && (*n >= 4096 || *n <= -4096)) {
      const auto d = static_cast<long long>(*n);
      l += " (rel " + std::to_string(((d % 4096) + 4096) % 4096) + ")";
    }
    labels.push_back(l);
  }
  return labels;
}

/// What a heatmap's axis counts (the axes a heatmap picks have a unit; opts.heatmap may name another).
const char* axis_unit(Axis a) { return axis_row(a).unit ? axis_row(a).unit : "value"; }

/// Heatmaps of GB/s over two swept axes of the first run: one per kernel and condition, at most 48.
void add_heatmap_figures(const RunDoc& d, const PlotOptions& opts, const NameFilter& filter, std::vector<PlotFigure>& out) {
  const std::vector<Axis> axes = heatmap_axes(d, opts);
  if (axes.size() < 2) return;
  const Axis xa = axes[0], ya = axes[1];
  std::vector<Heat> heats;
  AxisValues xs_txt, ys_txt;
  for (const Result& r : d.results) {
    if (!r.ok() || r.point.at.harness != Harness::kex) continue;
    Coords rest = r.point.at;
    for (const Axis a : {xa, ya}) axis_row(a).reset(rest);
    rest.size = 0;
    const std::string restl = condition_label(rest), label = r.point.kernel + (restl.empty() ? "" : " @ " + restl);
    if (!filter.keep(label)) continue;
    auto it = std::find_if(heats.begin(), heats.end(), [&](const Heat& h) { return h.kernel == r.point.kernel && h.rest == restl; });
    // The condition's label is kex's, from the typed coordinates.
    if (it == heats.end())
      it = heats.insert(heats.end(), Heat{r.point.kernel, restl, {}, kernel_stem(r) + (restl.empty() ? "" : "-" + file_stem(restl))});
    const std::string xv = axis_value(r.point.at, xa), yv = axis_value(r.point.at, ya);
    it->cells[{xv, yv}] = median_gbps(r);
    xs_txt.emplace(xv, axis_row(xa).number(r.point.at));
    ys_txt.emplace(yv, axis_row(ya).number(r.point.at));
  }
  const auto xs = axis_order(xs_txt), ys = axis_order(ys_txt);
  const auto xl = axis_labels(xa, xs, xs_txt), yl = axis_labels(ya, ys, ys_txt);
  size_t n = 0;
  std::map<std::string, int> stems;  // a kernel under several conditions: -2, -3, ...
  for (const auto& h : heats) {
    if (++n > 48) break;  // a figure per kernel: enough to find the pattern; --filter picks others
    HeatmapData m;
    for (const auto& [xy, gbps] : h.cells) {
      const size_t xi = size_t(std::find(xs.begin(), xs.end(), xy.first) - xs.begin());
      const size_t yi = size_t(std::find(ys.begin(), ys.end(), xy.second) - ys.begin());
      m.cells[{xi, yi}] = gbps;
    }
    const std::string xn = axis_row(xa).name, yn = axis_row(ya).name;
    m.base = "heatmap-" + h.stem + "-by-" + file_stem(xn) + "-and-" + file_stem(yn);
    if (const int k = ++stems[m.base]; k > 1) m.base += "-" + std::to_string(k);
    m.title = h.kernel + (h.rest.empty() ? "" : " @ " + h.rest) + ": GB/s by " + xn + " and " + yn;
    m.xname = xn + " (" + axis_unit(xa) + ")";
    m.yname = yn + " (" + axis_unit(ya) + ")";
    m.quantity = "GB/s (1e9 bytes per second)";
    m.xs = xl;
    m.ys = yl;
    out.push_back(heatmap_figure(m));
  }
}

}  // namespace

PlotFigure heatmap_figure(const HeatmapData& h) {
  PlotFigure f;
  f.base = h.base;
  f.dat = heatmap_dat(h);
  double vmax = 0;
  for (const auto& [xy, v] : h.cells) vmax = std::max(vmax, v);
  const size_t nx = std::max<size_t>(h.xs.size(), 1), ny = std::max<size_t>(h.ys.size(), 1);
  const size_t ylabel = std::min<size_t>(longest_label(h.ys), 40);
  const int w = std::clamp(int(300 + 7 * ylabel + 56 * std::min<size_t>(nx, kMaxSide)), 700, kMaxSide),
            ht = std::clamp(int(240 + 28 * std::min<size_t>(ny, kMaxSide)), 420, kMaxSide);
  const bool numbers = double(w - 300 - 7 * int(ylabel)) / double(nx) >= 40 && double(ht - 240) / double(ny) >= 16;
  std::ostringstream g;
  g << "# kex: " << gp_comment(h.title) << ". Data: " << gp_comment(h.base) << ".dat\n" << gp_terminal(h.base, w, ht);
  g << "set title " << gp_label(h.title) << "\n"
    << "set xlabel " << gp_label(h.xname) << "\n"
    << "set ylabel " << gp_label(h.yname) << "\n"
    << "set cblabel " << gp_label(h.quantity) << "\n"
    << "set cbrange [0:" << gp_number(vmax > 0 ? vmax : 1) << "]\n"
    << (h.high_is_good ? "set palette defined (0 \"#440154\", 1 \"#3b528b\", 2 \"#21918c\", 3 \"#5ec962\", 4 \"#fde725\")\n"
                       : "set palette defined (0 \"#fde725\", 1 \"#5ec962\", 2 \"#21918c\", 3 \"#3b528b\", 4 \"#440154\")\n")
    << "set xrange [-0.5:" << gp_number(double(h.xs.size()) - 0.5) << "]\n"
    << "set yrange [" << gp_number(double(h.ys.size()) - 0.5) << ":-0.5]   # first row on top\n"
    << "set tics out nomirror\n";
  auto tics = [&](const char* axis, const std::vector<std::string>& v) {
    const size_t step = std::max<size_t>(1, v.size() / 40);
    g << "set " << axis << " (";
    for (size_t i = 0; i < v.size(); i += step) g << (i ? ", " : "") << gp_label(v[i]) << " " << i;
    g << ")" << (std::string(axis) == "xtics" ? " rotate by 45 right" : "") << "\n";
  };
  tics("xtics", h.xs);
  tics("ytics", h.ys);
  g << "plot " << gp_string(h.base + ".dat") << " using 1:2:3 with image notitle";
  if (numbers) {
    // White on dark cells: the low end for GB/s, the high end for ns (the palette is reversed).
    const std::string dark = h.high_is_good ? "$3 < " + gp_number(0.55 * vmax) : "$3 > " + gp_number(0.45 * vmax);
    g << ", \\\n  \"\" using 1:2:4:((" << dark << ") ? 16777215 : 0) with labels font \",9\" textcolor rgb variable notitle";
  }
  g << "\n";
  f.gp = g.str();
  return f;
}

std::vector<PlotFigure> heatmap_figures(const RunDoc& run, const PlotOptions& opts, const NameFilter& filter) {
  std::vector<PlotFigure> out;
  add_heatmap_figures(run, opts, filter, out);
  return out;
}

}  // namespace kex
