// `kex run [CONFIG...]`: the main job (built-in default sweep without a config).
#include <sys/stat.h>

#include <csignal>
#include <cstdio>
#include <ctime>
#include <dirent.h>
#include <unistd.h>

#include "src/core/atomic_write.hpp"
#include "src/cli/cli.hpp"
#include "src/cli/selection.hpp"
#include "src/core/output.hpp"
#include "src/model/config.hpp"
#include "src/results/export.hpp"
#include "src/results/plot.hpp"
#include "src/results/runtests.hpp"
#include "src/model/result_json.hpp"
#include "src/run/plans.hpp"
#include "src/results/seed_text.hpp"
#include "src/run/segments.hpp"
#include "src/core/numbers.hpp"
#include "src/results/summary.hpp"
#include "src/run/context.hpp"
#include "src/run/counters.hpp"
#include "src/run/journal.hpp"
#include "src/run/machine.hpp"
#include "src/run/sweep.hpp"
#include "src/core/units.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

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
  std::string format = "json";
  bool force = false, no_fsave = false, segments_seed_exact = false;
  uint32_t repetitions = 0;
  uint64_t seed = 0;
  int cpu = -1;
  bool no_shuffle = false, no_sentinel = false, list = false, allow_large = false, no_journal = false;
  bool seed_exact = false, no_plot = false;
  std::string graph_dir;
  std::string filter, sizes, cache, counters;
  std::vector<std::string> layout;
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

/// The run-wide protocol: built-in defaults, then the first config that sets a
/// field, then the command line.
Protocol make_protocol(const std::vector<Config>& configs, const RunArgs& a, const CLI::App& cmd) {
  Protocol p;
  p.repetitions = 3;
  for (auto it = configs.rbegin(); it != configs.rend(); ++it) {
    const ProtocolRequest& r = it->protocol;
    if (r.repetitions) p.repetitions = *r.repetitions;
    if (r.seed) p.seed = *r.seed;
    if (r.shuffle) p.shuffle = *r.shuffle;
    if (r.sentinel) p.sentinel.enabled = *r.sentinel;
    if (r.sentinel_every) p.sentinel.every = *r.sentinel_every;
    if (r.sentinel_threshold) p.sentinel.threshold = *r.sentinel_threshold;
    if (r.remeasure_budget) p.sentinel.budget = *r.remeasure_budget;
  }
  if (cmd.count("--repetitions")) p.repetitions = a.repetitions;
  if (cmd.count("--seed")) p.seed = a.seed;
  if (a.no_shuffle) p.shuffle = false;
  if (a.no_sentinel) p.sentinel.enabled = false;
  if (cmd.count("--cpu")) p.cpu = a.cpu;
  for (size_t i = 0; !a.counters.empty() && i <= a.counters.size();) {
    const size_t j = std::min(a.counters.find(',', i), a.counters.size());
    if (j == i) throw InputError("--counters: '" + a.counters + "': an empty name; give NAME[,NAME...] (kex info lists them)");
    p.counters.push_back(a.counters.substr(i, j - i));
    i = j + 1;
  }
  // Without a seed, a fresh one per run (recorded: the order can be replayed).
  if (!cmd.count("--seed") && std::none_of(configs.begin(), configs.end(), [](const Config& c) { return c.protocol.seed; }))
    p.seed = (uint64_t(time(nullptr)) << 20) ^ uint64_t(getpid());
  return p;
}

nlohmann::json protocol_json(const Protocol& p) {
  return {{"repetitions", p.repetitions}, {"shuffle", p.shuffle}, {"seed", p.seed}, {"cpu", p.cpu},
          {"sentinel", p.sentinel.enabled}, {"sentinel_every", p.sentinel.every},
          {"sentinel_threshold", p.sentinel.threshold}, {"remeasure_budget", p.sentinel.budget},
          {"task_timeout_s", p.task_timeout_s}, {"counters", p.counters}};
}

