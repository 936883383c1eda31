#include "src/results/tune_text.hpp"

#include <algorithm>

#include <fmt/core.h>

#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"
#include "src/model/dispatch_kernel.hpp"
#include "src/results/answer_text.hpp"
#include "src/results/crossover_text.hpp"
#include "src/results/markdown.hpp"
#include "src/results/validation.hpp"

namespace kex {

namespace {

/// A size as a tune raced it, exactly: "4 KiB", "1.5 KiB", but "4097 B" where a unit
/// would round (a dispatch bound or a refined size is seldom a round number).
std::string exact_bytes(uint64_t n) {
  const std::string s = short_bytes(n);  // "4K" for an exact multiple, else the digits
  return s.back() >= '0' && s.back() <= '9' ? s + " B" : format_bytes(n);
}

/// Whether the tune raced glibc's variants (--glibc): a verdict names the fastest.
bool with_glibc(const TuneRecord& t) {
  return std::any_of(t.verdicts.begin(), t.verdicts.end(), [](const TuneVerdict& v) { return !v.glibc.empty(); });
}

/// The verdict table's head and a row per size (names as the file has them): size (a
/// stream's tune: the stream), the dispatched kernel, its ties, its time over libc's, over
/// rep's and (--glibc) over glibc's fastest variant's, the rounds, and (--glibc) that variant.
std::vector<std::vector<std::string>> verdict_cells(const TuneRecord& t) {
  const std::string libc = t.kept.size() > 0 ? t.kept[0] : "libc";
  const std::string rep = t.kept.size() > 1 ? t.kept[1] : "rep";
  const bool stream = !t.stream.empty(), glibc = with_glibc(t);  // stream: one verdict, the stream's
  std::vector<std::vector<std::string>> rows = {
      {stream ? "stream" : "size", "dispatch", "ties", "time / " + libc, "time / " + rep, "rounds"}};
  if (glibc) rows[0].insert(rows[0].begin() + 5, "time / glibc's fastest"), rows[0].push_back("glibc's fastest");
  for (const TuneVerdict& v : t.verdicts) {
    rows.push_back({stream ? t.stream : exact_bytes(v.size), v.dispatched, std::to_string(v.ties.size()),
                    ratio_text(v.vs_libc), ratio_text(v.vs_rep), std::to_string(v.rounds)});
    if (glibc) rows.back().insert(rows.back().begin() + 5, ratio_text(v.vs_glibc)), rows.back().push_back(v.glibc.empty() ? "-" : v.glibc);
  }
  return rows;
}

/// The verdict per size. Kernel names come from the file: escaped, and padded by the
/// columns they take (a name with wide or combining characters keeps the columns).
std::string verdict_table(const TuneRecord& t) {
  std::vector<std::vector<std::string>> rows = verdict_cells(t);
  const bool glibc = rows[0].size() > 6;
  size_t w = 8;
  for (auto& r : rows) {
    for (std::string& c : r) c = terminal_text(c);
    w = std::max(w, display_width(r[1]));
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line = fmt::format("{:<10} {} {:>5} {} {} ", r[0], pad_right(r[1], w), r[2], pad_right(r[3], 20),
                                   pad_right(r[4], 20));
    line += glibc ? pad_right(r[5], 23) + " " + fmt::format("{:>6}", r[6]) + "  " + r[7] : r[5];
    out += line + "\n";
  }
  return out;
}

/// A mix's table (kex tune --stream A,B,...): a row per stream, raw from the file: the
/// stream, its weight, the choice's ns per call there, its time over this stream's own
/// leader, libc's, rep's and (--glibc) glibc's fastest variant's, and that leader. No rows
/// for a tune of one stream or of sizes.
std::vector<std::vector<std::string>> mix_cells(const TuneRecord& t) {
  if (t.streams.empty()) return {};
  const std::string libc = t.kept.size() > 0 ? t.kept[0] : "libc";
  const std::string rep = t.kept.size() > 1 ? t.kept[1] : "rep";
  const bool glibc = std::any_of(t.streams.begin(), t.streams.end(), [](const StreamVerdict& s) { return !s.glibc.empty(); });
  std::vector<std::vector<std::string>> rows = {
      {"stream", "weight", "ns/call", "time / its leader", "time / " + libc, "time / " + rep, "its leader"}};
  if (glibc) rows[0].insert(rows[0].begin() + 6, "time / glibc's fastest");
  for (const StreamVerdict& v : t.streams) {
    rows.push_back({v.stream, fmt::format("{:.3g}", v.weight), fmt::format("{:.2f}", v.ns_per_call),
                    ratio_text(v.vs_leader), ratio_text(v.vs_libc), ratio_text(v.vs_rep), v.leader});
    if (glibc) rows.back().insert(rows.back().begin() + 6, v.glibc.empty() ? "-" : ratio_text(v.vs_glibc) + " " + v.glibc);
  }
  return rows;
}

/// The mix's table for a terminal: its cells escaped, columns padded to their widths.
std::string mix_table(const TuneRecord& t) {
  std::vector<std::vector<std::string>> rows = mix_cells(t);
  if (rows.empty()) return "";
  std::vector<size_t> w(rows[0].size(), 0);
  for (auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) w[c] = std::max(w[c], display_width(r[c] = terminal_text(r[c])));
  std::string out = "on each stream of the mix (the weighted time per call decides; ratios in the same rounds):\n";
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c) line += c + 1 == r.size() ? r[c] : pad_right(r[c], w[c]) + "  ";
    out += "  " + line + "\n";
  }
  return out;
}

