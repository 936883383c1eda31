// `kex crossovers FILE...`: per machine, the sizes where non-temporal stores,
// rep movsb/stosb and prefetching start or stop winning, with suggested
// GLIBC_TUNABLES; --validate measures them with libc in child processes, --workload
// ranks the kernels by the expected time per call of a size histogram.
#include <cstdio>

#include "src/cli/cli.hpp"
#include "src/core/enum_words.hpp"
#include "src/core/output.hpp"
#include "src/core/terminal_text.hpp"
#include "src/model/point.hpp"
#include "src/results/crossover_text.hpp"
#include "src/results/results.hpp"
#include "src/results/validation.hpp"
#include "src/results/workload.hpp"
#include "src/run/machine.hpp"

namespace kex {

namespace {

struct Args {
  std::vector<std::string> files;
  std::string cache;
  double margin = kCrossoverMargin;
  bool validate = false;
  uint32_t rounds = 15;
  double budget_ms = 20;
  int cpu = -1;
  std::string workload;
  size_t top = 10;
};

/// --validate: each suggested tunable measured against the default in child processes.
void validate_suggestions(const Crossovers& x, const Args& a) {
  const std::vector<Tunable> tunables = suggested(x);
  if (tunables.empty()) {
    write_stdout("  validate: nothing to validate (no decided crossover)\n");
    return;
  }
  for (const Tunable& t : tunables) check_validation_job(validation_job(t, a.budget_ms), t);  // before any child
  ValidateOptions opts;
  opts.rounds = a.rounds;
  opts.cpu = a.cpu >= 0 ? pin_to_cpu(a.cpu) : default_pin_cpu();  // pin_to_cpu: InputError naming --cpu
  write_stdout(format_validation_header(opts, a.budget_ms, a.margin));
  std::vector<Tunable> checked;  // the suggestions and their refinements, in the order measured
  std::vector<Gain> gains;
  for (const Tunable& first : tunables)
    for (std::optional<Tunable> t = first; t;) {  // refined_tunable refines once
      check_validation_job(validation_job(*t, a.budget_ms), *t);
      const Validation v = validate_tunables(validation_job(*t, a.budget_ms), tunables_string({*t}), opts);
      checked.push_back(*t);
      gains.push_back(judge(v, a.margin));
      write_stdout(format_validation(*t, v, a.margin));
      t = refined_tunable(*t, v, a.margin);
    }
  write_stdout(format_validated_advice(checked, gains));
}

int run_crossovers(const Args& a) {
  if (!(a.margin >= 0 && a.margin < 1))
    throw InputError("--margin: " + std::to_string(a.margin) + ": a fraction in [0, 1), e.g. 0.02");
  std::vector<WorkloadBin> workload;
  if (!a.workload.empty()) workload = load_workload(a.workload);
  std::vector<std::vector<RunDoc>> docs;  // read every file before printing anything
  for (const auto& f : a.files) {
    docs.push_back(load_results(f));
    for (const auto& run : docs.back()) check_crossover_data(run, a.cache, f);
  }
  for (size_t i = 0; i < docs.size(); ++i)
    for (const auto& run : docs[i]) {
      std::printf("%s: %s\n", terminal_text(a.files[i]).c_str(), terminal_text(run_label(run.context)).c_str());
      for (uint32_t threads : crossover_threads(run)) {  // each thread count on its own
        const Crossovers x = find_crossovers(run, a.cache, a.margin, threads);
        write_stdout(format_crossovers(x));
        if (a.validate && threads == 1) validate_suggestions(x, a);  // the children run one thread
      }
      if (!a.workload.empty()) write_stdout(format_workload(rank_workload(run, workload, a.cache), a.top));
    }
  return 0;
}

}  // namespace

Action add_crossovers_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("crossovers", "Find crossover sizes in copy sweeps and suggest glibc tunables");
  auto a = std::make_shared<Args>();
  cmd->add_option("RESULTS", a->files, "Results files (a multi-machine merge gives one report per machine)")->required();
  cmd->add_option("--cache", a->cache, "Cache mode of the curves to use (default: warm when present)")
      ->check(one_of(enum_words(kCacheModes)));
  cmd->add_option("--margin", a->margin,
                  "A curve (or a validated tunable) wins at a size only when faster by more than this fraction with 95% "
                  "confidence (default 0.02)");
  cmd->add_flag("--validate", a->validate,
                "Measure each suggested tunable: libc in child processes with and without it, in paired rounds");
  cmd->add_option("--rounds", a->rounds, "--validate: rounds (default 15; at least 6, for a 95% interval over rounds)")
      ->check(CLI::Range(6u, 1000u));
  cmd->add_option("--budget-ms", a->budget_ms, "--validate: sampling time per size and child in ms (default 20)")
      ->check(number_in(0.01, 10000.0));
  cmd->add_option("--cpu", a->cpu, "--validate: the CPU the children run on (default: the highest allowed)")
      ->check(CLI::Range(0, 4095));
  cmd->add_option("--workload", a->workload,
                  "A CSV of size,count (a histogram of memcpy sizes): rank libc, each kernel and a per-size best-kernel "
                  "dispatch by expected time per call");
  cmd->add_option("--top", a->top, "--workload: rows of the ranking to print (default 10)")->check(CLI::Range(1, 100000));
  return [a]() { return run_crossovers(*a); };
}

}  // namespace kex
