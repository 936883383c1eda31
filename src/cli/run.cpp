// `kex run [CONFIG...]`: the main job (built-in default sweep without a config).
#include <sys/stat.h>

#include <csignal>
#include <cstdio>
#include <ctime>
#include <dirent.h>
#include <unistd.h>

#include "src/core/atomic_write.hpp"
#include "src/cli/cli.hpp"
#include "src/core/output.hpp"
#include "src/model/config.hpp"
#include "src/results/export.hpp"
#include "src/results/plot.hpp"
#include "src/model/result_json.hpp"
#include "src/run/plans.hpp"
#include "src/results/seed_text.hpp"
#include "src/run/segments.hpp"
#include "src/results/summary.hpp"
#include "src/run/sweep.hpp"

namespace kex {

namespace {

volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_stop_signal(int) { g_stop = 1; }

struct RunArgs {
  std::vector<std::string> configs;
  std::string out, plot_dir, shard;
  std::vector<std::string> presets;
  std::string harness = "kex";
  std::string format = "json";
  bool force = false, quiet = false, no_fsave = false;
};

bool dir_has_entries(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return false;
  bool any = false;
  while (dirent* e = readdir(d))
    if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") { any = true; break; }
  closedir(d);
  return any;
}

/// The plot directory must be a directory (or creatable: its parent exists and is
/// writable) and, without --force, empty.
void check_plot_dir(const std::string& dir, bool force) {
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw InputError("--plot-dir: " + dir + ": exists and is not a directory");
    if (access(dir.c_str(), W_OK) != 0) throw InputError("--plot-dir: " + dir + ": not writable");
    if (!force && dir_has_entries(dir))
      throw InputError("--plot-dir: " + dir + ": not empty; not overwriting its files (use --force)");
    return;
  }
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  auto slash = d.rfind('/');
  std::string parent = slash == std::string::npos ? "." : slash == 0 ? "/" : d.substr(0, slash);
  if (stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || access(parent.c_str(), W_OK) != 0)
    throw InputError("--plot-dir: " + dir + ": cannot be created (" + parent + " is not a writable directory)");
}

std::pair<size_t, size_t> parse_shard(const std::string& s) {
  size_t slash = s.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument("");
    size_t used1 = 0, used2 = 0;
    unsigned long i = std::stoul(s.substr(0, slash), &used1);
    unsigned long n = std::stoul(s.substr(slash + 1), &used2);
    if (used1 != slash || used2 != s.size() - slash - 1 || n == 0 || i >= n || n > 100000)
      throw std::invalid_argument("");
    return {i, n};
  } catch (const std::exception&) {
    throw InputError("--shard: '" + s + "': expected I/N with 0 <= I < N, e.g. 0/4");
  }
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Run a sweep: generate, verify and time kernels; write results JSON");
  cmd->add_option("CONFIG", a->configs, "Sweep config files (JSON); none = the built-in default sweep");
  cmd->add_option("-o,--output", a->out,
                  "Results JSON; - for stdout (default: outputs.json of the config, else kex-results-DATE.json)");
  cmd->add_option("--plot-dir", a->plot_dir, "Also write gnuplot .dat/.gp files (and PNG/SVG) into DIR");
  cmd->add_option("--preset", a->presets, "Run named preset kernels (see `kex list presets`)");
  cmd->add_option("--harness", a->harness, "Harness for presets: kex (robust statistics), fastc, hahn")
      ->check(CLI::IsMember({"kex", "fastc", "hahn"}));
  cmd->add_flag("--no-fsave", a->no_fsave, "With --preset: drop the fsave/frstor the original kernels timed");
  cmd->add_option("--format", a->format,
                  "Format of the -o file: json (kex results), gbench (for Google Benchmark's compare.py), csv")
      ->check(CLI::IsMember({"json", "gbench", "csv"}));
  cmd->add_option("--shard", a->shard, "Run only shard I of N (I/N) of the points, for kex merge");
  cmd->add_flag("--force", a->force, "Overwrite existing output files");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress on stderr");
  return [a, cmd]() -> int {
    if (cmd->count("--output") && a->out.empty()) throw InputError("-o: an empty path; give a file name or - for stdout");
    std::vector<Config> configs;
    for (const auto& path : a->configs) configs.push_back(load_config(path));
    if (a->presets.empty() && a->no_fsave) throw InputError("--no-fsave: applies to --preset kernels; give --preset NAME...");
    if (a->presets.empty() && a->harness != "kex")
      throw InputError("--harness " + a->harness + ": applies to --preset kernels; give --preset NAME...");
    for (size_t i = 0; i < a->configs.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (a->configs[i] == a->configs[j]) throw InputError(a->configs[i] + ": config given twice");
    if (!a->presets.empty()) {
      nlohmann::json raw = {{"presets", a->presets}, {"harness", a->harness}, {"baselines", false}};
      if (a->no_fsave) raw["preset_options"] = {{"fsave", false}};
      configs.push_back(parse_config(raw.dump(), "--preset"));
    }
    if (configs.empty()) configs.push_back(load_config("built-in:default.json"));
    for (const auto& c : configs) config_plans(c);  // unknown presets and baselines fail before any run
    auto [shard_i, shard_n] = a->shard.empty() ? std::pair<size_t, size_t>{0, 1} : parse_shard(a->shard);

    std::string out = a->out;
    if (out.empty()) out = configs.front().out_json;
    if (out.empty()) {
      char stamp[32];
      time_t now = time(nullptr);
      strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
      out = std::string("kex-results-") + stamp + ".json";
    }
    std::string plot_dir = a->plot_dir.empty() ? configs.front().plot_dir : a->plot_dir;
    // Refuse before spending minutes on the sweep.
    const bool to_stdout = out == "-";
    if (!to_stdout) check_output_path(out, a->force);
    if (!plot_dir.empty()) check_plot_dir(plot_dir, a->force);

    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
    RunOptions opt;
    opt.shard_index = shard_i;
    opt.shard_count = shard_n;
    opt.stop = &g_stop;
    opt.progress = !a->quiet;
    SweepRun sweep = run_sweep(configs, opt);
    RunDoc& run = sweep.doc;
    for (const auto& [source, seed] : sweep.seed_runs)
      run.context.seed_tables.push_back({source, seed.header.harness, seed_table_text(seed)});
    const std::string body = a->format == "gbench" ? to_gbench({run}).dump(1) + "\n"
                             : a->format == "csv"  ? to_csv({run})
                                                   : to_json(run).dump(1) + "\n";
    if (to_stdout) write_stdout(body);
    else write_file_atomic(out, body, a->force);
    FILE* text = to_stdout ? stderr : stdout;  // with -o -, stdout carries only the JSON
    for (const auto& t : run.context.seed_tables) std::fprintf(text, "\n%s", t.text.c_str());
    if (std::string kex_seed = kex_seed_text(run); !kex_seed.empty()) std::fprintf(text, "\n%s", kex_seed.c_str());
    if (run.context.segments) std::fprintf(text, "\n%s", format_segment_table(*run.context.segments).c_str());
    std::string table = summary_table(run);
    if (!table.empty()) std::fputs(table.c_str(), text);
    if (std::string lt = layout_table(run); !lt.empty()) std::fputs(lt.c_str(), text);
    if (!plot_dir.empty()) {
      PlotOptions po;
      po.force = a->force;
      auto files = write_plots({run}, plot_dir, po);
      std::fprintf(text, "\nplots: %zu files in %s%s\n", files.size(), plot_dir.c_str(),
                   find_gnuplot().empty() ? " (gnuplot not installed: .dat/.gp only)" : "");
    }
    size_t n = run.results.size();
    std::fprintf(text, "\nresults: %s (%zu %s, %.1f s)\n", to_stdout ? "stdout" : out.c_str(), n,
                 n == 1 ? "entry" : "entries", run.context.rest.value("elapsed_s", 0.0));
    if (run.context.interrupted) {
      std::fprintf(stderr, "kex: interrupted; the finished points were written to %s\n",
                   to_stdout ? "stdout" : out.c_str());
      return 130;
    }
    return 0;
  };
}

}  // namespace kex
