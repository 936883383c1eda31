#include "src/results/plot_speedup.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "src/core/units.hpp"
#include "src/results/answer_text.hpp"
#include "src/results/gnuplot_text.hpp"

namespace kex {

namespace {

/// One size of a figure: the winner's speed over libc, its interval, and the winner.
struct SpeedupPoint {
  uint64_t size = 0;
  double speedup = 1, low = 1, high = 1;
  std::string winner;  ///< its kernel name, as the file has it
  size_t tag = 0;      ///< its number in the key (1: the winner of most sizes)
};

std::vector<SpeedupPoint> speedup_points(const RunDoc& run, const AnswerBlock& b) {
  std::vector<SpeedupPoint> out;
  for (const GroupAnswer* g : b.rows) {
    const RankedMember& w = g->members[0];
    const std::string& name = run.results[w.result].point.kernel;
    if (run.results[w.result].libc) {
      out.push_back({g->key.at.size, 1, 1, 1, name});
      continue;
    }
    if (!w.vs_libc || w.vs_libc->rounds < kMinIntervalCount || w.vs_libc->ratio <= 0 || w.vs_libc->low <= 0) continue;
    const PairedRatio& r = *w.vs_libc;
    out.push_back({g->key.at.size, 1 / r.ratio, 1 / r.high, 1 / r.low, name});
  }
  return out;
}

/// The winners in the key: by how many sizes each won (then by name), numbered from 1;
/// each point gets its winner's number. At most kMaxSpeedupWinners get a key entry and a
/// colour of their own: the rest share number 0 ("other").
std::vector<std::string> number_winners(std::vector<SpeedupPoint>& pts) {
  std::map<std::string, size_t> wins;
  for (const SpeedupPoint& p : pts) ++wins[p.winner];
  std::vector<std::string> order;
  for (const auto& [name, n] : wins) order.push_back(name);
  std::stable_sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) { return wins[a] > wins[b]; });
  if (order.size() > kMaxSpeedupWinners) order.resize(kMaxSpeedupWinners);
  for (SpeedupPoint& p : pts)
    p.tag = size_t(std::find(order.begin(), order.end(), p.winner) - order.begin() + 1) % (order.size() + 1);
  return order;
}

/// Index 0: every size (size_bytes speedup low high tag winner); then one block per winner
/// in the key (its sizes: size_bytes speedup), then one of the others when there are any.
std::string speedup_dat(const AnswerBlock& b, const std::vector<SpeedupPoint>& pts, const std::vector<std::string>& key) {
  std::ostringstream d;
  d << "# kex speedup: the fastest kernel's speed over libc's in the same rounds, " << gp_comment(block_title(b))
    << "\n# index 0 columns: size_bytes speedup low high (95% interval over rounds) tag (the winner's number in the "
       "key; 0: other) winner\n";
  for (const SpeedupPoint& p : pts)
    d << p.size << " " << gp_number(p.speedup) << " " << gp_number(p.low) << " " << gp_number(p.high) << " " << p.tag
      << " " << dat_string(p.winner) << "\n";
  for (size_t t = 1; t <= key.size() + 1; ++t) {
    const size_t tag = t % (key.size() + 1);  // the key's winners, then the others (0)
    d << "\n\n# index " << t << ": " << (tag ? gp_comment(key[tag - 1]) : std::string("other winners")) << "\n";
    for (const SpeedupPoint& p : pts)
      if (p.tag == tag) d << p.size << " " << gp_number(p.speedup) << "\n";
  }
  return d.str();
}

/// The plot command: libc at 1, the winners' line with its intervals, a point per size in
/// its winner's colour with the winner's number above it, and a key entry per winner.
std::string speedup_plot(const std::string& base, const char* libc, const std::vector<SpeedupPoint>& pts,
                         const std::vector<std::string>& key) {
  const std::string dat = gp_string(base + ".dat");
  std::ostringstream g;
  g << "plot 1 with lines dt 2 lw 2 lc rgb \"#999999\" title " << gp_label(libc) << ", \\\n     " << dat
    << " index 0 using 1:2:3:4 with yerrorlines lw 2 pt -1 lc rgb \"#777777\" title \"fastest kernel, 95% interval\", \\\n     "
    << dat << " index 0 using 1:4:(column(5) > 0 ? stringcolumn(5) : \"\") with labels offset 0,0.7 font \",9\" notitle";
  for (size_t t = 1; t <= key.size(); ++t)
    g << ", \\\n     " << dat << " index " << t << " using 1:2 with points pt 7 ps 1.3 lc rgb \"" << gp_color(t - 1)
      << "\" title " << gp_label(std::to_string(t) + ": " + key[t - 1]);
  const size_t others = size_t(std::count_if(pts.begin(), pts.end(), [](const SpeedupPoint& p) { return p.tag == 0; }));
  if (others)
    g << ", \\\n     " << dat << " index " << key.size() + 1 << " using 1:2 with points pt 6 ps 1.3 lc rgb \"#000000\" title "
      << gp_label(std::to_string(others) + (others == 1 ? " size" : " sizes") + " won by others (the .dat names them)");
  return g.str() + "\n";
}

std::string speedup_gp(const RunDoc& run, const AnswerBlock& b, const std::vector<SpeedupPoint>& pts,
                       const std::vector<std::string>& key, const std::string& base) {
  const char* libc = op_info(b.op).libc;
  double top = 1, bottom = 1;
  for (const SpeedupPoint& p : pts) {
    top = std::max(top, p.high);
    bottom = std::min(bottom, p.low);
  }
  const double pad = 0.08 * (top - bottom + 0.1);
  std::ostringstream g;
  g << "# kex: the fastest kernel's speed over " << libc << ", each size's winner numbered. Data: " << gp_comment(base)
    << ".dat\n"
    << gp_terminal(base, 640, 420 + 18 * int(key.size()))
    << "set title " << gp_label(block_title(b) + ": fastest kernel / " + libc + ", same rounds, 95% interval\n" + run.context.host_name + " (" +
                                run.context.machine.cpu_model + ")")
    << "\nset xlabel \"size (bytes)\"\nset ylabel " << gp_label(std::string("speed / ") + libc + "'s") << "\n"
    << "set logscale x 2\nset format x \"%.0b%B\"\nset grid lc rgb \"#dddddd\"\n"
    << "set xrange [" << gp_number(double(pts.front().size) / 1.5) << ":" << gp_number(double(pts.back().size) * 1.5) << "]\n"
    << "set yrange [" << gp_number(std::max(0.0, bottom - pad)) << ":" << gp_number(top + 2 * pad) << "]\n"
    << "set key below vertical Left reverse font \",10\"\n"
    << speedup_plot(base, libc, pts, key);
  return g.str();
}

}  // namespace

std::vector<PlotFigure> speedup_figures(const RunDoc& run) {
  const std::vector<GroupAnswer> answers = answer_groups(run);
  std::vector<PlotFigure> out;
  for (const AnswerBlock& b : answer_blocks(answers)) {
    std::vector<SpeedupPoint> pts = speedup_points(run, b);
    if (pts.empty()) continue;
    const std::vector<std::string> key = number_winners(pts);
    const std::string stem = file_stem(b.cond, 64);
    const std::string base = "speedup-" + std::string(to_string(b.op)) + (stem.empty() ? "" : "-" + stem);
    out.push_back({base, speedup_dat(b, pts, key), speedup_gp(run, b, pts, key, base)});
  }
  return out;
}

}  // namespace kex
