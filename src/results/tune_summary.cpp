#include "src/results/tune_summary.hpp"

#include "src/core/terminal_text.hpp"
#include "src/model/paired.hpp"
#include "src/results/ifunc_text.hpp"
#include "src/results/markdown.hpp"
#include "src/results/standing_text.hpp"
#include "src/results/tune_file.hpp"
#include "src/results/tune_outside.hpp"
#include "src/results/tune_text.hpp"

namespace kex {

std::vector<std::string> tune_outside_lines(const RunDoc& run, const TuneRecord& tune) {
  const RunDoc view = race_view(run, tune);
  std::vector<std::string> out = outside_faster(view, tune);
  for (std::string& l : ifunc_lines(view, answer_groups(view, tune.margin))) out.push_back(std::move(l));
  return out;
}

std::string tune_summary_text(const RunDoc& run, const TuneRecord& tune) {
  const RunDoc view = race_view(run, tune);
  std::string s = format_tune(tune, run_label(run.context));
  for (const std::string& l : tune_outside_lines(view, tune)) s += terminal_text(l) + "\n";
  const std::string standing = standing_table(view, answer_groups(view, tune.margin));
  return s + (standing.empty() ? "" : "\n" + standing);
}

std::string tune_summary_markdown(const RunDoc& run, const TuneRecord& tune) {
  std::string s = format_tune_markdown(tune, run_label(run.context));
  for (const std::string& l : tune_outside_lines(run, tune)) s += "\n" + md_text(l) + "\n";
  return s;
}

}  // namespace kex
