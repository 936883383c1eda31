// `kex compare A.json B.json`: medians side by side, the speedup, and whether B differs
// from A (a U test over the repetition medians, corrected, and an effect above the noise).
#include <algorithm>
#include <cstdio>

#include "src/cli/cli.hpp"
#include "src/core/enum_words.hpp"
#include "src/core/output.hpp"
#include "src/core/terminal_text.hpp"
#include "src/results/compare.hpp"
#include "src/results/explain_compare.hpp"
#include "src/results/markdown.hpp"
#include "src/results/results.hpp"

namespace kex {

namespace {

/// "1.05" or "5%": a slowdown factor from 1 to below 1e6, in decimal. InputError otherwise.
double parse_slowdown(const std::string& text) {
  std::string s = text;
  // Decimal digits and one point only (std::stod alone takes " 1.05", hex floats and "1e2").
  const size_t digits = s.find_first_not_of("0123456789.");
  if (s.empty() || (digits != std::string::npos && !(digits + 1 == s.size() && s.back() == '%')) ||
      std::count(s.begin(), s.end(), '.') > 1)
    s = "x";
  const bool percent = !s.empty() && s.back() == '%';
  if (percent) s.pop_back();
  double v = -1;
  try {
    size_t used = 0;
    v = std::stod(s, &used);
    if (used != s.size()) v = -1;
  } catch (const std::exception&) {
    v = -1;
  }
  if (percent && v >= 0) v = 1 + v / 100;
  if (!(v >= 1.0 && v < 1e6))
    throw InputError("--fail-above: " + text + ": a slowdown of B against A: a factor from 1 to below 1000000 "
                     "(1.05) or a percentage (5%)");
  return v;
}

/// kex compare's arguments as given.
struct CompareArgs {
  std::string a, b, fail_text, correction = "bh", statistic = "median", format = "text";
  CompareOptions opt;
  double min_effect = 0;
  bool quiet = false;
};

/// Prints the gate's regression lines: points called slower by more than `slowdown`,
/// points of A missing in B, nothing matched. Whether any was printed (exit 1).
bool print_regressions(const Comparison& c, double slowdown) {
  auto bad = regressions(c, slowdown);
  for (const auto* r : bad)
    if (r->by_ci)  // one repetition a side: the CIs decided, there is no p
      std::printf("regression: %s: B takes %.4fx A's time (speedup %.4f), CIs apart\n", terminal_text(r->name).c_str(),
                  1 / r->speedup, r->speedup);
    else
      std::printf("regression: %s: B takes %.4fx A's time (speedup %.4f), p %.3g\n", terminal_text(r->name).c_str(),
                  1 / r->speedup, r->speedup, r->p_adjusted);
  // A gate that compared nothing, or lost entries, must not pass silently.
  for (const auto& n : c.only_a)
    std::printf("regression: %s: measured in A, not in B (failed, skipped or missing)\n", terminal_text(n).c_str());
  if (c.rows.empty()) std::printf("regression: no entries matched; nothing was compared\n");
  return !bad.empty() || !c.only_a.empty() || c.rows.empty();
}

/// Compares the two files and prints the comparison; with `gated`, the regressions
/// beyond `slowdown` too. The exit status.
int run_compare(const CompareArgs& args, bool gated, double slowdown) {
  const RunDoc a = load_one_run(args.a);
  const RunDoc b = load_one_run(args.b);
  const Comparison c = compare_results(a, b, args.opt);
  const std::string a_label = args.a + " (" + run_label(a.context) + ")",
                    b_label = args.b + " (" + run_label(b.context) + ")";
  const bool markdown = enum_from_word(kTextFormats, args.format) == TextFormat::markdown;
  std::string text = markdown ? format_comparison_markdown(c, a_label, b_label) : format_comparison(c, a_label, b_label);
  // -q: from kex's summary line on (the last line that starts so; a row could start
  // with a name "summary: ...", and no name reaches the lines after it).
  if (args.quiet) text = text.substr(text.rfind("\nsummary: ") + 1);
  if (!markdown) text += format_effect_comparison(compare_effects(a, b));  // two kex explain files
  write_stdout(text);
  return gated && print_regressions(c, slowdown) ? 1 : 0;
}

}  // namespace

Action add_compare_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare", "Compare two results files point by point (speedup, U test, verdict)");
  auto args = std::make_shared<CompareArgs>();
  cmd->add_option("A", args->a, "Baseline results file")->required();
  cmd->add_option("B", args->b, "Contender results file")->required();
  cmd->add_option("--filter", args->opt.filter, "Compare only points whose name matches this regex (a leading - compares the others)");
  cmd->add_option("--alpha", args->opt.alpha, "Significance level of the corrected U test (default 0.01)")
      ->check(number_in(1e-9, 0.5));
  auto* effect = cmd->add_option("--min-effect", args->min_effect,
                                 "A point differs only when its speedup is off 1 by at least this fraction "
                                 "(default: 3 x the runs' repetition noise, at least 0.01)")
                     ->check(number_in(0.0, 10.0));
  cmd->add_option("--correction", args->correction, "Multiple-comparison correction: bh (Benjamini-Hochberg), holm, none")
      ->check(one_of(enum_words(kCorrections)));
  auto* gate = cmd->add_option("--fail-above", args->fail_text,
                               "Exit 1 when a point is called slower and B's time exceeds A's by more than this "
                               "(1.05 or 5%), or a point of A is missing or failed in B, or nothing matched (a CI "
                               "gate); without it the exit status is 0");
  cmd->add_option("--statistic", args->statistic,
                  "The figure compared: median (of the repetition medians), or best (the fastest sample; per "
                  "repetition its fastest, for the U test): far steadier from run to run on a VM whose core "
                  "shares its time with another guest")
      ->check(one_of(enum_words(kStatistics)));
  cmd->add_flag("--absolute", args->opt.absolute,
                "Compare every point's absolute time; by default a point whose group both runs measured in paired "
                "rounds is compared by its time relative to its group in the same rounds, so that a whole-machine "
                "change between the runs cancels out");
  cmd->add_option("--format", args->format,
                  "text, or markdown (GitHub Markdown: the rows as a table, names from the files escaped, for a pull "
                  "request)")
      ->check(one_of(enum_words(kTextFormats)));
  cmd->add_flag("-q,--quiet", args->quiet,
                "Print only the summary line and what follows it (warnings, notes, regression lines)");
  return [args, gate, effect]() {
    const bool gated = gate->count() > 0;
    const double slowdown = gated ? parse_slowdown(args->fail_text) : 0;
    if (effect->count()) args->opt.min_effect = args->min_effect;
    args->opt.statistic = enum_from_word(kStatistics, args->statistic).value_or(Statistic::median);
    args->opt.correction = enum_from_word(kCorrections, args->correction).value_or(Correction::benjamini_hochberg);
    return run_compare(*args, gated, slowdown);
  };
}

}  // namespace kex
