#include "src/run/journal.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>

#include "src/core/error.hpp"
#include "src/core/hash.hpp"
#include "src/model/result_json.hpp"
#include "src/run/journal_lines.hpp"

// Writing the run's journal, its name beside the output, and its lock; its lines'
// field tables are in journal_lines.hpp, the reader in journal_read.cpp.

namespace kex {

/// The lines' field tables (journal_lines.hpp).
namespace journal_lines = journal_detail;

namespace {

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

std::string hex64(uint64_t v) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

/// The file name part of `path` and the directory part before it (with its '/').
std::pair<std::string, std::string> split_path(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {"", path};
  return {path.substr(0, slash + 1), path.substr(slash + 1)};
}

/// The journal's file name for an output's file name (see journal_path).
std::string journal_name(const std::string& name) {
  constexpr size_t kSuffix = 8;  // ".journal"
  if (name.size() + kSuffix <= NAME_MAX) return name + ".journal";
  return name.substr(0, NAME_MAX - kSuffix - 17) + "-" + hex64(fnv1a64(name)) + ".journal";
}

/// The offset just past the last newline of `fd` (0 when there is none).
off_t complete_prefix(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return 0;
  char buf[4096];
  for (off_t end = st.st_size; end > 0;) {
    const off_t from = end > off_t(sizeof buf) ? end - off_t(sizeof buf) : 0;
    const ssize_t n = pread(fd, buf, size_t(end - from), from);
    if (n <= 0) return 0;
    for (ssize_t i = n - 1; i >= 0; --i)
      if (buf[i] == '\n') return from + i + 1;
    end = from;
  }
  return 0;
}

// A forked child (a measuring worker, a verifying process) must not keep a journal's
// lock: a flock lock belongs to the open file, which fork shares, so a worker that
// outlived a killed kex held the journal a moment longer and a resume right after
// the kill was refused as "in use". Each child closes the journals at fork.
std::array<std::atomic<int>, 8> g_journal_fds{-1, -1, -1, -1, -1, -1, -1, -1};

void close_journals_in_child() {
  for (auto& fd : g_journal_fds)
    if (const int f = fd.load(); f >= 0) close(f);
}

/// Registers `fd` (locked) to be closed in every child forked from now on (the first 8
/// journals open at once; kex holds one).
void parent_only(int fd) {
  static const int registered = pthread_atfork(nullptr, nullptr, close_journals_in_child);
  (void)registered;
  for (auto& slot : g_journal_fds) {
    int empty = -1;
    if (slot.compare_exchange_strong(empty, fd)) return;
  }
}

/// `fd` is about to be closed: children need not close it any more.
void forget_fd(int fd) {
  for (auto& slot : g_journal_fds) {
    int f = fd;
    slot.compare_exchange_strong(f, -1);
  }
}

}  // namespace

PartialFile partial_file(const std::string& name, const std::string& text) {
  return {name, text.size(), hex64(fnv1a64(text))};
}

std::string journal_path(const std::string& output) {
  if (output == "-" || output.empty()) return "kex-run.journal";
  const auto [dir, name] = split_path(output);
  return dir + journal_name(name);
}

std::string output_for_journal(const std::string& journal, const std::string& output_name) {
  const auto [dir, name] = split_path(journal);
  // A name too long for NAME.journal: the header says which, and only when its
  // journal name is this one (the header picks no other file).
  if (output_name.size() + 8 > NAME_MAX && output_name.find('/') == std::string::npos &&
      journal_name(output_name) == name)
    return dir + output_name;
  const std::string suffix = ".journal";
  if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
    const std::string out = name.substr(0, name.size() - suffix.size());
    if (journal_name(out) == name) return dir.empty() && out == "-" ? "./-" : dir + out;
  }
  throw InputError(journal + ": not a journal name kex gives (OUT.journal, beside the results file OUT): kex cannot "
                             "tell which file the run writes; rename it OUT.journal, or give -o OUT");
}

Journal::Journal(const std::string& path, const JournalHeader& header) : path_(path), tail_checked_(true) {
  fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw InputError(path + ": cannot create the run's journal (" + std::strerror(errno) +
                     (errno == EEXIST ? "; an earlier run left it: resume it with kex run --resume " + path +
                                            ", or remove it"
                                      : errno == ENAMETOOLONG ? "; a shorter output name, or --no-journal" : "") +
                     ")");
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    close(fd_);
    throw InputError(path + ": in use by another kex (it holds the journal's lock)");
  }
  parent_only(fd_);
  f_ = fdopen(fd_, "w");
  line(journal_lines::first_line_json({journal_lines::kJournalFormat, to_json(header)}));
  sync();
}

