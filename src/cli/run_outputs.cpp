// kex run's outputs: where a run's files go (its own folder, the report and figures
// beside the results), checked before the sweep and written after it.
#include <sys/stat.h>
#include <dirent.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "src/cli/cli.hpp"
#include "src/cli/run_setup.hpp"
#include "src/core/atomic_write.hpp"
#include "src/core/enum_words.hpp"
#include "src/core/error.hpp"
#include "src/core/output.hpp"
#include "src/model/result_json.hpp"
#include "src/model/results_format.hpp"
#include "src/results/export.hpp"
#include "src/results/plot.hpp"
#include "src/results/report_figures.hpp"
#include "src/results/report_html.hpp"
#include "src/results/runtests.hpp"
#include "src/run/plans.hpp"

namespace kex {

namespace {

bool dir_has_entries(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return false;
  bool any = false;
  while (dirent* e = readdir(d))
    if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") { any = true; break; }
  closedir(d);
  return any;
}

/// The plot directory (of option `opt`) must be a directory (or creatable: its parent
/// exists and is writable) and, without --force, empty.
void check_plot_dir(const std::string& dir, bool force, const std::string& opt = "--plot-dir") {
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw InputError(opt + ": " + dir + ": exists and is not a directory");
    if (access(dir.c_str(), W_OK) != 0) throw InputError(opt + ": " + dir + ": not writable");
    if (!force && dir_has_entries(dir))
      throw InputError(opt + ": " + dir + ": not empty; not overwriting its files (use --force)");
    return;
  }
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  auto slash = d.rfind('/');
  std::string parent = slash == std::string::npos ? "." : slash == 0 ? "/" : d.substr(0, slash);
  if (stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || access(parent.c_str(), W_OK) != 0)
    throw InputError(opt + ": " + dir + ": cannot be created (" + parent + " is not a writable directory)");
}

/// The stem of the results file in a run folder of kex's own (results.json, results.csv).
constexpr const char* kFolderResults = "results";

/// `out` as its folder ("" or ending in '/') and its name without the extension.
std::pair<std::string, std::string> split_output(const std::string& out) {
  const size_t slash = out.rfind('/'), dot = out.rfind('.');
  const size_t name_at = slash == std::string::npos ? 0 : slash + 1;
  return {out.substr(0, name_at), out.substr(name_at, dot != std::string::npos && dot > name_at ? dot - name_at : std::string::npos)};
}

/// A new folder in the working directory for a run's files: kex-results-YYYYMMDD-HHMMSS,
/// or that name with -2, -3, ... when it exists (an existing folder is never used).
std::string make_run_folder() {
  char stamp[32];
  const time_t now = time(nullptr);
  strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
  const std::string base = std::string("kex-results-") + stamp;
  for (int i = 1; i < 100; ++i) {
    const std::string name = i == 1 ? base : base + "-" + std::to_string(i);
    if (mkdir(name.c_str(), 0777) == 0) return name;
    if (errno != EEXIST) throw InputError(name + ": cannot create the run's folder: " + std::strerror(errno));
  }
  throw InputError(base + ": 99 run folders of this second exist; give -o FILE");
}

/// The results in the run's format.
std::string results_text(const RunDoc& run, ResultsFormat format) {
  switch (format) {
    case ResultsFormat::gbench: return to_gbench({run}).dump(1) + "\n";
    case ResultsFormat::csv: return to_csv({run});
    case ResultsFormat::json: break;
  }
  return to_json(run).dump(1) + "\n";
}

}  // namespace

/// The HTML report beside the results `out`: "<stem>.html" ("report.html" in a run
/// folder of kex's own); "" for stdout or a name longer than a file name may be. Never
/// `out` itself.
std::string report_beside(const std::string& out) {
  if (out == "-") return "";
  const auto [dir, stem] = split_output(out);
  std::string name = (stem == kFolderResults ? std::string("report") : stem) + ".html";
  if (dir + name == out) name = stem + ".report.html";
  return name.size() > 255 ? "" : dir + name;
}

/// "<stem>-plots" beside `out` (its name without the extension); "plots" in the same
/// folder for a run folder's own "results.*", as a fresh run's default.
std::string plots_beside(const std::string& out) {
  const auto [dir, stem] = split_output(out);
  return dir + (stem == kFolderResults ? "plots" : stem + "-plots");
}

/// Makes the run's folder and puts its results, figures and report there.
void place_in_folder(RunSetup& s, const RunArgs& a) {
  const std::string dir = make_run_folder();
  s.out = dir + "/" + kFolderResults + (s.request.format == ResultsFormat::csv ? ".csv" : ".json");
  if (s.plot_dir.empty() && !a.no_plot) s.plot_dir = dir + "/plots";
  if (!a.no_report) s.report = dir + "/report.html";
}

