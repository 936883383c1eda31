// `kex run [CONFIG...]`: the main job (built-in default sweep without a config),
// and `kex run --resume JOURNAL`, which finishes a run its journal belongs to.
#include <sys/stat.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <cstdio>
#include <ctime>
#include <dirent.h>
#include <unistd.h>

#include "src/core/affinity.hpp"
#include "src/core/atomic_write.hpp"
#include "src/cli/cli.hpp"
#include "src/cli/selection.hpp"
#include "src/core/output.hpp"
#include "src/core/version.hpp"
#include "src/model/config.hpp"
#include "src/results/export.hpp"
#include "src/results/plot.hpp"
#include "src/results/report_html.hpp"
#include "src/results/runtests.hpp"
#include "src/model/result_json.hpp"
#include "src/run/plans.hpp"
#include "src/results/seed_text.hpp"
#include "src/results/segment_text.hpp"
#include "src/run/segments.hpp"
#include "src/core/numbers.hpp"
#include "src/results/scaling.hpp"
#include "src/results/summary.hpp"
#include "src/run/context.hpp"
#include "src/run/counters.hpp"
#include "src/run/harness.hpp"
#include "src/run/journal.hpp"
#include "src/run/machine.hpp"
#include "src/run/sweep.hpp"
#include "src/run/topology.hpp"
#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"

#include <algorithm>
#include <set>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <random>

namespace kex {

using nlohmann::json;

namespace {

// Counts SIGINT/SIGTERM: the first stops after the current repetition, the second at once.
volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_stop_signal(int) {
  if (g_stop < 100) g_stop = g_stop + 1;
}

struct RunArgs {
  std::vector<std::string> configs;
  std::string out, plot_dir, shard, resume;
  std::vector<std::string> presets;
  std::string harness = "kex";
  std::string repeat;  ///< --repeat N (seed harnesses), checked by hand for one clear line
  std::string seed;    ///< --seed S, checked by hand: 0..2^64-1, never wrapped
  std::string format = "json";
  bool force = false, no_fsave = false, segments_seed_exact = false;
  uint32_t repetitions = 0;
  int cpu = -1;
  bool no_shuffle = false, no_sentinel = false, list = false, allow_large = false, no_journal = false;
  bool separate = false;
  bool full = false;  ///< the whole preset and segment tables beside generated kernels
  bool seed_exact = false, no_plot = false, no_report = false, resume_any_build = false;
  std::string graph_dir;
  std::string filter, sizes, cache, counters, threads, placement;
  std::vector<std::string> layout;
};

/// A run once its arguments, or its journal, are read: what it measures and where it writes.
struct RunSetup {
  std::vector<Config> configs;
  Protocol protocol;
  std::string out, plot_dir, graph_dir, format = "json", filter;
  std::string report;                   ///< the HTML report beside the results ("": none)
  bool in_folder = false;               ///< the outputs go into a new run folder, made before the sweep
  size_t shard_index = 0, shard_count = 1;
  std::string run_id;                   ///< the results' context.run_id (a resume keeps the journal's)
  std::unique_ptr<Journal> journal;     ///< a resume's (locked) journal; a fresh run's is created later
  std::optional<JournalState> resumed;  ///< what the journal says was done
  bool replace = false;                 ///< the output may be replaced (--force, or a resume's own partial output)
  bool replace_figures = false;         ///< files in the plot folder may be replaced (--force, or a resume's own)
  std::string counters_where = "--counters";  ///< where the counter names came from, for errors
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

/// --seed S: a whole number 0..2^64-1 as typed ("-1" and "1e23" are refused, not wrapped).
uint64_t seed_option(const std::string& text) {
  try {
    return parse_unsigned(text, 0, UINT64_MAX);
  } catch (const NumberError& e) {
    throw InputError(std::string("--seed: ") + e.what());
  }
}

/// The run-wide protocol: built-in defaults, then the first config that sets a
/// field, then the command line.
Protocol make_protocol(const std::vector<Config>& configs, const RunArgs& a, const CLI::App& cmd) {
  Protocol p;
  p.repetitions = 3;
  for (auto it = configs.rbegin(); it != configs.rend(); ++it) it->protocol.apply(p);  // the first config's knob wins
  if (a.separate) p.paired = false;
  if (cmd.count("--repetitions")) p.repetitions = a.repetitions;
  if (cmd.count("--seed")) p.seed = seed_option(a.seed);
  if (a.no_shuffle) p.shuffle = false;
  if (a.no_sentinel) p.sentinel.enabled = false;
  if (cmd.count("--cpu")) p.cpu = a.cpu;
  if (cmd.count("--placement")) {
    p.placement = parse_placement(a.placement, "--placement");
    if (p.placement.mode == PlacementMode::list && cmd.count("--cpu") && a.cpu != p.placement.cpus.front())
      throw InputError("--placement: '" + a.placement + "': its first CPU runs worker 0, the measuring thread; --cpu " +
                       std::to_string(a.cpu) + " says another (give one of them)");
  }
  if (!a.counters.empty()) p.counters.clear();  // the command line's list, not added to a config's
  for (size_t i = 0; !a.counters.empty() && i <= a.counters.size();) {
    const size_t j = std::min(a.counters.find(',', i), a.counters.size());
    if (j == i) throw InputError("--counters: '" + a.counters + "': an empty name; give NAME[,NAME...] (kex info lists them)");
    p.counters.push_back(a.counters.substr(i, j - i));
    i = j + 1;
  }
  if (!p.counters.empty()) p.paired = false;  // counters count one point's own samples: each alone
  // Without a seed, a fresh one per run (recorded: the order can be replayed).
  if (!cmd.count("--seed") && std::none_of(configs.begin(), configs.end(), [](const Config& c) { return c.protocol.sets("seed"); }))
    p.seed = (uint64_t(time(nullptr)) << 20) ^ uint64_t(getpid());
  return p;
}

/// --repeat N: a whole number 1..1000, for a seed harness only.
uint32_t repeat_count(const std::string& text, const std::string& harness) {
  if (harness == "kex")
    throw InputError("--repeat: applies to a seed harness: give --harness fastc|xmm64|hahn|mem_cp (or a seed set)");
  try {
    return static_cast<uint32_t>(parse_integer(text, 1, 1000));
  } catch (const NumberError&) {
    throw InputError("--repeat: '" + text + "': expected a whole number of runs, 1..1000");
  }
}

/// A config on stdin, read to at most kMaxConfigBytes (`kex run - < /dev/zero` must end).
std::string read_stdin_config() {
  std::string text;
  char buf[1 << 16];
  while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
    text.append(buf, size_t(std::cin.gcount()));
    if (text.size() > kMaxConfigBytes)
      throw InputError("-: the config on stdin is longer than " + std::to_string(kMaxConfigBytes >> 20) +
                       " MiB (a config is at most that); not read further");
  }
  if (std::cin.bad()) throw InputError("-: cannot read a config from stdin");
  return text;
}

/// Whether `path` is a regular file holding exactly the bytes `p` records.
bool holds(const std::string& path, const PartialFile& p) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || uint64_t(st.st_size) != p.bytes) return false;
  std::ifstream in(path, std::ios::binary);
  std::string text(p.bytes, '\0');
  if (!in.read(text.data(), std::streamsize(text.size())) || in.peek() != std::char_traits<char>::eof()) return false;
  return partial_file(p.name, text) == p;
}

