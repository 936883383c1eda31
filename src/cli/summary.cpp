// `kex summary FILE [--format text|markdown]`: the tables `kex run` prints at its end,
// again from a results file; markdown for pasting into a pull request. A file kex tune
// wrote gets the tune's own verdicts, dispatch and validation (src/results/tune_summary.hpp).
#include "src/cli/cli.hpp"
#include "src/core/enum_words.hpp"
#include "src/core/output.hpp"
#include "src/core/terminal_text.hpp"
#include "src/results/answer_text.hpp"
#include "src/results/ceilings_text.hpp"
#include "src/results/explain_text.hpp"
#include "src/results/markdown.hpp"
#include "src/results/results.hpp"
#include "src/results/scaling.hpp"
#include "src/results/summary.hpp"
#include "src/results/tune_file.hpp"
#include "src/results/tune_summary.hpp"

namespace kex {

Action add_summary_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("summary", "Print the summary tables of a results file (as kex run does at its end)");
  struct Args {
    std::string file, format = "text";
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("FILE", a->file, "Results file from `kex run` or `kex merge` (one machine)")->required();
  cmd->add_option("--format", a->format,
                  "text (as kex run prints it), or markdown (the summary table as GitHub Markdown tables, for a pull "
                  "request; names from the file escaped)")
      ->check(one_of(enum_words(kTextFormats)));
  return [a]() {
    ResultsFile file = load_results_file(a->file);
    const RunDoc run = one_run(std::move(file.runs), a->file,
                               "kex summary reads one machine's run: give the file that machine's kex run wrote, or "
                               "see them side by side with kex report FILE -o PAGE");
    const bool markdown = enum_from_word(kTextFormats, a->format) == TextFormat::markdown;
    std::string text;
    if (file.tune) {  // the tune's own verdicts: its groups' members were measured in unequal rounds
      const RunDoc view = race_view(run, *file.tune);
      text = markdown ? tune_summary_markdown(view, *file.tune)
                      : tune_summary_text(view, *file.tune) + layout_table(view) + scaling_table(view) +
                            findings(view) + noise_summary(view);
    } else if (markdown) {
      text = answer_markdown(run) + summary_markdown(run);
    } else {
      text = answer_text(run, false) + summary_table(run) + layout_table(run) + scaling_table(run) + findings(run) + noise_summary(run) + explain_text(run) + ceilings_text(run);
    }
    if (text.empty()) text = "nothing measured under kex's harness in " + terminal_text(a->file) + "\n";
    write_stdout(text);
    return 0;
  };
}

}  // namespace kex