Journal::Journal(const std::string& path) : path_(path) {
  fd_ = journal_lines::open_regular(path, O_RDWR | O_APPEND);
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK)
      throw InputError(path + ": in use: a live kex run or resume holds the journal's lock; nothing measured");
    throw InputError(path + ": cannot lock the journal (" + std::strerror(err) + ")");
  }
  parent_only(fd_);
  f_ = fdopen(fd_, "a");
  if (!f_) {
    forget_fd(fd_);
    close(fd_);
    fd_ = -1;
    throw InputError(path + ": cannot append to the journal (" + std::strerror(errno) + ")");
  }
}

Journal::~Journal() {
  forget_fd(fd_);
  if (f_) std::fclose(f_);
  else if (fd_ >= 0) close(fd_);
}

JournalState Journal::read() const {
  if (fd_ < 0) throw InputError(path_ + ": the journal is closed");
  return journal_lines::read_fd(fd_, path_);
}

void Journal::line(const nlohmann::json& j) {
  if (!f_) return;
  if (!tail_checked_) {
    // A line torn by a kill mid-write has no newline: cut it off first, or the next
    // line would be appended to it and the journal could not be read again.
    tail_checked_ = true;
    struct stat st;
    const off_t keep = complete_prefix(fd_);
    if (fstat(fd_, &st) != 0 || (keep < st.st_size && ftruncate(fd_, keep) != 0)) return fail();
  }
  const std::string s = j.dump() + "\n";
  if (std::fwrite(s.data(), 1, s.size(), f_) != s.size() || std::fflush(f_) != 0) return fail();
  if (now_s() - last_sync_ >= 1.0) sync();
}

void Journal::sync() {
  if (!f_) return;
  if (std::fflush(f_) != 0 || (fsync(fileno(f_)) != 0 && errno != EINVAL)) return fail();
  last_sync_ = now_s();
}

void Journal::fail() {
  // A journal that cannot be written (a full disk) must not end the run: the points
  // are still in memory and the final write is tried; say it once.
  std::fprintf(stderr, "kex: warning: %s: cannot write the journal (%s); measuring on without it\n", path_.c_str(),
               std::strerror(errno));
  forget_fd(fd_);
  std::fclose(f_);
  f_ = nullptr;
  fd_ = -1;
  failed_ = true;
}

bool Journal::resumable() const {
  struct stat open_st, path_st;
  return !failed_ && fd_ >= 0 && fstat(fd_, &open_st) == 0 && open_st.st_nlink > 0 &&
         stat(path_.c_str(), &path_st) == 0 && path_st.st_dev == open_st.st_dev && path_st.st_ino == open_st.st_ino;
}

void Journal::tune_stage(const TuneStageMark& m) {
  line(nlohmann::json{{"tune_stage", to_json(m)}});
  sync();
}

void Journal::repetition(const std::string& point, const Repetition& r) {
  const journal_lines::RepLine rec{point, nlohmann::json(to_json(r))};
  line(nlohmann::json{{"rep", journal_lines::rep_line_json(rec)}});
}

void Journal::result(const Result& r) { line(nlohmann::json{{"result", to_json(r)}}); }

void Journal::disturbed(const std::vector<std::pair<std::string, uint64_t>>& po) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& [p, o] : po) a.push_back({p, o});
  line(nlohmann::json{{"disturbed", a}});
}

void Journal::seed_run(const std::string& source, const SeedRun& run) {
  journal_lines::SeedRunLine rec{source, run.header, nlohmann::json::array()};
  for (const auto& r : run.results) rec.results.push_back(nlohmann::json(to_json(r)));
  line(nlohmann::json{{"seed_run", journal_lines::seed_run_line_json(rec)}});
}

void Journal::seed_pass(const std::string& source, uint32_t pass, const SeedRun& run) {
  journal_lines::SeedPassLine rec{source, pass, run.header, nlohmann::json::array()};
  for (const auto& r : run.results) rec.results.push_back(nlohmann::json(to_json(r)));
  line(nlohmann::json{{"seed_pass", journal_lines::seed_pass_line_json(rec)}});
}

void Journal::segments(const SegmentSection& section) { line(nlohmann::json{{"segments", to_json(section)}}); }

void Journal::partial_output(const PartialFile& p) {
  line(nlohmann::json{{"partial", journal_lines::partial_json(p)}});
  sync();
}

void Journal::partial_figures(const std::vector<PartialFile>& files) {
  const journal_lines::FiguresLine f{files};
  line(nlohmann::json{{"partial_figures", journal_lines::figures_line_json(f)}});
  sync();
}

void Journal::remove() {
  forget_fd(fd_);
  if (f_) std::fclose(f_);
  else if (fd_ >= 0) close(fd_);
  f_ = nullptr;
  fd_ = -1;
  ::unlink(path_.c_str());
}

}  // namespace kex