Protocol protocol_from(const nlohmann::json& j) {
  Protocol p;
  p.repetitions = j.value("repetitions", 1u);
  p.shuffle = j.value("shuffle", true);
  p.seed = j.value("seed", uint64_t(1));
  p.cpu = j.value("cpu", -1);
  p.sentinel.enabled = j.value("sentinel", true);
  p.sentinel.every = j.value("sentinel_every", 8u);
  p.sentinel.threshold = j.value("sentinel_threshold", 0.15);
  p.sentinel.budget = j.value("remeasure_budget", 0.25);
  p.task_timeout_s = j.value("task_timeout_s", 60u);
  p.counters = j.value("counters", std::vector<std::string>());
  return p;
}

/// --repeat N: a whole number 1..1000, for a seed harness only.
uint32_t repeat_count(const std::string& text, const std::string& harness) {
  if (harness == "kex")
    throw InputError("--repeat: applies to a seed harness: give --harness fastc|xmm64|hahn (or a seed set)");
  try {
    return static_cast<uint32_t>(parse_integer(text, 1, 1000));
  } catch (const NumberError&) {
    throw InputError("--repeat: '" + text + "': expected a whole number of runs, 1..1000");
  }
}

/// Whether `path` is the partial output of the run being resumed: a results file
/// whose context says interrupted, with the run's seed. Anything else (missing,
/// unreadable, another run's) is not.
bool own_partial_output(const std::string& path, uint64_t seed) {
  std::ifstream in(path);
  if (!in) return false;
  try {
    const nlohmann::json doc = nlohmann::json::parse(in);
    const nlohmann::json& c = doc.at("context");
    return c.value("interrupted", false) && c.at("protocol").value("seed", uint64_t(0)) == seed;
  } catch (const std::exception&) {
    return false;
  }
}

