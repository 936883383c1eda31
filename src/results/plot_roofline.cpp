#include "src/results/plot_roofline.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "src/model/result.hpp"
#include "src/results/gnuplot_text.hpp"
#include "src/results/results.hpp"

namespace kex {

namespace {

/// A size in bytes for the .dat and the script, exactly (gp_number's %.6g rounds 16 MiB).
std::string bytes_number(double v) { return std::to_string(uint64_t(std::llround(v))); }

/// A ceiling kind: its name in the key, the GB/s of a level, its line colour and dash type.
struct CeilingKind {
  const char* name;
  double CeilingLevel::*gbps;
  const char* colour;
  int dash;
};

constexpr CeilingKind kRead{"read ceiling", &CeilingLevel::read_gbps, "#1f77b4", 1};
constexpr CeilingKind kWrite{"temporal write ceiling", &CeilingLevel::write_gbps, "#d62728", 2};
constexpr CeilingKind kNtWrite{"non-temporal write ceiling", &CeilingLevel::nt_write_gbps, "#2ca02c", 4};

/// The ceilings that bound an op: what it loads and what it stores.
std::vector<CeilingKind> kinds_of(Op op) {
  if (op == Op::read) return {kRead};
  if (op == Op::clear) return {kWrite, kNtWrite};
  return {kRead, kWrite, kNtWrite};
}

/// One level's span of sizes on the figure's x axis, within [lo, hi].
struct Span {
  const CeilingLevel* level;
  double from, to;
};

/// The best median GB/s at each size over `op`'s entries at default conditions (kex's
/// harness, warm, one thread, the default layout, no chunk, prefill or consume: what the
/// ceilings' probes ran at), with the name of the entry that reached it.
std::map<double, std::pair<double, std::string>> best_per_size(const RunDoc& run, Op op) {
  std::map<double, std::pair<double, std::string>> best;
  for (const Result& r : run.results) {
    Coords plain;
    plain.size = r.point.at.size;
    if (!r.ok() || r.op != op || r.point.at != plain) continue;
    const double g = median_gbps(r);
    auto& b = best[double(plain.size)];
    if (g > b.first) b = {g, r.point.kernel};
  }
  return best;
}

/// The levels' spans in sizes of `op` (a copy's working set is 2 x its size), clipped to [lo, hi].
std::vector<Span> level_spans(const Ceilings& c, Op op, double lo, double hi) {
  const double per = op == Op::copy ? 2 : 1;
  std::vector<Span> spans;
  double from = lo;
  for (const CeilingLevel& l : c.levels) {
    const double to = l.cache_bytes ? double(l.cache_bytes) / per : hi;
    if (std::min(to, hi) > std::max(from, lo)) spans.push_back({&l, std::max(from, lo), std::min(to, hi)});
    from = std::max(from, to);
  }
  return spans;
}

std::string roofline_dat(Op op, const std::vector<CeilingKind>& kinds, const std::vector<Span>& spans,
                         const std::map<double, std::pair<double, std::string>>& best) {
  std::ostringstream d;
  d << "# kex roofline: " << to_string(op) << ", the best median GB/s per size against one core's ceilings per level\n"
    << "# GB/s = 10^9 bytes per second; a level holds sizes whose working set fits it"
    << (op == Op::copy ? " (a copy's: src + dst = 2 x size)" : "") << "\n"
    << "# one block per ceiling kind (two rows per level, levels apart), then the points; columns: size_bytes gbps\n";
  size_t block = 0;
  for (const CeilingKind& k : kinds) {
    d << (block ? "\n\n" : "") << "# index " << block << ": " << k.name << "\n";
    ++block;
    for (const Span& s : spans) {
      const double g = s.level->*k.gbps;
      if (g <= 0) continue;
      d << "# " << gp_comment(s.level->level) << "\n"
        << bytes_number(s.from) << " " << gp_number(g) << "\n" << bytes_number(s.to) << " " << gp_number(g) << "\n\n";
    }
  }
  d << "\n# index " << block << ": the best entry per size\n";
  for (const auto& [size, b] : best)
    d << bytes_number(size) << " " << gp_number(b.first) << "   # " << gp_comment(b.second) << "\n";
  return d.str();
}

/// Level names and their probes' sizes at the middle of their spans (a level's ceiling is
/// what its probe reached: a VM reporting its host's L3 has its LLC probed at the cap, in
/// DRAM), and dotted lines where one level ends.
std::string level_marks(const std::vector<Span>& spans) {
  std::ostringstream g;
  for (size_t i = 0; i < spans.size(); ++i) {
    const Span& s = spans[i];
    const std::string probe = s.level->size ? "\nprobed at " + human_bytes(double(s.level->size)) : "";
    const std::string measured = s.level->size_from == SizeSource::measured ? " (size measured)" : "";
    g << "set label " << gp_label(s.level->level + measured + probe) << " at " << bytes_number(std::sqrt(s.from * s.to))
      << ", graph 0.96 center font \",9\" textcolor rgb \"#444444\" front\n";
    if (i + 1 < spans.size())
      g << "set arrow from " << bytes_number(s.to) << ", graph 0 to " << bytes_number(s.to)
        << ", graph 1 nohead dt 3 lw 1.5 lc rgb \"#777777\" back\n";
  }
  return g.str();
}

/// A note when a point lies above every ceiling of its level: why it can (the levels'
/// sizes are the machine's report, not measured; or the LLC's was measured in steps of 2x),
/// never a point above a ceiling unsaid;
/// "" when none does.
std::string above_note(const RunDoc& run, const std::vector<CeilingKind>& kinds, const std::vector<Span>& spans,
                       const std::map<double, std::pair<double, std::string>>& best) {
  size_t above = 0;
  for (const auto& [size, b] : best)
    for (const Span& s : spans) {
      double top = 0;
      for (const CeilingKind& k : kinds) top = std::max(top, s.level->*k.gbps);
      if (size >= s.from && size < s.to && top > 0 && b.first > top) ++above;
    }
  if (!above) return "";
  const std::string from = run.context.machine.cache_source.value_or("");
  const std::string head = std::to_string(above) + (above == 1 ? " point lies" : " points lie") + " above its level's ceilings: ";
  const std::string note =
      run.context.ceilings->knee
          ? head + "the levels above the L2 are measured in steps of 2x (the others are the machine's report" +
                (from.empty() ? "" : ", " + from) + "), and a level may end between two footprints probed"
          : head + "the levels' sizes are the machine's report" + (from.empty() ? "" : " (" + from + ")") +
                ", not measured, and may not be where the bandwidth changes (a VM may report its host's L3)";
  return "set label " + gp_label(note) + " at graph 0.01, graph 0.03 left font \",8\" textcolor rgb \"#8a4b00\" front\n";
}

PlotFigure roofline_figure(const RunDoc& run, Op op, const std::string& base) {
  const auto best = best_per_size(run, op);
  const double lo = std::exp2(std::floor(std::log2(best.begin()->first)));
  const double hi = std::max(lo * 2, std::exp2(std::ceil(std::log2(best.rbegin()->first))));
  const std::vector<CeilingKind> kinds = kinds_of(op);
  const std::vector<Span> spans = level_spans(*run.context.ceilings, op, lo, hi);
  double ymax = 0;
  for (const auto& [size, b] : best) ymax = std::max(ymax, b.first);
  for (const Span& s : spans)
    for (const CeilingKind& k : kinds) ymax = std::max(ymax, s.level->*k.gbps);
  PlotFigure f{base, roofline_dat(op, kinds, spans, best), ""};
  const std::string title = std::string(to_string(op)) + ": the best entry per size against one core's ceilings per level\n" +
                            run.context.host_name + " (" + run.context.machine.cpu_model + ")";
  std::ostringstream g;
  g << "# kex: " << to_string(op) << " against one core's ceilings per level. Data: " << base << ".dat\n"
    << gp_terminal(base, 960, 600)
    << "set title " << gp_label(title) << "\n"
    << "set xlabel "
    << gp_label(std::string("size (bytes per call, log2)") + (op == Op::copy ? "; a copy's level holds src + dst" : ""))
    << "\n"
    << "set ylabel \"GB/s (1e9 bytes/s)\"\n"
    << "set logscale x 2\nset format x \"%.0b%B\"\n"
    << "set xrange [" << bytes_number(lo) << ":" << bytes_number(hi) << "]\n"
    << "set yrange [0:" << gp_number(ymax > 0 ? ymax * 1.2 : 1) << "]\n"
    << "set grid xtics ytics lc rgb \"#dddddd\" lt 1\n"
    << "set key outside right top vertical Left reverse font \",9\"\n"
    << level_marks(spans) << above_note(run, kinds, spans, best) << "plot ";
  for (size_t i = 0; i < kinds.size(); ++i)
    g << gp_string(base + ".dat") << " index " << i << " using 1:2 with lines lw 3 dt " << kinds[i].dash << " lc rgb \""
      << kinds[i].colour << "\" title " << gp_label(kinds[i].name) << ", \\\n     ";
  g << gp_string(base + ".dat") << " index " << kinds.size()
    << " using 1:2 with linespoints pt 7 ps 0.9 lw 1 lc rgb \"#000000\" title \"best entry per size (median)\"\n";
  f.gp = g.str();
  return f;
}

}  // namespace

std::vector<PlotFigure> roofline_figures(const RunDoc& run, const std::string& suffix) {
  std::vector<PlotFigure> out;
  if (!run.context.ceilings || run.context.ceilings->levels.empty()) return out;
  for (Op op : {Op::copy, Op::clear, Op::read})
    if (!best_per_size(run, op).empty())
      out.push_back(roofline_figure(run, op, "roofline-" + std::string(to_string(op)) + suffix));
  return out;
}

}  // namespace kex
