#include "src/results/stream_text.hpp"

#include <cmath>

#include <fmt/core.h>

#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"

namespace kex {

namespace {

/// "4.66 ±1.6%": a member's median ns per call and its interval's half width.
std::string per_call_text(const Result& r) {
  const Aggregate a = aggregate(r);
  if (a.median_ns <= 0) return "-";
  const double half = (a.ci_high_ns - a.ci_low_ns) / 2 / a.median_ns * 100;
  return fmt::format("{:.2f} \u00b1{:.{}f}%", a.median_ns / double(calls_per_operation(r.point.at)), half, half < 10 ? 1 : 0);
}

/// "1.15x [1.12-1.19]", "tie [0.99-1.02]", "fastest".
std::string ratio_text(const RankedMember& m, bool first) {
  if (first) return "fastest";
  const PairedRatio& p = m.vs_winner;
  if (p.rounds == 0) return "-";
  return fmt::format("{} [{:.2f}-{:.2f}]", m.tie ? "tie" : fmt::format("{:.2f}x", p.ratio), p.low, p.high);
}

std::string libc_ratio_text(const RankedMember& m, const Result& r) {
  if (r.libc) return "(libc)";
  if (!m.vs_libc || m.vs_libc->rounds == 0) return "-";
  return fmt::format("{:.2f}x [{:.2f}-{:.2f}]", m.vs_libc->ratio, m.vs_libc->low, m.vs_libc->high);
}

/// The block's title: the op, the stream and what it is.
std::string stream_title(const RunDoc& run, const GroupAnswer& g) {
  const Coords& at = g.key.at;
  std::string t = fmt::format("{} on stream {} (footprint {}, {} calls a pass, seed {}", to_string(g.key.op),
                              terminal_text(at.stream), format_bytes(at.footprint), at.stream_calls, at.stream_seed);
  if (at.threads > 1)
    t += fmt::format("; {} threads, each the same calls in an order of its own, on its own buffers; ns per call of the "
                     "team (wall time over the calls of one worker)", at.threads);
  if (const StreamRecord* s = stream_of(run, at))
    t += fmt::format("; sizes: mean {:.0f} B, p50 {}, p90 {}, p99 {}{}", s->mean, format_bytes(s->p50),
                     format_bytes(s->p90), format_bytes(s->p99),
                     s->capped ? fmt::format("; {} calls capped at {}", s->capped, format_bytes(at.footprint / 2)) : "");
  return t + ")";
}

}  // namespace

/// The variant ifunc picked for `op`'s libc function in the run ("" when unknown).
std::string pick_of(const RunDoc& run, Op op) {
  const auto f = libc_function_of(op);
  if (!run.context.ifunc || !f) return {};
  return *f == Function::memcpy ? run.context.ifunc->memcpy_impl : run.context.ifunc->memset_impl;
}

/// The fixed-size point of kernel `kernel` at `size` and `threads` with every other
/// coordinate at its default (warm, the default layout, one call), or null.
const Result* fixed_point(const RunDoc& run, const std::string& kernel, uint64_t size, uint32_t threads) {
  Coords want;
  want.size = size;
  want.threads = threads;
  for (const Result& r : run.results)
    if (r.point.kernel == kernel && r.point.at == want && r.ok()) return &r;
  return nullptr;
}

namespace {

/// "fixed sizes predict X fastest (ranked N on the stream); the most wrong: K, predicted A× the
/// fastest's time, measured B×": the prediction against the measured ranking ("" without one).
std::string prediction_line(const RunDoc& run, const GroupAnswer& g, const std::vector<double>& pred) {
  size_t best = SIZE_MAX, worst = SIZE_MAX;
  for (size_t i = 0; i < pred.size(); ++i)
    if (pred[i] > 0 && (best == SIZE_MAX || pred[i] < pred[best])) best = i;
  if (best == SIZE_MAX || pred[0] <= 0) return {};
  double most = 0;
  for (size_t i = 1; i < pred.size(); ++i) {
    if (pred[i] <= 0 || g.members[i].vs_winner.rounds == 0) continue;
    const double off = std::fabs(std::log(pred[i] / pred[0]) - std::log(g.members[i].vs_winner.ratio));
    if (off > most) most = off, worst = i;
  }
  std::string t = fmt::format("  fixed sizes predict {} fastest (ranked {} on the stream)", terminal_text(run.results[g.members[best].result].point.kernel), best + 1);
  if (worst != SIZE_MAX)
    t += fmt::format("; the most wrong: {}, predicted {:.2f}x the stream's fastest, measured {:.2f}x",
                     terminal_text(run.results[g.members[worst].result].point.kernel), pred[worst] / pred[0],
                     g.members[worst].vs_winner.ratio);
  return t + "\n";
}

}  // namespace

std::vector<double> fixed_size_prediction(const RunDoc& run, const GroupAnswer& g) {
  std::vector<double> out(g.members.size(), 0);
  const StreamRecord* s = stream_of(run, g.key.at);
  if (!s || s->fixed_weights.empty()) return out;
  for (size_t i = 0; i < g.members.size(); ++i) {
    const std::string& kernel = run.results[g.members[i].result].point.kernel;
    double ns = 0;
    for (const auto& [size, share] : s->fixed_weights) {
      const Result* r = fixed_point(run, kernel, size, g.key.at.threads);
      if (!r) {
        ns = 0;
        break;
      }
      ns += share * aggregate(*r).median_ns;
    }
    out[i] = ns;
  }
  return out;
}

bool is_stream_group(const GroupAnswer& g) { return !g.key.at.stream.empty(); }

const StreamRecord* stream_of(const RunDoc& run, const Coords& at) {
  for (const StreamRecord& s : run.context.streams)
    if (s.name == at.stream && s.footprint == at.footprint && s.seed == at.stream_seed && s.calls == at.stream_calls)
      return &s;
  return nullptr;
}

std::string stream_table(const RunDoc& run, const std::vector<GroupAnswer>& answers) {
  std::string out;
  for (const GroupAnswer& g : answers) {
    if (!is_stream_group(g) || g.members.empty()) continue;
    size_t kw = 14;
    for (const RankedMember& m : g.members)
      kw = std::max(kw, std::min<size_t>(60, display_width(terminal_text(run.results[m.result].point.kernel))));
    out += "\n" + stream_title(run, g) + "\n";
    const std::vector<double> pred = fixed_size_prediction(run, g);
    out += fmt::format("  rank {} {:>14}  {:<22}{:<22}{:>8}  {}\n", pad_right("kernel", kw), "ns per call", "time over fastest",
                       "time over libc", "GB/s", "fixed sizes predict");
    for (size_t i = 0; i < g.members.size(); ++i) {
      const RankedMember& m = g.members[i];
      const Result& r = run.results[m.result];
      const std::string p = pred[i] > 0 && pred[0] > 0 ? fmt::format("{:.2f} ns, {:.2f}x", pred[i], pred[i] / pred[0]) : "-";
      out += fmt::format("  {:>4} {} {:>14}  {:<22}{:<22}{:>8.2f}  {}\n", i + 1, pad_right(clip(terminal_text(r.point.kernel), kw), kw),
                         per_call_text(r), ratio_text(m, i == 0), libc_ratio_text(m, r), median_gbps(r), p);
    }
    out += prediction_line(run, g, pred);
    const Aggregate w = aggregate(run.results[g.members[0].result]);
    if (w.harness_ns > 0)
      out += fmt::format("  timed loop's own cost: {:.2f} ns per call (an empty routine in the same rounds), inside "
                         "every time above\n",
                         w.harness_ns / double(calls_per_operation(g.key.at)));
  }
  return out;
}

std::vector<std::string> stream_answer_lines(const RunDoc& run, const std::vector<GroupAnswer>& answers) {
  std::vector<std::string> out;
  for (const GroupAnswer& g : answers) {
    if (!is_stream_group(g) || g.members.empty()) continue;
    const Result& w = run.results[g.members[0].result];
    const bool w_pick = w.impl && source_row(w.impl->source).ifunc_listed && w.impl->symbol == pick_of(run, g.key.op);
    std::string line = fmt::format("{} on stream {} ({}): {}{} at {:.2f} ns per call", to_string(g.key.op), terminal_text(g.key.at.stream),
                                   format_bytes(g.key.at.footprint), w.point.kernel, w_pick ? " (ifunc's pick)" : "",
                                   aggregate(w).median_ns / double(calls_per_operation(g.key.at)));
    // libc, ifunc's pick and glibc's fastest variant against the fastest.
    const std::string pick = pick_of(run, g.key.op);
    bool glibc_best = false;
    for (size_t i = 0; i < g.members.size(); ++i) {
      const Result& r = run.results[g.members[i].result];
      const bool listed = r.impl && source_row(r.impl->source).ifunc_listed;
      const bool is_pick = listed && r.impl->symbol == pick;
      if (!r.libc && !is_pick && !(listed && !glibc_best)) continue;
      const std::string what = r.libc ? r.point.kernel : is_pick ? "ifunc's pick " + r.point.kernel : "glibc's fastest " + r.point.kernel;
      if (listed) glibc_best = true;
      if (i == 0) continue;  // the fastest itself
      line += fmt::format("; {} {}", what, ratio_text(g.members[i], false));
    }
    out.push_back(line);
  }
  return out;
}

}  // namespace kex
