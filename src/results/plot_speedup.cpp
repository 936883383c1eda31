#include "src/results/plot_speedup.hpp"

#include <algorithm>
#include <sstream>

#include "src/core/units.hpp"
#include "src/results/answer_text.hpp"
#include "src/results/gnuplot_text.hpp"

namespace kex {

namespace {

/// One size of a figure: the winner's speed over libc and its interval.
struct SpeedupPoint {
  uint64_t size = 0;
  double speedup = 1, low = 1, high = 1;
};

std::vector<SpeedupPoint> speedup_points(const RunDoc& run, const AnswerBlock& b) {
  std::vector<SpeedupPoint> out;
  for (const GroupAnswer* g : b.rows) {
    const RankedMember& w = g->members[0];
    if (run.results[w.result].libc) {
      out.push_back({g->key.at.size, 1, 1, 1});
      continue;
    }
    if (!w.vs_libc || w.vs_libc->rounds < kMinIntervalCount || w.vs_libc->ratio <= 0 || w.vs_libc->low <= 0) continue;
    const PairedRatio& r = *w.vs_libc;
    out.push_back({g->key.at.size, 1 / r.ratio, 1 / r.high, 1 / r.low});
  }
  return out;
}

std::string speedup_dat(const AnswerBlock& b, const std::vector<SpeedupPoint>& pts) {
  std::ostringstream d;
  d << "# kex speedup: the fastest kernel's speed over libc's in the same rounds, " << gp_comment(block_title(b))
    << "\n# columns: size_bytes speedup low high (95% interval over rounds)\n";
  for (const SpeedupPoint& p : pts)
    d << p.size << " " << gp_number(p.speedup) << " " << gp_number(p.low) << " " << gp_number(p.high) << "\n";
  return d.str();
}

std::string speedup_gp(const RunDoc& run, const AnswerBlock& b, const std::vector<SpeedupPoint>& pts, const std::string& base) {
  const char* libc = op_info(b.op).libc;
  double top = 1, bottom = 1;
  for (const SpeedupPoint& p : pts) {
    top = std::max(top, p.high);
    bottom = std::min(bottom, p.low);
  }
  const double pad = 0.08 * (top - bottom + 0.1);
  std::ostringstream g;
  g << "# kex: the fastest kernel's speed over " << libc << ". Data: " << gp_comment(base) << ".dat\n"
    << gp_terminal(base, 640, 420)
    << "set title " << gp_label(block_title(b) + ": fastest kernel / " + libc + ", same rounds, 95% interval\n" + run.context.host_name + " (" +
                                run.context.machine.cpu_model + ")")
    << "\nset xlabel \"size (bytes)\"\nset ylabel " << gp_label(std::string("speed / ") + libc + "'s") << "\n"
    << "set logscale x 2\nset format x \"%.0b%B\"\nset grid lc rgb \"#dddddd\"\n"
    << "set xrange [" << gp_number(double(pts.front().size) / 1.5) << ":" << gp_number(double(pts.back().size) * 1.5) << "]\n"
    << "set yrange [" << gp_number(std::max(0.0, bottom - pad)) << ":" << gp_number(top + pad) << "]\n"
    << "set key below horizontal font \",11\"\n"
    << "plot 1 with lines dt 2 lw 2 lc rgb \"#999999\" title " << gp_label(libc) << ", \\\n     "
    << gp_string(base + ".dat") << " using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb \"" << gp_color(0)
    << "\" title \"fastest kernel\"\n";
  return g.str();
}

}  // namespace

std::vector<PlotFigure> speedup_figures(const RunDoc& run) {
  const std::vector<GroupAnswer> answers = answer_groups(run);
  std::vector<PlotFigure> out;
  for (const AnswerBlock& b : answer_blocks(answers)) {
    const std::vector<SpeedupPoint> pts = speedup_points(run, b);
    if (pts.empty()) continue;
    const std::string stem = file_stem(b.cond, 64);
    const std::string base = "speedup-" + std::string(to_string(b.op)) + (stem.empty() ? "" : "-" + stem);
    out.push_back({base, speedup_dat(b, pts), speedup_gp(run, b, pts, base)});
  }
  return out;
}

}  // namespace kex
