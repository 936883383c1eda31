// `kex tune [CONFIG]`: races the config's kernels (built-in:tune by default) per size in
// paired rounds within a time budget, measures the glibc tunables its dispatch suggests
// with libc in child processes, writes every point measured as a results file with a
// `tune` section, and prints the dispatch table it found.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <unistd.h>

#include "src/cli/cli.hpp"
#include "src/cli/selection.hpp"
#include "src/model/config_json.hpp"
#include "src/cli/stop_signal.hpp"
#include "src/cli/tune_journal.hpp"
#include "src/core/enum_words.hpp"
#include "src/core/atomic_write.hpp"
#include "src/core/numbers.hpp"
#include "src/core/output.hpp"
#include "src/core/terminal_text.hpp"
#include "src/core/text_split.hpp"
#include "src/model/load_spec.hpp"
#include "src/model/result_json.hpp"
#include "src/model/point.hpp"
#include "src/model/spec.hpp"
#include "src/model/stream_mix.hpp"
#include "src/model/tune_json.hpp"
#include "src/results/tune_file.hpp"
#include "src/results/crossover.hpp"
#include "src/results/tune_outside.hpp"
#include "src/results/tune_text.hpp"
#include "src/results/tune_tunables.hpp"
#include "src/results/validation.hpp"
#include "src/run/machine.hpp"
#include "src/run/tune.hpp"

