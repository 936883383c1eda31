// `kex crossovers FILE...`: per machine, the sizes where non-temporal stores,
// rep movsb and prefetching start or stop winning, with suggested GLIBC_TUNABLES.
#include <cstdio>

#include "src/cli/cli.hpp"
#include "src/core/output.hpp"
#include "src/core/terminal_text.hpp"
#include "src/results/crossover_text.hpp"
#include "src/results/results.hpp"

namespace kex {

Action add_crossovers_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("crossovers", "Find crossover sizes in copy sweeps and suggest glibc tunables");
  struct Args {
    std::vector<std::string> files;
    std::string cache;
    double margin = kCrossoverMargin;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("RESULTS", a->files, "Results files (a multi-machine merge gives one report per machine)")->required();
  cmd->add_option("--cache", a->cache, "Cache mode of the curves to use (default: warm when present)")
      ->check(CLI::IsMember({"warm", "cold"}));
  cmd->add_option("--margin", a->margin, "A curve wins at a size only when faster by more than this fraction with 95% confidence "
                  "(default 0.02)");
  return [a]() {
    if (!(a->margin >= 0 && a->margin < 1))
      throw InputError("--margin: " + std::to_string(a->margin) + ": a fraction in [0, 1), e.g. 0.02");
    std::vector<std::vector<RunDoc>> docs;  // read every file before printing anything
    for (const auto& f : a->files) {
      docs.push_back(load_results(f));
      for (const auto& run : docs.back()) check_crossover_data(run, a->cache, f);
    }
    for (size_t i = 0; i < docs.size(); ++i)
      for (const auto& run : docs[i]) {
        const std::string& f = a->files[i];
        std::printf("%s: %s\n", terminal_text(f).c_str(), terminal_text(run_label(run.context)).c_str());
        std::string text = format_crossovers(find_crossovers(run, a->cache, a->margin));
        write_stdout(text);
      }
    return 0;
  };
}

}  // namespace kex
