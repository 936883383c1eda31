// The run's journal: every finished repetition and every point that will not be
// measured, appended as one JSON line the moment it is known (flushed per line,
// fsync'd at least every second), beside the output. A run killed at any moment
// loses at most the repetition in flight: `kex run --resume JOURNAL` measures the
// rest and writes the complete result (docs/STYLE.md rule 11).
#pragma once
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/context.hpp"
#include "src/model/result.hpp"
#include "src/model/seed.hpp"

namespace kex {

/// What a journal says was done: the header and the finished work, by point name.
struct JournalState {
  nlohmann::json header;                             ///< the first line (run, protocol, output)
  std::map<std::string, std::vector<Repetition>> reps;  ///< finished repetitions per point
  std::map<std::string, Result> results;             ///< points that will not be measured (skipped, failed)
  std::vector<std::pair<std::string, SeedRun>> seed_runs;
  /// Seed-harness passes journaled one by one (--repeat N): source, pass number (1-based), the pass.
  std::vector<std::tuple<std::string, uint32_t, SeedRun>> seed_passes;
  std::optional<nlohmann::ordered_json> segments;
  size_t lines = 0;
  bool torn_tail = false;                            ///< the last line was cut off (a kill mid-write); ignored
};

class Journal {
 public:
  /// Creates `path` (never replacing a file: InputError when it exists) and writes `header`.
  Journal(const std::string& path, const nlohmann::json& header);
  /// Re-opens an existing journal to append to (after read_journal).
  explicit Journal(const std::string& path);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  void repetition(const std::string& point, const Repetition& r);
  void result(const Result& r);
  /// Repetitions of these points at these orders turned out disturbed.
  void disturbed(const std::vector<std::pair<std::string, uint64_t>>& point_order);
  void seed_run(const std::string& source, const SeedRun& run);
  /// Pass `pass` (1-based) of the seed harness of config `source`, when it ends.
  void seed_pass(const std::string& source, uint32_t pass, const SeedRun& run);
  void segments(const nlohmann::ordered_json& section);
  /// Flushes and fsyncs now (before the final write, and on a stop).
  void sync();
  const std::string& path() const { return path_; }
  /// True once a write failed (a full disk): the journal was closed and is incomplete.
  bool failed() const { return failed_; }
  /// Closes and deletes the journal (the final results file is written).
  void remove();

 private:
  void line(const nlohmann::json& j);
  void fail();
  std::string path_;
  bool failed_ = false;
  FILE* f_ = nullptr;
  double last_sync_ = 0;
};

/// Reads a journal. InputError (naming the path and line) when it is not a kex
/// journal or a line other than the last is malformed.
JournalState read_journal(const std::string& path);

/// The journal a run writing `output` keeps ("OUT.journal"; for stdout, a name in
/// the current directory).
std::string journal_path(const std::string& output);

}  // namespace kex
