// `kex merge FILES... -o merged.json`: reassemble shards, gather machines, print the table across machines
// and each machine's crossovers.
#include <cstdio>

#include "src/core/atomic_write.hpp"
#include "src/core/error.hpp"
#include "src/cli/cli.hpp"
#include "src/core/output.hpp"
#include "src/core/terminal_text.hpp"
#include "src/results/crossover_text.hpp"
#include "src/results/merge.hpp"
#include "src/model/result_json.hpp"
#include "src/results/results.hpp"

namespace kex {

Action add_merge_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "merge", "Merge results files (shards of one run, or runs of several machines) and compare the machines");
  struct Args {
    std::vector<std::string> files;
    std::string out, filter;
    bool force = false, per_point = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("FILES", a->files, "Results files from `kex run` (shards or whole runs)")->required();
  cmd->add_option("-o,--output", a->out, "Merged results file")->required();
  cmd->add_flag("--force", a->force, "Overwrite the output file");
  cmd->add_option("--filter", a->filter, "Table rows: only kernels (entries with --points) matching this regex (a leading - keeps the others)");
  cmd->add_flag("--points", a->per_point, "Table: one row per entry instead of one per kernel");
  return [a]() {
    if (a->out == "-")
      throw InputError("-o: '-': merge writes a file (stdout carries its table); give a file name");
    check_not_an_input("-o", a->out, a->files);
    std::vector<MergeInput> in;
    for (const auto& f : a->files) in.push_back({f, load_results(f)});
    std::vector<std::string> warnings;
    const std::vector<RunDoc> merged = merge_results(in, &warnings);
    for (const auto& w : warnings) std::fprintf(stderr, "kex: warning: %s\n", terminal_text(w).c_str());
    check_output_path(a->out, a->force);
    const std::string table = machine_table(merged, a->filter, a->per_point);  // validates --filter first
    write_file_atomic(a->out, to_json(merged).dump(1) + "\n", a->force);
    if (quiet()) return 0;  // -q: the merged file only
    write_stdout(table);
    for (size_t i = 0; i < merged.size(); ++i) {
      std::printf("\nM%zu %s\n", i + 1, terminal_text(run_label(merged[i].context)).c_str());
      std::string t = format_crossovers(find_crossovers(merged[i]));
      write_stdout(t);
    }
    return 0;
  };
}

}  // namespace kex