/// Whether `path` holds exactly the partial output the journal records (an
/// interrupted session of this run wrote it): only then may a resume replace it
/// without --force. Anything else (missing, another run's, edited) is not its own.
bool own_partial_output(const std::string& path, const std::optional<PartialFile>& p) { return p && holds(path, *p); }

/// Whether every entry of `dir` is a figure an interrupted session of this run drew,
/// byte for byte (then a resume draws over them without --force).
bool own_partial_figures(const std::string& dir, const std::vector<PartialFile>& figures) {
  DIR* d = opendir(dir.c_str());
  if (!d) return false;
  bool own = true, any = false;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    any = true;
    auto it = std::find_if(figures.begin(), figures.end(), [&](const PartialFile& f) { return f.name == name; });
    if (it == figures.end() || !holds(dir + "/" + name, *it)) {
      own = false;
      break;
    }
  }
  closedir(d);
  return own && any;
}

/// The records of `files` (paths) as they are now.
std::vector<PartialFile> partial_files(const std::vector<std::string>& files) {
  std::vector<PartialFile> out;
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) continue;
    out.push_back(partial_file(f.substr(f.rfind('/') + 1), text));
  }
  return out;
}

std::string duration_text(double s) {
  char b[48];
  if (s < 120) std::snprintf(b, sizeof b, "%.0f s", s);
  else if (s < 7200) std::snprintf(b, sizeof b, "%.0f min", s / 60);
  else std::snprintf(b, sizeof b, "%.1f h", s / 3600);
  return b;
}

/// What the final messages say of the journal: how to resume, or why one cannot.
std::string journal_note(const Journal* j, const std::string& how) {
  if (!j) return "";
  if (j->resumable()) return "; " + how + " kex run --resume " + j->path();
  if (j->failed()) return "; its journal " + j->path() + " is incomplete (a write failed): the run cannot be resumed";
  return "; its journal " + j->path() + " was removed during the run: the run cannot be resumed";
}

// ---- where a run's files go ---------------------------------------------------

/// The stem of the results file in a run folder of kex's own (results.json, results.csv).
constexpr const char* kFolderResults = "results";

/// `out` as its folder ("" or ending in '/') and its name without the extension.
std::pair<std::string, std::string> split_output(const std::string& out) {
  const size_t slash = out.rfind('/'), dot = out.rfind('.');
  const size_t name_at = slash == std::string::npos ? 0 : slash + 1;
  return {out.substr(0, name_at), out.substr(name_at, dot != std::string::npos && dot > name_at ? dot - name_at : std::string::npos)};
}

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

/// Makes the run's folder and puts its results, figures and report there.
void place_in_folder(RunSetup& s, const RunArgs& a) {
  const std::string dir = make_run_folder();
  s.out = dir + "/" + kFolderResults + (s.format == "csv" ? ".csv" : ".json");
  if (s.plot_dir.empty() && !a.no_plot) s.plot_dir = dir + "/plots";
  if (!a.no_report) s.report = dir + "/report.html";
}

// ---- a fresh run: configs and outputs from the command line ------------------

