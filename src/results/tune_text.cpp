#include "src/results/tune_text.hpp"

#include <algorithm>

#include <fmt/core.h>

#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"
#include "src/results/answer_text.hpp"
#include "src/results/crossover_text.hpp"
#include "src/results/validation.hpp"

namespace kex {

namespace {

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
  const bool stream = !t.stream.empty();  // one verdict, the stream's
  std::string out = row(stream ? "stream" : "size", "dispatch", "ties", "time / " + libc, "time / " + rep, "rounds");
  for (const TuneVerdict& v : t.verdicts)
    out += row(stream ? terminal_text(t.stream) : format_bytes(v.size), terminal_text(v.dispatched),
               std::to_string(v.ties.size()), ratio_text(v.vs_libc), ratio_text(v.vs_rep), std::to_string(v.rounds));
  return out;
}

std::string dispatch_text(const TuneRecord& t) {
  if (t.dispatch.entries.empty()) return "dispatch: none (no stage finished)\n";
  std::string out = "dispatch:\n";
  for (const DispatchEntry& e : t.dispatch.entries) {
    const std::string when = e.max_bytes != kDispatchRest      ? "n <= " + format_bytes(e.max_bytes)
                             : t.dispatch.entries.size() == 1 ? "every size"
                                                              : "larger";
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

/// The tunables' names without glibc.cpu.: "x86_rep_movsb_threshold, x86_non_temporal_threshold".
std::string tunable_names(const std::vector<TunableCheck>& checks) {
  std::string s;
  for (const TunableCheck& c : checks) s += (s.empty() ? "" : ", ") + c.tunable.name.substr(10);
  return s;
}

/// The validation's block: one line when nothing was suggested or nothing measured (no
/// advice then), else each tunable's sizes with the change and its interval, the
/// verdict, and the GLIBC_TUNABLES that measurably helped (if any).
std::string validation_text(const TuneRecord& t) {
  if (!t.validation) return "";
  const TuneValidation& v = *t.validation;
  const char* rep = t.op == Op::copy ? "rep movsb or to non-temporal stores" : "rep stosb";
  if (v.checks.empty() && !v.not_measured.empty())  // stopped, or the race left nothing to suggest from
    return "libc tunables: not measured (" + terminal_text(v.not_measured) + ")\n";
  if (v.checks.empty()) return std::string("libc tunables: none suggested (the dispatch never switches to ") + rep + ")\n";
  const auto measured = std::find_if(v.checks.begin(), v.checks.end(),
                                     [](const TunableCheck& c) { return c.measured.rounds > 0; });
  if (measured == v.checks.end())
    return "libc tunables: " + std::to_string(v.checks.size()) + " suggested (" + tunable_names(v.checks) +
           "), not measured (" + terminal_text(v.not_measured) + "): no advice\n";
  ValidateOptions shown;
  shown.rounds = 0;  // the rounds run (a deadline or a stop cuts the planned v.rounds)
  for (const TunableCheck& c : v.checks) shown.rounds = std::max(shown.rounds, c.measured.rounds);
  shown.cpu = measured->measured.cpu;
  std::string out = fmt::format("libc tunables the dispatch suggests, measured in {:.0f} s{}:\n", v.seconds,
                                v.not_measured.empty() ? "" : " (not all: see below)") +
                    format_validation_header(shown, v.budget_ms, v.margin);
  std::vector<Tunable> tunables;
  std::vector<Gain> gains;
  for (const TunableCheck& c : v.checks) {
    tunables.push_back(c.tunable);
    gains.push_back(judge(c.measured, v.margin));
    std::string block = c.measured.rounds == 0 ? "  " + c.tunable.name + "=" + std::to_string(c.tunable.value) +
                                                     ": not measured (" + terminal_text(v.not_measured) + "): not advised\n"
                                               : format_validation(c.tunable, c.measured, v.margin);
    out += block.insert(block.find('\n') + 1, explain(c.tunable));  // why this value, under its first line
  }
  return out + format_validated_advice(tunables, gains);
}

}  // namespace

std::string format_tune(const TuneRecord& t, const std::string& machine) {
  // A machine name of any length: snprintf's fixed buffer cut a long one, and the line's end with it.
  const std::string raced = t.stream.empty() ? fmt::format("{} sizes", t.verdicts.size())
                                             : "stream " + terminal_text(t.stream) + " (footprint " + terminal_text(t.footprint) + ")";
  return fmt::format("kex tune: {} on {}: {}, {:.0f} s of a {:.0f} s budget\n", to_string(t.op), terminal_text(machine),
                     raced, t.used_s, t.budget_s) +
         verdict_table(t) + dispatch_text(t) + race_text(t) + validation_text(t);
}

}  // namespace kex
