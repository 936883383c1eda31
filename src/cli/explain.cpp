// `kex explain NAME...`: each generated kernel raced against its one-coordinate
// neighbours in paired rounds, per size; writes a results file with an `explain`
// section and prints each change's effect, largest first. Any other competitor (a
// baseline, glibc's variant, a preset, --load's code) races beside libc without
// neighbours: its place against the ceilings, its counters, llvm-mca of its bytes.
#include <cstdio>
#include <ctime>
#include <unistd.h>

#include "src/cli/cli.hpp"
#include "src/cli/selection.hpp"
#include "src/cli/stop_signal.hpp"
#include "src/core/atomic_write.hpp"
#include "src/core/output.hpp"
#include "src/core/terminal_text.hpp"
#include "src/model/config_json.hpp"
#include "src/model/load_spec.hpp"
#include "src/model/result_json.hpp"
#include "src/results/ceilings_text.hpp"
#include "src/results/explain_text.hpp"
#include "src/run/explain.hpp"
#include "src/run/machine.hpp"

namespace kex {

namespace {

struct ExplainArgs {
  std::vector<std::string> names, layout, loads;
  std::string sizes, cache, out;
  uint32_t rounds = 20;
  int cpu = -1;
  bool force = false, list = false, no_ceilings = false;
};

/// The names as a config: kex's specs (raced with their neighbours) and any other
/// competitor (rep_movsb, memcpy, glibc/SYMBOL, a preset, lib/NAME and asm/NAME of
/// --load), raced beside libc without neighbours. Only the baselines named race.
Config explain_space(const ExplainArgs& a, const CLI::App& cmd) {
  NamedKernels k;
  for (const std::string& l : a.loads) k.loads.push_back(parse_load_option(l, "--load"));
  check_load_names(k.loads, "--load");
  for (const std::string& n : a.names) add_kernel_name(k, n);
  AxesOptions axes;
  if (cmd.count("--sizes")) axes.sizes = sizes_option(a.sizes);
  if (cmd.count("--cache")) axes.caches = cache_option(a.cache);
  if (!a.layout.empty()) axes.layout = layout_option(a.layout);
  Config space = names_config(k, axes);
  if (k.baselines.empty()) space.baselines.clear();  // names_config's default set: none of them was named
  return make_config(space, space.source);
}

/// kex-explain-YYYYMMDD-HHMMSS.json in the working directory (UTC).
std::string default_output() {
  char buf[64];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(buf, sizeof buf, "kex-explain-%Y%m%d-%H%M%S.json", &tm);
  return buf;
}

/// --list: each kernel's neighbours, one a line, the ones not run with the reason.
std::string neighbour_list(const Config& space) {
  std::string out;
  for (const ExplainTarget& t : explain_targets(space, true)) {
    out += terminal_text(t.name()) + ":\n";
    if (!t.outside.empty()) out += "  " + terminal_text(no_coordinates_text(t.outside)) + "\n";
    for (const Neighbour& n : t.neighbours)
      out += "  " + n.coordinate + " " + n.from + " -> " + n.to + ": " + spec_name(n.spec) +
             (n.refused.empty() ? "" : " (not run: " + n.refused + ")") + "\n";
  }
  return out;
}

int run_explain_command(ExplainArgs& a, const CLI::App& cmd) {
  if (a.list) {
    write_stdout(neighbour_list(explain_space(a, cmd)));
    return 0;
  }
  if (a.out.empty()) a.out = default_output();
  if (a.out == "-") throw InputError("-o", "'-': kex explain writes a results file, not standard output; give a path");
  ExplainRequest req;
  req.space = explain_space(a, cmd);  // the names first: a bad name is the error to show
  if (cmd.count("--cpu")) pin_to_cpu(a.cpu);
  check_output_path(a.out, a.force);
  req.rounds = a.rounds;
  req.ceilings = !a.no_ceilings;
  req.outside = true;
  RunOptions opt = race_options(a.cpu);
  catch_race_stops();
  const SweepRun run = run_explain(req, opt);
  if (run.abandoned) {
    std::fprintf(stderr, "kex explain: stopped at once; nothing written\n");
    return 130;
  }
  write_file_atomic(a.out, to_json(run.doc).dump(1) + "\n", a.force);
  if (!quiet()) write_stdout(explain_text(run.doc) + ceilings_text(run.doc));
  std::printf("results: %s\n", terminal_text(a.out).c_str());
  if (!run.doc.context.interrupted) return 0;
  std::fprintf(stderr, "kex explain: interrupted; the rounds measured are in %s\n", terminal_text(a.out).c_str());
  return 130;
}

}  // namespace

Action add_explain_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("explain", "Why a kernel is fast: race it against its one-coordinate neighbours "
                                            "in paired rounds and print each change's effect, largest first");
  auto a = std::make_shared<ExplainArgs>();
  cmd->add_option("NAME", a->names,
                  "Kernel names: kex's specs (copy/avx/unroll:256/nt ...: raced with their neighbours) or any other "
                  "competitor (rep_movsb, memcpy, glibc/SYMBOL, a preset, lib/NAME or asm/NAME of --load)")
      ->required();
  cmd->add_option("--load", a->loads,
                  "Code to explain, as kex run --load: NAME=PATH:SYMBOL[:copy|move|clear] (named lib/NAME or "
                  "asm/NAME); repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--sizes", a->sizes, "Sizes, as kex run --sizes (default 256 B..64 MiB x4)");
  cmd->add_option("--cache", a->cache, "warm, cold or warm,cold, as kex run --cache");
  cmd->add_option("--layout", a->layout, "Layouts, as kex run --layout (src:N/dst:N/dist:D/nohuge)");
  cmd->add_option("--repetitions", a->rounds, "Paired rounds per size (default 20)")->check(CLI::Range(3, 10000));
  cmd->add_option("-o,--output", a->out, "Results file (default kex-explain-YYYYMMDD-HHMMSS.json, UTC)");
  cmd->add_flag("--force", a->force, "Replace the results file");
  cmd->add_flag("--no-ceilings", a->no_ceilings,
                "Leave out the ceilings per cache level (read and write probes, a few seconds)");
  cmd->add_flag("--list", a->list, "Print each kernel's neighbours (and why any is not run) and exit");
  cmd->add_option("--cpu", a->cpu, "CPU the measuring worker is pinned to (default: one picked)")
      ->check(CLI::Range(0, 4095));
  return [a, cmd]() { return run_explain_command(*a, *cmd); };
}

}  // namespace kex
