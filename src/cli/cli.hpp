// One file per subcommand (src/cli/NAME.cpp); each registers itself on the app and
// returns the action main() runs when that subcommand was given.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "src/core/error.hpp"

namespace kex {

/// The check of an option that takes one of `words` (a closed set's name table, in its
/// order). Another value is refused the way kex's own errors read, "'<value>': allowed:
/// a, b, c" after the option's name (CLI11's IsMember says "<value> not in {a,b,c}"); the
/// help shows "{a,b,c}", as IsMember's does.
inline CLI::Validator one_of(const std::vector<std::string>& words) {
  std::string allowed, set;
  for (const std::string& w : words) {
    allowed += (allowed.empty() ? "" : ", ") + w;
    set += (set.empty() ? "" : ",") + w;
  }
  return CLI::Validator(
      [words, allowed](std::string& value) -> std::string {
        for (const std::string& w : words)
          if (value == w) return {};
        return "'" + value + "': allowed: " + allowed;
      },
      "{" + set + "}");
}

/// CLI::Range(lo, hi) for a floating-point option that refuses NaN as well: every comparison
/// with NaN is false, so CLI::Range lets "nan" through. NaN is refused as inf is: "Value nan
/// not in range LO to HI".
inline CLI::Validator number_in(double lo, double hi) {
  const CLI::Range range(lo, hi);
  return CLI::Validator(
      [range, lo, hi](std::string& value) -> std::string {
        double x = 0;
        if (CLI::detail::lexical_cast(value, x) && x != x)
          return "Value " + value + " not in range " + std::to_string(lo) + " to " + std::to_string(hi);
        return range(value);
      },
      range.get_description());
}

/// Runs a parsed subcommand; returns the process exit status.
using Action = std::function<int()>;

/// -q/--quiet, which every command takes (main() adds it to each): no progress and
/// no tables or notes beside the files a command writes. Errors, warnings, the files
/// and the stdout asked for (-o -, --list, --seed-exact, and the text of a command that
/// writes no file: show, list, info, compare, crossovers, segments without --json) stay.
inline bool& quiet_flag() {
  static bool q = false;
  return q;
}
inline bool quiet() { return quiet_flag(); }

Action add_run_command(CLI::App& app);
Action add_show_command(CLI::App& app);
Action add_list_command(CLI::App& app);
/// The words `kex list WHAT` takes: its topics in the order printed, then "all".
std::vector<std::string> list_topic_words();
Action add_info_command(CLI::App& app);
Action add_segments_command(CLI::App& app);
Action add_plot_command(CLI::App& app);
Action add_compare_command(CLI::App& app);
Action add_export_command(CLI::App& app);
Action add_merge_command(CLI::App& app);
Action add_crossovers_command(CLI::App& app);
Action add_tune_command(CLI::App& app);
Action add_explain_command(CLI::App& app);
Action add_ceilings_command(CLI::App& app);
Action add_emit_command(CLI::App& app);
Action add_summary_command(CLI::App& app);
Action add_report_command(CLI::App& app);
Action add_libc_child_command(CLI::App& app);

}  // namespace kex
