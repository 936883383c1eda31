// The run's journal: every finished repetition and every point that will not be
// measured, appended as one JSON line the moment it is known (flushed per line,
// fsync'd at least every second), beside the output. A run killed at any moment
// loses at most the repetition in flight: `kex run --resume JOURNAL` measures the
// rest and writes the complete result (docs/STYLE.md rule 11).
//
// A journal may come from elsewhere (a colleague's, an attachment): it is data. Its
// reader applies the checks of the results reader and of configs, and the output a
// resume writes is named by the journal's own path, never by its content. A run or
// a resume holds an exclusive lock (flock) on its journal while it uses it.
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
#include "src/run/journal_header.hpp"

namespace kex {

/// A file an interrupted session wrote (its results file, a figure in its plot
/// folder), as a journal "partial" line records it: a resume replaces it without
/// --force only when it holds exactly these bytes. The name is the file's name in
/// its folder, never a path a resume writes to.
struct PartialFile {
  std::string name;
  uint64_t bytes = 0;
  std::string fnv1a;  ///< FNV-1a 64 of the bytes, 16 hex digits (src/core/hash.hpp)
  bool operator==(const PartialFile&) const = default;
};

/// The record of a file named `name` holding `text`.
PartialFile partial_file(const std::string& name, const std::string& text);

/// What a journal says was done: the header and the finished work, by point name.
struct JournalState {
  JournalHeader header;                              ///< the first line
  std::map<std::string, std::vector<Repetition>> reps;  ///< finished repetitions per point
  std::map<std::string, Result> results;             ///< points that will not be measured (skipped, failed)
  std::vector<std::pair<std::string, SeedRun>> seed_runs;
  /// Seed-harness passes journaled one by one (--repeat N): source, pass number (1-based), the pass.
  std::vector<std::tuple<std::string, uint32_t, SeedRun>> seed_passes;
  std::optional<SegmentSection> segments;
  std::optional<PartialFile> partial;                ///< the results file the last interrupted session wrote
  std::vector<PartialFile> partial_figures;          ///< the figures it wrote
  std::vector<TuneStageMark> tune_stages;            ///< a kex tune's finished stages, in order
  size_t lines = 0;
  bool torn_tail = false;                            ///< the last line was cut off (a kill mid-write); ignored
};

/// The longest journal line read (a repetition with a million raw samples is ~20 MB).
constexpr size_t kMaxJournalLineBytes = size_t(64) << 20;

class Journal {
 public:
  /// Creates `path` (never replacing a file: InputError when it exists), takes its
  /// lock and writes `header`.
  Journal(const std::string& path, const JournalHeader& header);
  /// Opens an existing journal to resume it: InputError when it is not a regular
  /// file or cannot be opened, and at once when another kex (a live run, another
  /// resume) holds its lock. Nothing is written until the first record (which
  /// first cuts off a torn last line).
  explicit Journal(const std::string& path);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  /// Reads the journal this object holds (see read_journal).
  JournalState read() const;

  void repetition(const std::string& point, const Repetition& r);
  void result(const Result& r);
  /// Repetitions of these points at these orders turned out disturbed.
  void disturbed(const std::vector<std::pair<std::string, uint64_t>>& point_order);
  void seed_run(const std::string& source, const SeedRun& run);
  /// Pass `pass` (1-based) of the seed harness of config `source`, when it ends.
  void seed_pass(const std::string& source, uint32_t pass, const SeedRun& run);
  void segments(const SegmentSection& section);
  /// What an interrupted session wrote at the output, and the figures it drew (synced at once).
  void partial_output(const PartialFile& p);
  void partial_figures(const std::vector<PartialFile>& files);
  /// A kex tune's stage, at its end (synced at once).
  void tune_stage(const TuneStageMark& m);
  /// Flushes and fsyncs now (before the final write, and on a stop).
  void sync();
  const std::string& path() const { return path_; }
  /// True once a write failed (a full disk): the journal was closed and is incomplete.
  bool failed() const { return failed_; }
  /// Whether a resume can still use the journal: no write failed and the file is
  /// still at path() (a folder removed during the run takes its journal along).
  bool resumable() const;
  /// Closes and deletes the journal (the final results file is written).
  void remove();

 private:
  void line(const nlohmann::json& j);
  void fail();
  std::string path_;
  bool failed_ = false;
  bool tail_checked_ = false;
  int fd_ = -1;
  FILE* f_ = nullptr;
  double last_sync_ = 0;
};

/// Reads a journal (without taking its lock). InputError naming the path and the
/// line, with the JSON path inside it, when it is not a regular file, not a kex
/// journal, a line other than the last is malformed or longer than
/// kMaxJournalLineBytes, or a record fails the checks a results file or a config
/// gets (journal_header_from, check_repetition; orders unique per point and below
/// 2^53). A last line without its newline is a kill mid-write: ignored.
JournalState read_journal(const std::string& path);

/// Whether the file at `path` begins with a journal's first line, of any journal format
/// (read through the journal's own field table): how the results reader names a journal
/// given where a results file is needed. False for anything else, never an error.
bool is_journal_file(const std::string& path);

/// The journal a run writing `output` keeps: "OUT.journal" beside it; when that
/// name would exceed NAME_MAX (255 bytes), the name's first 230 bytes, '-' and 16
/// hex digits of its hash, then ".journal". For stdout, a name in the current
/// directory.
std::string journal_path(const std::string& output);

/// The results file of the run `journal` belongs to, in the journal's folder:
/// `output_name` (the header's) when it is too long for NAME.journal and
/// journal_path shortens it to this journal's name, else the journal's name without
/// ".journal". InputError when neither fits: no other path is taken from a journal.
std::string output_for_journal(const std::string& journal, const std::string& output_name);

}  // namespace kex
