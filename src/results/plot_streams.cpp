#include "src/results/plot_streams.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "src/core/units.hpp"
#include "src/results/gnuplot_text.hpp"
#include "src/results/results.hpp"
#include "src/results/stream_text.hpp"

namespace kex {

namespace {

/// A member's bar: its median ns per call, and the interval of its ratio to the fastest
/// (the fastest's own: its repetitions' spread) carried to ns per call.
struct StreamBar {
  std::string kernel;
  double ns = 0, low = 0, high = 0;
};

std::vector<StreamBar> stream_bars(const RunDoc& run, const GroupAnswer& g) {
  std::vector<StreamBar> out;
  const double calls = calls_per_operation(g.key.at);
  const double fastest = aggregate(run.results[g.members[0].result]).median_ns / calls;
  for (const RankedMember& m : g.members) {
    const Result& r = run.results[m.result];
    const Aggregate a = aggregate(r);
    StreamBar b{r.point.kernel, a.median_ns / calls, a.ci_low_ns / calls, a.ci_high_ns / calls};
    if (&m != &g.members[0] && m.vs_winner.rounds > 0) {
      b.low = fastest * m.vs_winner.low;
      b.high = fastest * m.vs_winner.high;
    }
    out.push_back(b);
  }
  return out;
}

std::string stream_dat(const StreamRecord& s, const std::vector<StreamBar>& bars) {
  std::ostringstream d;
  d << "# kex stream " << gp_comment(s.name) << " (footprint " << s.footprint << " B, seed " << s.seed << ", " << s.calls
    << " calls a pass)\n# index 0: size_bytes P(size <= size_bytes)\n";
  for (const auto& [size, p] : s.cdf) d << size << " " << gp_number(p) << "\n";
  d << "\n\n# index 1: rank ns_per_call low_ns high_ns kernel (95% interval)\n";
  for (size_t i = 0; i < bars.size(); ++i)
    d << i << " " << gp_number(bars[i].ns) << " " << gp_number(bars[i].low) << " " << gp_number(bars[i].high) << " "
      << dat_string(bars[i].kernel) << "\n";
  d << "\n\n# index 2: the fixed sizes measured beside the stream, at their P\n";
  for (const auto& [size, share] : s.fixed_weights) {
    double p = 0;
    for (const auto& [cs, cp] : s.cdf)
      if (cs <= size) p = cp;
    d << size << " " << gp_number(p) << "\n";
  }
  return d.str();
}

std::string stream_gp(const RunDoc& run, const GroupAnswer& g, const StreamRecord& s, const std::vector<StreamBar>& bars,
                      const std::string& base) {
  const std::string dat = gp_string(base + ".dat");
  double top = 0;
  size_t label_w = 0;
  for (const StreamBar& b : bars) {
    top = std::max(top, std::max(b.ns, b.high));
    label_w = std::max(label_w, b.kernel.size());
  }
  label_w = std::min<size_t>(label_w, 60);
  const int h = std::clamp(int(200 + 26 * bars.size()), 460, 2000);
  std::ostringstream o;
  o << "# kex: a stream's size CDF and each competitor's ns per call on it. Data: " << gp_comment(base) << ".dat\n"
    << gp_terminal(base, int(1300 + 7 * label_w), h)
    << "set multiplot layout 1,2 title "
    << gp_label(std::string(to_string(g.key.op)) + " on stream " + s.name + " (footprint " + format_bytes(s.footprint) +
                ", " + std::to_string(s.calls) + " calls a pass, seed " + std::to_string(s.seed) + ")\n" +
                run.context.host_name + " (" + run.context.machine.cpu_model + ")")
    << "\n"
    // Left: the CDF as steps, the measured fixed sizes as points on it.
    << "set title \"sizes of the calls: P(size <= x)\"\nset xlabel \"size (bytes)\"\nset ylabel \"share of calls\"\n"
    << "set logscale x 2\nset format x \"%.0b%B\"\nset xrange [1:*]\nset yrange [0:1.02]\nset grid lc rgb \"#dddddd\"\n"
    << "set key bottom right font \",10\"\n"
    << "plot " << dat << " index 0 using ($1 < 1 ? 1 : $1):2 with steps lw 2 lc rgb \"" << gp_color(0)
    << "\" title \"the distribution\", \\\n     " << dat << " index 2 using 1:2 with points pt 7 ps 1.2 lc rgb \""
    << gp_color(1) << "\" title \"fixed sizes measured beside it\"\n"
    // Right: bars, fastest on top, with the intervals.
    << "unset logscale x\nset format x \"%g\"\nunset key\n"
    << "set title \"time per call (median; 95% interval of the ratio to the fastest)\"\n"
    << "set xlabel \"ns per call (the timed loop's own cost inside)\"\nset ylabel \"\"\n"
    << "set xrange [0:" << gp_number(top > 0 ? top * 1.2 : 1) << "]\n"
    << "set yrange [" << gp_number(double(bars.size()) - 0.4) << ":-0.6]\nset ytics nomirror font \",9\"\n"
    << "set lmargin " << std::max<size_t>(20, label_w + 2) << "\nset style fill solid 0.7 border lc rgb \"#333333\"\n"
    << "plot " << dat << " index 1 using (0.5*$2):1:(0.5*$2):(0.35):ytic(5) with boxxyerror lc rgb \"" << gp_color(0)
    << "\", \\\n     " << dat << " index 1 using 2:1:3:4 with xerrorbars pt 0 lc rgb \"#333333\", \\\n     " << dat
    << " index 1 using 4:1:(sprintf(\" %.3g\", $2)) with labels left font \",9\"\n"
    << "unset multiplot\n";
  return o.str();
}

}  // namespace

std::vector<PlotFigure> stream_figures(const RunDoc& run) {
  std::vector<PlotFigure> out;
  std::map<std::string, int> seen;  // two groups of one stream and footprint (another seed, fill): "-2"
  for (const GroupAnswer& g : answer_groups(run)) {
    if (!is_stream_group(g) || g.members.empty()) continue;
    const StreamRecord* s = stream_of(run, g.key.at);
    if (!s || s->cdf.empty()) continue;
    std::string base = "stream-" + std::string(to_string(g.key.op)) + "-" + file_stem(s->name, 64) + "-" +
                       std::to_string(s->footprint) + (g.key.at.threads > 1 ? "-threads" + std::to_string(g.key.at.threads) : "");
    if (const int n = seen[base]++; n > 0) base += "-" + std::to_string(n + 1);
    const std::vector<StreamBar> bars = stream_bars(run, g);
    out.push_back({base, stream_dat(*s, bars), stream_gp(run, g, *s, bars, base)});
  }
  return out;
}

}  // namespace kex
