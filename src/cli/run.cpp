// `kex run [CONFIG...]`: the main job (built-in default sweep without a config),
// and `kex run --resume JOURNAL`, which finishes a run its journal belongs to. The
// setup and the outputs are in run_fresh.cpp, run_resume.cpp and run_outputs.cpp.
#include <csignal>
#include <cstdio>
#include <algorithm>
#include <memory>
#include <set>

#include "src/cli/cli.hpp"
#include "src/cli/run_setup.hpp"
#include "src/core/enum_words.hpp"
#include "src/core/error.hpp"
#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"
#include "src/model/point.hpp"
#include "src/model/results_format.hpp"
#include "src/results/seed_text.hpp"
#include "src/run/counters.hpp"
#include "src/run/explain_winners.hpp"
#include "src/run/machine.hpp"
#include "src/run/plans.hpp"
#include "src/run/topology.hpp"

namespace kex {

namespace {

// Counts SIGINT/SIGTERM: the first stops after the current repetition, the second at once.
volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_stop_signal(int) {
  if (g_stop < 100) g_stop = g_stop + 1;
}

// ---- the steps every run takes ------------------------------------------------

std::string duration_text(double s) {
  char b[48];
  if (s < 120) std::snprintf(b, sizeof b, "%.0f s", s);
  else if (s < 7200) std::snprintf(b, sizeof b, "%.0f min", s / 60);
  else std::snprintf(b, sizeof b, "%.1f h", s / 3600);
  return b;
}

/// What --explain did in the sweep (its section and ceilings are in the run's context):
/// its cost and what it left out, on stderr.
void print_explained(const WinnersExplained& w) {
  for (const std::string& n : w.notes) std::fprintf(stderr, "kex: --explain: %s\n", terminal_text(n).c_str());
  std::fprintf(stderr, "kex: --explain: %zu winner%s explained in 10 paired rounds: %zu points measured, %s\n",
               w.raced, w.raced == 1 ? "" : "s", w.points, duration_text(w.seconds).c_str());
  if (w.ceilings)
    std::fprintf(stderr, "kex: --explain: ceilings per cache level measured for the roofline in %s\n",
                 duration_text(w.ceilings->seconds).c_str());
}

/// Opens the counters once (unknown names fail here; what cannot count on this
/// machine is said once). Returns the counters' record.
std::optional<std::vector<CounterRecord>> check_counters(const RunSetup& s) {
  if (s.request.protocol.counters.empty()) return std::nullopt;
  const CounterSet probe = open_counters(s.request.protocol.counters, s.counters_where);
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
  if (s.request.filter.empty() && !given) return;
  const NameFilter f = parse_name_filter(s.request.filter, "--filter");
  bool segments = false;
  for (auto& c : s.request.configs) {
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
  if (s.request.protocol.cpu < 0) return;
  try {
    pin_to_cpu(s.request.protocol.cpu);
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

/// The run planned once from the configs' kernel plans, before anything runs: --list
/// prints its size (returns nullopt: done), and a run above the limits is refused.
std::optional<SweepPlan> plan_or_list(const RunSetup& s, std::vector<ConfigPlans> plans, const RunOptions& opt,
                                      const RunArgs& a) {
  // Without --allow-large the count stops past the task limit: a grid of 10^7 points
  // is refused at once, not after naming them all.
  const size_t max_points = a.list || a.allow_large ? SIZE_MAX : 100000 / s.request.protocol.repetitions;
  SweepPlan sp = plan_sweep(s.request.configs, std::move(plans), opt, max_points);
  if (!sp.complete)
    throw InputError("run: more than " + std::to_string(max_points) + " points x " +
                     std::to_string(s.request.protocol.repetitions) +
                     " repetitions: above 100000 tasks; pass --allow-large to run it (or --list to see the points)");
  if (s.resumed) check_journal_points(*s.resumed, sp.names, s.journal->path());
  plan_places(sp, opt.protocol);  // too few CPUs for the threads asked: refused before any file is made
  if (sp.names.empty() && !s.request.filter.empty()) {
    std::vector<Config> unfiltered = s.request.configs;
    for (auto& c : unfiltered) c.filter.reset();
    if (const size_t n = plan_sweep(unfiltered, sp.plans, opt).names.size(); n > 0)
      throw InputError("--filter: '" + s.request.filter + "': matches none of the " + std::to_string(n) +
                       " points of the run (kex run --list without --filter prints them)");
  }
  if (a.list) {
    for (size_t i = 0; i < sp.names.size(); ++i) {
      std::printf("%s\n", sp.names[i].c_str());
      if (!sp.skips[i].empty()) std::printf("#   skipped: %s\n", sp.skips[i].c_str());
    }
    const std::string skipped = sp.skipped ? " (" + std::to_string(sp.skipped) + " skipped here: see each point's reason)" : "";
    std::printf("# %zu points%s x %u %s = %zu tasks; estimated %s measuring on a quiet machine (at most %s on a busy "
                "one); buffers %s\n",
                sp.names.size(), skipped.c_str(), s.request.protocol.repetitions, s.request.protocol.paired ? "paired rounds" : "repetitions", sp.tasks,
                duration_text(sp.estimate_s).c_str(), duration_text(sp.worst_s).c_str(),
                format_bytes(sp.buffer_bytes).c_str());
    return std::nullopt;
  }
  if ((sp.tasks > 100000 || sp.estimate_s > 7200) && !a.allow_large)
    throw InputError("run: " + std::to_string(sp.names.size()) + " points x " + std::to_string(s.request.protocol.repetitions) +
                     " repetitions = " + std::to_string(sp.tasks) + " tasks, estimated " +
                     duration_text(sp.estimate_s) + " (at most " + duration_text(sp.worst_s) +
                     "): above 100000 tasks or 2 hours; pass --allow-large to run it (or --list to see the points)");
  if (sp.buffer_bytes > 2 * max_config_size())
    throw InputError("run: the buffers need " + format_bytes(sp.buffer_bytes) + "; this machine has " +
                     format_bytes(4 * max_config_size()) + " available");
  return sp;
}

/// Runs the sweep with the journal; the finished run (or nullopt after a second stop).
std::optional<SweepRun> measure(RunSetup& s, const SweepPlan& plan, RunOptions& opt, const RunArgs& a) {
  if (!s.resumed && s.out != "-" && !a.no_journal)
    s.journal = std::make_unique<Journal>(journal_path(s.out), journal_header(s));
  opt.journal = s.journal.get();
  opt.resume = s.resumed ? &*s.resumed : nullptr;
  if (cpu_scaling().enabled && !quiet()) std::fprintf(stderr, "%s\n", kCpuScalingWarning);
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  SweepRun sweep = run_and_explain(plan, opt, a.explain ? 10 : 0);  // each winner in 10 paired rounds, after the sweep
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
    RunOptions opt;  // with the run's registry of loaded code, which plan_configs fills
    std::vector<ConfigPlans> plans = plan_configs(s.request.configs, *opt.loaded);  // unknown presets and baselines fail here
    const std::optional<std::vector<CounterRecord>> counters = check_counters(s);
    apply_filter(s, cmd->count("--filter") > 0);
    pin_worker_cpu(s, *a);
    static_cast<RunRequest&>(opt) = s.request;  // its run id drawn once (a resumed run keeps the journal's)
    opt.stop = &g_stop;
    opt.progress = !quiet();
    opt.counters = counters;
    opt.seed_table = [](const SeedRun& seed) { return seed_table_text(seed); };
    const std::optional<SweepPlan> plan = plan_or_list(s, std::move(plans), opt, *a);
    if (!plan) return 0;
    const OutputKinds kinds = check_outputs(s, *a);
    std::optional<SweepRun> sweep = measure(s, *plan, opt, *a);
    if (!sweep) return 130;
    RunDoc& run = sweep->doc;
    if (sweep->explained) print_explained(*sweep->explained);
    write_results(s, run);
    if (s.journal && !run.context.interrupted) s.journal->remove();
    FILE* text = report_text_stream(s, kinds);
    const Finished done{*sweep, run, compact_tables(run, *a)};
    const std::vector<std::unique_ptr<Reporter>> reporters = run_reporters(kinds, *a, done.compact);
    for (const auto& r : reporters) r->runs(done, text);
    FilesWritten written;
    const std::string where = s.out == "-" ? "stdout" : terminal_text(s.out);
    written.results = where;
    write_figures(s, run, a->force, written);
    write_report(s, run, written);
    for (const auto& r : reporters) r->files(done, written, text);
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

/// The configs or kernel names and the axes of the kernels named.
void add_selection_options(CLI::App* cmd, RunArgs& a) {
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
  cmd->add_option("--stream", a.stream,
                  "Race the kernels named as arguments on streams of calls whose sizes are drawn from a distribution "
                  "(a name of `kex list streams` such as Memcpy_Fleet, or a file's path), instead of one size repeated; "
                  "a list. With --sizes, the fixed sizes run too")
      ->type_name("LIST");
  cmd->add_option("--footprint", a.footprint,
                  "The bytes each stream's calls walk in src and in dst: L1, L2 (the default), LLC (a share of that "
                  "cache here, split between src and dst: 3/8 of the L1d, a quarter of the L2 or the LLC each) or a byte size; a list")
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
}

/// Where the results, figures and report go.
void add_output_options(CLI::App* cmd, RunArgs& a) {
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
}

/// What runs beside the configs: presets and their seed harnesses, loaded code, result formats.
void add_kernel_options(CLI::App* cmd, RunArgs& a) {
  cmd->add_option("--preset", a.presets, "Run named preset kernels (see `kex list presets`)");
  cmd->add_option("--load", a.loads,
                  "Race your own code as lib/NAME or asm/NAME: NAME=PATH:SYMBOL[:copy|move|clear] (PATH a .so, "
                  ".s, .S, .o or lib.a(member); memcpy's ABI by default); repeatable")
      ->allow_extra_args(false);
  cmd->add_option_function<std::string>(
         "--harness", [&a](const std::string& w) { a.harness = *parse_harness(w); },
         "Harness for presets: kex (robust statistics), or a seed program's own: fastc, xmm64, hahn, "
         "mem_cp (Asami's: 4 MB of copies per size, 32..10000 bytes, gettimeofday)")
      ->check(one_of(enum_words(kHarnesses)));
  cmd->add_flag("--seed-exact", a.seed_exact,
                "Print only what the seed programs printed (no # lines, no notes; the rest goes to stderr); "
                "with --preset SET and no --harness, the set's own program");
  cmd->add_option("--graph", a.graph_dir,
                  "Also write Asami's runtests -graph files into DIR: a data file per function and plot.gp");
  cmd->add_option("--repeat", a.repeat,
                  "With --preset and a seed harness: run the single-pass program N times (1..1000)");
  cmd->add_flag("--no-fsave", a.no_fsave, "With --preset: drop the fsave/frstor the original kernels timed");
  cmd->add_option_function<std::string>(
         "--format", [&a](const std::string& w) { a.format = *enum_from_word(kResultsFormats, w); },
         "Format of the -o file: json (kex results), gbench (for Google Benchmark's compare.py), csv")
      ->check(one_of(enum_words(kResultsFormats)));
}

/// The measuring protocol: shards, repetitions, order, pairing, the sentinel, counters.
void add_protocol_options(CLI::App* cmd, RunArgs& a) {
  cmd->add_option("--shard", a.shard, "Run only shard I of N (I/N) of the points, for kex merge");
  cmd->add_option("--repetitions", a.repetitions,
                  "Measure each point N times, the repetitions in a random order over the whole sweep (default: "
                  "the config's \"repetitions\", else 20 paired rounds, or 3 with --separate or --counters)")
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
  cmd->add_flag("--explain", a.explain,
                "After the sweep, explain each group's winner at its size (as kex explain, 10 paired rounds): the "
                "effects, the model of the core and the counters go into the results' explain section; costs about "
                "as much as 10 rounds of a dozen kernels per winner (12 winners at most; the time is printed)");
  cmd->add_flag("--no-sentinel", a.no_sentinel, "No sentinel readings, no re-measurement of disturbed windows");
  cmd->add_option("--counters", a.counters,
                  "Count these events in each repetition's timed samples, reported per operation and per byte: kex "
                  "names (cycles, instructions, l1d-misses, l2-misses, llc-misses, dram-fills, "
                  "l2-prefetch-misses-l3, stores) or libpfm4 event names, comma-separated (kex info lists them). Without a "
                  "PMU the hardware ones are noted once and left out; software ones still count")
      ->type_name("LIST");
}

/// The run itself: its CPU, a dry run, size limits, resuming and overwriting.
void add_control_options(CLI::App* cmd, RunArgs& a) {
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

/// kex run's options, in --help's order.
void add_cli_options(CLI::App* cmd, RunArgs& a) {
  add_selection_options(cmd, a);
  add_output_options(cmd, a);
  add_kernel_options(cmd, a);
  add_protocol_options(cmd, a);
  add_control_options(cmd, a);
}

}  // namespace

}  // namespace kex

