// `kex segments`: Jeremy Fitzhardinge's segment-register test and its modern costs.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "src/core/atomic_write.hpp"
#include "src/cli/cli.hpp"
#include "src/core/output.hpp"
#include "src/results/segment_text.hpp"
#include "src/run/segments.hpp"

namespace kex {

namespace {
// SIGINT/SIGTERM during the table: the case being timed stops within a few ms and
// the cases measured so far are printed and written, marked interrupted (exit 130).
volatile std::sig_atomic_t g_segments_stop = 0;
void on_segments_stop(int) { g_segments_stop = g_segments_stop + 1; }

/// What `kex segments` was asked.
struct SegmentsArgs {
  std::string json;
  bool force = false;
  SegmentOptions opts;
  bool no_mixed = false, no_modern = false, seed_exact = false, seed_iterations = false;
};

/// Runs the table as `a` asks, prints it, writes --json; the exit status (130: stopped).
int run_segments_command(const SegmentsArgs& a) {
  if (!a.json.empty()) check_output_path(a.json, a.force);  // before the run, not after
  SegmentOptions o = a.opts;
  o.mixed = !a.no_mixed;
  o.modern = !a.no_modern;
  o.seed_only = a.seed_exact;
  if (a.seed_iterations) {
    o.iterations = kSeedIterations;
    o.repetitions = 1;
  }
  o.stop = &g_segments_stop;
  std::signal(SIGINT, on_segments_stop);
  std::signal(SIGTERM, on_segments_stop);
  if (!quiet() && !a.seed_exact)  // on stderr: the table itself comes at the end
    std::fprintf(stderr, "kex: running the segment-override table (%llu iterations a case, %u repetitions)\n",
                 static_cast<unsigned long long>(o.iterations), o.repetitions);
  auto section = run_segments(o);
  if (g_segments_stop) section.interrupted = true;
  const std::string text = a.seed_exact ? format_segment_seed_text(section) : format_segment_table(section);
  // The table first (the JSON write may fail), but a lost table must not lose the JSON.
  // -q with --json: the file only.
  std::string lost;
  if (!quiet() || a.json.empty()) try {
      write_stdout(text);
    } catch (const InputError& e) {
      if (a.json.empty()) throw;
      lost = e.what();
    }
  if (!a.json.empty()) write_file_atomic(a.json, to_json(section).dump(2) + "\n", a.force);
  if (!lost.empty()) throw InputError(lost + "; the results were written to " + a.json);
  if (g_segments_stop) {
    std::fprintf(stderr, "kex: interrupted; the table holds the cases measured before the stop%s\n",
                 a.json.empty() ? "" : (" (also in " + a.json + ")").c_str());
    return 130;
  }
  return 0;
}
}  // namespace

Action add_segments_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "segments", "Segment-register test (Jeremy Fitzhardinge 2006): selector loads and fs/gs-prefixed accesses");
  auto a = std::make_shared<SegmentsArgs>();
  cmd->add_option("--json", a->json, "Also write the results section as JSON to FILE")->type_name("FILE");
  cmd->add_flag("--force", a->force, "Overwrite an existing --json file");
  auto* iters = cmd->add_option("--iterations", a->opts.iterations,
                                "Timed iterations per case, spread over the repetitions")
                    ->check(CLI::Range(uint64_t(1), uint64_t(1) << 40))
                    ->capture_default_str();
  auto* reps = cmd->add_option("--repetitions", a->opts.repetitions,
                               "Samples per case (the table gives the fastest; the JSON also the median)")
                   ->check(CLI::Range(1, 1000))
                   ->capture_default_str();
  cmd->add_flag("--seed-iterations", a->seed_iterations,
                "Time each case as the seed did: one run of 50000000 iterations (--iterations 50000000 "
                "--repetitions 1)")
      ->excludes(iters)
      ->excludes(reps);
  cmd->add_flag("--seed-exact", a->seed_exact,
                "Print the table exactly as Jeremy's program did (integer ns from CLOCK_PROCESS_CPUTIME_ID, "
                "CPUTIME, no suffixes), one table per selector held on entry to the loop; runs only the "
                "seed's cases");
  cmd->add_flag("--no-mixed", a->no_mixed, "Skip the mixed loop (an access through the restored selector)");
  cmd->add_flag("--no-modern", a->no_modern, "Skip the modern costs (override latency/throughput, null loads)");
  return [a]() { return run_segments_command(*a); };
}

}  // namespace kex