/// "n <= 4097 B", "larger", or "every size" (a table of one row): the sizes a dispatch row covers.
std::string row_sizes(const DispatchTable& t, const DispatchEntry& e) {
  if (e.max_bytes != kDispatchRest) return "n <= " + exact_bytes(e.max_bytes);
  return t.entries.size() == 1 ? "every size" : "larger";
}

std::string dispatch_text(const TuneRecord& t) {
  if (t.dispatch.entries.empty()) return "dispatch: none (no stage finished)\n";
  std::string out = "dispatch:\n";
  const DispatchTable flat = flat_dispatch(t.dispatch);  // a stream's composed dispatch: its rows
  if (flat.entries.size() != t.dispatch.entries.size())
    out += "  every size     " + terminal_text(t.dispatch.entries.front().kernel) + ", whose rows are:\n";
  for (const DispatchEntry& e : flat.entries) {
    out += fmt::format("  {:<14} {}\n", row_sizes(flat, e), terminal_text(e.kernel));
  }
  for (const DispatchSwitch& s : t.switches)
    out += "  switch " + terminal_text(s.from) + " -> " + terminal_text(s.to) + " between " + exact_bytes(s.low) +
           " and " + exact_bytes(s.high) + "\n";
  out += "  kex emit --format c --op " + std::string(to_string(t.op)) + " --dispatch '" + terminal_text(dispatch_text(flat)) +
         "'\n";
  return out;
}

std::string race_text(const TuneRecord& t) {
  size_t refine = 0, compose = 0, unmeasured = 0;
  for (const RaceStage& s : t.stages) refine += s.refine, compose += s.compose;
  for (const RaceDrop& d : t.drops) unmeasured += !d.why.empty();
  const RaceStage first = t.stages.empty() ? RaceStage{} : t.stages.front();
  return fmt::format(
      "race: {} stages ({} refining a switch{}); the first {} rounds of {} points in {:.0f} s; {} candidates left the "
      "race ({} not measured): the results file's tune.drops says when and why\n",
      t.stages.size(), refine, compose ? fmt::format(", {} composing a dispatch", compose) : "", first.rounds, first.candidates, first.seconds, t.drops.size(), unmeasured);
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

/// "kex tune: copy on M: 21 sizes, 184 s of a 600 s budget": the head line, unescaped.
/// The first line; `machine`, a stream's name and its footprint as the caller escapes them
/// for its medium (they come from the file).
std::string head_line(const TuneRecord& t, const std::string& machine, const std::string& stream,
                      const std::string& footprint) {
  const std::string raced = t.stream.empty() ? fmt::format("{} sizes", t.verdicts.size())
                                             : "stream " + stream + " (footprint " + footprint + ")";
  return fmt::format("kex tune: {} on {}: {}, {:.0f} s of a {:.0f} s budget", to_string(t.op), machine, raced, t.used_s,
                     t.budget_s);
}

}  // namespace

std::string format_tune(const TuneRecord& t, const std::string& machine) {
  // A machine name of any length: snprintf's fixed buffer cut a long one, and the line's end with it.
  return head_line(t, terminal_text(machine), terminal_text(t.stream), terminal_text(t.footprint)) + "\n" + verdict_table(t) + mix_table(t) + dispatch_text(t) + race_text(t) +
         validation_text(t);
}

std::string format_tune_markdown(const TuneRecord& t, const std::string& machine) {
  std::vector<std::vector<std::string>> rows = verdict_cells(t);
  std::vector<std::string> head = rows.front();
  rows.erase(rows.begin());
  for (size_t c : {3, 4}) head[c] = md_text(head[c]);  // "time / " + a reference's name from the record
  const bool glibc = head.size() > 6;                    // and glibc's fastest variant, a name from the record
  for (auto& r : rows) {
    r[0] = md_text(r[0]), r[1] = md_text(r[1]);
    if (glibc) r[7] = md_text(r[7]);
  }
  const char* align = glibc ? "rlrlllrl" : "rlrllr";
  std::string out = "**" + md_text(head_line(t, machine, t.stream, t.footprint)) + "**\n\n" + md_table(head, align, rows) + "\n";
  if (std::vector<std::vector<std::string>> mix = mix_cells(t); !mix.empty()) {
    std::vector<std::string> mix_head = mix.front();
    mix.erase(mix.begin());
    for (std::string& c : mix_head) c = md_text(c);
    for (auto& r : mix)
      for (std::string& c : r) c = md_text(c);
    out += "**on each stream of the mix** (the weighted time per call decides; ratios in the same rounds)\n\n" +
           md_table(mix_head, mix_head.size() > 7 ? "lrrlllll" : "lrrllll", mix) + "\n";
  }
  // markdown_html knows paragraphs and line breaks (a line ending in two spaces), no lists
  std::string dispatch;
  for (const DispatchEntry& e : t.dispatch.entries) dispatch += row_sizes(t.dispatch, e) + ": " + md_text(e.kernel) + "  \n";
  for (const DispatchSwitch& s : t.switches)
    dispatch += "switch " + md_text(s.from) + " -> " + md_text(s.to) + " between " + exact_bytes(s.low) + " and " +
                exact_bytes(s.high) + "  \n";
  out += t.dispatch.entries.empty() ? "dispatch: none (no stage finished)\n\n" : "**dispatch**  \n" + dispatch + "\n";
  const std::string text = race_text(t) + validation_text(t);  // a paragraph per line
  for (size_t at = 0, end; at < text.size(); at = end + 1) {
    end = std::min(text.find('\n', at), text.size());
    if (end > at) out += md_text(text.substr(at, end - at)) + "\n\n";
  }
  return out;
}

}  // namespace kex
