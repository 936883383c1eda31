// `kex compare A.json B.json`: side-by-side medians, ratios, CI overlap, geometric mean.
#include <cstdio>

#include "cli.hpp"
#include "compare.hpp"
#include "results.hpp"

namespace kex {

Action add_compare_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare", "Compare two results files entry by entry (time ratio B/A, CI overlap)");
  struct Args {
    std::string a, b, filter;
    double fail_above = 0;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("A", args->a, "Baseline results file")->required();
  cmd->add_option("B", args->b, "Contender results file")->required();
  cmd->add_option("--filter", args->filter, "Compare only entries whose name matches this regex");
  cmd->add_option("--fail-above", args->fail_above,
                  "Exit 1 when an entry's time ratio B/A exceeds RATIO and the 95% CIs do not overlap (a CI gate); "
                  "without it the exit status is 0");
  return [args]() {
    if (args->fail_above < 0 || (args->fail_above > 0 && args->fail_above < 1e-9))
      throw UserError("--fail-above: " + std::to_string(args->fail_above) + ": a positive ratio such as 1.05");
    auto a = load_results(args->a);
    auto b = load_results(args->b);
    Comparison c = compare_results(a, b, args->filter);
    std::string la = args->a + " (" + run_label(a.value("context", nlohmann::json::object())) + ")";
    std::string lb = args->b + " (" + run_label(b.value("context", nlohmann::json::object())) + ")";
    std::string text = format_comparison(c, la, lb);
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (args->fail_above > 0) {
      auto bad = regressions(c, args->fail_above);
      for (const auto* r : bad)
        std::printf("regression: %s: B/A %.4f > %.4f\n", r->name.c_str(), r->ratio, args->fail_above);
      if (!bad.empty()) return 1;
    }
    return 0;
  };
}

}  // namespace kex
