// `kex merge`: shards of one run reassembled, runs of different machines
// gathered into one file keyed by machine, and the table across machines.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kex {

struct MergeInput {
  std::string path;     ///< for messages and merged_from
  nlohmann::json doc;   ///< a results document (or an earlier multi-machine merge)
};

/// Merges results documents. Documents are grouped by machine_key(context);
/// within a machine, shards (context.shard {index, count}) are reassembled in
/// shard order into one run with shard {0, 1}; a repeated shard, shards that
/// disagree on the count, or an entry name present twice in one machine throw
/// InputError naming the files. Missing shards are reported in `warnings`. One
/// machine gives a plain results document (context of the lowest shard plus
/// "merged_from"); several give {"context": {"merged": true, "machines":
/// [{"key", "context"}...]}, "benchmarks": [entries tagged "machine": key]},
/// which split_machines() takes apart again.
nlohmann::json merge_results(const std::vector<MergeInput>& inputs, std::vector<std::string>* warnings);

/// A table across machines: per machine its key, hosts and point counts; then
/// one row per kernel (geometric mean of median GB/s over the sizes every
/// machine measured; with `per_point`, one row per entry) and one column per
/// machine. `filter` (ECMAScript regex) keeps matching kernel/entry names.
std::string machine_table(const nlohmann::json& merged, const std::string& filter = "", bool per_point = false);

}  // namespace kex
