// `kex report RESULTS... -o report.html`: one self-contained HTML page of one or more
// results files (src/results/report_html.hpp), the figures inline as SVG.
#include "src/cli/cli.hpp"
#include "src/core/atomic_write.hpp"
#include "src/core/output.hpp"
#include "src/core/terminal_text.hpp"
#include "src/results/report_html.hpp"
#include "src/results/results.hpp"
#include "src/results/tune_file.hpp"

namespace kex {

Action add_report_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "report", "Write one self-contained HTML page of results files: machine, summary, noise, findings, figures, "
                "presets, segments and, with several files, the comparison");
  struct Args {
    std::vector<std::string> files;
    std::string out;
    bool force = false, no_figures = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("RESULTS", a->files,
                  "Results files from `kex run` or `kex merge`; with two or more, each is compared with the first")
      ->required();
  cmd->add_option("-o,--output", a->out, "The HTML page to write; - for standard output")->required();
  cmd->add_flag("--no-figures", a->no_figures, "Run no gnuplot: a page without figures");
  cmd->add_flag("--force", a->force, "Overwrite the output file");
  return [a]() {
    if (a->out.empty()) throw InputError("-o: an empty path; give a file name or - for stdout");
    check_not_an_input("-o", a->out, a->files);
    if (a->out != "-") check_output_path(a->out, a->force);
    std::vector<ReportRun> runs;
    std::vector<RunDoc> docs;
    for (const std::string& f : a->files) {
      ResultsFile file = load_results_file(f);
      for (RunDoc& d : file.runs) {
        if (file.tune) d = race_view(d, *file.tune);  // the members each size's verdict ranked
        runs.push_back({f, d, file.tune});
        docs.push_back(std::move(d));
      }
    }
    ReportFigures figures;
    if (a->no_figures) figures.notes.push_back("no figures: kex report --no-figures");
    else figures = render_report_figures(docs);
    const std::string page = report_html(runs, figures);
    if (a->out == "-") {
      write_stdout(page);
      return 0;
    }
    write_file_atomic(a->out, page, a->force);
    if (!quiet()) std::printf("report: %s\n", terminal_text(a->out).c_str());
    return 0;
  };
}

}  // namespace kex
