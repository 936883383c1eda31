#include "src/cli/tune_journal.hpp"

#include <sys/stat.h>

#include <set>
#include <stdexcept>

#include "src/cli/run_setup.hpp"
#include "src/core/error.hpp"
#include "src/core/version.hpp"
#include "src/model/point.hpp"
#include "src/model/source.hpp"
#include "src/run/context.hpp"
#include "src/run/tune.hpp"

namespace kex {

namespace {

/// What differs between the tune a journal records and the one asked for ("" for none).
std::string difference(const JournalHeader& h, const TuneRequest& req) {
  const TuneJournalRequest& t = req;  // the part a journal records
  if (!h.tune) return "it is the journal of a kex run, not of a tune (continue it with kex run --resume)";
  if (h.tune->op != t.op) return "--op " + std::string(to_string(h.tune->op));
  if (h.tune->sizes != t.sizes) return "its --sizes";
  if (h.tune->margin != t.margin) return "its --margin";
  if (h.tune->first_rounds != t.first_rounds) return "its --first-rounds";
  if (h.tune->max_rounds != t.max_rounds) return "its --rounds";
  if (h.tune->glibc != t.glibc) return std::string(h.tune->glibc ? "" : "no ") + "--glibc";
  if (h.request.configs.size() != 1 || h.request.configs.front().raw != req.space.raw)
    return "its CONFIG, --stream, --cache, --layout or --threads";
  if (h.tune->weights != t.weights) return "its --stream-weights";
  return "";
}

/// Every glibc variant the journal holds work of is one this tune races here (run --resume's
/// check_journal_points): a foreign one (another machine's, a variant this CPU cannot run,
/// a journal of a tune with --glibc resumed without it) is refused, not dropped unsaid.
void check_glibc_points(const JournalState& st, const std::vector<std::string>& references, const std::string& path) {
  const std::set<std::string> races(references.begin(), references.end());
  const auto check = [&](const std::string& point, const char* what) {
    if (point.rfind("glibc/", 0) != 0) return;
    std::string kernel = point;
    try {
      kernel = parse_point_name(point).kernel;
    } catch (const std::invalid_argument&) {
    }
    if (!races.count(kernel))
      throw InputError("--resume: " + path + ": " + what + " of " + point +
                       ", a glibc variant the tune its header describes does not race here: not this tune's journal");
  };
  for (const auto& [point, reps] : st.reps) check(point, "repetitions");
  for (const auto& [point, r] : st.results) check(point, "a result");
}

}  // namespace

TuneJournal start_tune_journal(const TuneRequest& req, RunOptions& opt, const std::string& out) {
  const std::string path = journal_path(out);
  struct stat st;
  if (lstat(path.c_str(), &st) == 0)
    throw InputError("-o: " + out + ": an earlier tune left its journal " + path +
                     ": continue it with kex tune --resume " + path + " (and the tune's options), or remove it");
  JournalHeader h;
  h.kex_version = std::string(kex_version());
  h.git_commit = std::string(kex_git_commit());
  h.request.run_id = new_run_id();
  h.machine = machine_key(this_machine());
  h.output_name = out.substr(out.rfind('/') + 1);
  h.drew_figures = false;
  h.wrote_report = false;
  h.request.protocol = opt.protocol;
  h.request.configs = {req.space};
  h.tune = static_cast<const TuneJournalRequest&>(req);  // the request's recorded part, whole
  opt.run_id = h.request.run_id;
  return TuneJournal{std::make_unique<Journal>(path, h), std::nullopt};
}

TuneJournal resume_tune_journal(const std::string& path, const TuneRequest& req, RunOptions& opt, std::string& out) {
  TuneJournal j;
  j.journal = std::make_unique<Journal>(path);  // InputError at once when a live kex holds it
  j.resumed = j.journal->read();
  const JournalHeader& h = j.resumed->header;
  check_journal_origin(h, path, false);
  for (const auto& [point, reps] : j.resumed->reps) {  // a journal names no loaded code (issue 34's trust rule)
    const size_t slash = point.find('/');
    const std::optional<Source> source = parse_impl_source(std::string_view(point).substr(0, slash));
    if (slash != std::string::npos && source && source_row(*source).loaded)
      throw InputError("--resume: " + path + ": the journal names loaded code (" + point.substr(0, point.find('/', slash + 1)) +
                       "); a journal never loads, assembles or runs code: run the tune again with its --load options");
  }
  check_glibc_points(*j.resumed, tune_references(req.op, req.glibc), path);
  if (const std::string d = difference(h, req); !d.empty())
    throw InputError("--resume: " + path + ": the journal of another tune (" + d +
                     " differs): give the options of the tune it records");
  opt.protocol.seed = h.request.protocol.seed;
  opt.run_id = h.request.run_id;
  if (out.empty()) out = output_for_journal(path, h.output_name);
  return j;
}

}  // namespace kex
