// The first line of a run's journal: what the run was, so that `kex run --resume`
// can finish it. It is data, never instructions: it holds no path a resume writes
// to (the output is the journal's own name, journal.hpp output_for_journal) and no
// --force; a resume takes those from its own command line.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <optional>

#include "src/model/config.hpp"
#include "src/model/results_format.hpp"
#include "src/model/run_request.hpp"
#include "src/run/journal_tune.hpp"
#include "src/run/supervisor.hpp"

namespace kex {

/// The journal header, typed. Every field is required when read.
struct JournalHeader {
  std::string kex_version;   ///< the build that wrote the journal (src/core/version.hpp)
  std::string git_commit;
  std::string machine;       ///< machine_key of the machine the run measured on
  /// What the run was asked (its configs, at least one, each read by parse_config; its
  /// protocol, first_order not kept; format; --shard I/N; --filter, checked as --filter is;
  /// its run id, kept by a resume).
  RunRequest request;
  bool drew_figures = false; ///< the run wrote figures: a resume draws them beside its output
  bool wrote_report = true;  ///< false: the run was asked for no report (--no-report), nor is its resume
  std::string output_name;   ///< the results file's name (no directory): only to find the output
                             ///< of a journal whose name journal_path shortened
  std::optional<TuneJournalRequest> tune;  ///< a kex tune's journal: its request (configs[0] is its space)
};

/// The header as its journal line holds it. The same field table as
/// journal_header_from (src/model/json_fields.hpp).
nlohmann::json to_json(const JournalHeader& h);

/// Reads a header written by to_json. InputError "<where>/<JSON path>: <value>:
/// <what is allowed>" for a missing, unknown, mistyped or out-of-range field, with
/// the ranges of the command line and of configs (repetitions 1..1000, a sentinel
/// threshold of 0.001..10, ...); each config is parsed by parse_config (its errors
/// behind the config's place), the filter compiled as --filter.
JournalHeader journal_header_from(const nlohmann::json& j, const std::string& where);

/// Whether `s` is a run id: 16 lowercase hex digits.
bool is_run_id(const std::string& s);

/// Whether `s` names a file in a folder: not empty, ".", ".." or holding a '/'.
bool is_file_name(const std::string& s);

}  // namespace kex
