// kex tune's journal: the run journal (src/run/journal.hpp) with the tune's request in its
// header and a line per finished stage (src/run/journal_tune.hpp), kept beside the results
// file as OUT.journal while the tune races and removed once the results are written.
// `kex tune ... --resume OUT.journal` continues a killed or stopped tune from it.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "src/run/journal.hpp"
#include "src/run/tune.hpp"

namespace kex {

/// The journal a tune keeps, and what a resumed one holds.
struct TuneJournal {
  std::unique_ptr<Journal> journal;
  std::optional<JournalState> resumed;
};

/// A fresh tune's journal beside `out` (journal_path), its header from `req` and `opt`
/// (whose run_id it sets). InputError in one line when an earlier tune left it there.
TuneJournal start_tune_journal(const TuneRequest& req, RunOptions& opt, const std::string& out);

/// The tune journal at `path`, locked and read: checked against this kex and machine
/// (check_journal_origin: it never loads code) and against `req` (the same space and
/// request: InputError naming what differs). Sets opt's seed and run id from it; its
/// output is `out` when given, else the journal's own name. The caller points
/// TuneRequest::replay at the returned `resumed` (where it stays).
TuneJournal resume_tune_journal(const std::string& path, const TuneRequest& req, RunOptions& opt, std::string& out);

}  // namespace kex
