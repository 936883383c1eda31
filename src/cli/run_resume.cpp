// kex run --resume: the run a journal describes, and the outputs a resume may replace
// (its own partial output and figures, byte for byte).
#include <sys/stat.h>
#include <dirent.h>

#include <algorithm>
#include <fstream>


#include "src/cli/run_setup.hpp"
#include "src/core/error.hpp"
#include "src/core/version.hpp"
#include "src/run/context.hpp"

namespace kex {

namespace {

/// Whether `path` is a regular file holding exactly the bytes `p` records.
bool holds(const std::string& path, const PartialFile& p) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || uint64_t(st.st_size) != p.bytes) return false;
  std::ifstream in(path, std::ios::binary);
  std::string text(p.bytes, '\0');
  if (!in.read(text.data(), std::streamsize(text.size())) || in.peek() != std::char_traits<char>::eof()) return false;
  return partial_file(p.name, text) == p;
}

/// Whether `path` holds exactly the partial output the journal records (an
/// interrupted session of this run wrote it): only then may a resume replace it
/// without --force. Anything else (missing, another run's, edited) is not its own.
bool own_partial_output(const std::string& path, const std::optional<PartialFile>& p) { return p && holds(path, *p); }

/// Whether every entry of `dir` is a figure an interrupted session of this run drew,
/// byte for byte (then a resume draws over them without --force).
bool own_partial_figures(const std::string& dir, const std::vector<PartialFile>& figures) {
  DIR* d = opendir(dir.c_str());
  if (!d) return false;
  bool own = true, any = false;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    any = true;
    auto it = std::find_if(figures.begin(), figures.end(), [&](const PartialFile& f) { return f.name == name; });
    if (it == figures.end() || !holds(dir + "/" + name, *it)) {
      own = false;
      break;
    }
  }
  closedir(d);
  return own && any;
}

/// Options that would change what the run measures: the journal says that.
void refuse_run_options(const CLI::App& cmd) {
  for (const char* opt : {"CONFIG", "--preset", "--shard", "--repetitions", "--seed", "--format", "--cpu", "--harness",
                          "--repeat", "--filter", "--sizes", "--cache", "--layout", "--threads", "--placement", "--counters", "--no-shuffle",
                          "--no-sentinel", "--no-fsave", "--no-journal"})
    if (cmd.count(opt)) throw InputError(std::string(opt) + ": not with --resume (the journal says what the run was)");
}

/// The resumed run's output: -o when given (the user's choice), else the journal's
/// own name; never the journal itself.
std::string resume_output(const RunArgs& a, const CLI::App& cmd, const JournalState& st) {
  const std::string out = cmd.count("--output") ? a.out : output_for_journal(a.resume, st.header.output_name);
  struct stat o, j;
  if (out == a.resume || (stat(out.c_str(), &o) == 0 && stat(a.resume.c_str(), &j) == 0 && o.st_dev == j.st_dev &&
                          o.st_ino == j.st_ino))
    throw InputError("-o: " + out + ": is the journal being resumed; give another results file");
  return out;
}

}  // namespace

void check_journal_origin(const JournalHeader& h, const std::string& journal, bool any_build) {
  // A journal of another build mixes repetitions of different code under one name.
  if (!any_build && (h.kex_version != kex_version() || h.git_commit != kex_git_commit()))
    throw InputError("--resume: " + journal + ": written by kex " + h.kex_version + " (git " + h.git_commit +
                     "); this is kex " + std::string(kex_version()) + " (git " + std::string(kex_git_commit()) +
                     "): the run would mix repetitions of two builds; pass --resume-any-build to accept that");
  const std::string here = machine_key(this_machine());
  if (here != h.machine)
    throw InputError("--resume: " + journal + ": the run was on " + h.machine + "; this machine is " + here);
  for (const Config& c : h.request.configs)  // a journal is data: it never makes kex load code (README "Your own implementation")
    if (!c.loads.empty())
      throw InputError("--resume: " + journal + ": the run loaded code (" + load_kernel(c.loads.front()) +
                       "); a journal never loads, assembles or runs code: run it again with its --load options");
}

/// The records of `files` (paths) as they are now.
std::vector<PartialFile> partial_files(const std::vector<std::string>& files) {
  std::vector<PartialFile> out;
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) continue;
    out.push_back(partial_file(f.substr(f.rfind('/') + 1), text));
  }
  return out;
}

/// A resume: the journal locked and read, its run checked against this build and
/// machine; the outputs from its name and the command line, never from its content.
void resume_setup(const RunArgs& a, const CLI::App& cmd, RunSetup& s) {
  refuse_run_options(cmd);
  s.journal = std::make_unique<Journal>(a.resume);  // InputError at once when a live kex holds it
  s.resumed = s.journal->read();
  const JournalHeader& h = s.resumed->header;
  if (h.tune)
    throw InputError("--resume: " + a.resume + ": the journal of a kex tune: continue it with kex tune --resume " +
                     a.resume + " and the tune's options");
  check_journal_origin(h, a.resume, a.resume_any_build);
  s.request = h.request;
  s.counters_where = a.resume + ":1: /header/protocol/counters";
  s.out = resume_output(a, cmd, *s.resumed);
  s.plot_dir = cmd.count("--plot-dir") ? a.plot_dir : h.drew_figures && !a.no_plot ? plots_beside(s.out) : "";
  struct stat link;
  if (!cmd.count("--plot-dir") && !s.plot_dir.empty() && lstat(s.plot_dir.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
    throw InputError("--resume: " + s.plot_dir +
                     ": a symbolic link where the resume draws its figures (it could point anywhere, as one "
                     "unpacked beside a journal can); remove it, or give --plot-dir DIR or --no-plot");
  s.graph_dir = a.graph_dir;  // only when asked now: a config's outputs.graph_dir is a path from the journal
  s.replace = a.force || own_partial_output(s.out, s.resumed->partial);
  if (!a.no_report && h.wrote_report) s.report = report_beside(s.out);
  s.replace_figures = a.force || (!s.plot_dir.empty() && own_partial_figures(s.plot_dir, s.resumed->partial_figures));
}

}  // namespace kex