/// The configs the arguments name, in order: files (- for stdin), then the kernel
/// names as one more config, then --preset; the built-in default without any.
std::vector<Config> configs_from_arguments(RunArgs& a, const CLI::App& cmd) {
  std::vector<Config> configs;
  // Each argument is a config or a kernel name (selection.hpp: is_config_argument); the
  // names become one more config, after the files.
  NamedKernels names;
  for (size_t i = 0; i < a.configs.size(); ++i) {
    const std::string& arg = a.configs[i];
    if (!is_config_argument(arg)) {
      add_kernel_name(names, arg);
      continue;
    }
    for (size_t j = 0; j < i; ++j)
      if (a.configs[j] == arg) throw InputError(arg + ": config given twice");
    configs.push_back(arg == "-" ? parse_config(read_stdin_config(), "stdin") : load_config(arg));
  }
  const json sizes = a.sizes.empty() && !cmd.count("--sizes") ? json() : sizes_option(a.sizes);
  const json cache = a.cache.empty() && !cmd.count("--cache") ? json() : cache_option(a.cache);
  const json layout = a.layout.empty() ? json() : layout_option(a.layout);
  const json threads = !cmd.count("--threads") ? json() : threads_option(a.threads);
  if (names.empty())
    for (const char* opt : {"--sizes", "--cache", "--layout", "--threads"})
      if (cmd.count(opt))
        throw InputError(std::string(opt) + ": applies to kernels named as arguments (e.g. kex run "
                         "copy/avx/unroll:256 memcpy " + opt + " ...)" +
                         (a.presets.empty() ? "; a config file sets its own axes"
                                            : std::string("; --preset runs presets on one page as their programs did "
                                                          "(name a preset as an argument instead: kex run "
                                                          "linux/clear_page_erms ") + opt + " ...)"));
  if (!names.empty()) configs.push_back(names_config(names, sizes, cache, layout, threads));
  if (a.presets.empty() && a.no_fsave) throw InputError("--no-fsave: applies to --preset kernels; give --preset NAME...");
  if (a.presets.empty() && a.harness != "kex")
    throw InputError("--harness " + a.harness + ": applies to --preset kernels; give --preset NAME...");
  if (!a.repeat.empty() && a.presets.empty())
    throw InputError("--repeat: applies to --preset kernels under a seed harness; give --preset NAME...");
  if ((a.seed_exact || !a.repeat.empty()) && !cmd.count("--harness"))
    if (auto own = preset_sets_harness(a.presets)) a.harness = std::string(to_string(*own));
  if (!a.presets.empty()) {
    // libc's page copy and clear (memcpy, memset, rep movsb/stosb) at one page under kex's
    // protocol beside them, so every preset table and figure has its baselines from this run.
    json raw = {{"presets", a.presets}, {"harness", a.harness}, {"sizes", {4096}}, {"baselines", true}};
    if (a.harness == "mem_cp") raw["sizes"] = mem_cp_sizes();  // Asami's runtests sizes, not one page
    if (a.no_fsave) raw["preset_options"] = {{"fsave", false}};
    if (!a.repeat.empty()) raw["repeat"] = repeat_count(a.repeat, a.harness);
    configs.push_back(parse_config(raw.dump(), "--preset"));
  }
  if (configs.empty()) configs.push_back(load_config("built-in:default.json"));
  return configs;
}

/// A fresh run from its arguments: configs, protocol, where the results and figures go.
void fresh_setup(RunArgs& a, const CLI::App& cmd, RunSetup& s) {
  if (a.resume_any_build) throw InputError("--resume-any-build: applies to --resume JOURNAL");
  s.configs = configs_from_arguments(a, cmd);
  s.protocol = make_protocol(s.configs, a, cmd);
  const auto with_counters =
      std::find_if(s.configs.begin(), s.configs.end(), [](const Config& c) { return c.protocol.sets("counters"); });
  if (a.counters.empty() && with_counters != s.configs.end()) s.counters_where = with_counters->source + ": /protocol/counters";
  s.format = a.format;
  s.filter = a.filter;
  if (!a.shard.empty()) std::tie(s.shard_index, s.shard_count) = parse_shard(a.shard);
  s.run_id = new_run_id();
  s.out = a.out.empty() ? s.configs.front().out_json : a.out;
  s.plot_dir = a.plot_dir.empty() ? s.configs.front().plot_dir : a.plot_dir;
  s.in_folder = s.out.empty();  // a folder of kex's own, made once the run is known to go ahead
  if (a.no_plot) s.plot_dir.clear();
  if (!s.in_folder && !a.no_report) s.report = report_beside(s.out);
  s.graph_dir = a.graph_dir.empty() ? s.configs.front().graph_dir : a.graph_dir;
  s.replace = s.replace_figures = a.force;
}

/// The journal header of a fresh run (it must not be written with --no-journal or -o -).
JournalHeader journal_header(const RunSetup& s) {
  JournalHeader h;
  h.kex_version = std::string(kex_version());
  h.git_commit = std::string(kex_git_commit());
  h.run_id = s.run_id;
  h.machine = machine_key(this_machine());
  h.format = s.format;
  h.shard_index = s.shard_index;
  h.shard_count = s.shard_count;
  h.filter = s.filter;
  h.drew_figures = !s.plot_dir.empty();
  h.wrote_report = !s.report.empty();
  h.output_name = s.out.substr(s.out.rfind('/') + 1);
  h.protocol = s.protocol;
  h.configs = s.configs;
  return h;
}

// ---- a resume: the run from its journal, outputs from its name ---------------

/// "<stem>-plots" beside `out` (its name without the extension); "plots" in the same
/// folder for a run folder's own "results.*", as a fresh run's default.
std::string plots_beside(const std::string& out) {
  const auto [dir, stem] = split_output(out);
  return dir + (stem == kFolderResults ? "plots" : stem + "-plots");
}

