// What a run was asked to measure, as one record (issue 49): kex run's setup holds it,
// the journal header embeds it (so a resume reads it back whole) and the sweep's options
// are one (RunOptions, src/run/sweep.hpp). No function copies it field by field.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "src/model/config.hpp"
#include "src/model/protocol.hpp"
#include "src/model/results_format.hpp"

namespace kex {

/// A run's request: its configs, how it is measured, which shard and points, where its
/// results belong.
struct RunRequest {
  std::vector<Config> configs;              ///< in order; a journal's were each read by parse_config
  Protocol protocol;                        ///< repetitions, order, sentinel, worker CPU, counters
  ResultsFormat format = ResultsFormat::json;  ///< of the results file
  size_t shard_index = 0, shard_count = 1;  ///< run points with (global index % count) == index
  std::string filter;                       ///< --filter as given ("" for none): context.filter
  std::string run_id;                       ///< context.run_id: 16 hex digits, drawn once (a resume keeps
                                            ///< it); "" in a sweep's options: the sweep draws one
};

}  // namespace kex
