#include "src/results/tune_text.hpp"

#include <fmt/core.h>

#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"

namespace kex {

namespace {

/// "0.82x [0.80-0.85]", "same [0.99-1.01]" when the interval holds 1, "-" when not paired.
std::string ratio_text(const PairedRatio& r) {
  if (r.rounds == 0) return "-";
  if (r.covers_one()) return fmt::format("same [{:.2f}-{:.2f}]", r.low, r.high);
  return fmt::format("{:.2f}x [{:.2f}-{:.2f}]", r.ratio, r.low, r.high);
}

/// The verdict per size. Kernel names come from the file: escaped, and padded by the
/// columns they take (a name with wide or combining characters keeps the columns).
std::string verdict_table(const TuneRecord& t) {
  size_t w = 8;
  for (const TuneVerdict& v : t.verdicts) w = std::max(w, display_width(terminal_text(v.dispatched)));
  auto row = [&](const std::string& size, const std::string& kernel, const std::string& ties, const std::string& libc,
                 const std::string& rep, const std::string& rounds) {
    return fmt::format("{:<10} {} {:>5} {} {} {}\n", size, pad_right(kernel, w), ties, pad_right(libc, 20),
                       pad_right(rep, 20), rounds);
  };
  const std::string libc = t.kept.size() > 0 ? terminal_text(t.kept[0]) : "libc";
  const std::string rep = t.kept.size() > 1 ? terminal_text(t.kept[1]) : "rep";
  std::string out = row("size", "dispatch", "ties", "time / " + libc, "time / " + rep, "rounds");
  for (const TuneVerdict& v : t.verdicts)
    out += row(format_bytes(v.size), terminal_text(v.dispatched), std::to_string(v.ties.size()), ratio_text(v.vs_libc),
               ratio_text(v.vs_rep), std::to_string(v.rounds));
  return out;
}

std::string dispatch_text(const TuneRecord& t) {
  std::string out = "dispatch:\n";
  for (const DispatchEntry& e : t.dispatch.entries) {
    const std::string when = e.max_bytes == kDispatchRest ? "larger" : "n <= " + format_bytes(e.max_bytes);
    out += fmt::format("  {:<14} {}\n", when, terminal_text(e.kernel));
  }
  for (const DispatchSwitch& s : t.switches)
    out += "  switch " + terminal_text(s.from) + " -> " + terminal_text(s.to) + " between " + format_bytes(s.low) +
           " and " + format_bytes(s.high) + "\n";
  out += "  kex emit --format c --op " + std::string(to_string(t.op)) + " --dispatch '" + terminal_text(dispatch_text(t.dispatch)) +
         "'\n";
  return out;
}

std::string race_text(const TuneRecord& t) {
  size_t refine = 0, unmeasured = 0;
  for (const RaceStage& s : t.stages) refine += s.refine;
  for (const RaceDrop& d : t.drops) unmeasured += !d.why.empty();
  const RaceStage first = t.stages.empty() ? RaceStage{} : t.stages.front();
  return fmt::format(
      "race: {} stages ({} refining a switch); the first {} rounds of {} points in {:.0f} s; {} candidates left the "
      "race ({} not measured): the results file's tune.drops says when and why\n",
      t.stages.size(), refine, first.rounds, first.candidates, first.seconds, t.drops.size(), unmeasured);
}

}  // namespace

std::string format_tune(const TuneRecord& t, const std::string& machine) {
  // A machine name of any length: snprintf's fixed buffer cut a long one, and the line's end with it.
  return fmt::format("kex tune: {} on {}: {} sizes, {:.0f} s of a {:.0f} s budget\n", to_string(t.op),
                     terminal_text(machine), t.verdicts.size(), t.used_s, t.budget_s) +
         verdict_table(t) + dispatch_text(t) + race_text(t);
}

}  // namespace kex