namespace kex {

namespace {

struct TuneArgs {
  Op op = Op::copy;  ///< --op (CLI11 checks the word against kLibcOps)
  std::string config = "built-in:tune", sizes, cache, budget = "10m", out, seed, placement, threads, resume, stream,
                                        footprint, weights;
  std::vector<std::string> layout, loads;
  double margin = kTieResolution;
  uint32_t max_rounds = 40, first_rounds = 5;
  int cpu = -1;
  bool force = false, no_validate = false, glibc = false, allow_large = false, no_journal = false;
};

/// `text` as a plain decimal number (digits and at most one point, under 20 characters), or 0:
/// std::stod alone takes " 1", hex floats and "1e2", and throws on a number beyond a double.
double plain_decimal(const std::string& text) {
  const bool plain = !text.empty() && text.size() < 20 && text.find_first_not_of("0123456789.") == std::string::npos &&
                     std::count(text.begin(), text.end(), '.') <= 1 && text != ".";
  return plain ? std::stod(text) : 0;
}

/// --budget: a number of seconds, or N followed by s, m or h ("90s", "10m", "1.5h").
double budget_seconds(const std::string& text) {
  const std::string help = "give seconds, or a number with s, m or h (90s, 10m, 1h)";
  if (text.empty()) throw InputError("--budget: an empty value: " + help);
  double unit = 1;
  std::string num = text;
  switch (text.back()) {
    case 's': unit = 1, num.pop_back(); break;
    case 'm': unit = 60, num.pop_back(); break;
    case 'h': unit = 3600, num.pop_back(); break;
    default: break;
  }
  const double v = plain_decimal(num) * unit;
  if (!(v > 0) || v > 7 * 86400.0) throw InputError("--budget: '" + text + "': " + help + ", at most a week");
  return v;
}

/// --load's values: each of the tune's op (a memset for clears, a memcpy or memmove for
/// copies), each name once; InputError naming the value otherwise.
std::vector<LoadSpec> load_options(const TuneArgs& a) {
  std::vector<LoadSpec> loads;
  for (const std::string& text : a.loads) {
    LoadSpec l = parse_load_option(text, "--load");
    if (const FunctionRow& f = function_row(l.function); f.op != a.op) {
      const std::string op(to_string(a.op));
      throw InputError("--load: '" + text + "': a " + std::string(f.word) + " (" + std::string(f.name) +
                       "'s ABI); kex tune --op " + op + " races " + op + " kernels");
    }
    loads.push_back(std::move(l));
  }
  check_load_names(loads, "--load");
  return loads;
}

/// The space: the config with --sizes, --cache and --layout written into it.
Config tune_space(const TuneArgs& a, const CLI::App& cmd) {
  AxesOptions axes;
  Axes base;  // --sizes for a config that gives none: its kernels need them to be read at all
  if (cmd.count("--sizes")) base.sizes = *(axes.sizes = sizes_option(a.sizes));
  if (cmd.count("--stream")) {  // one stream, or several raced as their mix
    axes.streams = stream_option(a.stream);
    if (cmd.count("--sizes")) throw InputError("--sizes: kex tune races a stream or sizes, not both (--stream is given)");
    base.streams = axes.streams;  // a config that gives neither sizes nor streams is read with it
  }
  if (cmd.count("--footprint")) {
    axes.footprints = footprint_option(a.footprint);
    if (axes.footprints->size() != 1)
      throw InputError("--footprint: '" + a.footprint + "': kex tune races one footprint: give one");
  }
  Config space = load_config(a.config, base);
  if (cmd.count("--cache")) axes.caches = cache_option(a.cache);
  if (!a.layout.empty()) axes.layout = layout_option(a.layout);
  if (cmd.count("--threads")) {  // as kex run --threads, but one value: a race is between kernels
    axes.threads = threads_option(a.threads);
    if (axes.threads->size() != 1)
      throw InputError("--threads: '" + a.threads + "': kex tune races one thread count: give one, 1.." +
                       std::to_string(kMaxThreads) + " or all (every CPU of the affinity mask)");
  }
  axes.apply(space);
  return make_config(space, space.source);
}

/// `space` with --load's code beside the config's own loads.
Config with_loads(const Config& space, const TuneArgs& a) {
  if (a.loads.empty()) return space;
  Config c = space;
  for (LoadSpec& l : load_options(a)) c.loads.push_back(std::move(l));
  check_load_names(c.loads, "--load");  // a NAME the config loads already
  return make_config(c, space.source);
}

void write_tune(const TuneArgs& a, const TuneRun& run) {
  write_file_atomic(a.out, tune_results_json(run).dump(1) + "\n", a.force);
}

/// --stream-weights: one positive decimal number per stream of --stream (two or more), in
/// their order; InputError naming the option and the value otherwise.
std::vector<double> stream_weights(const std::string& text, const std::vector<std::string>& streams) {
  if (streams.size() < 2)
    throw InputError("--stream-weights: '" + terminal_text(text) + "': weights a mix of streams: give --stream A,B,... too");
  std::vector<double> out;
  for (const std::string_view piece : split_view(text, ',')) {
    const std::string w(piece);
    out.push_back(plain_decimal(w));
    if (!(out.back() > 0))
      throw InputError("--stream-weights: '" + terminal_text(w) + "': a weight is a decimal number above 0 (3, 0.5)");
  }
  make_stream_mix(streams, out, "--stream-weights");  // one per stream
  return out;
}

/// The validation's rounds and sampling time per size and child: kex crossovers --validate's defaults.
constexpr uint32_t kValidateRounds = 15;
constexpr double kValidateBudgetMs = 20;

/// What the race leaves for the validation: the time of the tunables `op` can suggest
/// (copy: the rep movsb and non-temporal thresholds; clear: rep stosb), at most a fifth
/// of the budget.
double validation_reserve(Op op, double budget_s) {
  LibcJob job;  // a tunable is checked at up to 5 + kInterior sizes (validation_job)
  job.sizes.assign(5 + kInterior, 1);
  job.budget_ms = kValidateBudgetMs;
  return std::min(budget_s / 5, (op == Op::copy ? 2 : 1) * validation_estimate_s(job, kValidateRounds));
}

TuneRequest tune_request(const TuneArgs& a, const CLI::App& cmd) {
  TuneRequest req;
  req.space = with_loads(tune_space(a, cmd), a);
  req.op = a.op;
  req.streams = req.space.axes.streams;
  if (req.streams.empty()) req.sizes = req.space.axes.sizes;
  if (cmd.count("--footprint") && req.streams.empty())
    throw InputError("--footprint: the bytes a stream's calls walk: give --stream NAME too");
  if (cmd.count("--stream-weights")) req.weights = stream_weights(a.weights, req.streams);
  else if (req.streams.size() > 1) make_stream_mix(req.streams, {}, "--stream");  // each stream once
  req.budget_s = budget_seconds(a.budget);
  req.reserve_s = a.no_validate || !req.streams.empty() ? 0 : validation_reserve(req.op, req.budget_s);
  req.margin = a.margin;
  req.max_rounds = std::max(a.max_rounds, a.first_rounds + 1);
  req.first_rounds = a.first_rounds;
  req.glibc = a.glibc;
  req.allow_large = a.allow_large;
  return req;
}

RunOptions tune_options(const TuneArgs& a, const CLI::App& cmd, const TuneRequest& req) {
  RunOptions opt;
  opt.stop = race_stop_counter();
  opt.progress = !quiet();
  opt.protocol.seed = (uint64_t(time(nullptr)) << 20) ^ uint64_t(getpid());
  req.space.protocol.apply(opt.protocol);  // the config's knobs (the race sets repetitions and pairing itself)
  if (!opt.protocol.counters.empty())
    throw InputError(req.space.source + ": /protocol/counters",
                     "kex tune races in paired rounds, and counters count separate repetitions (use kex run)");
  if (cmd.count("--cpu") || !req.space.protocol.sets("cpu")) opt.protocol.cpu = a.cpu;
  if (cmd.count("--placement")) {
    opt.protocol.placement = parse_placement(a.placement, "--placement");
    if (opt.protocol.placement.mode == PlacementMode::list && cmd.count("--cpu") && a.cpu != opt.protocol.placement.cpus.front())
      throw InputError("--placement: '" + a.placement + "': its first CPU runs worker 0, the measuring thread; --cpu " +
                       std::to_string(a.cpu) + " says another (give one of them)");
  }
  SweepPlan workers;  // too few CPUs for --threads: refused before the race starts
  workers.most_threads = req.space.axes.threads.front();
  workers.most_threads_point = "--threads";
  plan_places(workers, opt.protocol);
  if (cmd.count("--seed")) try {
      opt.protocol.seed = parse_unsigned(a.seed, 0, UINT64_MAX);
    } catch (const NumberError& e) {
      throw InputError(std::string("--seed: ") + e.what());
    }
  return opt;
}

/// The end of the race: the tunables the dispatch suggests, measured with libc within
/// the budget left (not measured after --no-validate, a stop, or a race of several threads:
/// the children run one). A stop during it marks the run interrupted (a second one: abandoned).
void validate_tune(TuneRun& run, const TuneArgs& a, const RunOptions& opt, uint32_t threads) {
  // A stream's dispatch is one kernel for every size: no threshold between sizes to suggest.
  const std::vector<Tunable> tunables = run.tune.stream.empty() ? tune_suggestions(run.tune) : std::vector<Tunable>{};
  TuneValidateOptions vo;
  vo.run.rounds = kValidateRounds;
  vo.run.cpu = opt.protocol.cpu >= 0 ? opt.protocol.cpu : default_pin_cpu();
  vo.run.seed = opt.protocol.seed;
  vo.run.stop = opt.stop;
  vo.budget_ms = kValidateBudgetMs;
  vo.margin = kCrossoverMargin;
  vo.seconds = run.tune.budget_s - run.tune.used_s;
  vo.skip = a.no_validate       ? "--no-validate"
            : run.interrupted ? "stopped"
            : !run.tune.stream.empty() ? "a stream's race: one kernel for every size, no threshold to suggest"
            : threads > 1     ? "the race ran " + std::to_string(threads) + " threads, the libc children one"
                              : "";
  if (vo.skip.empty() && !tunables.empty() && !quiet())
    std::fprintf(stderr, "kex tune: validating %zu glibc tunable%s with libc in child processes on CPU %d\n",
                 tunables.size(), tunables.size() == 1 ? "" : "s", vo.run.cpu);
  run.tune.validation = validate_suggestions(tunables, vo);
  run.tune.used_s += run.tune.validation->seconds;
  run.interrupted = run.interrupted || *opt.stop > 0;
  run.abandoned = run.abandoned || *opt.stop >= 2;
}

/// Where a stopped tune's journal is and how to continue it ("" without one).
std::string journal_note(const TuneJournal& tj) {
  if (!tj.journal || !tj.journal->resumable()) return "";
  tj.journal->sync();
  return "the journal " + terminal_text(tj.journal->path()) + " keeps what was measured: kex tune --resume " +
         terminal_text(tj.journal->path()) + " (with the same options) continues";
}

/// Prints what the tune found (and its estimate against the time it took); 130 when it was
/// interrupted (the journal is then kept and named), else 0 (the journal removed).
int report_tune(const TuneArgs& a, const TuneRequest& req, const TuneRun& run, TuneJournal& tj, double took_s) {
  if (!quiet())
    std::fprintf(stderr, "kex tune: estimated %.0f s, took %.0f s (the first stage: estimated %.0f s, took %.0f s)\n",
                 run.estimate.total_s, took_s, run.estimate.first_s(),
                 run.tune.stages.empty() ? 0.0 : run.tune.stages.front().seconds);
  if (tj.journal && !run.interrupted) tj.journal->remove();
  if (req.space.axes.threads.front() > 1)
    std::printf("threads: %u workers per operation (GB/s counts every worker's bytes)\n", req.space.axes.threads.front());
  write_stdout(format_tune(run.tune, run_label(run.doc.context)));
  for (const std::string& line : outside_faster(run.doc, run.tune)) std::printf("%s\n", terminal_text(line).c_str());
  std::printf("results: %s\n", terminal_text(a.out).c_str());
  if (!run.interrupted) return 0;
  if (run.tune.stages.empty())
    std::fprintf(stderr, "kex tune: interrupted before a stage finished; %s holds what was measured, no dispatch\n",
                 terminal_text(a.out).c_str());
  else
    std::fprintf(stderr, "kex tune: interrupted; the stages finished are in %s\n", terminal_text(a.out).c_str());
  if (const std::string note = journal_note(tj); !note.empty()) std::fprintf(stderr, "kex tune: %s\n", note.c_str());
  return 130;
}

/// kex tune: the request checked, the journal started or resumed, the race, the output.
int tune_command(TuneArgs& a, const CLI::App& cmd) {
  const auto t0 = std::chrono::steady_clock::now();
  if (!(a.margin >= 0 && a.margin < 1)) throw InputError("--margin: " + std::to_string(a.margin) + ": a fraction in [0, 1)");
  const bool resuming = !a.resume.empty();
  if (a.out.empty() && !resuming) a.out = "kex-tune-" + std::string(to_string(a.op)) + ".json";
  if (a.out == "-") throw InputError("-o", "'-': kex tune writes a results file, not standard output; give a path");
  if (cmd.count("--stream") && !cmd.count("CONFIG")) a.config = "built-in:tune-stream";
  if (cmd.count("--cpu")) pin_to_cpu(a.cpu);  // one of the CPUs this process may run on, or one line
  if (!resuming) check_output_path(a.out, a.force);
  TuneRequest req = tune_request(a, cmd);
  RunOptions opt = tune_options(a, cmd, req);
  TuneJournal tj = resuming ? resume_tune_journal(a.resume, req, opt, a.out) : TuneJournal{};
  if (tj.resumed) req.replay = &*tj.resumed;
  check_not_an_input("-o", a.out, {a.config, a.resume});
  check_output_path(a.out, a.force, tune_output_bytes(req));  // room for the results before racing
  if (!resuming && !a.no_journal) tj = start_tune_journal(req, opt, a.out);
  opt.journal = tj.journal.get();
  catch_race_stops();  // the first stop ends the race after the current measurement, the second at once
  TuneRun run;
  try {
    run = run_tune(req, opt, [](const std::string& line) {
      if (!quiet()) std::fprintf(stderr, "kex tune: %s\n", line.c_str());
    });
  } catch (const InputError&) {  // refused before racing (the estimate, the axes): no journal is left
    if (tj.journal && !resuming) tj.journal->remove();
    throw;
  }
  if (!run.abandoned) validate_tune(run, a, opt, req.space.axes.threads.front());
  if (run.abandoned) {  // a second stop: as kex run, nothing is written but the journal
    const std::string note = journal_note(tj);
    std::fprintf(stderr, "kex tune: stopped at once; nothing written%s%s\n", note.empty() ? "" : "; ", note.c_str());
    return 130;
  }
  write_tune(a, run);
  return report_tune(a, req, run, tj, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

}  // namespace

Action add_tune_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("tune", "Race kernels per size in paired rounds: the fastest per size, its ties, a "
                                         "dispatch table, within a time budget");
  auto a = std::make_shared<TuneArgs>();
  cmd->add_option("CONFIG", a->config, "Config whose kernels race (default built-in:tune)");
  cmd->add_option_function<std::string>(
         "--op", [a](const std::string& w) { a->op = *parse_libc_op(w); }, "copy or clear (default copy)")
      ->check(one_of(enum_words(kLibcOps)));
  cmd->add_option("--sizes", a->sizes, "Sizes to race, as kex run --sizes (default the config's: 256 B..256 MiB x4, 1000, 3000, 10000, 30000)");
  cmd->add_option("--stream", a->stream,
                  "Race on a stream of calls instead of sizes (a name of kex list streams or a file, as kex run "
                  "--stream): the fastest kernel for that workload; its candidates by default built-in:tune-stream "
                  "(the vector loops with every small-size strategy). Several (A,B,...): one kernel for their "
                  "mix, the least weighted time per call, and a table per stream")
      ->type_name("NAME|PATH[,...]");
  cmd->add_option("--stream-weights", a->weights,
                  "With several streams: each one's weight in the mix's time per call, in --stream's order "
                  "(3,1,1; default equal)")
      ->type_name("W,W,...");
  cmd->add_option("--footprint", a->footprint, "With --stream: the bytes its calls walk, as kex run --footprint (one; default L2)");
  cmd->add_option("--cache", a->cache, "warm or cold (one)")->check(one_of(enum_words(kCacheModes)));
  cmd->add_option("--layout", a->layout, "One layout, as kex run --layout (src:N/dst:N/dist:D/nohuge)");
  cmd->add_option("--threads", a->threads, "Workers per operation, each on its own CPU and buffers: one value, "
                                           "1..1024 or all (every CPU of the affinity mask); default the config's, 1")
      ->type_name("N");
  cmd->add_option("--placement", a->placement, "Where the workers run, as kex run --placement (spread, compact, a CPU list)");
  cmd->add_option("--load", a->loads,
                  "Race your own code beside the reference, as kex run --load: NAME=PATH:SYMBOL[:copy|move|clear]; "
                  "compared at every size, never in the dispatch (kex emits only its own code); repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--budget", a->budget, "Wall time of the whole tune (default 10m)");
  cmd->add_option("--margin", a->margin, "A candidate leaves when slower than the leader by more (default 0.01)");
  cmd->add_option("--rounds", a->max_rounds, "Rounds a size gets at most (default 40)")->check(CLI::Range(4, 1000));
  cmd->add_option("--first-rounds", a->first_rounds, "Rounds of the first stage (default 5)")->check(CLI::Range(3, 100));
  cmd->add_flag("--allow-large,--over-budget", a->allow_large,
                "Race even when the first stage (every size and candidate built, verified and raced --first-rounds "
                "rounds) is estimated above 1.5x the budget");
  cmd->add_option("-o,--output", a->out, "Results file (default kex-tune-OP.json)");
  cmd->add_flag("--force", a->force, "Replace the results file");
  cmd->add_option("--resume", a->resume, "Continue the tune whose journal this is (OUT.journal, kept beside the "
                                         "results file while a tune races), with the options it was given");
  cmd->add_flag("--no-journal", a->no_journal, "Keep no journal (a killed tune cannot be resumed)");
  cmd->add_option("--cpu", a->cpu, "CPU the measuring worker is pinned to (default: one picked)")
      ->check(CLI::Range(0, 4095));
  cmd->add_option("--seed", a->seed, "Seed of the round order (default: drawn)");
  cmd->add_flag("--glibc", a->glibc,
                 "Race glibc's usable variants of memcpy (memset) too, beside memcpy and rep (kex list glibc)");
  cmd->add_flag("--no-validate", a->no_validate,
                "Do not measure the glibc tunables the dispatch suggests (by default libc runs in child processes "
                "with and without each, in paired rounds, within the budget)");
  return [a, cmd]() -> int { return tune_command(*a, *cmd); };
}

}  // namespace kex
