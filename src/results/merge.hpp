// `kex merge`: shards of one run reassembled, runs of different machines
// gathered into one file keyed by machine, and the table across machines.
#pragma once
#include <string>
#include <vector>

#include "src/model/context.hpp"

namespace kex {

struct MergeInput {
  std::string path;           ///< for messages and merged_from
  std::vector<RunDoc> runs;   ///< a results file: one run, or the machines of an earlier merge
};

/// Merges runs. Runs are grouped by machine_key(context.machine); within a
/// machine, shards (context shard index/count) are reassembled in shard order
/// into one run with shard {0, 1}; whole runs of one machine and the same configs
/// pool as extra repetitions (each point's repetitions concatenated); a repeated
/// shard, shards that disagree on the count, or a point name present twice in
/// runs of different configs throw InputError naming the files. Missing shards, and files whose sets of
/// configs differ, are reported in `warnings`. Returns one run per
/// machine, in first-seen order (to_json of the vector writes the multi-machine
/// document when there are several).
std::vector<RunDoc> merge_results(const std::vector<MergeInput>& inputs, std::vector<std::string>* warnings);

/// A table across machines: per machine its key, hosts and point counts; then
/// one row per kernel and condition (geometric mean of median GB/s over the
/// sizes every machine measured; with `per_point`, one row per point) and one
/// column per machine. `filter` (parse_name_filter: a regex, a leading - inverts) keeps
/// matching row names. Host names, CPU models and names are escaped for a terminal
/// (terminal_text), the first column padded by display width.
std::string machine_table(const std::vector<RunDoc>& machines, const std::string& filter = "", bool per_point = false);

}  // namespace kex
