// `kex ceilings`: one core's read, write and non-temporal-write bandwidth per cache level
// (src/run/ceilings.hpp); prints the table and writes a results file whose context holds
// the ceilings and whose entries are the probes.
#include <cstdio>

#include "src/cli/cli.hpp"
#include "src/cli/stop_signal.hpp"
#include "src/core/atomic_write.hpp"
#include "src/core/output.hpp"
#include "src/core/terminal_text.hpp"
#include "src/model/result_json.hpp"
#include "src/results/ceilings_text.hpp"
#include "src/run/ceilings.hpp"
#include "src/run/machine.hpp"

namespace kex {

namespace {

struct CeilingsArgs {
  std::string out;
  uint32_t rounds = 5;
  int cpu = -1;
  bool force = false;
};

int run_ceilings_command(const CeilingsArgs& a, const CLI::App& cmd) {
  if (a.out == "-") throw InputError("-o", "'-': kex ceilings writes a results file, not standard output; give a path");
  if (!a.out.empty()) check_output_path(a.out, a.force);
  if (cmd.count("--cpu")) pin_to_cpu(a.cpu);
  RunOptions opt = race_options(a.cpu);
  catch_race_stops();
  CeilingsRun c = measure_ceilings(opt, a.rounds);
  if (c.run.abandoned) {
    std::fprintf(stderr, "kex ceilings: stopped at once; nothing written\n");
    return 130;
  }
  if (!a.out.empty()) write_file_atomic(a.out, to_json(c.run.doc).dump(1) + "\n", a.force);
  write_stdout(ceilings_text(c.run.doc));
  if (!a.out.empty()) std::printf("results: %s\n", terminal_text(a.out).c_str());
  if (!c.run.doc.context.interrupted) return 0;
  std::fprintf(stderr, "kex ceilings: interrupted; %s\n",
               a.out.empty() ? "the ceilings above are from the rounds measured"
                             : ("the rounds measured are in " + terminal_text(a.out)).c_str());
  return 130;
}

}  // namespace

Action add_ceilings_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("ceilings", "One core's read, write and non-temporal write bandwidth at a size "
                                             "inside each cache level (L1d, L2, LLC, DRAM), from kex's probe kernels");
  auto a = std::make_shared<CeilingsArgs>();
  cmd->add_option("--repetitions", a->rounds, "Paired rounds per level (default 5)")->check(CLI::Range(3, 10000));
  cmd->add_option("-o,--output", a->out, "Also write a results file (the probes, context.ceilings)");
  cmd->add_flag("--force", a->force, "Replace the results file");
  cmd->add_option("--cpu", a->cpu, "CPU the measuring worker is pinned to (default: one picked)")
      ->check(CLI::Range(0, 4095));
  return [a, cmd]() { return run_ceilings_command(*a, *cmd); };
}

}  // namespace kex