/// Options that would change what the run measures: the journal says that.
void refuse_run_options(const CLI::App& cmd) {
  for (const char* opt : {"CONFIG", "--preset", "--shard", "--repetitions", "--seed", "--format", "--cpu", "--harness",
                          "--repeat", "--filter", "--sizes", "--cache", "--layout", "--threads", "--placement", "--counters", "--no-shuffle",
                          "--no-sentinel", "--no-fsave", "--no-journal"})
    if (cmd.count(opt)) throw InputError(std::string(opt) + ": not with --resume (the journal says what the run was)");
}

/// A journal of another build mixes repetitions of different code under one name.
void check_same_build(const JournalHeader& h, const std::string& journal, bool any_build) {
  if (any_build || (h.kex_version == kex_version() && h.git_commit == kex_git_commit())) return;
  throw InputError("--resume: " + journal + ": written by kex " + h.kex_version + " (git " + h.git_commit +
                   "); this is kex " + std::string(kex_version()) + " (git " + std::string(kex_git_commit()) +
                   "): the run would mix repetitions of two builds; pass --resume-any-build to accept that");
}

/// The resumed run's output: -o when given (the user's choice), else the journal's
/// own name; never the journal itself.
std::string resume_output(const RunArgs& a, const CLI::App& cmd, const JournalState& st) {
  const std::string out = cmd.count("--output") ? a.out : output_for_journal(a.resume, st.header.output_name);
  struct stat o, j;
  if (out == a.resume || (stat(out.c_str(), &o) == 0 && stat(a.resume.c_str(), &j) == 0 && o.st_dev == j.st_dev &&
                          o.st_ino == j.st_ino))
    throw InputError("-o: " + out + ": is the journal being resumed; give another results file");
  return out;
}

