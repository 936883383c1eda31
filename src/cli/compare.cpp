// `kex compare A.json B.json`: side-by-side medians, ratios, CI overlap, geometric mean.
#include <cstdio>

#include "src/cli/cli.hpp"
#include "src/core/output.hpp"
#include "src/results/compare.hpp"
#include "src/results/results.hpp"

namespace kex {

Action add_compare_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare", "Compare two results files entry by entry (time ratio B/A, CI overlap)");
  struct Args {
    std::string a, b, filter;
    double fail_above = 0;
    std::string fail_text;
    size_t cmd_count = 0;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("A", args->a, "Baseline results file")->required();
  cmd->add_option("B", args->b, "Contender results file")->required();
  cmd->add_option("--filter", args->filter, "Compare only entries whose name matches this regex");
  auto* gate_opt = cmd->add_option("--fail-above", args->fail_text,
                  "Exit 1 when an entry's time ratio B/A exceeds RATIO and the 95% CIs do not overlap, or an "
                  "entry of A is missing or failed in B, or nothing matched (a CI gate); without it the exit status is 0");
  return [args, gate_opt]() {
    args->cmd_count = gate_opt->count();
    if (args->cmd_count) {
      try {
        size_t used = 0;
        args->fail_above = std::stod(args->fail_text, &used);
        if (used != args->fail_text.size()) throw std::invalid_argument("");
      } catch (const std::exception&) {
        args->fail_above = -1;
      }
    }
    const bool gate = args->cmd_count > 0;
    if (gate && !(args->fail_above >= 1.0 && args->fail_above < 1e6))
      throw InputError("--fail-above: " + args->fail_text + ": a time ratio B/A of at least 1, such as 1.05");
    const RunDoc a = load_one_run(args->a);
    const RunDoc b = load_one_run(args->b);
    Comparison c = compare_results(a, b, args->filter);
    std::string la = args->a + " (" + run_label(a.context) + ")";
    std::string lb = args->b + " (" + run_label(b.context) + ")";
    std::string text = format_comparison(c, la, lb);
    write_stdout(text);
    if (gate) {
      auto bad = regressions(c, args->fail_above);
      for (const auto* r : bad)
        std::printf("regression: %s: B/A %.4f > %.4f\n", r->name.c_str(), r->ratio, args->fail_above);
      // A gate that compared nothing, or lost entries, must not pass silently.
      for (const auto& n : c.only_a) std::printf("regression: %s: measured in A, not in B (failed, skipped or missing)\n", n.c_str());
      if (c.rows.empty()) std::printf("regression: no entries matched; nothing was compared\n");
      if (!bad.empty() || !c.only_a.empty() || c.rows.empty()) return 1;
    }
    return 0;
  };
}

}  // namespace kex
