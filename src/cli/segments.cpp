// `kex segments`: Jeremy Fitzhardinge's segment-register test and its modern costs.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "src/core/atomic_write.hpp"
#include "src/cli/cli.hpp"
#include "src/core/output.hpp"
#include "src/run/segments.hpp"

namespace kex {

namespace {


}  // namespace

Action add_segments_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "segments", "Segment-register test (Jeremy Fitzhardinge 2006): selector loads and fs/gs-prefixed accesses");
  struct Args {
    std::string json;
    bool force = false;
    SegmentOptions opts;
    bool no_mixed = false, no_modern = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("--json", a->json, "Also write the results section as JSON to FILE")->type_name("FILE");
  cmd->add_flag("--force", a->force, "Overwrite an existing --json file");
  cmd->add_option("--iterations", a->opts.iterations, "Timed iterations per case, spread over the repetitions")
      ->check(CLI::Range(uint64_t(1), uint64_t(1) << 40))
      ->capture_default_str();
  cmd->add_flag("--no-mixed", a->no_mixed, "Skip the mixed loop (an access through the restored selector)");
  cmd->add_flag("--no-modern", a->no_modern, "Skip the modern costs (override latency/throughput, null loads)");
  return [a]() {
    if (!a->json.empty()) check_output_path(a->json, a->force);  // before the run, not after
    SegmentOptions o = a->opts;
    o.mixed = !a->no_mixed;
    o.modern = !a->no_modern;
    const auto section = run_segments(o);
    // The table first (the JSON write may fail), but a lost table must not lose the JSON.
    std::string lost;
    try {
      write_stdout(format_segment_table(section));
    } catch (const InputError& e) {
      if (a->json.empty()) throw;
      lost = e.what();
    }
    if (!a->json.empty()) write_file_atomic(a->json, section.dump(2) + "\n", a->force);
    if (!lost.empty()) throw InputError(lost + "; the results were written to " + a->json);
    return 0;
  };
}

}  // namespace kex
