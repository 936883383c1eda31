#include "src/results/answer_text.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include <fmt/core.h>

#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"
#include "src/model/noise.hpp"
#include "src/results/markdown.hpp"
#include "src/results/stream_text.hpp"
#include "src/results/results.hpp"

namespace kex {

namespace {

/// "256 B" or "256 B..16 KiB".
std::string sizes_text(uint64_t first, uint64_t last) {
  return first == last ? format_bytes(first) : format_bytes(first) + ".." + format_bytes(last);
}

/// "1.09x" or "1.09..1.71x".
std::string range_x(double lo, double hi) {
  return fmt::format("{:.2f}", lo) == fmt::format("{:.2f}", hi) ? fmt::format("{:.2f}x", lo)
                                                                : fmt::format("{:.2f}..{:.2f}x", lo, hi);
}

/// A run of consecutive sizes of one block: one winner (tied or not at each), or, where
/// the winner changes at every size and ties at each, a tie throughout.
struct Stretch {
  std::vector<const GroupAnswer*> rows;
  std::string winner;  ///< "" for a tie throughout
};

/// Sizes grouped by winner; neighbouring one-size stretches whose winner ties are one tie.
std::vector<Stretch> stretches(const RunDoc& run, const AnswerBlock& b) {
  std::vector<Stretch> by_winner;
  for (const GroupAnswer* g : b.rows) {
    const std::string& w = run.results[g->members[0].result].point.kernel;
    if (by_winner.empty() || by_winner.back().winner != w) by_winner.push_back({{}, w});
    by_winner.back().rows.push_back(g);
  }
  auto lone_tie = [](const Stretch& s) { return s.rows.size() == 1 && s.rows[0]->ties() > 1; };
  std::vector<Stretch> out;
  for (size_t i = 0; i < by_winner.size(); ++i) {
    size_t j = i;
    while (j < by_winner.size() && lone_tie(by_winner[j])) ++j;
    if (j - i < 2) {
      out.push_back(by_winner[i]);
      continue;
    }
    Stretch tie;
    for (size_t k = i; k < j; ++k) tie.rows.push_back(by_winner[k].rows[0]);
    out.push_back(tie);
    i = j - 1;
  }
  return out;
}

/// "4..23" or "4".
std::string count_range(size_t lo, size_t hi) { return lo == hi ? std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi); }

/// ", 1.09..1.71x memcpy": the winner over libc in the same rounds, where the rounds show it.
std::string versus_libc(const RunDoc& run, const Stretch& s, const char* libc) {
  double lo = 0, hi = 0;
  size_t decided = 0, same = 0, is_libc = 0;
  for (const GroupAnswer* g : s.rows) {
    const RankedMember& w = g->members[0];
    if (run.results[w.result].libc) {
      ++is_libc;
      continue;
    }
    if (!w.vs_libc || w.vs_libc->rounds < kMinIntervalCount) continue;
    const PairedRatio& r = *w.vs_libc;
    if (r.covers_one() || (r.low >= 1 / (1 + kTieResolution) && r.high <= 1 + kTieResolution)) {
      ++same;
      continue;
    }
    const double x = 1 / r.ratio;
    lo = decided ? std::min(lo, x) : x;
    hi = decided ? std::max(hi, x) : x;
    ++decided;
  }
  if (is_libc) return "";  // the winner is libc itself
  const std::string of = fmt::format(" at {} of {} size{}", same, s.rows.size(), s.rows.size() == 1 ? "" : "s");
  if (decided) return ", " + range_x(lo, hi) + " " + libc + (same ? " (the same" + of + ")" : "");
  if (same) return std::string(", the same as ") + libc + (same == s.rows.size() ? "" : of);
  return "";
}

std::string stretch_text(const RunDoc& run, const Stretch& s, Op op) {
  const char* libc = op_info(op).libc;  // "" for a read: no libc to race
  const std::string sizes = sizes_text(s.rows.front()->key.at.size, s.rows.back()->key.at.size);
  size_t lo = SIZE_MAX, hi = 0, tied = 0, with_libc = 0;
  for (const GroupAnswer* g : s.rows) {
    if (g->ties() < 2) continue;
    ++tied;
    lo = std::min(lo, g->ties() - 1);
    hi = std::max(hi, g->ties() - 1);
    with_libc += std::any_of(g->members.begin() + 1, g->members.end(),
                             [&](const RankedMember& m) { return m.tie && run.results[m.result].libc; });
  }
  const std::string n = std::to_string(s.rows.size()) + " size" + (s.rows.size() == 1 ? "" : "s");
  if (s.winner.empty()) {
    std::string t = "a tie at " + sizes + " (" + count_range(lo + 1, hi + 1) + " kernels within " +
                    fmt::format("{:g}", kTieResolution * 100) + "% at each";
    if (with_libc == s.rows.size()) t += std::string("; ") + libc + " among them";
    else if (with_libc) t += fmt::format("; {} among them at {} of {}", libc, with_libc, n);
    return t + ")";
  }
  std::string t = s.winner + " at " + sizes;
  if (tied) t += " (tied with " + count_range(lo, hi) + (hi == 1 ? " other" : " others") +
                 (tied == s.rows.size() ? "" : " at " + std::to_string(tied) + " of " + n) + ")";
  return t + versus_libc(run, s, libc);
}

}  // namespace

