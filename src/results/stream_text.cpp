#include "src/results/stream_text.hpp"

#include <fmt/core.h>

#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"

namespace kex {

namespace {

/// Calls per operation of a stream point (1 for any other point).
double calls_of(const Coords& at) { return at.stream.empty() ? 1.0 : double(std::max<uint32_t>(at.stream_calls, 1)); }

/// "4.66 ±1.6%": a member's median ns per call and its interval's half width.
std::string per_call_text(const Result& r) {
  const Aggregate a = aggregate(r);
  if (a.median_ns <= 0) return "-";
  const double half = (a.ci_high_ns - a.ci_low_ns) / 2 / a.median_ns * 100;
  return fmt::format("{:.2f} \u00b1{:.{}f}%", a.median_ns / calls_of(r.point.at), half, half < 10 ? 1 : 0);
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
  if (const StreamRecord* s = stream_of(run, at))
    t += fmt::format("; sizes: mean {:.0f} B, p50 {}, p90 {}, p99 {}{}", s->mean, format_bytes(s->p50),
                     format_bytes(s->p90), format_bytes(s->p99),
                     s->capped ? fmt::format("; {} calls capped at {}", s->capped, format_bytes(at.footprint / 2)) : "");
  return t + ")";
}

/// The variant ifunc picked for `op`'s libc function in the run ("" when unknown).
std::string pick_of(const RunDoc& run, Op op) {
  const auto f = libc_function_of(op);
  if (!run.context.ifunc || !f) return {};
  return *f == Function::memcpy ? run.context.ifunc->memcpy_impl : run.context.ifunc->memset_impl;
}

}  // namespace

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
    out += fmt::format("  rank {} {:>14}  {:<22}{:<22}{:>8}\n", pad_right("kernel", kw), "ns per call", "time over fastest",
                       "time over libc", "GB/s");
    for (size_t i = 0; i < g.members.size(); ++i) {
      const RankedMember& m = g.members[i];
      const Result& r = run.results[m.result];
      out += fmt::format("  {:>4} {} {:>14}  {:<22}{:<22}{:>8.2f}\n", i + 1, pad_right(clip(terminal_text(r.point.kernel), kw), kw),
                         per_call_text(r), ratio_text(m, i == 0), libc_ratio_text(m, r), median_gbps(r));
    }
    const Aggregate w = aggregate(run.results[g.members[0].result]);
    if (w.harness_ns > 0)
      out += fmt::format("  timed loop's own cost: {:.2f} ns per call (an empty routine in the same rounds), inside "
                         "every time above\n",
                         w.harness_ns / calls_of(g.key.at));
  }
  return out;
}

std::vector<std::string> stream_answer_lines(const RunDoc& run, const std::vector<GroupAnswer>& answers) {
  std::vector<std::string> out;
  for (const GroupAnswer& g : answers) {
    if (!is_stream_group(g) || g.members.empty()) continue;
    const Result& w = run.results[g.members[0].result];
    const bool w_pick = w.impl && source_row(w.impl->source).ifunc_listed && w.impl->symbol == pick_of(run, g.key.op);
    std::string line = fmt::format("{} on stream {} ({}): {}{} at {:.2f} ns per call", to_string(g.key.op), g.key.at.stream,
                                   format_bytes(g.key.at.footprint), w.point.kernel, w_pick ? " (ifunc's pick)" : "",
                                   aggregate(w).median_ns / calls_of(g.key.at));
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
