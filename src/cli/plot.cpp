// `kex plot RESULTS... -o DIR`: gnuplot .dat/.gp per figure, PNG/SVG when gnuplot is installed.
#include <cstdio>
#include <filesystem>

#include "src/cli/cli.hpp"
#include "src/core/error.hpp"
#include "src/core/terminal_text.hpp"
#include "src/results/plot.hpp"
#include "src/results/results.hpp"

namespace kex {

Action add_plot_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("plot", "Write gnuplot figures (.dat, .gp; .png and .svg when gnuplot is installed) "
                                         "from results files");
  struct Args {
    std::vector<std::string> files;
    std::string dir;
    PlotOptions opts;
    bool no_render = false;
    std::vector<std::string> labels;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("RESULTS", a->files, "Results files from `kex run` (or `kex merge`)")->required();
  cmd->add_option("-o,--output-dir", a->dir, "Directory for the figures (created if missing)")->required();
  cmd->add_option("--filter", a->opts.filter, "Keep curves whose kernel name matches this regex, or with a leading - those that do not (baselines stay)");
  cmd->add_option("--best", a->opts.best, "Keep the N generated curves with the highest geometric-mean GB/s");
  cmd->add_option("--per-panel", a->opts.per_panel,
                  "Draw at most N kernels in each bandwidth panel, the fastest by geometric-mean GB/s (default " +
                      std::to_string(kMaxPanelCurves) + "; 0: every one); a label says how many are left out")
      ->check(CLI::Range(0, 100000));
  cmd->add_option("--label", a->labels,
                  "A label per results file, in order (repeatable or a comma list; default with several files: "
                  "their file names)")
      ->delimiter(',');
  cmd->add_flag("--ratio", a->opts.ratio,
                "Also draw speedup curves B/A (GB/s of the second file over the first, per kernel and size)");
  cmd->add_flag("--no-render", a->no_render, "Write .dat and .gp only, even when gnuplot is installed");
  cmd->add_flag("--force", a->opts.force, "Overwrite existing files in the directory");
  return [a]() {
    if (!a->labels.empty() && a->labels.size() != a->files.size())
      throw InputError("--label: " + std::to_string(a->labels.size()) + " labels for " +
                       std::to_string(a->files.size()) + " results files: give one per file");
    PlotOptions o = a->opts;
    std::vector<RunDoc> docs;
    for (size_t i = 0; i < a->files.size(); ++i) {
      auto loaded = load_results(a->files[i]);
      // Several files: runs named by --label or the file's name (a merged file's machines numbered).
      const bool named = !a->labels.empty() || a->files.size() > 1;
      const std::string name =
          !a->labels.empty() ? a->labels[i] : std::filesystem::path(a->files[i]).stem().string();
      for (size_t k = 0; k < loaded.size(); ++k) {
        if (named) o.labels.push_back(loaded.size() > 1 ? name + " #" + std::to_string(k + 1) : name);
        docs.push_back(std::move(loaded[k]));
      }
    }
    o.render = !a->no_render;
    auto written = write_plots(docs, a->dir, o);
    if (!quiet())
      for (const auto& w : written) std::printf("%s\n", terminal_text(w).c_str());
    if (o.render && find_gnuplot().empty())
      std::fprintf(stderr, "kex: gnuplot not found on PATH: wrote .dat and .gp only (Debian: apt-get install gnuplot-nox)\n");
    return 0;
  };
}

}  // namespace kex
