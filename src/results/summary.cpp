#include "src/results/summary.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include <fmt/core.h>

#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"
#include "src/model/axis.hpp"
#include "src/model/noise.hpp"
#include "src/model/kernel_names.hpp"
#include "src/model/paired.hpp"
#include "src/model/spec.hpp"
#include "src/results/answer_text.hpp"
#include "src/results/standing_text.hpp"
#include "src/results/stream_text.hpp"
#include "src/results/ifunc_text.hpp"
#include "src/results/markdown.hpp"
#include "src/results/results.hpp"

namespace kex {

namespace {

/// "12.34" (GB/s with 2 decimals), or "-" when nothing was measured (0 or less).
std::string num(double v) { return v > 0 ? fmt::format("{:.2f}", v) : "-"; }

bool is_libc(const Result& r) { return r.libc.has_value(); }
bool is_rep(const Result& r) { return r.kind == KernelKind::baseline && !r.libc; }

/// "1.10x", or "same" when the interval holds 1 or lies within the tie resolution of it:
/// the winner's speed over libc's, from their time ratio in the same rounds, with its interval
/// ("1.10x (n=4)": fewer rounds than kMinIntervalCount give none, nor a "same").
std::string speedup_text(const PairedRatio& time_ratio) {
  if (time_ratio.rounds == 0 || time_ratio.ratio <= 0) return "-";
  if (time_ratio.rounds < kMinIntervalCount) return fmt::format("{:.2f}x (n={})", 1 / time_ratio.ratio, time_ratio.rounds);
  const bool within = time_ratio.low >= 1 / (1 + kTieResolution) && time_ratio.high <= 1 + kTieResolution;
  if (time_ratio.covers_one() || within)
    return fmt::format("same [{:.2f}-{:.2f}]", 1 / time_ratio.high, 1 / time_ratio.low);
  return fmt::format("{:.2f}x [{:.2f}-{:.2f}]", 1 / time_ratio.ratio, 1 / time_ratio.high, 1 / time_ratio.low);
}

/// "+8.4% [7.9-9.1]": how much slower the fastest kernel outside the ties is, with its
/// interval; "+8.4% (n=4)" over fewer than kMinIntervalCount rounds, which give none.
std::string lead_text(const PairedRatio& r) {
  if (r.rounds < kMinIntervalCount) return fmt::format("+{:.1f}% (n={})", (r.ratio - 1) * 100, r.rounds);
  return fmt::format("+{:.1f}% [{:.1f}-{:.1f}]", (r.ratio - 1) * 100, (r.low - 1) * 100, (r.high - 1) * 100);
}

/// "143.46 ±0.3%": a GB/s figure and the half-width of its interval over rounds (or, for
/// one repetition, over its samples); "143.46 (n=1)" when the figure rests on 2 to 5
/// repetitions, or on one that is left of several (the others disturbed): no 95% interval.
std::string gbps_pm(const Result& r) {
  const Aggregate a = aggregate(r);
  if (a.median_ns <= 0) return "-";
  const double gbps = gbps_at(moved_bytes(r.point.at), a.median_ns);
  const bool alone = a.repetitions == 1 && r.reps.size() == 1;  // its samples' interval
  if (a.repetitions < kMinIntervalCount && !alone) return fmt::format("{:.2f} (n={})", gbps, a.repetitions);
  const double half = (a.ci_high_ns - a.ci_low_ns) / 2 / a.median_ns * 100;
  return fmt::format("{:.2f} \u00b1{:.{}f}%", gbps, half, half < 10 ? 1 : 0);
}

/// The libc and rep baselines' column heads of an op ("memcpy", "rep movsb"; "libc", "rep"
/// for a read, which has neither).
std::string libc_word(Op op) { return *op_info(op).libc ? op_info(op).libc : "libc"; }
std::string rep_word(Op op) { return *op_info(op).rep ? op_info(op).rep : "rep"; }

/// The paired table's column heads.
std::vector<std::string> paired_header(Op op) {
  const std::string libc = libc_word(op);
  return {"size", "fastest kernel", "GB/s", "ties", "lead over the rest", libc, "fastest/" + libc, rep_word(op)};
}

/// One group's row: size, the winner (its name as the file has it), its GB/s, ties, the
/// lead over the rest (the fastest kernel outside the ties), libc's GB/s, the winner over libc, rep's GB/s.
std::vector<std::string> paired_cells(const RunDoc& run, const GroupAnswer& g) {
  const RankedMember& w = g.members[0];
  const Result& wr = run.results[w.result];
  double libc = 0, rep = 0;
  for (const RankedMember& m : g.members) {
    const Result& r = run.results[m.result];
    if (r.libc) libc = median_gbps(r);
    else if (r.kind == KernelKind::baseline) rep = median_gbps(r);
  }
  const auto next = g.next();
  return {format_bytes(g.key.at.size),
          wr.point.kernel,
          gbps_pm(wr),
          std::to_string(g.ties()),
          next ? lead_text(g.members[*next].vs_winner) : "-",
          num(libc),
          wr.libc ? "(libc is fastest)" : w.vs_libc ? speedup_text(*w.vs_libc) : "-",
          num(rep)};
}

/// A paired row as text: the name escaped for a terminal, cut and padded to `kw`
/// columns by the columns it takes; kex's own cells (ASCII and "\u00b1") padded by fmt.
std::string paired_line(const std::vector<std::string>& c, size_t kw) {
  return fmt::format("{:>9} {}{:>15}  {:<4}  {:<22}{:>8}  {:<20}{:>10}\n", c[0], pad_right(clip(terminal_text(c[1]), kw), kw),
                     c[2], c[3], c[4], c[5], c[6], c[7]);
}

/// What the paired table's figures are.
std::string paired_note(const std::vector<GroupAnswer>& answers) {
  const size_t rounds = answers.empty() ? 0 : answers.front().rounds;
  return "Paired rounds (" + std::to_string(rounds) +
         " per group): each round measures a group's kernels back to back, so every ratio compares times taken in "
         "the same window. GB/s = 1e9 bytes/s of the median time over rounds, \u00b1 its 95% interval (n=N instead: "
         "N rounds, too few for one); ties = kernels "
         "not shown slower than the fastest by more than 1% (95% interval over rounds; libc and rep included); lead = "
         "the time of the fastest kernel outside the ties over the fastest's; fastest/libc = speed ratio in the same rounds, \"same\" when its "
         "interval holds 1 or lies within 1% of it.\n";
}

/// The blocks a compact table leaves out, named on one line ("" for none).
std::string more_blocks_line(const std::string& titles) {
  return titles.empty() ? std::string() : "also measured (kex summary prints their tables): " + titles + "\n";
}

/// The timed loop's own cost in a block (the empty routine in the same rounds: its smallest
/// and largest figure over the block's winners), and its share of the fastest time at the
/// block's first size; "" when no winner measured it (an earlier kex, threads).
std::string harness_line(const RunDoc& run, const AnswerBlock& b) {
  double lo = 0, hi = 0, share = 0;
  for (const GroupAnswer* g : b.rows) {
    const Aggregate a = aggregate(run.results[g->members[0].result]);
    if (a.harness_ns <= 0) continue;
    if (lo == 0) share = a.median_ns > 0 ? a.harness_ns / a.median_ns : 0;
    lo = lo == 0 ? a.harness_ns : std::min(lo, a.harness_ns);
    hi = std::max(hi, a.harness_ns);
  }
  if (lo <= 0) return {};
  const std::string range = hi > lo * 1.05 ? fmt::format("{:.2f}..{:.2f}", lo, hi) : fmt::format("{:.2f}", hi);
  return fmt::format("  timed loop's own cost: {} ns per operation (an empty routine in the same rounds), inside every "
                     "time above: {:.0f}% of the fastest's at {}\n",
                     range, 100 * share, format_bytes(b.rows.front()->key.at.size));
}

/// The paired table: one block per op and condition, a row per size, from the
/// group's answer in its rounds.
std::string paired_table(const RunDoc& run, const std::vector<GroupAnswer>& answers, bool compact) {
  if (answer_blocks(answers).empty()) return {};  // streams only: stream_table
  std::string s, more;
  std::set<Op> shown;
  for (const AnswerBlock& b : answer_blocks(answers)) {
    if (compact && !shown.insert(b.op).second) {
      more += (more.empty() ? "" : "; ") + block_title(b);
      continue;
    }
    size_t kw = 14;
    for (const GroupAnswer* g : b.rows)
      kw = std::max(kw, std::min<size_t>(60, display_width(terminal_text(run.results[g->members[0].result].point.kernel))));
    s += "\n" + block_title(b) + "\n" + paired_line(paired_header(b.op), kw);
    for (const GroupAnswer* g : b.rows) s += paired_line(paired_cells(run, *g), kw);
    s += harness_line(run, b);
  }
  return s + more_blocks_line(more) + "\n" + paired_note(answers);
}

/// `text` cut to at most `width` columns at the end of a word, " ..." marking the cut: a
/// reason cut inside a word ("memmov...") reads as another word.
std::string clip_at_word(const std::string& text, size_t width) {
  std::string c = clip(text, width);
  if (c == text) return c;
  c.resize(c.size() - 3);  // clip's "..."
  if (c.size() < text.size() && std::isalnum(static_cast<unsigned char>(text[c.size()])) &&
      std::isalnum(static_cast<unsigned char>(c.back())))  // the cut fell inside a word
    if (const size_t space = c.find_last_of(' '); space != std::string::npos && space > 0) c.resize(space);
  while (!c.empty() && (c.back() == ' ' || c.back() == ',' || c.back() == ':' || c.back() == ';')) c.pop_back();
  return c + " ...";
}

/// Skipped and failed points: counts and the commonest reasons, each written by `esc`
/// (terminal_text, or md_text for Markdown).
std::string skipped_line(const RunDoc& run, std::string (*esc)(std::string_view)) {
  size_t skipped = 0, failed = 0;
  std::map<std::string, size_t> skip_reasons;  // the message -> points
  for (const Result& r : run.results) {
    if (r.status.kind == StatusKind::skipped) {
      ++skipped;
      ++skip_reasons[r.status.message];
    }
    failed += r.status.kind == StatusKind::error;
  }
  if (!skipped && !failed) return {};
  // The commonest reasons by name ("this CPU lacks avx512f"), so a figure with a
  // kernel missing says why; the rest are in the JSON.
  std::vector<std::pair<size_t, std::string>> reasons;
  for (const auto& [m, n] : skip_reasons) reasons.emplace_back(n, m);
  // ties stay in message order (the map's), so the line is the same on every machine
  std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string why;
  for (size_t i = 0; i < reasons.size() && i < 3; ++i)
    why += (i ? "; " : "") + clip_at_word(esc(reasons[i].second), 90) + " (" + std::to_string(reasons[i].first) + ")";
  if (reasons.size() > 3) why += "; " + std::to_string(reasons.size() - 3) + " other reasons";
  return std::to_string(skipped) + " point" + (skipped == 1 ? "" : "s") + " skipped" + (why.empty() ? "" : ": " + why) +
         "; " + std::to_string(failed) + " failed (see skip_message and error_message in the JSON)\n";
}

/// A row of the table of runs measured without rounds: the fastest kernel but the
/// baselines; with none measured there (presets under a seed harness beside kex's
/// baselines), the fastest baseline, so that no row is all "-".
struct PlainRow {
  std::string best, best_baseline;
  double best_gbps = 0, best_baseline_gbps = 0, libc = 0, rep = 0;
};

/// The table of runs measured without rounds: (op, condition label) -> size -> row,
/// blocks in op, then condition order.
struct PlainTable {
  std::vector<std::pair<Op, std::string>> order;
  std::map<std::pair<Op, std::string>, std::map<uint64_t, PlainRow>> blocks;
};

PlainTable plain_table(const RunDoc& run) {
  PlainTable t;
  for (const Result& r : run.results) {
    if (!r.ok() || r.point.at.harness != Harness::kex) continue;
    const auto key = std::make_pair(r.op, condition_label(condition(r.point.at)));
    if (!t.blocks.count(key)) t.order.push_back(key);
    PlainRow& row = t.blocks[key][r.point.at.size];
    const double g = median_gbps(r);
    if (is_libc(r)) row.libc = g;
    else if (is_rep(r)) row.rep = g;
    const bool base = r.kind == KernelKind::baseline;
    if (g > (base ? row.best_baseline_gbps : row.best_gbps)) {
      (base ? row.best_baseline_gbps : row.best_gbps) = g;
      (base ? row.best_baseline : row.best) = r.point.kernel;
    }
  }
  for (auto& [key, rows] : t.blocks)
    for (auto& [size, row] : rows)
      if (row.best.empty()) {
        row.best = row.best_baseline;
        row.best_gbps = row.best_baseline_gbps;
      }
  std::sort(t.order.begin(), t.order.end(), [](const auto& a, const auto& b) {
    return std::make_tuple(a.first, a.second.size(), a.second) < std::make_tuple(b.first, b.second.size(), b.second);
  });
  return t;
}

/// A plain row's cells: size, the fastest kernel (as the file has it), its GB/s, libc's,
/// their ratio, rep's.
std::vector<std::string> plain_cells(uint64_t size, const PlainRow& r) {
  const std::string ratio = r.libc > 0 && r.best_gbps > 0 ? fmt::format("{:.2f}x", r.best_gbps / r.libc) : "-";
  return {format_bytes(size), r.best.empty() ? "-" : r.best, num(r.best_gbps), num(r.libc), ratio, num(r.rep)};
}

const char* const kPlainNote =
    "GB/s = 1e9 bytes/s of the median time per operation, bytes counted once; ratio = fastest GB/s / libc GB/s "
    "at the same conditions (> 1: the fastest kernel beats libc).\n";

}  // namespace

std::string summary_table(const RunDoc& run, bool compact) {
  if (const std::vector<GroupAnswer> answers = answer_groups(run); !answers.empty()) {
    std::string ifunc;
    for (const std::string& l : ifunc_lines(run, answers)) ifunc += terminal_text(l) + "\n";
    return paired_table(run, answers, compact) + stream_table(run, answers) + standing_table(run, answers) + ifunc +
           skipped_line(run, terminal_text);
  }
  const PlainTable t = plain_table(run);
  if (t.blocks.empty()) return {};
  std::string s, more;
  std::set<Op> shown;
  for (const auto& key : t.order) {
    const auto& [op, cond] = key;
    if (compact && !shown.insert(op).second) {
      more += (more.empty() ? "" : "; ") + block_title(op, cond);
      continue;
    }
    // The first column holds the title (kex's words for the condition) and the sizes under it.
    const std::string title = block_title(op, cond);
    const size_t w = std::max<size_t>(16, std::min<size_t>(title.size(), 200));
    s += fmt::format("\n{:<{}} {:<60} {:>9} {:>9} {:>7} {:>9}\n", title, w, "fastest kernel", "GB/s",
                     libc_word(op), "ratio", rep_word(op));
    for (const auto& [size, r] : t.blocks.at(key)) {
      // A name from a results file: escaped, cut and padded by the columns it takes.
      const auto c = plain_cells(size, r);
      s += fmt::format("{:>{}} {} {:>9} {:>9} {:>7} {:>9}\n", c[0], w, pad_right(clip(terminal_text(c[1]), 60), 60), c[2],
                       c[3], c[4], c[5]);
    }
  }
  return s + more_blocks_line(more) + "\n" + kPlainNote + skipped_line(run, terminal_text);
}

std::string summary_markdown(const RunDoc& run) {
  std::string s;
  auto block = [&](const std::string& title, const std::vector<std::string>& head, std::string_view align,
                   std::vector<std::vector<std::string>> rows) {
    for (auto& r : rows) r[1] = md_text(r[1]);  // the kernel name, from the file
    s += "**" + md_text(title) + "**\n\n" + md_table(head, align, rows) + "\n";
  };
  if (const std::vector<GroupAnswer> answers = answer_groups(run); !answers.empty()) {
    for (const AnswerBlock& b : answer_blocks(answers)) {
      std::vector<std::vector<std::string>> rows;
      for (const GroupAnswer* g : b.rows) rows.push_back(paired_cells(run, *g));
      block(block_title(b), paired_header(b.op), "rlrrlrlr", std::move(rows));
    }
    s += paired_note(answers);
    for (const std::string& l : ifunc_lines(run, answers)) s += "\n" + md_text(l) + "\n";
  } else {
    const PlainTable t = plain_table(run);
    if (t.blocks.empty()) return {};
    for (const auto& key : t.order) {
      std::vector<std::vector<std::string>> rows;
      for (const auto& [size, r] : t.blocks.at(key)) rows.push_back(plain_cells(size, r));
      block(block_title(key.first, key.second),
            {"size", "fastest kernel", "GB/s", libc_word(key.first), "ratio", rep_word(key.first)},
            "rlrrrr", std::move(rows));
    }
    s += kPlainNote;
  }
  if (const std::string sk = skipped_line(run, md_text); !sk.empty()) s += "\n" + sk;
  return s;
}

namespace {

/// The layout axis a layout sweep's columns show: of the layout axes swept among `all`,
/// the one with the most values (the first of equals, in table order); none when none is.
std::optional<Axis> layout_column_axis(const std::vector<Coords>& all) {
  std::vector<std::pair<Axis, size_t>> swept;  // layout axes swept, with their number of values
  for (const Axis a : swept_axes(all))
    if (axis_row(a).layout) {
      std::set<std::string> v;
      for (const auto& c : all) v.insert(axis_value(c, a));
      swept.emplace_back(a, v.size());
    }
  if (swept.empty()) return std::nullopt;
  return std::max_element(swept.begin(), swept.end(), [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;
}

/// `l` with only the column axis `col_axis` kept (keep_column_axis) or with every
/// layout axis but it kept; the others at their defaults.
Layout layout_part(const Layout& l, Axis col_axis, bool keep_column_axis) {
  Coords x;
  x.layout = l;
  for (const AxisRow& r : axis_rows())
    if (r.layout && (r.axis == col_axis) != keep_column_axis) r.reset(x);
  return x.layout;
}

/// One table of the layout sweep: its columns (layouts of the column axis) and rows
/// (kernel [@ the other layout axes]) in first-seen order, GB/s per (row, column index).
struct LayoutGroup {
  std::vector<Layout> columns;
  std::vector<std::string> rows;
  std::map<std::pair<std::string, size_t>, double> gbps;
};

/// A layout table's key: op, the conditions but the layout, size in bytes.
using LayoutKey = std::tuple<Op, std::string, uint64_t>;

/// The measured kex-harness Results of `run` as layout tables, one per key.
std::map<LayoutKey, LayoutGroup> layout_groups(const RunDoc& run, Axis col_axis) {
  std::map<LayoutKey, LayoutGroup> groups;
  for (const Result& r : run.results) {
    if (!r.ok() || r.point.at.harness != Harness::kex) continue;
    Coords rest = condition(r.point.at);
    rest.layout = Layout{};
    LayoutGroup& g = groups[LayoutKey{r.op, condition_label(rest), r.point.at.size}];
    const Layout column = layout_part(r.point.at.layout, col_axis, true);
    auto col = std::find(g.columns.begin(), g.columns.end(), column);
    if (col == g.columns.end()) col = g.columns.insert(g.columns.end(), column);
    const Layout others = layout_part(r.point.at.layout, col_axis, false);
    const std::string row = r.point.kernel + (others == Layout{} ? "" : " @ " + layout_label(others));
    if (std::find(g.rows.begin(), g.rows.end(), row) == g.rows.end()) g.rows.push_back(row);
    g.gbps[{row, size_t(col - g.columns.begin())}] = median_gbps(r);
  }
  return groups;
}

/// How a layout table prints: its column indexes in layout order; wide (more than 12
/// columns: only the worst and best of a row, with their layouts); the kernel column's
/// and the value columns' widths in characters.
struct LayoutView {
  const LayoutGroup& g;
  std::vector<size_t> cols;
  bool wide = false;
  size_t kw = 24, cw = 8;
};

/// How table `g` prints: the columns sorted by layout, the widths its labels and
/// kernel names need.
LayoutView layout_view(const LayoutGroup& g) {
  LayoutView v{g, std::vector<size_t>(g.columns.size())};
  for (size_t i = 0; i < v.cols.size(); ++i) v.cols[i] = i;
  std::sort(v.cols.begin(), v.cols.end(), [&](size_t a, size_t b) { return g.columns[a] < g.columns[b]; });
  v.wide = v.cols.size() > 12;
  for (const auto& k : g.rows) v.kw = std::max(v.kw, display_width(terminal_text(k)));
  for (size_t c : v.cols) v.cw = std::max(v.cw, layout_label(g.columns[c]).size());
  return v;
}

/// A layout table's title line (op, size, conditions) and its column header line.
std::string layout_header(const LayoutView& v, Op op, uint64_t size, const std::string& cond) {
  std::string s = fmt::format("\n{} {}{}{}\n{:<{}}", to_string(op), format_bytes(size), cond.empty() ? "" : ", ", cond,
                              "kernel", v.kw);
  if (v.wide) {
    s += "      worst  (layout)              best  (layout)            ";
  } else {
    for (size_t c : v.cols) s += fmt::format(" {:>{}}", layout_label(v.g.columns[c]), v.cw);
  }
  s += "  worst/best\n";
  return s;
}

/// Row `k` of a layout table: its GB/s per column (wide: the worst and best, with
/// their layouts) and worst/best; "" when it was measured at fewer than 2 layouts.
std::string layout_row(const LayoutView& v, const std::string& k) {
  const LayoutGroup& g = v.g;
  size_t measured = 0;
  for (size_t c : v.cols) measured += g.gbps.count({k, c});
  if (measured < 2) return {};  // a kernel measured at one layout only says nothing about layouts
  std::string s = pad_right(terminal_text(k), v.kw);  // a kernel name from a results file
  double lo = 0, hi = 0;
  size_t at_lo = 0, at_hi = 0;
  bool any = false;
  for (size_t c : v.cols) {
    auto it = g.gbps.find({k, c});
    if (!v.wide) s += fmt::format(" {:>{}}", it == g.gbps.end() ? "-" : num(it->second), v.cw);
    if (it == g.gbps.end()) continue;
    if (!any || it->second < lo) { lo = it->second; at_lo = c; }
    if (!any || it->second > hi) { hi = it->second; at_hi = c; }
    any = true;
  }
  if (v.wide)
    s += fmt::format(" {:>10}  {:<18} {:>10}  {:<18}", num(lo), layout_label(g.columns[at_lo]), num(hi),
                     layout_label(g.columns[at_hi]));
  return s + fmt::format("  {:>10}\n", any && hi > 0 ? fmt::format("{:.2f}", lo / hi) : "-");
}

}  // namespace

std::string layout_table(const RunDoc& run) {
  std::vector<Coords> all;
  for (const Result& r : run.results)
    if (r.ok() && r.point.at.harness == Harness::kex) all.push_back(r.point.at);
  const std::optional<Axis> col = layout_column_axis(all);
  if (!col) return {};
  const Axis col_axis = *col;
  std::string s = "\nlayout sweep: GB/s (1e9 bytes/s) of each kernel across the " + std::string(to_string(col_axis)) +
                  " values measured (columns); worst/best = lowest / highest GB/s of the row (1.00: the layout does not "
                  "matter)\n";
  for (const auto& [key, g] : layout_groups(run, col_axis)) {
    const auto& [op, cond, size] = key;
    if (g.columns.size() < 2) continue;  // nothing swept under these conditions
    const LayoutView v = layout_view(g);
    s += layout_header(v, op, size, cond);
    for (const auto& k : g.rows) s += layout_row(v, k);
  }
  return s;
}

}  // namespace kex
