#include "src/results/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/core.h>

#include "src/core/significance.hpp"
#include "src/core/stats.hpp"
#include "src/core/terminal_text.hpp"
#include "src/model/noise.hpp"
#include "src/model/paired.hpp"
#include "src/model/filter.hpp"
#include "src/results/markdown.hpp"
#include "src/results/results.hpp"

namespace kex {

std::string_view to_string(Correction c) {
  switch (c) {
    case Correction::benjamini_hochberg: return "bh";
    case Correction::holm: return "holm";
    case Correction::none: return "none";
  }
  return "?";
}

std::string_view to_string(Statistic s) { return s == Statistic::best ? "best" : "median"; }

namespace {

/// Each counted repetition's figure, in ns: its median, or its fastest sample.
std::vector<double> rep_figures_ns(const Result& r, Statistic s) {
  std::vector<double> v;
  for (const Repetition* rep : counted_reps(r))
    v.push_back((s == Statistic::best ? rep->per_call.min : rep->per_call.median) * 1e9 / r.tsc_hz);
  return v;
}

double cv(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double m = 0;
  for (double x : v) m += x;
  m /= double(v.size());
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return m > 0 ? std::sqrt(s / double(v.size() - 1)) / m : 0;
}

/// Each point's figure per round relative to the rest of its group in the same round:
/// its time over the geometric mean time of the group's other points named in `names`
/// (a round counts when it holds the point and at least one other). Points of groups
/// with fewer than 3 such rounds are absent. Keyed by group, then point name.
using RelativeFigures = std::map<GroupKey, std::map<std::string, std::vector<double>>>;
RelativeFigures relative_figures(const std::map<std::string, const Result*>& m, const std::set<std::string>& names,
                                 Statistic s) {
  std::map<GroupKey, std::vector<const Result*>> groups;
  for (const auto& [name, r] : m)
    if (names.count(name))
      if (const auto key = group_of(*r)) groups[*key].push_back(r);
  RelativeFigures out;
  auto figure = [&](const Repetition& rep) { return s == Statistic::best ? rep.per_call.min : rep.per_call.median; };
  for (const auto& [key, members] : groups) {
    if (members.size() < 2) continue;
    // Per round: the sum of the log times and their count. Every repetition counts,
    // the sentinel's flagged ones too: a round's ratios outlast its disturbance.
    std::map<uint64_t, std::pair<double, size_t>> in_round;
    for (const Result* r : members)
      for (const Repetition& rep : r->reps)
        if (rep.round && figure(rep) > 0) {
          auto& x = in_round[rep.round];
          x.first += std::log(figure(rep));
          ++x.second;
        }
    for (const Result* r : members) {
      std::vector<double> v;
      for (const Repetition& rep : r->reps) {
        const auto it = in_round.find(rep.round);
        if (!rep.round || it == in_round.end() || it->second.second < 2 || figure(rep) <= 0) continue;
        const double own = std::log(figure(rep));
        v.push_back(std::exp(own - (it->second.first - own) / double(it->second.second - 1)));
      }
      if (v.size() >= 3) out[key][r->name()] = std::move(v);
    }
  }
  return out;
}

/// The shift of a whole group between the runs: the median over its points of the
/// ratio of their relative figures (B / A). A point that changed moves the others'
/// references (its time is in their geometric means) by about its change over the
/// group's size; this removes that, as long as fewer than half of the points changed.
double group_shift(const std::map<std::string, std::vector<double>>& a,
                   const std::map<std::string, std::vector<double>>& b) {
  std::vector<double> shifts;
  for (const auto& [name, va] : a)
    if (auto it = b.find(name); it != b.end()) shifts.push_back(median(it->second) / median(va));
  return shifts.empty() ? 1.0 : median(shifts);
}

/// The change a two-sided U test at `alpha` finds with 80% power between samples of
/// these sizes and spreads (robust: 1.4826 x MAD of the logs), as a ratio - 1.
double detectable_change(const std::vector<double>& a, const std::vector<double>& b, double alpha) {
  auto spread = [](const std::vector<double>& v) {
    std::vector<double> l;
    for (double x : v) l.push_back(std::log(x));
    const double m = median(l);
    for (double& x : l) x = std::fabs(x - m);
    return 1.4826 * median(l);
  };
  const double z = alpha <= 0.001 ? 3.29 : alpha <= 0.01 ? 2.58 : alpha <= 0.05 ? 1.96 : 1.64;
  const double se = std::sqrt(std::pow(spread(a), 2) / double(a.size()) + std::pow(spread(b), 2) / double(b.size()));
  return std::exp((z + 0.84) * se * std::sqrt(3.0 / M_PI)) - 1;  // the U test's efficiency: 3/pi of the t test's
}

}  // namespace

bool same_code(const Result& a, const Result& b) {
  if (a.code && b.code) return *a.code == *b.code;
  if (a.code || b.code || !a.impl || !b.impl) return false;
  return a.impl->source == b.impl->source && !a.impl->sha256.empty() && a.impl->sha256 == b.impl->sha256 &&
         a.impl->symbol == b.impl->symbol && a.impl->function == b.impl->function;
}

bool intervals_overlap(double lo1, double hi1, double lo2, double hi2) { return lo1 <= hi2 && lo2 <= hi1; }

std::vector<StateShift> state_shifts(const std::optional<Noise>& na, const std::optional<Noise>& nb, double threshold) {
  std::vector<StateShift> out;
  if (!na || !nb) return out;
  auto check = [&](const SentinelSpread& x, const SentinelSpread& y, const char* part, const char* affects,
                   bool beyond_l2) {
    if (x.median <= 0 || y.median <= 0) return;
    if (y.median > x.median * (1 + threshold) || x.median > y.median * (1 + threshold))
      out.push_back({part, affects, beyond_l2, x.median, y.median});
  };
  check(na->l1, nb->l1, "L1 store loop", "the core's share (every point)", false);
  check(na->mem, nb->mem, "memory read", "memory bandwidth (points beyond the L2)", true);
  return out;
}

namespace {

/// A run's measured points that pass the filter, by name, and their order.
struct Indexed {
  std::vector<std::string> order;
  std::map<std::string, const Result*> by_name;
};

Indexed index_run(const RunDoc& doc, const NameFilter& filter) {
  Indexed x;
  for (const Result& r : doc.results) {
    const std::string name = r.name();
    if (!filter.keep(name) || !r.ok() || x.by_name.count(name)) continue;
    x.by_name[name] = &r;
    x.order.push_back(name);
  }
  return x;
}

/// Each side's relative figures of the points both runs have, B's divided by its
/// group's shift (so that a point's own change is not seen in the others).
std::pair<std::map<std::string, std::vector<double>>, std::map<std::string, std::vector<double>>> paired_figures(
    const Indexed& a, const Indexed& b, Statistic statistic) {
  std::set<std::string> both;
  for (const auto& name : a.order)
    if (b.by_name.count(name)) both.insert(name);
  std::map<std::string, std::vector<double>> rel_a, rel_b;
  RelativeFigures fa = relative_figures(a.by_name, both, statistic), fb = relative_figures(b.by_name, both, statistic);
  for (auto& [key, ga] : fa) {
    auto gb = fb.find(key);
    if (gb == fb.end()) continue;
    const double shift = group_shift(ga, gb->second);
    for (auto& [name, v] : ga) {
      auto vb = gb->second.find(name);
      if (vb == gb->second.end()) continue;
      for (double& x : vb->second) x /= shift;
      rel_a[name] = std::move(v);
      rel_b[name] = std::move(vb->second);
    }
  }
  return {rel_a, rel_b};
}

/// A row from relative figures: the rounds are the unit.
CompareRow relative_row(const std::string& name, uint64_t size, const std::vector<double>& va,
                        const std::vector<double>& vb, double alpha) {
  CompareRow row;
  row.name = name;
  row.size = size;
  row.relative = true;
  row.a_ns = median(va);
  row.b_ns = median(vb);
  row.speedup = row.a_ns / row.b_ns;
  row.a_reps = va.size();
  row.b_reps = vb.size();
  row.p = mann_whitney_u(va, vb).p;
  row.detectable = detectable_change(va, vb, alpha);
  return row;
}

/// A row from absolute figures: the repetitions are the unit (CI overlap with one a side).
CompareRow absolute_row(const std::string& name, const Result& ra, const Result& rb, Statistic statistic) {
  const Aggregate ga = aggregate(ra), gb = aggregate(rb);
  CompareRow row;
  row.name = name;
  row.size = ra.point.at.size;
  const bool best = statistic == Statistic::best;
  row.a_ns = best ? ga.min_ns : ga.median_ns;
  row.b_ns = best ? gb.min_ns : gb.median_ns;
  row.speedup = row.b_ns > 0 ? row.a_ns / row.b_ns : INFINITY;
  const auto va = rep_figures_ns(ra, statistic), vb = rep_figures_ns(rb, statistic);
  row.a_reps = va.size();
  row.b_reps = vb.size();
  // The CIs are of the medians: no CI verdict for the fastest sample.
  if (!best && ga.ci_high_ns > ga.ci_low_ns && gb.ci_high_ns > gb.ci_low_ns)
    row.ci_overlap = intervals_overlap(ga.ci_low_ns, ga.ci_high_ns, gb.ci_low_ns, gb.ci_high_ns);
  row.by_ci = va.size() < 2 || vb.size() < 2;
  if (!row.by_ci) row.p = mann_whitney_u(va, vb).p;
  return row;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
  return v[v.size() / 2];
}

/// The minimum effects: absolute rows from the noise, raised to the sentinels' shifts
/// (a machine in another state moves the figures about that much: the L1 loop for every
/// point, the memory read beyond A's L2, all when the L2 is unknown; capped at 10, as
/// --min-effect is); relative rows from the runs' own disagreement. Between two runs the
/// points move by more than their rounds say: each run's state (its physical pages, its
/// share of the core and the caches over the whole run) shifts the kernels' standing in
/// their groups, which no interval inside a run can show. Most points did not change, so
/// the spread of their shifts is the null (an empirical null, robust: 1.4826 x the MAD of
/// the log shifts); a point is called beyond 3 of those.
void set_min_effects(Comparison& c, const CompareOptions& opt, uint64_t l2) {
  c.min_effect = opt.min_effect ? *opt.min_effect : std::max(0.01, 3 * c.noise);
  double beyond_l2 = 0;
  for (const StateShift& sh : c.shifts) {
    if (opt.min_effect) break;
    const double moved = std::min(10.0, std::fabs(sh.b / sh.a - 1));
    if (sh.beyond_l2 && l2 > 0) {
      beyond_l2 = std::max(beyond_l2, moved);
    } else if (moved > c.min_effect) {
      c.min_effect = moved;
      c.min_effect_from_state = true;
    }
  }
  if (beyond_l2 > c.min_effect) c.min_effect_beyond_l2 = beyond_l2;
  std::vector<double> shifts;
  for (const CompareRow& r : c.rows)
    if (r.relative && r.speedup > 0) shifts.push_back(std::log(r.speedup));
  if (shifts.size() >= 10) {
    const double m = median(shifts);
    for (double& x : shifts) x = std::fabs(x - m);
    c.between_runs = std::exp(1.4826 * median(shifts)) - 1;
  }
  c.relative_min_effect = opt.min_effect.value_or(std::max(kRelativeMinEffect, std::pow(1 + c.between_runs, 3) - 1));
}

/// Each row's verdict: significant after the correction and beyond its minimum effect.
void decide(Comparison& c, const CompareOptions& opt, uint64_t l2) {
  std::vector<double> pvalues;
  for (const CompareRow& r : c.rows) pvalues.push_back(r.p);
  const std::vector<double> adj = opt.correction == Correction::benjamini_hochberg ? benjamini_hochberg(pvalues)
                                  : opt.correction == Correction::holm            ? holm(pvalues)
                                                                                   : pvalues;
  for (size_t i = 0; i < c.rows.size(); ++i) {
    CompareRow& r = c.rows[i];
    r.p_adjusted = adj[i];
    const double effect = r.relative                                       ? c.relative_min_effect
                          : c.min_effect_beyond_l2 > 0 && r.size > l2 ? c.min_effect_beyond_l2
                                                                      : c.min_effect;
    const bool big = r.speedup >= 1 + effect || r.speedup <= 1 / (1 + effect);
    const bool significant = r.by_ci ? r.ci_overlap == std::optional<bool>(false) : r.p_adjusted < opt.alpha;
    r.verdict = !(big && significant) ? Change::same : r.speedup > 1 ? Change::faster : Change::slower;
    (r.verdict == Change::same ? c.same : r.verdict == Change::faster ? c.faster : c.slower)++;
  }
}

}  // namespace

Comparison compare_results(const RunDoc& a, const RunDoc& b, const CompareOptions& opt) {
  const NameFilter name_filter = parse_name_filter(opt.filter, "--filter");
  const Indexed ia = index_run(a, name_filter), ib = index_run(b, name_filter);
  Comparison c;
  c.alpha = opt.alpha;
  c.correction = opt.correction;
  c.statistic = opt.statistic;
  // The larger of the thresholds the two runs' sentinels flagged their own windows with
  // (the same answer whichever side is A).
  const std::optional<Noise> noise_a = run_noise(a.context), noise_b = run_noise(b.context);
  c.shifts = state_shifts(noise_a, noise_b, std::max(run_sentinel_threshold(a.context).value_or(0.15),
                                                     run_sentinel_threshold(b.context).value_or(0.15)));
  c.state_unknown = noise_a.has_value() != noise_b.has_value();
  const auto [rel_a, rel_b] =
      opt.absolute ? decltype(paired_figures(ia, ib, opt.statistic)){} : paired_figures(ia, ib, opt.statistic);
  std::vector<double> noise, detectable;
  double logsum = 0;
  bool any_power = false;
  for (const auto& name : ia.order) {
    auto it = ib.by_name.find(name);
    if (it == ib.by_name.end()) {
      c.only_a.push_back(name);
      continue;
    }
    const Result& ra = *ia.by_name.at(name);
    const bool relative = rel_a.count(name) && rel_b.count(name);
    CompareRow row = relative ? relative_row(name, ra.point.at.size, rel_a.at(name), rel_b.at(name), opt.alpha)
                              : absolute_row(name, ra, *it->second, opt.statistic);
    if (relative) {
      detectable.push_back(row.detectable);
      ++c.relative_rows;
    } else if (!row.by_ci) {
      const auto va = rep_figures_ns(ra, opt.statistic), vb = rep_figures_ns(*it->second, opt.statistic);
      noise.push_back(std::max(cv(va), cv(vb)));
    }
    row.same_code = same_code(ra, *it->second);
    c.same_code += row.same_code;
    if (!row.by_ci) any_power |= smallest_p(row.a_reps, row.b_reps) < opt.alpha;
    logsum += std::log(row.speedup);
    c.rows.push_back(row);
  }
  for (const auto& name : ib.order)
    if (!ia.by_name.count(name)) c.only_b.push_back(name);
  c.geomean_speedup = c.rows.empty() ? 0 : std::exp(logsum / double(c.rows.size()));
  c.noise = median_of(noise);
  c.detectable = median_of(detectable);
  c.underpowered = !c.rows.empty() && !any_power &&
                   std::any_of(c.rows.begin(), c.rows.end(), [](const CompareRow& r) { return !r.by_ci; });
  set_min_effects(c, opt, a.context.machine.l2_bytes);
  decide(c, opt, a.context.machine.l2_bytes);
  return c;
}

std::vector<const CompareRow*> regressions(const Comparison& c, double slowdown) {
  std::vector<const CompareRow*> out;
  for (const auto& r : c.rows)
    if (r.verdict == Change::slower && r.speedup > 0 && 1 / r.speedup > slowdown) out.push_back(&r);
  return out;
}

namespace {

/// The row table's column heads.
std::vector<std::string> row_header(const Comparison& c) {
  const bool best = c.statistic == Statistic::best, rel = c.relative_rows > 0;
  return {"benchmark",
          rel ? (best ? "A best" : "A") : best ? "A best ns" : "A median ns",
          rel ? (best ? "B best" : "B") : best ? "B best ns" : "B median ns",
          "speedup",
          rel ? "n" : "reps",
          "p (adj)",
          "verdict"};
}

/// One row's cells: the name as the file has it, A's and B's figures, the speedup,
/// the repetitions, p (or what the CIs said) and the verdict.
std::vector<std::string> row_cells(const Comparison& c, const CompareRow& r) {
  const bool rel = c.relative_rows > 0;
  const std::string p = !r.by_ci         ? fmt::format("{:.3g}", r.p_adjusted)
                        : !r.ci_overlap  ? "n/a"
                        : *r.ci_overlap ? "CIs over"
                                         : "CIs apart";
  // relative rows: times over the group's; the others in ns (marked when both kinds are shown)
  auto figure = [&](double v) {
    return fmt::format("{:.{}f}{}", v, r.relative ? 4 : 2, r.relative ? " rel" : rel ? " ns" : "");
  };
  return {r.name, figure(r.a_ns), figure(r.b_ns), fmt::format("{:.4f}", r.speedup),
          fmt::format("{}/{}", r.a_reps, r.b_reps), p,
          std::string(r.verdict == Change::same ? "same" : r.verdict == Change::faster ? "B faster" : "B slower") +
              (r.same_code && r.verdict != Change::same ? " (same code)" : "")};
}

/// A row as text: the name escaped for a terminal and padded to `w` columns.
std::string row_line(const std::vector<std::string>& c, size_t w) {
  return pad_right(c[0], w) + fmt::format(" {:>13} {:>13} {:>9} {:>5} {:>9}  {}\n", c[1], c[2], c[3], c[4], c[5], c[6]);
}

/// The table: its header and one row per matched point. Names come from the files:
/// escaped, and padded by the columns they take.
std::string comparison_rows(const Comparison& c) {
  std::vector<std::vector<std::string>> rows;
  size_t w = 9;
  for (const auto& r : c.rows) {
    rows.push_back(row_cells(c, r));
    rows.back()[0] = terminal_text(rows.back()[0]);
    w = std::max(w, display_width(rows.back()[0]));
  }
  std::string o = row_line(row_header(c), w);
  for (const auto& r : rows) o += row_line(r, w);
  return o;
}

/// What the figures and the test are: the lines between the labels and the rows.
std::string comparison_head(const Comparison& c) {
  const char* corr = c.correction == Correction::benjamini_hochberg ? "Benjamini-Hochberg"
                     : c.correction == Correction::holm           ? "Holm"
                                                                  : "no";
  const bool best = c.statistic == Statistic::best;
  // One threshold a row: the absolute one only where rows are compared absolutely.
  const size_t absolute = c.rows.size() - std::min(c.rows.size(), c.relative_rows);
  std::string o = fmt::format(
      "speedup = A time / B time = B throughput / A throughput (> 1: B is faster); p = Mann-Whitney U over the "
      "repetition {}, {}-corrected",
      best ? "fastest samples" : "medians", corr);
  if (absolute || !c.relative_rows)
    o += fmt::format("; {} differs when p < {:g} and the speedup is off 1 by at least {:.1f}%",
                     c.relative_rows ? fmt::format("a point measured separately ({} of them)", absolute) : "a point",
                     c.alpha, c.min_effect * 100);
  o += "\n";
  if (c.relative_rows)
    o += fmt::format(
        "{} points measured in paired rounds on both sides are compared relative to their group: \"rel\" = the "
        "point's time over the geometric mean time of the rest of its group in the same round (median over rounds; "
        "B's divided by its group's median shift); p = U test over the rounds; they differ when p < {:g} and the "
        "speedup is off 1 by at least {:.1f}%\n",
        c.relative_rows, c.alpha, c.relative_min_effect * 100);
  return o;
}

/// The summary line and what follows it: warnings about the machine's state, the
/// spread between the runs, the power, notes.
std::string comparison_tail(const Comparison& c) {
  const bool all_relative = c.relative_rows > 0 && c.relative_rows >= c.rows.size();  // its threshold is the one in force
  const std::string beyond =
      c.min_effect_beyond_l2 > 0
          ? fmt::format(", {:.1f}% beyond the L2 (the memory read's shift)", c.min_effect_beyond_l2 * 100)
          : "";
  std::string o = fmt::format(
      "summary: {} matched: B faster {}, B slower {}, same {}; geometric mean speedup {:.4f} ({}); noise (median "
      "repetition cv) {:.2f}%, min effect {:.1f}%{}{}; only in A: {}, only in B: {}\n",
      c.rows.size(), c.faster, c.slower, c.same, c.geomean_speedup,
      c.rows.empty()          ? "nothing to compare"
      : c.geomean_speedup > 1 ? "B faster"
      : c.geomean_speedup < 1 ? "B slower"
                              : "equal",
      c.noise * 100, all_relative ? c.relative_min_effect * 100 : c.min_effect * 100,
      all_relative ? " (relative to the group)" : c.min_effect_from_state ? " (the sentinels' shift)" : "",
      all_relative ? "" : beyond, c.only_a.size(), c.only_b.size());
  for (const StateShift& sh : c.shifts)
    o += fmt::format(
        "warning: the machine was not in the same state in the two runs: sentinel {} {:.2f} vs {:.2f} TSC ticks per "
        "KiB (B {:+.0f}%), {}: differences there may be the machine's, not the kernels'\n",
        sh.part, sh.a, sh.b, (sh.b / sh.a - 1) * 100, sh.affects);
  if (c.relative_rows && c.between_runs > 0)
    o += fmt::format(
        "between the runs: the points' standing in their groups moved by {:.1f}% (robust spread over {} points), "
        "more than their rounds show (the state of each run as a whole); {}\n",
        c.between_runs * 100, c.relative_rows,
        c.relative_min_effect > kRelativeMinEffect
            ? fmt::format("so a point is called only beyond {}% (3 of that spread); merge several runs a side for "
                          "finer calls",
                          int(std::lround(c.relative_min_effect * 100)))
            : "within the 3% minimum effect");
  if (c.relative_rows)
    o += fmt::format(
        "power: with these rounds a relative change of about {:.1f}% or more would be found 80% of the time (median "
        "over the relative rows); smaller ones are below this comparison's resolution\n",
        c.detectable * 100);
  if (c.same_code)
    o += fmt::format("same code: {} of the {} rows ran identical code on both sides (code bytes, or the same "
                     "symbol of a file with the same SHA-256): a difference called there is the machine's\n",
                     c.same_code, c.rows.size());
  if (c.state_unknown)
    o += "note: only one of the runs has a sentinel record (context.protocol.noise): whether the machine was in the "
         "same state in both is unknown\n";
  if (c.underpowered) {
    // The typical row's repetitions, and the smallest two-sided p they allow.
    const CompareRow& r = c.rows[c.rows.size() / 2];
    o += fmt::format(
        "note: with these repetition counts no U test can reach p < {:g} ({} against {} gives at best {:.3g}): run "
        "both sides with --repetitions 5 or more to detect differences\n",
        c.alpha, r.a_reps, r.b_reps, smallest_p(r.a_reps, r.b_reps));
  }
  return o;
}

}  // namespace

std::string format_comparison(const Comparison& c, const std::string& a_label, const std::string& b_label) {
  return "A: " + terminal_text(a_label) + "\nB: " + terminal_text(b_label) + "\n" + comparison_head(c) +
         comparison_rows(c) + comparison_tail(c);
}

std::string format_comparison_markdown(const Comparison& c, const std::string& a_label, const std::string& b_label) {
  // kex's own lines as paragraphs; the labels and names from the files escaped.
  auto paragraphs = [](const std::string& text) {
    std::string out;
    for (size_t p = 0, e; p < text.size(); p = e + 1) {
      e = text.find('\n', p);
      if (e == std::string::npos) e = text.size();
      out += text.substr(p, e - p) + "\n\n";
    }
    return out;
  };
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : c.rows) {
    rows.push_back(row_cells(c, r));
    rows.back()[0] = md_text(rows.back()[0]);
  }
  return "**A:** " + md_text(a_label) + "  \n**B:** " + md_text(b_label) + "\n\n" + paragraphs(comparison_head(c)) +
         md_table(row_header(c), "lrrrrrl", rows) + "\n" + paragraphs(comparison_tail(c));
}

}  // namespace kex