/// What the final messages say of the journal: how to resume, or why one cannot.
std::string journal_note(const Journal* j, const std::string& how) {
  if (!j) return "";
  if (j->resumable()) return "; " + how + " kex run --resume " + j->path();
  if (j->failed()) return "; its journal " + j->path() + " is incomplete (a write failed): the run cannot be resumed";
  return "; its journal " + j->path() + " was removed during the run: the run cannot be resumed";
}

/// Refuses before spending minutes on the sweep: outputs that cannot be written or
/// would replace the user's files, and printing options with nothing to print.
OutputKinds check_outputs(RunSetup& s, const RunArgs& a) {
  OutputKinds k;
  k.seed_exact = a.seed_exact;
  bool seed_harness = false;
  for (const auto& c : s.request.configs) {
    k.seed_exact |= c.seed_exact;
    seed_harness |= !c.presets.empty() && c.harness != Harness::kex;
    for (const Preset* p : resolve_presets(c.presets, c.source)) k.asami |= p->family == "asami";
  }
  const bool to_stdout = s.out == "-";
  if (k.seed_exact && to_stdout) throw InputError("--seed-exact: stdout carries the seed tables; give -o FILE for the JSON");
  if (k.seed_exact && !seed_harness && !k.asami)
    throw InputError("--seed-exact: nothing a seed program printed: give --preset with --harness fastc|xmm64|hahn|mem_cp "
                     "(or a seed set: fastc, spraul, xmm64, hahn), or Asami's presets (configs/asami.json)");
  if (!s.graph_dir.empty() && !k.asami)
    throw InputError("--graph: " + s.graph_dir + ": Asami's runtests graph needs asami presets (configs/asami.json)");
  if (s.in_folder) place_in_folder(s, a);
  // A config or the journal resumed is never replaced by a run's own output (with --force).
  std::vector<std::string> inputs = a.configs;
  if (!a.resume.empty()) inputs.push_back(a.resume);
  if (!to_stdout) check_not_an_input("-o", s.out, inputs);
  if (!s.report.empty()) check_not_an_input("-o (the report beside it)", s.report, inputs);
  if (!to_stdout) check_output_path(s.out, s.replace);
  if (!s.report.empty()) check_output_path(s.report, s.replace);
  if (!s.plot_dir.empty()) check_plot_dir(s.plot_dir, s.replace_figures);
  if (!s.graph_dir.empty()) check_plot_dir(s.graph_dir, a.force, "--graph");
  return k;
}

/// Writes the results (atomically; stdout for -o -). An interrupted run records in
/// its journal what it wrote, so that its resume knows the file for its own.
void write_results(const RunSetup& s, const RunDoc& run) {
  const std::string body = results_text(run, s.request.format);
  try {
    if (s.out == "-") write_stdout(body);
    else write_file_atomic(s.out, body, s.replace);
  } catch (const InputError& e) {
    if (s.journal) throw InputError(std::string(e.what()) + journal_note(s.journal.get(), "the journal keeps the run:"));
    throw;
  }
  if (s.journal && run.context.interrupted && s.out != "-")
    s.journal->partial_output(partial_file(s.out.substr(s.out.rfind('/') + 1), body));
}

/// The figures and Asami's graph files, where this run was told to draw them. An
/// interrupted run records its figures in the journal, as it does its results.
void write_figures(const RunSetup& s, const RunDoc& run, bool force, FilesWritten& w) {
  if (!s.plot_dir.empty()) {
    PlotOptions po;
    po.force = s.replace_figures;
    auto files = write_plots({run}, s.plot_dir, po);
    for (const std::string& f : files)
      if (f.ends_with(".svg")) w.svgs.push_back(f);
    if (s.journal && run.context.interrupted) s.journal->partial_figures(partial_files(files));
    w.plots = files.size();
    w.plot_dir = s.plot_dir;
  }
  if (!s.graph_dir.empty()) {
    w.graph_files = write_runtests_graph(run, s.graph_dir, force).size();
    w.graph_dir = s.graph_dir;
  }
}

/// The HTML report of a finished run beside its results (an interrupted run's waits
/// for its resume). The figures the run drew are inlined as they are:
/// gnuplot runs once per figure and format (issue 36).
void write_report(const RunSetup& s, const RunDoc& run, FilesWritten& w) {
  if (s.report.empty() || run.context.interrupted) return;
  const std::string where = s.out.substr(s.out.rfind('/') + 1);
  const ReportFigures figures = w.svgs.empty() ? render_report_figures({run}) : drawn_report_figures(w.svgs);
  write_file_atomic(s.report, report_html({{where, run}}, figures), s.replace);
  w.report = s.report;
}

}  // namespace kex
