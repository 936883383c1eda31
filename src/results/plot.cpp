#include "src/results/plot.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/core/atomic_write.hpp"
#include "src/core/error.hpp"
#include "src/core/terminal_text.hpp"
#include "src/results/gnuplot_text.hpp"
#include "src/results/plot_explain.hpp"
#include "src/results/plot_scaling.hpp"
#include "src/results/plot_speedup.hpp"
#include "src/results/render.hpp"
#include "src/model/filter.hpp"
#include "src/model/kernel_names.hpp"
#include "src/model/spec.hpp"
#include "src/results/results.hpp"

namespace kex {

namespace fs = std::filesystem;

namespace {

struct Pt {
  double size, median, best, p10, p90;
};

struct CurveData {
  std::string label;
  bool baseline = false;
  std::string key;    ///< kernel and condition, without the run: pairs curves across runs
  std::string panel;  ///< register class; "" for a libc baseline (drawn in every panel)
  size_t run = 0;
  std::vector<Pt> pts;
  double score() const {  // geometric mean of median GB/s
    double s = 0;
    for (const auto& p : pts) s += std::log(std::max(p.median, 1e-12));
    return pts.empty() ? 0 : std::exp(s / double(pts.size()));
  }
};

struct Run {
  const RunDoc* doc = nullptr;
  std::string label;
};

/// Figures stay within what Cairo renders and a screen shows: a key lists at most
/// kMaxKeyRows curves per panel (the others are drawn without an entry and a label
/// says how many), a bar chart shows at most kMaxBarRows rows (the .dat keeps all),
/// a heatmap's cells shrink to fit kMaxSide pixels.
constexpr size_t kMaxKeyRows = 100;
constexpr size_t kMaxBarRows = 200;
constexpr int kMaxSide = 4000;


/// Which files a figure named `base` produces.
std::vector<std::string> figure_files(const std::string& dir, const std::string& base, bool render) {
  std::vector<std::string> v{dir + "/" + base + ".dat", dir + "/" + base + ".gp"};
  if (render) {
    v.push_back(dir + "/" + base + ".png");
    v.push_back(dir + "/" + base + ".svg");
  }
  return v;
}

using Figure = PlotFigure;

/// Longest row name in characters (UTF-8 continuation bytes not counted).
size_t longest_label(const std::vector<std::string>& rows) {
  size_t m = 0;
  for (const auto& r : rows) {
    size_t n = 0;
    for (unsigned char c : r) n += (c & 0xc0) != 0x80;
    m = std::max(m, n);
  }
  return m;
}

/// Short binary tic label from human_bytes: 256, 4K, 64K, 1M, 1G.
std::string short_bytes(double b) {
  std::string out;
  for (char c : human_bytes(b))
    if (c != ' ' && c != 'i' && c != 'B') out += c;
  return out;
}

/// Which panel a curve is drawn in: its register class ("sse", "avx", "string"
/// for rep-string baselines); "" for libc baselines, drawn in every panel.
std::string panel_of(const Result& r) {
  if (r.libc) return "";
  if (r.spec) return std::string(to_string(r.spec->regs));
  if (r.preset) return r.preset->id.substr(0, r.preset->id.find('/')) + " presets";  // by family of origin
  return "other";
}

/// The envelope of each run: the highest median GB/s over every curve of the run at each size.
std::vector<CurveData> envelopes(const std::vector<CurveData>& curves, const std::vector<Run>& runs) {
  std::vector<CurveData> env;
  for (size_t r = 0; r < runs.size(); ++r) {
    std::map<double, double> best;
    for (const auto& c : curves)
      if (c.run == r)
        for (const auto& p : c.pts) best[p.size] = std::max(best[p.size], p.median);
    if (best.empty()) continue;
    CurveData e;
    e.label = "best of all kernels per size (envelope)" + (runs.size() > 1 ? " @ " + runs[r].label : "");
    e.run = r;
    for (const auto& [s, g] : best) e.pts.push_back({s, g, g, g, g});
    env.push_back(e);
  }
  return env;
}

/// What happened to each byte an op counts ("copied", "cleared", "read"), by its word.
std::string done_word(const std::string& op) {
  const auto o = parse_op(op);
  return o ? op_info(*o).done : "moved";
}

/// The .dat text: one block per curve, then one per envelope (gnuplot `index N`).
std::string bandwidth_dat(const std::string& op, const std::string& cache, const std::vector<CurveData>& curves,
                          const std::vector<CurveData>& env, bool ratio) {
  std::ostringstream d;
  d << "# kex " << (ratio ? "speedup curves (B GB/s / A GB/s)" : "bandwidth curves") << ": " << op << ", cache " << cache << "\n"
    << "# GB/s = 10^9 bytes per second; each byte " << done_word(op) << " counted once\n"
    << "# one block per curve (gnuplot `index N`); columns:\n"
    << (ratio ? "# size_bytes ratio ratio_of_best ratio_of_p10 ratio_of_p90\n"
              : "# size_bytes median_gbps best_gbps p10_gbps p90_gbps\n");
  size_t block = 0;
  auto write_block = [&](const CurveData& c, const char* what) {
    if (block) d << "\n\n";
    d << "# index " << block++ << ": " << gp_comment(c.label + what) << "\n";
    for (const auto& p : c.pts)
      d << gp_number(p.size) << " " << gp_number(p.median) << " " << gp_number(p.best) << " " << gp_number(p.p10) << " " << gp_number(p.p90) << "\n";
  };
  for (const auto& c : curves) write_block(c, c.baseline ? " (baseline)" : "");
  for (const auto& e : env) write_block(e, "");
  return d.str();
}

/// The x axis: powers of two from below the smallest size to above the largest,
/// a tic every `step` powers; the y range of the medians.
struct FigureAxes {
  double lo = 0, hi = 0, ymin = INFINITY, ymax = 0;
  int span = 0, step = 1;
};

FigureAxes bandwidth_axes(const std::vector<CurveData>& curves) {
  FigureAxes a;
  double xmin = INFINITY, xmax = 0;
  for (const auto& c : curves)
    for (const auto& p : c.pts) {
      xmin = std::min(xmin, p.size);
      xmax = std::max(xmax, p.size);
      a.ymax = std::max(a.ymax, p.median);
      a.ymin = std::min(a.ymin, p.median);
    }
  a.lo = std::exp2(std::floor(std::log2(xmin)));
  a.hi = std::exp2(std::ceil(std::log2(xmax)));
  if (a.hi <= a.lo) a.hi = a.lo * 2;
  a.span = int(std::lround(std::log2(a.hi / a.lo)));
  a.step = a.span <= 12 ? 1 : a.span <= 24 ? 2 : 4;
  return a;
}

/// Panels: one per register class in name order ("" alone when only baselines).
std::vector<std::string> panel_names(const std::vector<CurveData>& curves) {
  std::vector<std::string> panels;
  for (const auto& c : curves)
    if (!c.panel.empty() && std::find(panels.begin(), panels.end(), c.panel) == panels.end()) panels.push_back(c.panel);
  std::sort(panels.begin(), panels.end());
  if (panels.empty()) panels.push_back("");
  return panels;
}

/// The terminal: a panel's width fits its longest key entry, its height its key rows.
std::string bandwidth_terminal(const std::string& base, const std::vector<std::string>& panels,
                               const std::vector<CurveData>& curves, const std::vector<CurveData>& env, size_t cols,
                               size_t rows) {
  size_t most = 0;  // legend rows of the fullest panel
  size_t longest = 0;
  for (const auto& p : panels) {
    size_t n = env.size();
    for (const auto& c : curves)
      if (c.panel == p || c.panel.empty()) {
        ++n;
        longest = std::max(longest, c.label.size());
      }
    most = std::max(most, n);
  }
  for (const auto& e : env) longest = std::max(longest, e.label.size());
  const int key_w = int(std::min<size_t>(longest, 60) * 7 + 60);
  const int pw = 620 + key_w, ph = std::max(460, int(130 + 16 * std::min(most, kMaxKeyRows)));
  return gp_terminal(base, int(cols) * pw, int(rows) * ph + 60);
}

/// Labels, ranges, tics, grid and key of the bandwidth (or speedup) axes.
std::string bandwidth_axes_text(const std::string& op, const FigureAxes& a, bool ratio) {
  std::ostringstream g;
  const std::string what = done_word(op);
  g << "set xlabel " << gp_label("size (bytes " + what + " per call, log2)") << "\n"
    << "set ylabel " << gp_label(ratio ? "speedup (B GB/s / A GB/s)" : "GB/s (1e9 bytes " + what + "/s)") << "\n"
    << "set logscale x 2\n"
    << "set xrange [" << gp_number(a.lo) << ":" << gp_number(a.hi) << "]\n"
    // Bandwidth from 0; speedups around 1, fitted to the data so a 3% effect is visible.
    << (ratio ? "set yrange [" +
                    gp_number(std::min(a.ymin, 1.0) - 0.1 * std::max(0.05, std::max(a.ymax, 1.0) - std::min(a.ymin, 1.0))) +
                    ":" + gp_number(std::max(a.ymax, 1.0) + 0.1 * std::max(0.05, std::max(a.ymax, 1.0) - std::min(a.ymin, 1.0))) +
                    "]\n"
              : "set yrange [0:" + gp_number(a.ymax * 1.1) + "]\n")
    << "set xtics (";
  for (int e = 0; e <= a.span; e += a.step) {
    double v = a.lo * std::exp2(e);
    g << (e ? ", " : "") << gp_label(short_bytes(v)) << " " << gp_number(v);
  }
  g << ")\n"
    << "set mxtics default\n"
    << "set grid xtics ytics lc rgb \"#dddddd\" lt 1\n"
    << "set key outside right top vertical Left reverse width 1 font \",9\"\n";
  if (ratio) g << "set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 1.5 lc rgb \"#000000\" back\n";
  return g.str();
}

/// Cache markers where the working set crosses a cache (copies touch src + dst, 2 x
/// size); the caches beyond the sizes measured named in one label.
std::string cache_markers(const std::string& op, const std::vector<Run>& runs, double lo, double hi) {
  std::ostringstream g;
  std::set<std::pair<std::string, double>> drawn;
  std::vector<std::string> offchart;
  for (size_t r = 0; r < runs.size(); ++r)
    for (const auto& [name, bytes] : cache_marks(runs[r].doc->context.machine)) {
      if (!drawn.insert({name, bytes}).second) continue;
      const double x = op == "copy" ? bytes / 2 : bytes;
      std::string text = name + (op == "copy" ? " (src+dst = " : " (") + human_bytes(bytes) + ")" +
                         (runs.size() > 1 && r > 0 ? " " + runs[r].label : "");
      if (x < lo || x > hi) {
        offchart.push_back(text);
        continue;
      }
      g << "set arrow from " << gp_number(x) << ", graph 0 to " << gp_number(x)
        << ", graph 1 nohead dt 3 lw 1.5 lc rgb \"#777777\" back\n"
        << "set label " << gp_label(text) << " at " << gp_number(x)
        << ", graph 0.98 right rotate by 90 offset character -0.8,0 font \",9\" textcolor rgb \"#444444\" front\n";
    }
  if (!offchart.empty()) {
    std::string t = "beyond the sizes measured: ";
    for (size_t i = 0; i < offchart.size(); ++i) t += (i ? ", " : "") + offchart[i];
    g << "set label " << gp_label(t) << " at graph 0.99, graph 0.02 right font \",9\" textcolor rgb \"#444444\" front\n";
  }
  return g.str();
}

/// The figure's title line: the hosts of the runs, or which run is A and which B.
std::string bandwidth_hosts(const std::vector<Run>& runs, bool ratio) {
  std::string hosts;
  if (ratio) {
    hosts = "speedup = B throughput / A throughput, > 1: B faster; A = " + runs.front().label + ", B = ";
    for (size_t i = 1; i < runs.size(); ++i) hosts += (i > 1 ? ", " : "") + runs[i].label;
  } else {
    for (size_t i = 0; i < runs.size() && i < 3; ++i) hosts += (i ? "; " : "") + runs[i].label;
    if (runs.size() > 3) hosts += "; ...";
  }
  return hosts;
}

/// One panel's plot command: the envelopes, the libc baselines (black, dashed) and its
/// register class's curves. Colour by kernel (the same kernel in every run alike),
/// dash type by run; one run: colour and dash type both vary so no two curves in a
/// panel look alike. At most kMaxKeyRows key entries. `bands`: each curve over the
/// band of its p10..p90 GB/s.
std::string bandwidth_panel(const std::string& base, const std::string& panel, const std::vector<CurveData>& curves,
                            const std::vector<CurveData>& env, size_t runs, bool bands) {
  std::ostringstream g;
  const size_t nc = curves.size();
  std::vector<std::string> kernels;
  for (const auto& c : curves)
    if (c.panel == panel && !c.panel.empty() && std::find(kernels.begin(), kernels.end(), c.key) == kernels.end())
      kernels.push_back(c.key);
  g << "set title " << gp_label(panel.empty() ? "baselines" : panel == "string" ? "string (rep movs/stos)" : panel) << "\n";
  std::vector<std::string> items;
  size_t titled = 0;
  auto title = [&](const std::string& t) {
    return ++titled <= kMaxKeyRows ? " title " + gp_label(t) : std::string(" notitle");
  };
  for (size_t e = 0; e < env.size(); ++e)
    items.push_back(gp_string(base + ".dat") + " index " + std::to_string(nc + e) +
                    " using 1:2 with lines lc rgb \"#b0b0b0\" lw 7 dt " + std::to_string(1 + int(env[e].run) % 4) +
                    title(env[e].label));
  for (size_t i = 0; i < nc; ++i) {
    const auto& c = curves[i];
    // Each curve's spread: the band between its p10 and p90 GB/s (columns 4 and 5), under the line.
    auto band = [&](const char* colour) {
      items.push_back(gp_string(base + ".dat") + " index " + std::to_string(i) +
                      " using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb \"" + colour +
                      "\" notitle");
    };
    if (c.panel.empty()) {  // libc baseline: black, dashed, open circles
      if (bands) band("#000000");
      items.push_back(gp_string(base + ".dat") + " index " + std::to_string(i) +
                      " using 1:2 with linespoints lc rgb \"#000000\" lw 2.5 dt " +
                      std::to_string(2 + 2 * (int(c.run) % 2)) + " pt 6 ps 0.8" + title(c.label + " (libc)"));
      continue;
    }
    if (c.panel != panel) continue;
    const size_t k = size_t(std::find(kernels.begin(), kernels.end(), c.key) - kernels.begin());
    const int dt = runs > 1 ? 1 + int(c.run) % 4 : 1 + int(k / kGpColors) % 4;
    if (bands) band(gp_color(k));
    items.push_back(gp_string(base + ".dat") + " index " + std::to_string(i) + " using 1:2 with linespoints lc rgb \"" +
                    gp_color(k) + "\" lw 2 dt " + std::to_string(dt) + " pt " +
                    std::to_string(1 + int(k) % 13) + " ps 0.6" + title(c.label));
  }
  if (titled > kMaxKeyRows)
    g << "set label 99 " << gp_label(std::to_string(titled - kMaxKeyRows) + " more curves have no key entry (--best N or --filter picks fewer)")
      << " at graph 0.01, graph 0.98 left font \",9\" textcolor rgb \"#444444\" front\n";
  g << "plot \\\n";
  for (size_t i = 0; i < items.size(); ++i) g << "  " << items[i] << (i + 1 < items.size() ? ", \\\n" : "\n");
  if (titled > kMaxKeyRows) g << "unset label 99\n";
  return g.str();
}

/// Small multiples of one op and cache mode: a panel per register class (via
/// gnuplot multiplot), each with its curves sorted by name in distinct colour and
/// dash type pairs, the libc baselines (black, dashed) and the best-per-size
/// envelope (thick grey) of every run; cache markers where the working set
/// (copy: src + dst = 2 x size) equals L1d/L2/LLC. `ratio`: the curves are
/// speedups (B / A) instead of GB/s, with a y = 1 reference line, no envelope.
Figure bandwidth_figure(const std::string& base, const std::string& op, const std::string& cache, bool presets,
                        std::vector<CurveData> curves, const std::vector<Run>& runs, bool ratio) {
  Figure f;
  f.base = base;
  std::stable_sort(curves.begin(), curves.end(), [](const CurveData& a, const CurveData& b) { return a.label < b.label; });
  const std::vector<CurveData> env = ratio ? std::vector<CurveData>{} : envelopes(curves, runs);
  f.dat = bandwidth_dat(op, cache, curves, env, ratio);
  const std::vector<std::string> panels = panel_names(curves);
  const FigureAxes axes = bandwidth_axes(curves);
  const size_t cols = panels.size() == 1 ? 1 : 2, rows = (panels.size() + cols - 1) / cols;
  std::ostringstream g;
  g << "# kex: " << op << (ratio ? " speedup" : " bandwidth") << " against size, cache " << cache << ". Data: " << f.base << ".dat\n"
    << bandwidth_terminal(f.base, panels, curves, env, cols, rows) << bandwidth_axes_text(op, axes, ratio)
    << cache_markers(op, runs, axes.lo, axes.hi);
  const std::string title = std::string(presets ? "named presets by family of origin, libc dashed: " : "") + op +
                            (ratio ? " speedup, " : " bandwidth, ") +
                            cache + " cache, median per size\n" + bandwidth_hosts(runs, ratio);
  g << "set multiplot layout " << rows << "," << cols << " title " << gp_label(title) << " font \",12\"\n";
  for (const auto& panel : panels) g << bandwidth_panel(f.base, panel, curves, env, runs.size(), !ratio);
  g << "unset multiplot\n";
  f.gp = g.str();
  return f;
}

/// Horizontal bar chart of one value per (row label, run): clustered when several runs.
Figure bar_figure(const std::string& base, const std::string& title, const std::string& xlabel,
                  const std::vector<std::string>& rows, const std::vector<std::string>& run_labels,
                  const std::map<std::pair<std::string, size_t>, double>& values, const std::string& comment) {
  Figure f;
  f.base = base;
  std::ostringstream d;
  d << "# kex " << gp_comment(comment) << "\n# columns: label";
  for (size_t r = 0; r < run_labels.size(); ++r) d << " " << dat_string(run_labels[r]);
  d << "   (NaN: not measured in that run)\n";
  double vmax = 0;
  for (const auto& row : rows) {
    d << dat_string(row);
    for (size_t r = 0; r < run_labels.size(); ++r) {
      auto it = values.find({row, r});
      if (it == values.end()) {
        d << " NaN";
      } else {
        d << " " << gp_number(it->second);
        vmax = std::max(vmax, it->second);
      }
    }
    d << "\n";
  }
  f.dat = d.str();

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

/// What a heatmap shows: its file stem, title, axis names, the tic labels of its
/// columns (x) and rows (y), the quantity of its cells with their unit (the colour
/// box's label), and the cells by (column, row). `high_is_good`: bright cells for
/// high values (GB/s); else bright for low ones (ns).
struct HeatmapData {
  std::string base, title, xname, yname, quantity;
  std::vector<std::string> xs, ys;
  std::map<std::pair<size_t, size_t>, double> cells;
  bool high_is_good = true;
};

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

/// A heatmap on an index grid (gnuplot `with image`), the axes' values as tic labels
/// and each cell's value printed in it (white on dark cells, black on bright ones)
/// while the cells are wide enough for a number.
Figure heatmap_figure(const HeatmapData& h) {
  Figure f;
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

bool is_executable(const std::string& p) { return ::access(p.c_str(), X_OK) == 0; }

}  // namespace

std::string find_gnuplot() {
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::string p = path;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    const std::string d = p.substr(start, end - start);
    // Only absolute entries: gnuplot runs in the figure folder, where "./gnuplot" (an
    // empty or relative PATH entry) would be whatever file is there, not the one found here.
    if (!d.empty() && d[0] == '/' && is_executable(d + "/gnuplot")) return d + "/gnuplot";
    start = end + 1;
  }
  return "";
}

namespace {

/// The runs to draw, each with its label (--label, else host and CPU), labels made distinct.
std::vector<Run> labelled_runs(const std::vector<RunDoc>& docs, const PlotOptions& opts) {
  if (opts.best < 0) throw InputError("--best: " + std::to_string(opts.best) + ": a count >= 0 is needed (0: all)");
  if (!opts.labels.empty() && opts.labels.size() != docs.size())
    throw InputError("--label: " + std::to_string(opts.labels.size()) + " labels for " + std::to_string(docs.size()) +
                     " runs: give one label per results file");
  if (opts.ratio && docs.size() < 2)
    throw InputError("--ratio: needs two results files (B / A: the second against the first)");
  std::vector<Run> runs;
  for (size_t i = 0; i < docs.size(); ++i)
    runs.push_back({&docs[i], opts.labels.empty() ? run_label(docs[i].context) : opts.labels[i]});
  std::map<std::string, int> seen;  // two runs with one host label: "#2"
  for (auto& r : runs)
    if (int n = seen[r.label]++; n > 0) r.label += " #" + std::to_string(n + 1);
  return runs;
}

/// What the figures draw, gathered from every run in one pass.
struct Gathered {
  /// (op, cache, presets?, threads) -> curves in first-seen order; presets get figures of
  /// their own, and so does each thread count (aggregate GB/s beside one thread's would
  /// make the envelope and the baselines mean two things).
  using FigKey = std::tuple<Op, CacheMode, bool, uint32_t>;
  std::vector<FigKey> fig_order;
  std::map<FigKey, std::vector<CurveData>> figs;
  std::map<FigKey, std::map<std::string, size_t>> index;
  /// Bars at one page: presets (by id, clears and copies apart) with the baselines beside them.
  std::map<Op, std::vector<std::string>> bar_rows;
  std::map<Op, std::map<std::pair<std::string, size_t>, double>> bar_vals;
  std::vector<std::string> seg_rows;
  std::map<std::pair<std::string, size_t>, double> seg_vals;
};

/// A point at one page and default conditions (the seeds' unit): a bar of TSC ticks per
/// page. Returns true when the point is drawn as a bar only (a preset). A preset the
/// filter does not keep (by its kernel key) is left out; baselines stay, as on curves.
bool add_bar(Gathered& g, const Result& r, size_t run, const Aggregate& a, const NameFilter& filter) {
  const Coords& at = r.point.at;
  Coords page;
  page.size = 4096;
  page.harness = at.harness;
  page.pass = at.pass;
  if (at != page || !(r.kind == KernelKind::preset || (r.kind == KernelKind::baseline && at.harness == Harness::kex)))
    return false;
  if (r.kind == KernelKind::preset && !filter.keep(r.point.kernel)) return true;
  std::string row = r.preset ? r.preset->printed + "  (" + r.preset->id + ")" : r.point.kernel + "  (baseline)";
  if (at.harness != Harness::kex) row += " [" + std::string(to_string(at.harness)) + "]";
  if (at.pass > 1) row += " #" + std::to_string(at.pass);
  auto& rows = g.bar_rows[r.op];
  if (std::find(rows.begin(), rows.end(), row) == rows.end()) rows.push_back(row);
  g.bar_vals[r.op][{row, run}] = a.median_ns * r.tsc_hz / 1e9;
  return r.kind == KernelKind::preset;
}

/// A point of kex's harness on its curve: one curve per kernel and condition (and run,
/// with several). The filter sees the kernel and condition, never the run's label, so
/// one pattern keeps the same curves of one file or of several; baselines always stay.
void add_curve_point(Gathered& g, const Result& r, const Run& run, size_t ri, bool multi, const NameFilter& filter,
                     const Aggregate& a) {
  const Coords& at = r.point.at;
  const bool baseline = r.kind == KernelKind::baseline;
  std::string label = r.point.kernel;
  Coords cond = condition(at);
  cond.cache = CacheMode::warm;
  if (const std::string c = condition_label(cond); !c.empty()) label += " @ " + c;
  const std::string key = label;
  if (!baseline && !filter.keep(key)) return;
  if (multi) label += " @ " + run.label;
  const uint64_t moved = moved_bytes(at);  // every worker's bytes
  const Pt pt{double(at.size), gbps_at(moved, a.median_ns), gbps_at(moved, a.min_ns), gbps_at(moved, a.p90_ns),
               gbps_at(moved, a.p10_ns)};
  auto add = [&](const Gathered::FigKey& fk) {
    if (!g.figs.count(fk)) g.fig_order.push_back(fk);
    auto& curves = g.figs[fk];
    auto [it, fresh] = g.index[fk].emplace(label, curves.size());
    if (fresh) curves.push_back(CurveData{label, baseline, key, panel_of(r), ri, {}});
    curves[it->second].pts.push_back(pt);
  };
  add(Gathered::FigKey(r.op, at.cache, r.kind == KernelKind::preset, at.threads));
  // libc (of zeros, for clears) beside the presets too, as the seeds measured against it
  if (r.libc && r.libc->fill == 0 && at.threads == 1) add(Gathered::FigKey(r.op, at.cache, true, 1u));
}

/// Whether a segment case is one of the table's loops (the 2006 loop, the mixed one and
/// the loop without segment work), drawn in the heatmap; the modern costs are bars.
bool segment_loop(const SegmentCase& c) { return c.variant == "baseline" || c.variant == "2006" || c.variant == "mixed"; }

/// The segment table's measured modern costs: a bar of ns per iteration each.
void add_segments(Gathered& g, const RunContext& c, size_t ri) {
  if (!c.segments) return;
  for (const SegmentCase& s : c.segments->cases) {
    if (!s.measured() || segment_loop(s)) continue;
    if (std::find(g.seg_rows.begin(), g.seg_rows.end(), s.name) == g.seg_rows.end()) g.seg_rows.push_back(s.name);
    g.seg_vals[{s.name, ri}] = *s.ns_per_iteration;
  }
}

Gathered gather(const std::vector<Run>& runs, const NameFilter& filter) {
  Gathered g;
  for (size_t ri = 0; ri < runs.size(); ++ri) {
    for (const Result& r : runs[ri].doc->results) {
      if (!r.ok()) continue;
      const Aggregate a = aggregate(r);
      // A preset at one page is a bar and a point of its curve.
      if ((add_bar(g, r, ri, a, filter) && r.kind != KernelKind::preset) || r.point.at.harness != Harness::kex) continue;
      add_curve_point(g, r, runs[ri], ri, runs.size() > 1, filter, a);
    }
    if (!filter.re) add_segments(g, runs[ri].doc->context, ri);  // the table has no kernel names to match
  }
  return g;
}

/// One point per size (the last one written wins), in size order.
void one_point_per_size(CurveData& c) {
  std::stable_sort(c.pts.begin(), c.pts.end(), [](const Pt& a, const Pt& b) { return a.size < b.size; });
  std::vector<Pt> u;
  for (const auto& p : c.pts) {
    if (!u.empty() && u.back().size == p.size) u.back() = p;
    else u.push_back(p);
  }
  c.pts = std::move(u);
}

/// --best N: the N generated curves with the highest geometric-mean GB/s, and every baseline.
std::vector<CurveData> best_curves(std::vector<CurveData> curves, int best) {
  if (best <= 0) return curves;
  std::vector<size_t> gen;
  for (size_t i = 0; i < curves.size(); ++i)
    if (!curves[i].baseline) gen.push_back(i);
  std::stable_sort(gen.begin(), gen.end(), [&](size_t a, size_t b) { return curves[a].score() > curves[b].score(); });
  std::set<size_t> keep(gen.begin(), gen.begin() + std::min<size_t>(gen.size(), size_t(best)));
  std::vector<CurveData> kept;
  for (size_t i = 0; i < curves.size(); ++i)
    if (curves[i].baseline || keep.count(i)) kept.push_back(curves[i]);
  return kept;
}

/// B / A per kernel and size: each curve of run r > 0 against the same kernel and condition in run 0.
std::vector<CurveData> ratio_curves(const std::vector<CurveData>& curves, size_t runs) {
  std::vector<CurveData> ratios;
  for (const auto& c : curves) {
    if (c.run == 0) continue;
    auto a = std::find_if(curves.begin(), curves.end(), [&](const CurveData& x) { return x.run == 0 && x.key == c.key; });
    if (a == curves.end()) continue;
    CurveData q = c;
    q.pts.clear();
    for (const auto& p : c.pts)
      for (const auto& pa : a->pts)
        if (pa.size == p.size && pa.median > 0)
          q.pts.push_back({p.size, p.median / pa.median, pa.best > 0 ? p.best / pa.best : 0,
                           pa.p10 > 0 ? p.p10 / pa.p10 : 0, pa.p90 > 0 ? p.p90 / pa.p90 : 0});
    if (runs == 2) q.label = q.key;
    if (!q.pts.empty()) ratios.push_back(std::move(q));
  }
  return ratios;
}

/// A presets figure's libc curves at the sizes the presets ran only (libc runs the
/// whole sweep; the presets a few sizes from one page up).
void libc_within_presets(std::vector<CurveData>& curves) {
  double lo = INFINITY, hi = 0;
  for (const auto& c : curves)
    if (!c.baseline)
      for (const auto& p : c.pts) {
        lo = std::min(lo, p.size);
        hi = std::max(hi, p.size);
      }
  for (auto& c : curves)
    if (c.baseline)
      c.pts.erase(std::remove_if(c.pts.begin(), c.pts.end(), [&](const Pt& p) { return p.size < lo || p.size > hi; }),
                  c.pts.end());
  curves.erase(std::remove_if(curves.begin(), curves.end(), [](const CurveData& c) { return c.pts.empty(); }),
               curves.end());
}

/// The bandwidth figures (and with --ratio the speedup ones), one per op, cache mode and presets.
void bandwidth_figures(const Gathered& g, const std::vector<Run>& runs, const PlotOptions& opts,
                       const NameFilter& filter, std::vector<Figure>& out) {
  for (const auto& key : g.fig_order) {
    std::vector<CurveData> curves = g.figs.at(key);
    for (auto& c : curves) one_point_per_size(c);
    curves = best_curves(std::move(curves), opts.best);
    const bool any_generated = std::any_of(curves.begin(), curves.end(), [](const CurveData& c) { return !c.baseline; });
    const auto& [op_kind, cache_mode, presets, threads] = key;
    if (curves.empty() || (!any_generated && (filter.re || presets))) continue;
    if (presets) libc_within_presets(curves);
    const std::string op(to_string(op_kind)), cache(to_string(cache_mode));
    const std::string base =
        op + "-" + cache + (presets ? "-presets" : "") + (threads > 1 ? "-threads-" + std::to_string(threads) : "");
    if (opts.ratio)
      if (auto ratios = ratio_curves(curves, runs.size()); !ratios.empty())
        out.push_back(bandwidth_figure("ratio-" + base, op, cache, presets, std::move(ratios), runs, true));
    out.push_back(bandwidth_figure(base, op, cache, presets, std::move(curves), runs, false));
  }
}

/// The two swept axes a heatmap shows: x is size when it is swept (bandwidth against
/// size reads left to right), y the other swept axis with the most values; every other
/// coordinate is a condition. --heatmap X,Y overrides. Fewer than two: no heatmaps.
std::vector<std::string> heatmap_axes(const RunDoc& d, const PlotOptions& opts) {
  if (!opts.heatmap.first.empty()) return {opts.heatmap.first, opts.heatmap.second};
  std::vector<Coords> measured;
  for (const Result& r : d.results)
    if (r.ok() && r.point.at.harness == Harness::kex) measured.push_back(r.point.at);
  std::vector<std::pair<std::string, size_t>> cand;
  for (const auto& a : swept_axes(measured))
    if (a == "size" || a == "src_offset" || a == "dst_offset" || a == "distance" || a == "chunk") {
      std::set<std::string> values;
      for (const auto& c : measured) values.insert(axis_value(c, a));
      cand.emplace_back(a, values.size());
    }
  std::stable_sort(cand.begin(), cand.end(), [](const auto& a, const auto& b) {
    if ((a.first == "size") != (b.first == "size")) return a.first == "size";
    return a.second > b.second;
  });
  std::vector<std::string> axes;
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

/// Axis values in numeric order where they are numbers, words ("none", "whole") first.
std::vector<std::string> axis_order(const std::set<std::string>& s) {
  std::vector<std::string> v(s.begin(), s.end());
  std::stable_sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) {
    char* ea = nullptr;
    char* eb = nullptr;
    const double x = std::strtod(a.c_str(), &ea), y = std::strtod(b.c_str(), &eb);
    const bool na = *ea == 0 && !a.empty(), nb = *eb == 0 && !b.empty();
    if (na != nb) return nb;
    return na ? x < y : a < b;
  });
  return v;
}

/// Tic labels of an axis's values: sizes in binary units; far distances with the offset
/// within the page, which is what 4 KiB aliasing sees.
std::vector<std::string> axis_labels(const std::string& axis, std::vector<std::string> v) {
  for (auto& s : v) {
    if (axis == "size" && s != "0") s = human_bytes(std::stod(s));
    if (axis == "distance" && s != "none") {
      const long long d = std::stoll(s);
      if (d >= 4096 || d <= -4096) s += " (rel " + std::to_string(((d % 4096) + 4096) % 4096) + ")";
    }
  }
  return v;
}

const char* axis_unit(const std::string& a) {
  return a == "size"       ? "bytes per operation"
         : a == "distance" ? "dst - src, bytes; rel = mod 4096"
         : a == "chunk"    ? "bytes per call"
                           : "bytes past a 2 MiB boundary";
}

/// Heatmaps of GB/s over two swept axes of the first run: one per kernel and condition, at most 48.
void heatmap_figures(const RunDoc& d, const PlotOptions& opts, const NameFilter& filter, std::vector<Figure>& out) {
  const std::vector<std::string> axes = heatmap_axes(d, opts);
  if (axes.size() < 2) return;
  const std::string xa = axes[0], ya = axes[1];
  std::vector<Heat> heats;
  std::set<std::string> xs_txt, ys_txt;
  for (const Result& r : d.results) {
    if (!r.ok() || r.point.at.harness != Harness::kex) continue;
    Coords rest = r.point.at;
    for (const std::string& a : {xa, ya}) {
      if (a == "src_offset") rest.layout.src_offset = 0;
      else if (a == "dst_offset") rest.layout.dst_offset = 0;
      else if (a == "distance") rest.layout.distance.reset();
      else if (a == "chunk") rest.chunk = 0;
    }
    rest.size = 0;
    const std::string restl = condition_label(rest), label = r.point.kernel + (restl.empty() ? "" : " @ " + restl);
    if (!filter.keep(label)) continue;
    auto it = std::find_if(heats.begin(), heats.end(), [&](const Heat& h) { return h.kernel == r.point.kernel && h.rest == restl; });
    // The condition's label is kex's, from the typed coordinates.
    if (it == heats.end())
      it = heats.insert(heats.end(), Heat{r.point.kernel, restl, {}, kernel_stem(r) + (restl.empty() ? "" : "-" + file_stem(restl))});
    const std::string xv = axis_value(r.point.at, xa), yv = axis_value(r.point.at, ya);
    it->cells[{xv, yv}] = median_gbps(r);
    xs_txt.insert(xv);
    ys_txt.insert(yv);
  }
  const auto xs = axis_order(xs_txt), ys = axis_order(ys_txt);
  const auto xl = axis_labels(xa, xs), yl = axis_labels(ya, ys);
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
    m.base = "heatmap-" + h.stem + "-by-" + file_stem(xa) + "-and-" + file_stem(ya);
    if (const int k = ++stems[m.base]; k > 1) m.base += "-" + std::to_string(k);
    m.title = h.kernel + (h.rest.empty() ? "" : " @ " + h.rest) + ": GB/s by " + xa + " and " + ya;
    m.xname = xa + " (" + axis_unit(xa) + ")";
    m.yname = ya + " (" + axis_unit(ya) + ")";
    m.quantity = "GB/s (1e9 bytes per second)";
    m.xs = xl;
    m.ys = yl;
    out.push_back(heatmap_figure(m));
  }
}

/// The presets' bars (clears and copies, with the baselines of the same run) and the segment table's.
void bar_figures(const Gathered& g, const std::vector<Run>& runs, std::vector<Figure>& out) {
  std::vector<std::string> run_labels;
  for (const auto& r : runs) run_labels.push_back(r.label);
  for (Op op : {Op::clear, Op::copy}) {
    if (!g.bar_rows.count(op)) continue;
    bool any_preset = false, any_baseline = false;
    for (const auto& row : g.bar_rows.at(op)) {
      const bool baseline = row.find("(baseline)") != std::string::npos;
      any_preset |= !baseline;
      any_baseline |= baseline;
    }
    if (!any_preset) continue;
    const std::string what = op == Op::clear ? "clear_page" : "copy_page";
    out.push_back(bar_figure("presets-" + std::string(to_string(op)),
                             "named presets, " + what + ": TSC ticks per 4096-byte page (fewer is faster)" +
                                 (any_baseline ? "\nlibc baselines from the same run" : "\nno baselines in this run"),
                             "TSC ticks per page (median; seed harnesses: their single pass)", g.bar_rows.at(op),
                             run_labels, g.bar_vals.at(op), "presets (" + what + "): TSC ticks per page, one column per run"));
  }
  if (!g.seg_rows.empty())
    out.push_back(bar_figure("segments-modern", "segment-override costs: one load per iteration (fewer is faster)",
                             "ns per iteration", g.seg_rows, run_labels, g.seg_vals,
                             "segment-override modern costs: ns per iteration, one column per run"));
}

/// The segment table's loops of one run as a heatmap: a row per loop (the 2006 one,
/// then the mixed one) and selector loaded, a column per register and the selector it
/// held on entry (the loop's pop reloads it), `<none>` the loop without segment work;
/// ns per iteration in the cells, blank where the case was skipped.
Figure segment_heatmap(const SegmentSection& sec, const std::string& base, const std::string& run_label) {
  HeatmapData h;
  h.base = base;
  h.high_is_good = false;
  auto index_of = [](std::vector<std::string>& v, const std::string& x) {
    auto it = std::find(v.begin(), v.end(), x);
    if (it == v.end()) it = v.insert(v.end(), x);
    return size_t(it - v.begin());
  };
  for (const SegmentCase& c : sec.cases) {
    if (!segment_loop(c)) continue;
    const std::string loop = c.variant == "mixed" ? "mixed" : "2006";
    const std::string row = loop + ": " + c.selector_kind + (c.selector ? " " + *c.selector : std::string());
    const std::string col = c.segment == "none" ? std::string("<none>")
                                                : c.segment + ", entry " + c.entry_selector_kind.value_or("?");
    const size_t y = index_of(h.ys, row), x = index_of(h.xs, col);
    if (c.measured()) h.cells[{x, y}] = *c.ns_per_iteration;
  }
  h.title = "segment-override loads: ns per loop iteration (fewer is faster; -: skipped, kex segments says why)\n" +
            run_label;
  h.xname = "register, and the selector it held on entry (its pop reloads it)";
  h.yname = "loop: selector loaded";
  h.quantity = "ns per iteration";
  return heatmap_figure(h);
}

/// A segment heatmap per run with a segment table (`segments`, `segments-2`, ...).
void segment_heatmaps(const std::vector<Run>& runs, std::vector<Figure>& out) {
  for (size_t ri = 0; ri < runs.size(); ++ri) {
    const auto& sec = runs[ri].doc->context.segments;
    if (!sec || std::none_of(sec->cases.begin(), sec->cases.end(), [](const SegmentCase& c) {
          return segment_loop(c) && c.measured();
        }))
      continue;
    out.push_back(segment_heatmap(*sec, ri ? "segments-" + std::to_string(ri + 1) : "segments", runs[ri].label));
  }
}

}  // namespace