/// A resume: the journal locked and read, its run checked against this build and
/// machine; the outputs from its name and the command line, never from its content.
void resume_setup(const RunArgs& a, const CLI::App& cmd, RunSetup& s) {
  refuse_run_options(cmd);
  s.journal = std::make_unique<Journal>(a.resume);  // InputError at once when a live kex holds it
  s.resumed = s.journal->read();
  const JournalHeader& h = s.resumed->header;
  check_same_build(h, a.resume, a.resume_any_build);
  const std::string here = machine_key(this_machine());
  if (here != h.machine)
    throw InputError("--resume: " + a.resume + ": the run was on " + h.machine + "; this machine is " + here);
  s.configs = h.configs;
  s.protocol = h.protocol;
  s.format = h.format;
  s.filter = h.filter;
  s.shard_index = h.shard_index;
  s.shard_count = h.shard_count;
  s.run_id = h.run_id;
  s.counters_where = a.resume + ":1: /header/protocol/counters";
  s.out = resume_output(a, cmd, *s.resumed);
  s.plot_dir = cmd.count("--plot-dir") ? a.plot_dir : h.drew_figures && !a.no_plot ? plots_beside(s.out) : "";
  struct stat link;
  if (!cmd.count("--plot-dir") && !s.plot_dir.empty() && lstat(s.plot_dir.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
    throw InputError("--resume: " + s.plot_dir +
                     ": a symbolic link where the resume draws its figures (it could point anywhere, as one "
                     "unpacked beside a journal can); remove it, or give --plot-dir DIR or --no-plot");
  s.graph_dir = a.graph_dir;  // only when asked now: a config's outputs.graph_dir is a path from the journal
  s.replace = a.force || own_partial_output(s.out, s.resumed->partial);
  if (!a.no_report && h.wrote_report) s.report = report_beside(s.out);
  s.replace_figures = a.force || (!s.plot_dir.empty() && own_partial_figures(s.plot_dir, s.resumed->partial_figures));
}

// ---- the steps every run takes ------------------------------------------------

/// Checks the plans and opens the counters once (unknown names fail here; what
/// cannot count on this machine is said once). Returns the counters' record.
std::optional<std::vector<CounterRecord>> check_plans_and_counters(const RunSetup& s) {
  for (const auto& c : s.configs) config_plans(c);  // unknown presets and baselines fail before any run
  if (s.protocol.counters.empty()) return std::nullopt;
  const CounterSet probe = open_counters(s.protocol.counters, s.counters_where);
  if (!probe.note().empty()) std::fprintf(stderr, "kex: %s\n", probe.note().c_str());
  std::vector<CounterRecord> records;
  for (const Counter& c : probe.counters()) {
    records.push_back({c.name, c.event, c.hardware, c.ok, c.reason});
    if (!c.ok && !(c.hardware && !probe.note().empty()))
      std::fprintf(stderr, "kex: --counters: %s: not counted (%s)\n", c.name.c_str(), c.reason.c_str());
  }
  return records;
}

/// --filter on every config (a seed harness runs its table whole); the segment table,
/// which has no points, is left out.
void apply_filter(RunSetup& s, bool given) {
  if (s.filter.empty() && !given) return;
  const NameFilter f = parse_name_filter(s.filter, "--filter");
  bool segments = false;
  for (auto& c : s.configs) {
    segments |= c.segments.enabled;
    c.segments.enabled = false;  // the table has no points for the filter to choose
    if (!c.presets.empty() && c.harness != Harness::kex)
      throw InputError("--filter: a seed harness (" + std::string(to_string(c.harness)) + ", " + c.source +
                       ") runs its program's table whole; filter kernels under the kex harness");
    c.filter = f;
  }
  if (segments && !quiet())
    std::fprintf(stderr, "kex: --filter: the segment-override table is not run (it has no points to filter; "
                         "kex segments runs it)\n");
}

/// Pins to the protocol's CPU: InputError naming --cpu, or the journal's field, and the CPUs allowed.
void pin_worker_cpu(const RunSetup& s, const RunArgs& a) {
  if (s.protocol.cpu < 0) return;
  try {
    pin_to_cpu(s.protocol.cpu);
  } catch (const InputError& e) {
    if (!s.resumed) throw;
    throw InputError(a.resume + ":1: /header/protocol/cpu", e.what());
  }
}

/// Every point the journal holds work of is a point of the run its header describes:
/// a journal whose lines belong to another run is refused (its work would be dropped, or
/// a name from it would reach the results).
void check_journal_points(const JournalState& st, const std::vector<std::string>& names, const std::string& journal) {
  const std::set<std::string> run(names.begin(), names.end());
  auto check = [&](const std::string& point, const char* what) {
    if (run.count(point)) return;
    uint32_t threads = 1;
    try {
      threads = parse_point_name(point).at.threads;
    } catch (const std::invalid_argument&) {
    }
    const std::vector<int>& cpus = startup_cpus();
    if (threads > cpus.size())  // threads "all" (or a list) read under a narrower mask
      throw InputError("--resume: " + journal + ": " + what + " of " + point + ": its " + std::to_string(threads) +
                       " workers need " + std::to_string(threads) + " CPUs and this process may use " +
                       std::to_string(cpus.size()) + " (CPUs " + cpu_list_text(cpus) +
                       "); resume under the affinity mask the run started with");
    throw InputError("--resume: " + journal + ": " + what + " of " + point +
                     ", which the run its header describes does not measure: not this run's journal");
  };
  for (const auto& [point, reps] : st.reps) check(point, "repetitions");
  for (const auto& [point, r] : st.results) check(point, "a result");
}

/// The size of the run, before anything runs: --list prints it (returns true: done),
/// and a run above the limits is refused.
bool plan_or_list(const RunSetup& s, const RunOptions& opt, const RunArgs& a) {
  // Without --allow-large the count stops past the task limit: a grid of 10^7 points
  // is refused at once, not after naming them all.
  const size_t max_points = a.list || a.allow_large ? SIZE_MAX : 100000 / s.protocol.repetitions;
  const SweepPlan sp = plan_sweep(s.configs, opt, max_points);
  if (!sp.complete)
    throw InputError("run: more than " + std::to_string(max_points) + " points x " +
                     std::to_string(s.protocol.repetitions) +
                     " repetitions: above 100000 tasks; pass --allow-large to run it (or --list to see the points)");
  if (s.resumed) check_journal_points(*s.resumed, sp.names, s.journal->path());
  plan_places(sp, opt.protocol);  // too few CPUs for the threads asked: refused before any file is made
  if (sp.names.empty() && !s.filter.empty()) {
    std::vector<Config> unfiltered = s.configs;
    for (auto& c : unfiltered) c.filter.reset();
    if (const size_t n = plan_sweep(unfiltered, opt).names.size(); n > 0)
      throw InputError("--filter: '" + s.filter + "': matches none of the " + std::to_string(n) +
                       " points of the run (kex run --list without --filter prints them)");
  }
  if (a.list) {
    for (size_t i = 0; i < sp.names.size(); ++i) {
      std::printf("%s\n", sp.names[i].c_str());
      if (!sp.skips[i].empty()) std::printf("#   skipped: %s\n", sp.skips[i].c_str());
    }
    const std::string skipped = sp.skipped ? " (" + std::to_string(sp.skipped) + " skipped on this CPU)" : "";
    std::printf("# %zu points%s x %u %s = %zu tasks; estimated %s measuring on a quiet machine (at most %s on a busy "
                "one); buffers %s\n",
                sp.names.size(), skipped.c_str(), s.protocol.repetitions, s.protocol.paired ? "paired rounds" : "repetitions", sp.tasks,
                duration_text(sp.estimate_s).c_str(), duration_text(sp.worst_s).c_str(),
                format_bytes(sp.buffer_bytes).c_str());
    return true;
  }
  if ((sp.tasks > 100000 || sp.estimate_s > 7200) && !a.allow_large)
    throw InputError("run: " + std::to_string(sp.names.size()) + " points x " + std::to_string(s.protocol.repetitions) +
                     " repetitions = " + std::to_string(sp.tasks) + " tasks, estimated " +
                     duration_text(sp.estimate_s) + " (at most " + duration_text(sp.worst_s) +
                     "): above 100000 tasks or 2 hours; pass --allow-large to run it (or --list to see the points)");
  if (sp.buffer_bytes > 2 * max_config_size())
    throw InputError("run: the buffers need " + format_bytes(sp.buffer_bytes) + "; this machine has " +
                     format_bytes(4 * max_config_size()) + " available");
  return false;
}

/// What the run prints and checks about its outputs, found before the sweep.
struct OutputKinds {
  bool seed_exact = false, asami = false;
};

/// Refuses before spending minutes on the sweep: outputs that cannot be written or
/// would replace the user's files, and printing options with nothing to print.
OutputKinds check_outputs(RunSetup& s, const RunArgs& a) {
  OutputKinds k;
  k.seed_exact = a.seed_exact;
  bool seed_harness = false;
  for (const auto& c : s.configs) {
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
  if (!to_stdout) check_output_path(s.out, s.replace);
  if (!s.report.empty()) check_output_path(s.report, s.replace);
  if (!s.plot_dir.empty()) check_plot_dir(s.plot_dir, s.replace_figures);
  if (!s.graph_dir.empty()) check_plot_dir(s.graph_dir, a.force, "--graph");
  return k;
}

/// The results in the run's format.
std::string results_text(const RunDoc& run, const std::string& format) {
  return format == "gbench" ? to_gbench({run}).dump(1) + "\n"
         : format == "csv"  ? to_csv({run})
                            : to_json(run).dump(1) + "\n";
}

/// Writes the results (atomically; stdout for -o -). An interrupted run records in
/// its journal what it wrote, so that its resume knows the file for its own.
void write_results(const RunSetup& s, const RunDoc& run) {
  const std::string body = results_text(run, s.format);
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

/// The tables a run prints after writing: seed tables, Asami's, the segment table,
/// the summary. With --seed-exact stdout carries only what the seed programs printed.
void print_tables(const SweepRun& sweep, const RunDoc& run, const OutputKinds& k, const RunArgs& a, FILE*& text) {
  const bool chatter = !quiet();  // -q: the files and the output asked for by name only
  if (k.seed_exact) {
    size_t silent = 0;
    for (const auto& [source, seed] : sweep.seed_runs) {
      for (const SeedRun& pass : seed_passes(seed))  // as if the program had been run N times
        std::fputs(seed_table_text(pass, SeedText::exact).c_str(), stdout);
      for (const auto& r : seed.results) silent += r.status.kind != StatusKind::ok;
    }
    std::fputs(runtests_text(run, SeedText::exact).c_str(), stdout);
    if (silent)
      std::fprintf(stderr, "kex: --seed-exact: %zu kernel%s did not run and %s no line (see the results file)\n", silent,
                   silent == 1 ? "" : "s", silent == 1 ? "has" : "have");
    text = stderr;
  } else if (chatter) {
    for (const auto& t : run.context.seed_tables) std::fprintf(text, "\n%s", t.text.c_str());
    if (std::string rt = runtests_text(run); !rt.empty()) std::fprintf(text, "\n%s", rt.c_str());
  }
  // Beside generated kernels the preset and segment tables are a few lines each (the
  // whole tables with --full, and in `kex segments`), after the answer per group; a run
  // of presets or segments alone prints them whole, first.
  const bool compact = !a.full && std::any_of(run.results.begin(), run.results.end(), [](const Result& r) {
    return r.kind == KernelKind::generated;
  });
  auto answers = [&] {
    if (!chatter) return;
    if (std::string table = summary_table(run, compact); !table.empty()) std::fputs(table.c_str(), text);
    if (std::string lt = layout_table(run); !lt.empty()) std::fputs(lt.c_str(), text);
    if (std::string st = scaling_table(run); !st.empty()) std::fputs(st.c_str(), text);
  };
  if (compact) answers();
  if (chatter) {
    const std::string presets = compact ? kex_seed_summary(run) : kex_seed_text(run);
    if (!presets.empty()) std::fprintf(text, "\n%s", presets.c_str());
  }
  if (run.context.segments && (chatter || a.segments_seed_exact))
    std::fprintf(text, "%s%s", compact && !a.segments_seed_exact ? "" : "\n",  // a resumed table's strings come from its journal
                 terminal_lines(a.segments_seed_exact ? format_segment_seed_text(*run.context.segments)
                                : compact             ? format_segment_summary(*run.context.segments)
                                                      : format_segment_table(*run.context.segments))
                     .c_str());
  if (!compact) answers();
  if (chatter) {
    if (std::string f = findings(run, compact); !f.empty()) std::fputs(f.c_str(), text);
    if (std::string ns = noise_summary(run); !ns.empty()) std::fputs(ns.c_str(), text);
  }
}

/// The figures and Asami's graph files, where this run was told to draw them. An
/// interrupted run records its figures in the journal, as it does its results.
void write_figures(const RunSetup& s, const RunDoc& run, bool force, FILE* text) {
  const bool chatter = !quiet();
  if (!s.plot_dir.empty()) {
    PlotOptions po;
    po.force = s.replace_figures;
    auto files = write_plots({run}, s.plot_dir, po);
    if (s.journal && run.context.interrupted) s.journal->partial_figures(partial_files(files));
    if (chatter)
      std::fprintf(text, "\nplots: %zu files in %s%s\n", files.size(), terminal_text(s.plot_dir).c_str(),
                   find_gnuplot().empty() ? " (gnuplot not installed: .dat/.gp only)" : "");
  }
  if (!s.graph_dir.empty()) {
    auto files = write_runtests_graph(run, s.graph_dir, force);
    if (chatter)
      std::fprintf(text, "\nruntests graph: %zu files in %s (gnuplot: load '%s/plot.gp')\n", files.size(),
                   terminal_text(s.graph_dir).c_str(), terminal_text(s.graph_dir).c_str());
  }
}

/// The HTML report of a finished run beside its results (an interrupted run's waits
/// for its resume), its path printed.
void write_report(const RunSetup& s, const RunDoc& run, FILE* text) {
  if (s.report.empty() || run.context.interrupted) return;
  const std::string where = s.out.substr(s.out.rfind('/') + 1);
  write_file_atomic(s.report, report_html({{where, run}}, render_report_figures({run})), s.replace);
  if (!quiet()) std::fprintf(text, "\nreport: %s\n", terminal_text(s.report).c_str());
}

/// Runs the sweep with the journal; the finished run (or nullopt after a second stop).
std::optional<SweepRun> measure(RunSetup& s, RunOptions& opt, const RunArgs& a) {
  if (!s.resumed && s.out != "-" && !a.no_journal)
    s.journal = std::make_unique<Journal>(journal_path(s.out), journal_header(s));
  opt.journal = s.journal.get();
  opt.resume = s.resumed ? &*s.resumed : nullptr;
  if (cpu_scaling().enabled && !quiet()) std::fprintf(stderr, "%s\n", kCpuScalingWarning);
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  SweepRun sweep = run_sweep(s.configs, opt);
  if (s.journal) s.journal->sync();
  if (sweep.abandoned) {
    std::fprintf(stderr, "kex: stopped at once; nothing written%s\n",
                 journal_note(s.journal.get(), "the journal keeps every finished repetition:").c_str());
    return std::nullopt;
  }
  return sweep;
}

void add_cli_options(CLI::App* cmd, RunArgs& a);

}  // namespace

Action add_run_command(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Run a sweep: generate, verify and time kernels; write results JSON");
  add_cli_options(cmd, *a);
  return [a, cmd]() -> int {
    if (cmd->count("--output") && a->out.empty()) throw InputError("-o: an empty path; give a file name or - for stdout");
    RunSetup s;
    if (a->resume.empty()) fresh_setup(*a, *cmd, s);
    else resume_setup(*a, *cmd, s);
    const std::optional<std::vector<CounterRecord>> counters = check_plans_and_counters(s);
    apply_filter(s, cmd->count("--filter") > 0);
    pin_worker_cpu(s, *a);
    RunOptions opt;
    opt.shard_index = s.shard_index;
    opt.shard_count = s.shard_count;
    opt.stop = &g_stop;
    opt.progress = !quiet();
    opt.protocol = s.protocol;
    opt.run_id = s.run_id;  // drawn once (a resumed run keeps the journal's: it is the same run)
    opt.filter = s.filter;
    opt.counters = counters;
    if (plan_or_list(s, opt, *a)) return 0;
    const OutputKinds kinds = check_outputs(s, *a);
    std::optional<SweepRun> sweep = measure(s, opt, *a);
    if (!sweep) return 130;
    RunDoc& run = sweep->doc;
    for (const auto& [source, seed] : sweep->seed_runs)
      run.context.seed_tables.push_back({source, seed.header.harness, seed_table_text(seed)});
    write_results(s, run);
    if (s.journal && !run.context.interrupted) s.journal->remove();
    FILE* text = s.out == "-" ? stderr : stdout;  // with -o -, stdout carries only the JSON
    print_tables(*sweep, run, kinds, *a, text);
    write_figures(s, run, a->force, text);
    write_report(s, run, text);
    const size_t n = run.results.size();
    const std::string where = s.out == "-" ? "stdout" : terminal_text(s.out);
    if (!quiet())
      std::fprintf(text, "\nresults: %s (%zu %s, %.1f s)\n", where.c_str(), n, n == 1 ? "entry" : "entries",
                   run.context.totals ? run.context.totals->elapsed_s : 0.0);
    if (run.context.interrupted) {
      std::fprintf(stderr, "kex: interrupted; the finished points were written to %s%s\n", where.c_str(),
                   journal_note(s.journal.get(), "finish the run with").c_str());
      return 130;
    }
    // Exit status 3: the results are written, but points were not measured as asked for a
    // reason outside their kernels (a memory limit, a worker killed from outside).
    if (const size_t lost = run.context.incomplete_points.size()) {
      std::fprintf(stderr, "kex: %zu point%s not measured as asked (context.incomplete_points says why)\n", lost,
                   lost == 1 ? " was" : "s were");
      return 3;
    }
    return 0;
  };
}

namespace {

void add_cli_options(CLI::App* cmd, RunArgs& a) {
  cmd->add_option("CONFIG", a.configs,
                  "Config files (JSON; - reads one from stdin) or kernel names: an argument that is -, built-in:NAME, "
                  "an existing path or ends in .json is a config, anything else a kernel name (a spec such as "
                  "copy/avx/unroll:256, a preset or preset set such as hahn/faster_copy, xmm_clear or fastc, or a baseline: memcpy, "
                  "memset, rep_movsb, rep_stosb). None: the built-in default sweep");
  cmd->add_option("--sizes", a.sizes,
                  "Sizes of the kernels named as arguments: a list 4KiB,64KiB; A..B = A, 2A, 4A, ... and B; "
                  "A..B:N = N sizes per octave (default 256..64MiB x4; presets alone: 4096)")
      ->type_name("LIST");
  cmd->add_option("--cache", a.cache, "Cache modes of the kernels named as arguments: warm, cold or warm,cold")
      ->type_name("LIST");
  cmd->add_option("--layout", a.layout,
                  "Layout of the kernels named as arguments, as point-name tokens joined by /: src:N, dst:N, dist:D "
                  "(signed, or none), nohuge, each with a list, e.g. src:0,1/dist:0,64,4160 (repeatable)")
      ->type_name("TOKENS")
      ->expected(1);
  cmd->add_option("--threads", a.threads,
                  "Threads of the kernels named as arguments: workers doing each operation at once, each pinned to "
                  "its own CPU on its own buffers: a list such as 1,2 or all (every CPU of the affinity mask)")
      ->type_name("LIST");
  cmd->add_option("--placement", a.placement,
                  "Where the workers of points with threads > 1 run: spread (one per core, alternating L3 domains, "
                  "then SMT siblings; the default), compact (SMT siblings first), or a CPU list in worker order "
                  "such as 0,2-3 (worker 0, the measuring thread, on the first)")
      ->type_name("MODE|LIST");
  cmd->add_option("--filter", a.filter,
                  "Run only the points whose full name matches this regex (RE2 syntax) (a leading - runs those that do "
                  "not), before anything is generated; baselines follow the kernel points kept")
      ->type_name("REGEX");
  cmd->add_option("-o,--output", a.out,
                  "Results JSON; - for stdout (default: outputs.json of the config, else a new folder "
                  "kex-results-DATE/ with results.json, plots/ and report.html)");
  auto* plot_dir = cmd->add_option("--plot-dir", a.plot_dir,
                                   "Also write gnuplot .dat/.gp files (and PNG/SVG) into DIR (default, in the "
                                   "run's own folder kex-results-DATE/: its plots/)");
  cmd->add_flag("--no-plot", a.no_plot, "Write no figures (not even in the run's own folder)")
      ->excludes(plot_dir);
  cmd->add_flag("--no-report", a.no_report,
                "Write no HTML report (by default kex run writes one beside its results, as kex report does: "
                "FILE's stem + .html, or report.html in the run's folder)");
  cmd->add_option("--preset", a.presets, "Run named preset kernels (see `kex list presets`)");
  cmd->add_option("--harness", a.harness,
                  "Harness for presets: kex (robust statistics), or a seed program's own: fastc, xmm64, hahn, "
                  "mem_cp (Asami's: 4 MB of copies per size, 32..10000 bytes, gettimeofday)")
      ->check(CLI::IsMember({"kex", "fastc", "xmm64", "hahn", "mem_cp"}));
  cmd->add_flag("--seed-exact", a.seed_exact,
                "Print only what the seed programs printed (no # lines, no notes; the rest goes to stderr); "
                "with --preset SET and no --harness, the set's own program");
  cmd->add_option("--graph", a.graph_dir,
                  "Also write Asami's runtests -graph files into DIR: a data file per function and plot.gp");
  cmd->add_option("--repeat", a.repeat,
                  "With --preset and a seed harness: run the single-pass program N times (1..1000)");
  cmd->add_flag("--no-fsave", a.no_fsave, "With --preset: drop the fsave/frstor the original kernels timed");
  cmd->add_option("--format", a.format,
                  "Format of the -o file: json (kex results), gbench (for Google Benchmark's compare.py), csv")
      ->check(CLI::IsMember({"json", "gbench", "csv"}));
  cmd->add_option("--shard", a.shard, "Run only shard I of N (I/N) of the points, for kex merge");
  cmd->add_option("--repetitions", a.repetitions,
                  "Measure each point N times, the repetitions in a random order over the whole sweep (default 3, "
                  "or the config's \"repetitions\")")
      ->check(CLI::Range(1u, 1000u));
  cmd->add_option("--seed", a.seed, "Seed of the random order, 0..2^64-1 (default: a fresh one, recorded in the results)")
      ->type_name("UINT");
  cmd->add_flag("--no-shuffle", a.no_shuffle, "Measure in config order, each point's repetitions in turn");
  cmd->add_flag("--full", a.full,
                "Print the whole kex-harness preset table, segment table, every summary block and every finding after "
                "a sweep of generated kernels (by default a line or two of the tables, the first block per op and "
                "three findings; a run of presets or segments alone prints them whole)");
  cmd->add_flag("--separate", a.separate,
                "Measure each repetition of a point alone (adaptive, to a precision), not in rounds with the "
                "points it is compared with (the config's protocol.pairing)");
  cmd->add_flag("--no-sentinel", a.no_sentinel, "No sentinel readings, no re-measurement of disturbed windows");
  cmd->add_option("--counters", a.counters,
                  "Count these events in each repetition's timed samples, reported per operation and per byte: kex "
                  "names (cycles, instructions, l1d-misses, l2-misses, llc-misses, dram-fills, "
                  "l2-prefetch-misses-l3) or libpfm4 event names, comma-separated (kex info lists them). Without a "
                  "PMU the hardware ones are noted once and left out; software ones still count")
      ->type_name("LIST");
  cmd->add_option("--cpu", a.cpu, "Pin the measuring process to this CPU (default: the last CPU allowed)")
      ->check(CLI::Range(0, 4095));
  cmd->add_flag("--list,--dry-run", a.list, "Print the points the run would measure, their count and an estimated "
                                              "time, and exit");
  cmd->add_flag("--allow-large", a.allow_large, "Run even above 100000 tasks or an estimated 2 hours");
  cmd->add_option("--resume", a.resume,
                  "Finish the run a journal belongs to: measure only what it lacks and write the complete result to "
                  "the journal's name without .journal (or -o FILE), its figures (if the run drew any) beside it "
                  "(or --plot-dir DIR); refused while another kex uses the journal");
  cmd->add_flag("--resume-any-build", a.resume_any_build,
                "With --resume: accept a journal another build of kex wrote (its repetitions and this build's then "
                "mix under one run)");
  cmd->add_flag("--no-journal", a.no_journal, "Keep no journal (a killed run cannot be resumed)");
  cmd->add_flag("--segments-seed-exact", a.segments_seed_exact,
                "Print the segment table as Jeremy's program did (as `kex segments --seed-exact`)");
  cmd->add_flag("--force", a.force, "Overwrite existing output files (also with --resume: only the command line says so)");
}

}  // namespace

}  // namespace kex