std::vector<AnswerBlock> answer_blocks(const std::vector<GroupAnswer>& answers) {
  std::vector<AnswerBlock> blocks;
  for (const GroupAnswer& g : answers) {
    if (is_stream_group(g)) continue;  // a stream's calls have no one size: stream_text.hpp
    std::string cond = condition_label(condition(g.key.at));
    if (g.key.fill) cond += fmt::format("{}fill:0x{:02x}", cond.empty() ? "" : "/", g.key.fill);
    auto b = std::find_if(blocks.begin(), blocks.end(), [&](const AnswerBlock& x) { return x.op == g.key.op && x.cond == cond; });
    if (b == blocks.end()) b = blocks.insert(blocks.end(), {g.key.op, cond, {}});
    b->rows.push_back(&g);
  }
  std::stable_sort(blocks.begin(), blocks.end(), [](const AnswerBlock& a, const AnswerBlock& b) {
    return std::make_tuple(a.op, a.cond.size(), a.cond) < std::make_tuple(b.op, b.cond.size(), b.cond);
  });
  for (AnswerBlock& b : blocks)
    std::sort(b.rows.begin(), b.rows.end(), [](const GroupAnswer* x, const GroupAnswer* y) { return x->key.at.size < y->key.at.size; });
  return blocks;
}

std::string ratio_text(const PairedRatio& r) {
  if (r.rounds == 0) return "-";
  if (r.covers_one()) return fmt::format("same [{:.2f}-{:.2f}]", r.low, r.high);
  return fmt::format("{:.2f}x [{:.2f}-{:.2f}]", r.ratio, r.low, r.high);
}

std::string block_title(Op op, const std::string& cond) {
  return std::string(to_string(op)) + " (" + (cond.empty() ? "warm" : cond) + ")";
}

std::string block_title(const AnswerBlock& b) {
  const bool overlaps = b.op == Op::copy && std::any_of(b.rows.begin(), b.rows.end(), [](const GroupAnswer* g) {
    const std::optional<int64_t> d = g->key.at.layout.distance;
    return d && uint64_t(*d < 0 ? -*d : *d) < g->key.at.size;
  });
  return overlaps ? "move (" + (b.cond.empty() ? std::string("warm") : b.cond) + ")" : block_title(b.op, b.cond);
}

std::vector<std::string> answer_lines(const RunDoc& run, const std::vector<GroupAnswer>& answers, bool compact) {
  std::vector<std::string> out;
  std::set<Op> shown;
  for (const AnswerBlock& b : answer_blocks(answers)) {
    if (compact && !shown.insert(b.op).second) continue;
    std::string line = block_title(b) + ": ";
    bool first = true;
    for (const Stretch& s : stretches(run, b)) {
      line += (first ? "" : "; ") + stretch_text(run, s, b.op);
      first = false;
    }
    out.push_back(line);
  }
  for (std::string& l : stream_answer_lines(run, answers)) out.push_back(std::move(l));
  return out;
}

std::vector<std::string> state_warnings(const RunDoc& run) {
  std::vector<std::string> out;
  const RunContext& c = run.context;
  if (c.gbench.load_avg && !c.gbench.load_avg->empty() && (*c.gbench.load_avg)[0] >= 1)
    out.push_back(fmt::format("the machine was busy as the run started (load average {:.2f} over the last minute on {} "
                              "CPUs): absolute GB/s vary more than usual; the ratios of paired rounds hold better",
                              (*c.gbench.load_avg)[0], c.machine.num_cpus));
  if (const std::optional<Noise> n = run_noise(c); n && n->readings > 0 && n->disturbed * 10 >= n->readings)
    out.push_back(fmt::format("{} of {} sentinel windows were disturbed (another tenant, or a slower state of the VM: "
                              "docs/methodology.md section 6): figures from those windows vary more",
                              n->disturbed, n->readings));
  return out;
}

std::string answer_text(const RunDoc& run, bool compact) {
  std::string s;
  for (const std::string& l : answer_lines(run, answer_groups(run), compact)) s += "  " + terminal_text(l) + "\n";
  for (const std::string& l : state_warnings(run)) s += "  warning: " + terminal_text(l) + "\n";
  return s.empty() ? s : "answer:\n" + s;
}

std::string answer_markdown(const RunDoc& run) {
  std::string s;
  for (const std::string& l : answer_lines(run, answer_groups(run), false)) s += "- " + md_text(l) + "\n";
  for (const std::string& l : state_warnings(run)) s += "- warning: " + md_text(l) + "\n";
  return s.empty() ? s : "**answer**\n\n" + s + "\n";
}

}  // namespace kex