std::vector<PlotFigure> plot_figures(const std::vector<RunDoc>& docs, const PlotOptions& opts) {
  const NameFilter filter = parse_name_filter(opts.filter, "--filter");
  const std::vector<Run> runs = labelled_runs(docs, opts);
  const Gathered g = gather(runs, filter);
  std::vector<Figure> out;
  bandwidth_figures(g, runs, opts, filter, out);
  if (!runs.empty()) heatmap_figures(*runs.front().doc, opts, filter, out);
  if (!runs.empty())
    for (PlotFigure& f : scaling_figures(*runs.front().doc, filter)) out.push_back(std::move(f));
  if (runs.size() == 1 && !filter.re)  // one run's answer: a filter would change which kernel is fastest
    for (PlotFigure& f : speedup_figures(*runs.front().doc)) out.push_back(std::move(f));
  bar_figures(g, runs, out);
  if (!filter.re) segment_heatmaps(runs, out);  // the table has no kernel names to match
  size_t why = 1;  // each run's explain section (kex explain, kex run --explain): why-1, why-2, ...
  if (!filter.re)
    for (const Run& r : runs)
      for (PlotFigure& f : explain_figures(*r.doc, why)) {
        ++why;
        out.push_back(std::move(f));
      }
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
    for (const char* ext : {"png", "svg"}) {
      std::string warn = render_figure(gnuplot, dir, f.base + ".gp", ext, f.base + "." + ext, opts.force);
      if (!warn.empty())  // gnuplot quotes script lines: one line, escaped like every text kex prints
        std::fprintf(stderr, "kex: gnuplot on %s/%s.gp: %s\n", terminal_text(dir).c_str(), f.base.c_str(),
                     terminal_text(warn.substr(0, warn.find_last_not_of('\n') + 1)).c_str());
      written.push_back(dir + "/" + f.base + "." + ext);
    }
  }
  return written;
}

}  // namespace kex
