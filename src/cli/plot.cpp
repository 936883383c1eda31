// `kex plot RESULTS... -o DIR`: gnuplot .dat/.gp per figure, PNG/SVG when gnuplot is installed.
#include <cstdio>

#include "src/cli/cli.hpp"
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
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("RESULTS", a->files, "Results files from `kex run` (or `kex merge`)")->required();
  cmd->add_option("-o,--output-dir", a->dir, "Directory for the figures (created if missing)")->required();
  cmd->add_option("--filter", a->opts.filter, "Keep curves whose kernel name matches this regex (baselines stay)");
  cmd->add_option("--best", a->opts.best, "Keep the N generated curves with the highest geometric-mean GB/s");
  cmd->add_flag("--no-render", a->no_render, "Write .dat and .gp only, even when gnuplot is installed");
  cmd->add_flag("--force", a->opts.force, "Overwrite existing files in the directory");
  return [a]() {
    std::vector<RunDoc> docs;
    for (const auto& f : a->files)
      for (auto& d : load_results(f)) docs.push_back(std::move(d));
    PlotOptions o = a->opts;
    o.render = !a->no_render;
    auto written = write_plots(docs, a->dir, o);
    if (!quiet())
      for (const auto& w : written) std::printf("%s\n", w.c_str());
    if (o.render && find_gnuplot().empty())
      std::fprintf(stderr, "kex: gnuplot not found on PATH: wrote .dat and .gp only (Debian: apt-get install gnuplot-nox)\n");
    return 0;
  };
}

}  // namespace kex