std::string duration_text(double s) {
  char b[48];
  if (s < 120) std::snprintf(b, sizeof b, "%.0f s", s);
  else if (s < 7200) std::snprintf(b, sizeof b, "%.0f min", s / 60);
  else std::snprintf(b, sizeof b, "%.1f h", s / 3600);
  return b;
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Run a sweep: generate, verify and time kernels; write results JSON");
  cmd->add_option("CONFIG", a->configs,
                  "Config files (JSON; - reads one from stdin) or kernel names: an argument that is -, built-in:NAME, "
                  "an existing path or ends in .json is a config, anything else a kernel name (a spec such as "
                  "copy/avx/unroll:256, a preset or preset set such as faster_copy or fastc, or a baseline: memcpy, "
                  "memset, rep_movsb, rep_stosb). None: the built-in default sweep");
  cmd->add_option("--sizes", a->sizes,
                  "Sizes of the kernels named as arguments: a list 4KiB,64KiB; A..B = A, 2A, 4A, ... and B; "
                  "A..B:N = N sizes per octave (default 256..64MiB x4; presets alone: 4096)")
      ->type_name("LIST");
  cmd->add_option("--cache", a->cache, "Cache modes of the kernels named as arguments: warm, cold or warm,cold")
      ->type_name("LIST");
  cmd->add_option("--layout", a->layout,
                  "Layout of the kernels named as arguments, as point-name tokens joined by /: src:N, dst:N, dist:D "
                  "(signed, or none), nohuge, each with a list, e.g. src:0,1/dist:0,64,4160 (repeatable)")
      ->type_name("TOKENS")
      ->expected(1);
  cmd->add_option("--filter", a->filter,
                  "Run only the points whose full name matches this regex (RE2 syntax) (a leading - runs those that do "
                  "not), before anything is generated; baselines follow the kernel points kept")
      ->type_name("REGEX");
  cmd->add_option("-o,--output", a->out,
                  "Results JSON; - for stdout (default: outputs.json of the config, else kex-results-DATE.json)");
  auto* plot_dir = cmd->add_option("--plot-dir", a->plot_dir,
                                   "Also write gnuplot .dat/.gp files (and PNG/SVG) into DIR (default, when the "
                                   "results get the automatic name kex-results-DATE.json: kex-results-DATE-plots/)");
  cmd->add_flag("--no-plot", a->no_plot, "Write no figures (not even beside an automatically named results file)")
      ->excludes(plot_dir);
  cmd->add_option("--preset", a->presets, "Run named preset kernels (see `kex list presets`)");
  cmd->add_option("--harness", a->harness,
                  "Harness for presets: kex (robust statistics), or a seed program's own: fastc, xmm64, hahn")
      ->check(CLI::IsMember({"kex", "fastc", "xmm64", "hahn"}));
  cmd->add_flag("--seed-exact", a->seed_exact,
                "Print only what the seed programs printed (no # lines, no notes; the rest goes to stderr); "
                "with --preset SET and no --harness, the set's own program");
  cmd->add_option("--graph", a->graph_dir,
                  "Also write Asami's runtests -graph files into DIR: a data file per function and plot.gp");
  cmd->add_option("--repeat", a->repeat,
                  "With --preset and a seed harness: run the single-pass program N times (1..1000)");
  cmd->add_flag("--no-fsave", a->no_fsave, "With --preset: drop the fsave/frstor the original kernels timed");
  cmd->add_option("--format", a->format,
                  "Format of the -o file: json (kex results), gbench (for Google Benchmark's compare.py), csv")
      ->check(CLI::IsMember({"json", "gbench", "csv"}));
  cmd->add_option("--shard", a->shard, "Run only shard I of N (I/N) of the points, for kex merge");
  cmd->add_option("--repetitions", a->repetitions,
                  "Measure each point N times, the repetitions in a random order over the whole sweep (default 3, "
                  "or the config's \"repetitions\")")
      ->check(CLI::Range(1u, 1000u));
  cmd->add_option("--seed", a->seed, "Seed of the random order (default: a fresh one, recorded in the results)");
  cmd->add_flag("--no-shuffle", a->no_shuffle, "Measure in config order, each point's repetitions in turn");
  cmd->add_flag("--no-sentinel", a->no_sentinel, "No sentinel readings, no re-measurement of disturbed windows");
  cmd->add_option("--counters", a->counters,
                  "Count these events in each repetition's timed samples, reported per operation and per byte: kex "
                  "names (cycles, instructions, l1d-misses, l2-misses, llc-misses, dram-fills, "
                  "l2-prefetch-misses-l3) or libpfm4 event names, comma-separated (kex info lists them). Without a "
                  "PMU the hardware ones are noted once and left out; software ones still count")
      ->type_name("LIST");
  cmd->add_option("--cpu", a->cpu, "Pin the measuring process to this CPU (default: the last CPU allowed)")
      ->check(CLI::Range(0, 4095));
  cmd->add_flag("--list,--dry-run", a->list, "Print the points the run would measure, their count and an estimated "
                                              "time, and exit");
  cmd->add_flag("--allow-large", a->allow_large, "Run even above 100000 tasks or an estimated 2 hours");
  cmd->add_option("--resume", a->resume,
                  "Finish the run a journal belongs to: measure only what it lacks and write the complete result");
  cmd->add_flag("--no-journal", a->no_journal, "Keep no journal (a killed run cannot be resumed)");
  cmd->add_flag("--segments-seed-exact", a->segments_seed_exact,
                "Print the segment table as Jeremy's program did (as `kex segments --seed-exact`)");
  cmd->add_flag("--force", a->force, "Overwrite existing output files");
  return [a, cmd]() -> int {
    if (cmd->count("--output") && a->out.empty()) throw InputError("-o: an empty path; give a file name or - for stdout");
    std::vector<Config> configs;
    std::optional<JournalState> resumed;
    Protocol protocol;
    if (!a->resume.empty()) {
      for (const char* opt : {"CONFIG", "--preset", "--output", "--plot-dir", "--shard", "--repetitions", "--seed",
                              "--format", "--cpu", "--harness", "--repeat", "--filter", "--sizes", "--cache", "--layout",
                              "--counters"})
        if (cmd->count(opt))
          throw InputError(std::string(opt) + ": not with --resume (the journal says what the run was)");
      resumed = read_journal(a->resume);
      const nlohmann::json& h = resumed->header;
      try {
        for (const auto& c : h.at("configs"))
          configs.push_back(parse_config(c.at("config").dump(), c.at("source").get<std::string>()));
        protocol = protocol_from(h.at("protocol"));
        (void)h.at("output").get<std::string>();
      } catch (const nlohmann::json::exception& e) {
        throw InputError("--resume: " + a->resume + ": not a journal kex can resume (its header: " + e.what() + ")");
      }
      const std::string here = machine_key(this_machine()), there = h.value("machine", std::string());
      if (here != there)
        throw InputError("--resume: " + a->resume + ": the run was on " + there + "; this machine is " + here);
      a->out = h.value("output", std::string());
      a->format = h.value("format", std::string("json"));
      a->plot_dir = h.value("plot_dir", std::string());
      a->force = h.value("force", false);
      a->shard = h.value("shard", std::string());
      a->filter = h.value("filter", std::string());
    } else {
      // Each argument is a config or a kernel name (selection.hpp: is_config_argument); the
      // names become one more config, after the files.
      NamedKernels names;
      for (size_t i = 0; i < a->configs.size(); ++i) {
        const std::string& arg = a->configs[i];
        if (!is_config_argument(arg)) {
          add_kernel_name(names, arg);
          continue;
        }
        for (size_t j = 0; j < i; ++j)
          if (a->configs[j] == arg) throw InputError(arg + ": config given twice");
        if (arg == "-") {
          const std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
          if (std::cin.bad()) throw InputError("-: cannot read a config from stdin");
          configs.push_back(parse_config(text, "stdin"));
        } else {
          configs.push_back(load_config(arg));
        }
      }
      const json sizes = a->sizes.empty() && !cmd->count("--sizes") ? json() : sizes_option(a->sizes);
      const json cache = a->cache.empty() && !cmd->count("--cache") ? json() : cache_option(a->cache);
      const json layout = a->layout.empty() ? json() : layout_option(a->layout);
      if (names.empty())
        for (const char* opt : {"--sizes", "--cache", "--layout"})
          if (cmd->count(opt))
            throw InputError(std::string(opt) + ": applies to kernels named as arguments (e.g. kex run "
                             "copy/avx/unroll:256 memcpy " + opt + " ...); a config file sets its own axes");
      if (!names.empty()) configs.push_back(names_config(names, sizes, cache, layout));
      if (a->presets.empty() && a->no_fsave)
        throw InputError("--no-fsave: applies to --preset kernels; give --preset NAME...");
      if (a->presets.empty() && a->harness != "kex")
        throw InputError("--harness " + a->harness + ": applies to --preset kernels; give --preset NAME...");
      if (!a->repeat.empty() && a->presets.empty())
        throw InputError("--repeat: applies to --preset kernels under a seed harness; give --preset NAME...");
      if ((a->seed_exact || !a->repeat.empty()) && !cmd->count("--harness"))
        if (auto own = preset_sets_harness(a->presets)) a->harness = std::string(to_string(*own));
      if (!a->presets.empty()) {
        // libc's page copy and clear (memcpy, memset, rep movsb/stosb) at one page under kex's
        // protocol beside them, so every preset table and figure has its baselines from this run.
        nlohmann::json raw = {{"presets", a->presets}, {"harness", a->harness}, {"sizes", {4096}}, {"baselines", true}};
        if (a->no_fsave) raw["preset_options"] = {{"fsave", false}};
        if (!a->repeat.empty()) raw["repeat"] = repeat_count(a->repeat, a->harness);
        configs.push_back(parse_config(raw.dump(), "--preset"));
      }
      if (configs.empty()) configs.push_back(load_config("built-in:default.json"));
      protocol = make_protocol(configs, *a, *cmd);
    }
    for (const auto& c : configs) config_plans(c);  // unknown presets and baselines fail before any run
    // Counters: unknown names fail here; what cannot count on this machine is said once.
    nlohmann::json counters_json;
    if (!protocol.counters.empty()) {
      const CounterSet probe = open_counters(protocol.counters, "--counters");
      if (!probe.note().empty()) std::fprintf(stderr, "kex: %s\n", probe.note().c_str());
      counters_json = nlohmann::json::array();
      for (const Counter& c : probe.counters()) {
        counters_json.push_back({{"name", c.name}, {"event", c.event}, {"hardware", c.hardware}, {"ok", c.ok},
                                 {"reason", c.reason}});
        if (!c.ok && !(c.hardware && !probe.note().empty()))
          std::fprintf(stderr, "kex: --counters: %s: not counted (%s)\n", c.name.c_str(), c.reason.c_str());
      }
    }
    if (!a->filter.empty() || cmd->count("--filter")) {
      const NameFilter f = parse_name_filter(a->filter, "--filter");
      for (auto& c : configs) {
        if (!c.presets.empty() && c.harness != Harness::kex)
          throw InputError("--filter: a seed harness (" + std::string(to_string(c.harness)) + ", " + c.source +
                           ") runs its program's table whole; filter kernels under the kex harness");
        c.filter = f;
      }
    }
    auto [shard_i, shard_n] = a->shard.empty() ? std::pair<size_t, size_t>{0, 1} : parse_shard(a->shard);
    if (protocol.cpu >= 0) pin_to_cpu(protocol.cpu);  // InputError naming --cpu and the CPUs allowed

    RunOptions opt;
    opt.shard_index = shard_i;
    opt.shard_count = shard_n;
    opt.stop = &g_stop;
    opt.progress = !quiet();
    opt.protocol = protocol;

    // The size of the run, before anything runs. Without --allow-large the count stops
    // past the task limit: a grid of 10^7 points is refused at once, not after naming them all.
    const size_t max_points = a->list || a->allow_large ? SIZE_MAX : 100000 / protocol.repetitions;
    const SweepPlan sp = plan_sweep(configs, opt, max_points);
    if (!sp.complete)
      throw InputError("run: more than " + std::to_string(max_points) + " points x " +
                       std::to_string(protocol.repetitions) +
                       " repetitions: above 100000 tasks; pass --allow-large to run it (or --list to see the points)");
    if (sp.names.empty() && !a->filter.empty()) {
      std::vector<Config> unfiltered = configs;
      for (auto& c : unfiltered) c.filter.reset();
      if (const size_t n = plan_sweep(unfiltered, opt).names.size(); n > 0)
        throw InputError("--filter: '" + a->filter + "': matches none of the " + std::to_string(n) +
                         " points of the run (kex run --list without --filter prints them)");
    }
    if (a->list) {
      for (const auto& n : sp.names) std::printf("%s\n", n.c_str());
      std::printf("# %zu points x %u repetitions = %zu tasks; estimated %s (at most %s); buffers %s\n",
                  sp.names.size(), protocol.repetitions, sp.tasks, duration_text(sp.estimate_s).c_str(),
                  duration_text(sp.worst_s).c_str(), format_bytes(sp.buffer_bytes).c_str());
      return 0;
    }
    if ((sp.tasks > 100000 || sp.estimate_s > 7200) && !a->allow_large)
      throw InputError("run: " + std::to_string(sp.names.size()) + " points x " + std::to_string(protocol.repetitions) +
                       " repetitions = " + std::to_string(sp.tasks) + " tasks, estimated " +
                       duration_text(sp.estimate_s) + " (at most " + duration_text(sp.worst_s) +
                       "): above 100000 tasks or 2 hours; pass --allow-large to run it (or --list to see the points)");
    if (sp.buffer_bytes > 2 * max_config_size())
      throw InputError("run: the buffers need " + format_bytes(sp.buffer_bytes) + "; this machine has " +
                       format_bytes(4 * max_config_size()) + " available");

    std::string out = a->out;
    if (out.empty()) out = configs.front().out_json;
    std::string plot_dir = a->plot_dir.empty() ? configs.front().plot_dir : a->plot_dir;
    if (out.empty()) {  // a name of kex's own: the figures go beside it, as a newcomer expects a picture
      char stamp[32];
      time_t now = time(nullptr);
      strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
      out = std::string("kex-results-") + stamp + ".json";
      if (plot_dir.empty()) plot_dir = std::string("kex-results-") + stamp + "-plots";
    }
    if (a->no_plot) plot_dir.clear();
    const std::string graph_dir = a->graph_dir.empty() ? configs.front().graph_dir : a->graph_dir;
    bool seed_exact = a->seed_exact, seed_harness = false, asami = false;
    for (const auto& c : configs) {
      seed_exact |= c.seed_exact;
      seed_harness |= !c.presets.empty() && c.harness != Harness::kex;
      for (const Preset* p : resolve_presets(c.presets, c.source)) asami |= p->family == "asami";
    }
    // Refuse before spending minutes on the sweep.
    const bool to_stdout = out == "-";
    if (seed_exact && to_stdout) throw InputError("--seed-exact: stdout carries the seed tables; give -o FILE for the JSON");
    if (seed_exact && !seed_harness && !asami)
      throw InputError("--seed-exact: nothing a seed program printed: give --preset with --harness fastc|xmm64|hahn "
                       "(or a seed set: fastc, spraul, xmm64, hahn), or Asami's presets (configs/asami.json)");
    if (!graph_dir.empty() && !asami)
      throw InputError("--graph: " + graph_dir + ": Asami's runtests graph needs asami presets (configs/asami.json)");
    // A resume replaces its own partial output (interrupted, same seed), never a file the user put there.
    const bool replace = a->force || (resumed && own_partial_output(out, protocol.seed));
    if (!to_stdout) check_output_path(out, replace);
    if (!plot_dir.empty()) check_plot_dir(plot_dir, a->force);
    if (!graph_dir.empty()) check_plot_dir(graph_dir, a->force, "--graph");

    // The journal: every finished repetition, so a killed run can be resumed.
    std::unique_ptr<Journal> journal;
    if (resumed) {
      journal = std::make_unique<Journal>(a->resume);
    } else if (!to_stdout && !a->no_journal) {
      nlohmann::json header;
      header["output"] = out;
      header["format"] = a->format;
      header["plot_dir"] = plot_dir;
      header["force"] = a->force;
      header["shard"] = a->shard;
      if (!a->filter.empty()) header["filter"] = a->filter;
      header["protocol"] = protocol_json(protocol);
      header["machine"] = machine_key(this_machine());
      nlohmann::json cfgs = nlohmann::json::array();
      for (const auto& c : configs) cfgs.push_back({{"source", c.source}, {"config", c.raw}});
      header["configs"] = cfgs;
      journal = std::make_unique<Journal>(journal_path(out), header);
    }
    opt.journal = journal.get();
    opt.resume = resumed ? &*resumed : nullptr;

    if (cpu_scaling().enabled && !quiet()) std::fprintf(stderr, "%s\n", kCpuScalingWarning);
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
    SweepRun sweep = run_sweep(configs, opt);
    if (journal) journal->sync();
    if (sweep.abandoned) {
      std::fprintf(stderr, "kex: stopped at once; nothing written%s\n",
                   journal ? ("; the journal keeps every finished repetition: kex run --resume " + journal->path()).c_str()
                           : "");
      return 130;
    }
    RunDoc& run = sweep.doc;
    for (const auto& [source, seed] : sweep.seed_runs)
      run.context.seed_tables.push_back({source, seed.header.harness, seed_table_text(seed)});
    run.context.rest["protocol"]["journal"] = journal ? journal->path() : "";
    if (!counters_json.is_null()) run.context.rest["counters"] = counters_json;
    if (!a->filter.empty()) run.context.rest["filter"] = a->filter;
    const std::string body = a->format == "gbench" ? to_gbench({run}).dump(1) + "\n"
                             : a->format == "csv"  ? to_csv({run})
                                                   : to_json(run).dump(1) + "\n";
    try {
      if (to_stdout) write_stdout(body);
      else write_file_atomic(out, body, replace);
    } catch (const InputError& e) {
      if (journal && !journal->failed())
        throw InputError(std::string(e.what()) + "; the journal keeps the run: kex run --resume " + journal->path());
      throw;
    }
    if (journal && !run.context.interrupted) journal->remove();
    FILE* text = to_stdout ? stderr : stdout;  // with -o -, stdout carries only the JSON
    const bool chatter = !quiet();               // -q: the files and the output asked for by name only
    if (seed_exact) {  // stdout carries only what the seed programs printed; everything else goes to stderr
      size_t silent = 0;
      for (const auto& [source, seed] : sweep.seed_runs) {
        for (const SeedRun& pass : seed_passes(seed))  // as if the program had been run N times
          std::fputs(seed_table_text(pass, SeedText::exact).c_str(), stdout);
        for (const auto& r : seed.results) silent += r.status.kind != StatusKind::ok;
      }
      std::fputs(runtests_text(run, SeedText::exact).c_str(), stdout);
      if (silent)
        std::fprintf(stderr, "kex: --seed-exact: %zu kernel%s did not run and %s no line (see the results file)\n",
                     silent, silent == 1 ? "" : "s", silent == 1 ? "has" : "have");
      text = stderr;
    } else if (chatter) {
      for (const auto& t : run.context.seed_tables) std::fprintf(text, "\n%s", t.text.c_str());
      if (std::string rt = runtests_text(run); !rt.empty()) std::fprintf(text, "\n%s", rt.c_str());
    }
    if (chatter)
      if (std::string kex_seed = kex_seed_text(run); !kex_seed.empty()) std::fprintf(text, "\n%s", kex_seed.c_str());
    if (run.context.segments && (chatter || a->segments_seed_exact))
      std::fprintf(text, "\n%s", (a->segments_seed_exact ? format_segment_seed_text(*run.context.segments)
                                                         : format_segment_table(*run.context.segments)).c_str());
    if (chatter) {
      std::string table = summary_table(run);
      if (!table.empty()) std::fputs(table.c_str(), text);
      if (std::string lt = layout_table(run); !lt.empty()) std::fputs(lt.c_str(), text);
      if (std::string ns = noise_summary(run); !ns.empty()) std::fputs(ns.c_str(), text);
    }
    if (!plot_dir.empty()) {
      PlotOptions po;
      po.force = a->force;
      auto files = write_plots({run}, plot_dir, po);
      if (chatter)
        std::fprintf(text, "\nplots: %zu files in %s%s\n", files.size(), plot_dir.c_str(),
                     find_gnuplot().empty() ? " (gnuplot not installed: .dat/.gp only)" : "");
    }
    if (!graph_dir.empty()) {
      auto files = write_runtests_graph(run, graph_dir, a->force);
      if (chatter)
        std::fprintf(text, "\nruntests graph: %zu files in %s (gnuplot: load '%s/plot.gp')\n", files.size(),
                     graph_dir.c_str(), graph_dir.c_str());
    }
    size_t n = run.results.size();
    if (chatter)
      std::fprintf(text, "\nresults: %s (%zu %s, %.1f s)\n", to_stdout ? "stdout" : out.c_str(), n,
                   n == 1 ? "entry" : "entries", run.context.rest.value("elapsed_s", 0.0));
    if (run.context.interrupted) {
      std::fprintf(stderr, "kex: interrupted; the finished points were written to %s%s\n",
                   to_stdout ? "stdout" : out.c_str(),
                   journal ? ("; finish the run with kex run --resume " + journal->path()).c_str() : "");
      return 130;
    }
    // Exit status 3: the results are written, but points were not measured as asked for a
    // reason outside their kernels (a memory limit, a worker killed from outside).
    if (!sweep.incomplete.empty()) {
      std::fprintf(stderr, "kex: %zu point%s not measured as asked (context.incomplete_points says why)\n",
                   sweep.incomplete.size(), sweep.incomplete.size() == 1 ? " was" : "s were");
      return 3;
    }
    return 0;
  };
}

}  // namespace kex
