#include "src/results/plot_bandwidth.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "src/model/kernel_names.hpp"
#include "src/model/spec.hpp"
#include "src/results/gnuplot_text.hpp"
#include "src/results/results.hpp"

namespace kex {

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
std::vector<CurveData> envelopes(const std::vector<CurveData>& curves, const std::vector<PlotRun>& runs) {
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
std::string done_word(Op op) { return op_info(op).done; }

/// The .dat text: one block per curve, then one per envelope (gnuplot `index N`).
std::string bandwidth_dat(Op op, const std::string& cache, const std::vector<CurveData>& curves,
                          const std::vector<CurveData>& env, bool ratio) {
  std::ostringstream d;
  d << "# kex " << (ratio ? "speedup curves (B GB/s / A GB/s)" : "bandwidth curves") << ": " << to_string(op)
    << ", cache " << cache << "\n"
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

/// A panel's size: its width fits the longest key entry, its height the fullest panel's key rows.
std::pair<int, int> panel_size(const std::vector<std::string>& panels, const std::vector<CurveData>& curves,
                               const std::vector<CurveData>& env) {
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
  return {620 + key_w, std::max(460, int(130 + 16 * std::min(most, kMaxKeyRows)))};
}

/// Panels side by side only while two fit this width: the report draws a figure at its
/// page's width (78rem), and two wide panels there shrank the keys' text to 6 pixels.
constexpr int kMaxTwoPanelWidth = 1300;

/// --per-panel N: in each panel the N kernels with the highest geometric-mean GB/s (a
/// kernel's best over the runs); baselines stay. Returns how many kernels each panel left out.
std::map<std::string, size_t> panel_best(std::vector<CurveData>& curves, int per_panel) {
  std::map<std::string, size_t> left;
  if (per_panel <= 0) return left;
  std::map<std::string, std::map<std::string, double>> score;  // panel -> kernel -> best score
  for (const auto& c : curves)
    if (!c.panel.empty() && !c.baseline) score[c.panel][c.key] = std::max(score[c.panel][c.key], c.score());
  std::set<std::pair<std::string, std::string>> drop;
  for (const auto& [panel, keys] : score) {
    std::vector<std::pair<double, std::string>> ranked;
    for (const auto& [k, s] : keys) ranked.push_back({-s, k});
    std::sort(ranked.begin(), ranked.end());
    for (size_t i = size_t(per_panel); i < ranked.size(); ++i) drop.insert({panel, ranked[i].second});
    if (ranked.size() > size_t(per_panel)) left[panel] = ranked.size() - size_t(per_panel);
  }
  std::erase_if(curves, [&](const CurveData& c) { return drop.count({c.panel, c.key}) > 0; });
  return left;
}

/// Labels, ranges, tics, grid and key of the bandwidth (or speedup) axes.
std::string bandwidth_axes_text(Op op, const FigureAxes& a, bool ratio) {
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
std::string cache_markers(Op op, const std::vector<PlotRun>& runs, double lo, double hi) {
  std::ostringstream g;
  std::set<std::pair<std::string, double>> drawn;
  std::vector<std::string> offchart;
  for (size_t r = 0; r < runs.size(); ++r)
    for (const auto& [name, bytes] : cache_marks(runs[r].doc->context.machine)) {
      if (!drawn.insert({name, bytes}).second) continue;
      const double x = op == Op::copy ? bytes / 2 : bytes;
      std::string text = name + (op == Op::copy ? " (src+dst = " : " (") + human_bytes(bytes) + ")" +
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
std::string bandwidth_hosts(const std::vector<PlotRun>& runs, bool ratio) {
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
                            const std::vector<CurveData>& env, size_t runs, bool bands, size_t left_out) {
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
  if (left_out)
    g << "set label 98 " << gp_label(std::to_string(left_out) + (left_out == 1 ? " more kernel" : " more kernels") +
                                     " left out: the fastest by geometric-mean GB/s are drawn (kex plot --per-panel 0 "
                                     "draws every one)")
      << " at graph 0.01, graph 0.03 left font \",9\" textcolor rgb \"#444444\" front\n";
  g << "plot \\\n";
  for (size_t i = 0; i < items.size(); ++i) g << "  " << items[i] << (i + 1 < items.size() ? ", \\\n" : "\n");
  if (titled > kMaxKeyRows) g << "unset label 99\n";
  if (left_out) g << "unset label 98\n";
  return g.str();
}

/// Small multiples of one op and cache mode: a panel per register class (via
/// gnuplot multiplot), each with its curves sorted by name in distinct colour and
/// dash type pairs, the libc baselines (black, dashed) and the best-per-size
/// envelope (thick grey) of every run; cache markers where the working set
/// (copy: src + dst = 2 x size) equals L1d/L2/LLC. `ratio`: the curves are
/// speedups (B / A) instead of GB/s, with a y = 1 reference line, no envelope.
/// `left_out`: per panel, how many kernels --per-panel left out (a label says so).
/// Two panels side by side only while they fit kMaxTwoPanelWidth, else one per row.
PlotFigure bandwidth_figure(const std::string& base, Op op, const std::string& cache, bool presets,
                            std::vector<CurveData> curves, const std::vector<PlotRun>& runs, bool ratio,
                            const std::map<std::string, size_t>& left_out) {
  PlotFigure f;
  f.base = base;
  std::stable_sort(curves.begin(), curves.end(), [](const CurveData& a, const CurveData& b) { return a.label < b.label; });
  const std::vector<CurveData> env = ratio ? std::vector<CurveData>{} : envelopes(curves, runs);
  f.dat = bandwidth_dat(op, cache, curves, env, ratio);
  const std::vector<std::string> panels = panel_names(curves);
  const FigureAxes axes = bandwidth_axes(curves);
  const auto [pw, ph] = panel_size(panels, curves, env);
  const size_t cols = panels.size() > 1 && 2 * pw <= kMaxTwoPanelWidth ? 2 : 1, rows = (panels.size() + cols - 1) / cols;
  std::ostringstream g;
  g << "# kex: " << to_string(op) << (ratio ? " speedup" : " bandwidth") << " against size, cache " << cache << ". Data: " << f.base << ".dat\n"
    << gp_terminal(f.base, int(cols) * pw, int(rows) * ph + 60) << bandwidth_axes_text(op, axes, ratio)
    << cache_markers(op, runs, axes.lo, axes.hi);
  const std::string title = std::string(presets ? "named presets by family of origin, libc dashed: " : "") +
                            std::string(to_string(op)) + (ratio ? " speedup, " : " bandwidth, ") + cache +
                            " cache, median per size\n" + bandwidth_hosts(runs, ratio);
  g << "set multiplot layout " << rows << "," << cols << " title " << gp_label(title) << " font \",12\"\n";
  for (const auto& panel : panels)
    g << bandwidth_panel(f.base, panel, curves, env, runs.size(), !ratio,
                         left_out.count(panel) ? left_out.at(panel) : 0);
  g << "unset multiplot\n";
  f.gp = g.str();
  return f;
}

/// The curves of every figure, gathered from every run in one pass: (op, cache, presets?,
/// threads) -> curves in first-seen order; presets get figures of their own, and so does
/// each thread count (aggregate GB/s beside one thread's would make the envelope and the
/// baselines mean two things).
struct Curves {
  using FigKey = std::tuple<Op, CacheMode, bool, uint32_t>;
  std::vector<FigKey> fig_order;
  std::map<FigKey, std::vector<CurveData>> figs;
  std::map<FigKey, std::map<std::string, size_t>> index;
};

/// A point of kex's harness on its curve: one curve per kernel and condition (and run,
/// with several). The filter sees the kernel and condition, never the run's label, so
/// one pattern keeps the same curves of one file or of several; baselines always stay.
void add_curve_point(Curves& g, const Result& r, const PlotRun& run, size_t ri, bool multi, const NameFilter& filter,
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
  auto add = [&](const Curves::FigKey& fk) {
    if (!g.figs.count(fk)) g.fig_order.push_back(fk);
    auto& curves = g.figs[fk];
    auto [it, fresh] = g.index[fk].emplace(label, curves.size());
    if (fresh) curves.push_back(CurveData{label, baseline, key, panel_of(r), ri, {}});
    curves[it->second].pts.push_back(pt);
  };
  add(Curves::FigKey(r.op, at.cache, r.kind == KernelKind::preset, at.threads));
  // libc (of zeros, for clears) beside the presets too, as the seeds measured against it
  if (r.libc && r.libc->fill == 0 && at.threads == 1) add(Curves::FigKey(r.op, at.cache, true, 1u));
}

Curves gather_curves(const std::vector<PlotRun>& runs, const NameFilter& filter) {
  Curves g;
  for (size_t ri = 0; ri < runs.size(); ++ri)
    for (const Result& r : runs[ri].doc->results)
      if (r.ok() && r.point.at.harness == Harness::kex)
        add_curve_point(g, r, runs[ri], ri, runs.size() > 1, filter, aggregate(r));
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
void add_bandwidth_figures(const Curves& g, const std::vector<PlotRun>& runs, const PlotOptions& opts,
                           const NameFilter& filter, std::vector<PlotFigure>& out) {
  for (const auto& key : g.fig_order) {
    std::vector<CurveData> curves = g.figs.at(key);
    for (auto& c : curves) one_point_per_size(c);
    curves = best_curves(std::move(curves), opts.best);
    const std::map<std::string, size_t> left_out = panel_best(curves, opts.per_panel);
    const bool any_generated = std::any_of(curves.begin(), curves.end(), [](const CurveData& c) { return !c.baseline; });
    const auto& [op_kind, cache_mode, presets, threads] = key;
    if (curves.empty() || (!any_generated && (filter.re || presets))) continue;
    if (presets) libc_within_presets(curves);
    const std::string cache(to_string(cache_mode));
    const std::string base =
        std::string(to_string(op_kind)) + "-" + cache + (presets ? "-presets" : "") + (threads > 1 ? "-threads-" + std::to_string(threads) : "");
    if (opts.ratio)
      if (auto ratios = ratio_curves(curves, runs.size()); !ratios.empty())
        out.push_back(bandwidth_figure("ratio-" + base, op_kind, cache, presets, std::move(ratios), runs, true, left_out));
    out.push_back(bandwidth_figure(base, op_kind, cache, presets, std::move(curves), runs, false, left_out));
  }
}

}  // namespace

std::vector<PlotFigure> bandwidth_figures(const std::vector<PlotRun>& runs, const PlotOptions& opts,
                                          const NameFilter& filter) {
  std::vector<PlotFigure> out;
  add_bandwidth_figures(gather_curves(runs, filter), runs, opts, filter, out);
  return out;
}

}  // namespace kex
