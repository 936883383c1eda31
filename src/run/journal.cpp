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
#include <set>

#include "src/core/error.hpp"
#include "src/core/limits.hpp"
#include "src/model/kernel_names.hpp"
#include "src/core/hash.hpp"
#include "src/model/json_fields.hpp"
#include "src/model/json_text.hpp"
#include "src/model/result_check.hpp"
#include "src/model/result_json.hpp"

namespace kex {

namespace {

/// The journal format this kex writes and reads (1: before headers were typed; 2: before
/// paired rounds, whose header has no pairing and whose repetitions no round; 3: before
/// the protocol's one field table, whose header says "paired": true/false).
constexpr uint32_t kJournalFormat = 4;
/// The largest format a first line may name (an earlier or a later kex's is named as such).
constexpr uint32_t kMaxJournalFormat = 1000000;
/// Orders count tasks; an order at or above this is no order kex gave (and the next
/// session's first order, one above the largest, must not wrap).
constexpr uint64_t kOrderLimit = uint64_t(1) << 53;
/// JSON nesting allowed in a line (kex's own lines nest fewer than 12 levels).
constexpr int kMaxDepth = 64;

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

bool is_hex64(const std::string& s) {
  return s.size() == 16 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::string_view harness_name(Harness h) { return to_string(h); }

/// A seed-harness run's header: one field table for the journal's writer and reader.
template <class IO, class H>
void map_seed_header(IO& io, H& h) {
  io.choice("harness", h.harness, parse_harness, harness_name, "kex, fastc, hahn, xmm64, mem_cp");
  io.real("tsc_mhz", h.tsc_mhz, 1, 1e5);
  io.text("tsc_source", h.tsc_source, TextRule{256});
  io.flag("pmu_available", h.pmu_available);
  io.text("cpu_model", h.cpu_model, TextRule{1024});
  io.whole("pinned_cpu", h.pinned_cpu, -1, 1 << 20);
  io.flag("fsave", h.fsave);
  io.whole("buffer_address", h.buffer_address, uint64_t(0), UINT64_MAX);
  io.real("hahn_mhz", h.hahn_mhz, 0, 1e6);
}

template <class IO, class P>
void map_partial(IO& io, P& p) {
  io.text("name", p.name, TextRule{NAME_MAX, is_file_name, "a file name without a directory"});
  io.whole("bytes", p.bytes, uint64_t(0), UINT64_MAX);
  io.text("fnv1a", p.fnv1a, TextRule{16, is_hex64, "16 lowercase hex digits"});
}

/// The first line: the journal format and the run's header (journal_header.hpp).
struct FirstLine {
  uint32_t format = 0;
  nlohmann::json header;
};

template <class IO, class F>
void map_first_line(IO& io, F& f) {
  io.whole("kex_journal", f.format, 1u, kMaxJournalFormat);
  io.object_value("header", f.header);
}

/// The journal format a first line names, read alone through the line's field table
/// (tolerantly: a header is not looked at); 0 when the line has no kex_journal key.
/// InputError when the key holds no format.
uint32_t journal_format(const nlohmann::json& first, const std::string& where) {
  if (!first.is_object()) return 0;
  FieldReader probe(first, where, Keys::tolerant);
  FirstLine f;
  probe.whole("kex_journal", f.format, 1u, kMaxJournalFormat);
  return f.format;
}

/// The figures an interrupted session drew.
struct FiguresLine {
  std::vector<PartialFile> files;
};

template <class IO, class F>
void map_figures_line(IO& io, F& f) {
  io.list("files", f.files, 0, 1000000, [](auto& e, auto& p) { map_partial(e, p); });
}

/// A repetition's line: the point's name and the repetition's record (result_json.hpp).
struct RepLine {
  std::string point;
  nlohmann::json data;
};

template <class IO, class R>
void map_rep_line(IO& io, R& r) {
  io.text("point", r.point);
  io.object_value("data", r.data);
}

/// A seed-harness run's line: its config, header and results (result_json.hpp entries).
struct SeedRunLine {
  std::string source;
  SeedHeader header;
  nlohmann::json results;
};

template <class IO, class R>
void map_seed_run_line(IO& io, R& r) {
  io.text("source", r.source);
  io.object("header", [&](auto& h) { map_seed_header(h, r.header); });
  io.array_value("results", r.results, 1000000);
}

/// One pass of a seed harness run N times (--repeat N, 1..1000): its line.
struct SeedPassLine {
  std::string source;
  uint32_t pass = 1;
  SeedHeader header;
  nlohmann::json results;
};

template <class IO, class R>
void map_seed_pass_line(IO& io, R& r) {
  io.text("source", r.source);
  io.whole("pass", r.pass, 1u, 1000u);
  io.object("header", [&](auto& h) { map_seed_header(h, r.header); });
  io.array_value("results", r.results, 1000000);
}

template <class T, class Map>
nlohmann::json written(const T& record, Map map) {
  nlohmann::json j;
  FieldWriter w(j);
  map(w, record);
  return j;
}

template <class T, class Map>
T read_record(const nlohmann::json& j, const std::string& where, Map map) {
  T record;
  FieldReader r(j, where);
  map(r, record);
  r.finish();
  return record;
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

/// The journal at `path` opened for reading (O_NONBLOCK: a FIFO put there does not
/// hang the open), or InputError when it is not a regular file.
int open_regular(const std::string& path, int flags) {
  struct stat st;
  // A journal kex appends to is the file named, not where a symbolic link there points
  // (one unpacked with a journal could name any file that parses as one).
  const bool writes = (flags & O_ACCMODE) != O_RDONLY;
  if (writes && lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    throw InputError(path + ": a symbolic link: a resume appends to the journal itself; give the path of the file");
  if (stat(path.c_str(), &st) != 0)
    throw InputError(path + ": cannot read the journal (" + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode)) throw InputError(path + ": not a regular file: a journal kex wrote is needed");
  const int fd = open(path.c_str(), flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (writes ? O_NOFOLLOW : 0));
  if (fd < 0) throw InputError(path + ": cannot read the journal (" + std::strerror(errno) + ")");
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    throw InputError(path + ": not a regular file: a journal kex wrote is needed");
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

/// Calls `each(line, number)` for each line of `fd` that ends in '\n', from the
/// start; returns true when bytes without a newline follow the last one (a torn
/// line). InputError for a read error or a line above kMaxJournalLineBytes.
template <class Each>
bool for_each_line(int fd, const std::string& path, Each each) {
  std::string pending;
  std::vector<char> buf(1 << 16);
  size_t number = 0;
  for (off_t at = 0;;) {
    const ssize_t n = pread(fd, buf.data(), buf.size(), at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path + ": cannot read the journal (" + std::strerror(errno) + ")");
    if (n == 0) return !pending.empty();
    at += n;
    for (const char* p = buf.data(); p < buf.data() + n;) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', size_t(buf.data() + n - p)));
      const char* end = nl ? nl : buf.data() + n;
      if (pending.size() + size_t(end - p) > kMaxJournalLineBytes)
        throw InputError(path + ":" + std::to_string(number + 1) + ": longer than " +
                         std::to_string(kMaxJournalLineBytes >> 20) + " MiB: not a line kex writes");
      pending.append(p, end);
      if (!nl) break;
      each(pending, ++number);
      pending.clear();
      p = nl + 1;
    }
  }
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

// ---- reading the records -----------------------------------------------------

/// The journal being read: its state so far, and each point's orders seen.
struct Reading {
  JournalState s;
  std::map<std::string, std::set<uint64_t>> orders;
};

/// The header of the first line, read through its field table: first tolerantly, so that
/// a file that is no journal, or one of another format, is named as such before any other
/// check of the line, then exactly.
JournalHeader first_line(const nlohmann::json& j, const std::string& path) {
  const std::string where = path + ":1";
  const uint32_t format = journal_format(j, where + ": ");
  if (format == 0) throw InputError(path + ": not a kex journal (its first line has no kex_journal header)");
  if (format != kJournalFormat)
    throw InputError(where, std::string("a journal of ") + (format < kJournalFormat ? "an earlier" : "a later") +
                                " kex (journal format " + std::to_string(format) +
                                ", this kex's is " + std::to_string(kJournalFormat) +
                                "): resume it with the kex that wrote it");
  const FirstLine f = read_record<FirstLine>(j, where + ": ", [](auto& io, auto& x) { map_first_line(io, x); });
  return journal_header_from(f.header, where + ": /header");
}

void add_rep(Reading& in, const nlohmann::json& v, const std::string& where) {
  const RepLine rec = read_record<RepLine>(v, where, [](auto& io, auto& r) { map_rep_line(io, r); });
  // The point's name reaches the run's tables and results: it must be a point name.
  try {
    if (!is_kernel_name(parse_point_name(rec.point).kernel)) throw std::invalid_argument("not a kernel name");
  } catch (const std::invalid_argument& e) {
    throw InputError(where + "/point", "'" + rec.point + "': not a point name (" + e.what() + ")");
  }
  Repetition r = repetition_from_json(rec.data, where + "/data");
  check_repetition(r, where + "/data");
  if (r.order >= kOrderLimit)
    throw InputError(where + "/data/order", std::to_string(r.order) + ": expected below 2^53 (orders count tasks)");
  if (!in.orders[rec.point].insert(r.order).second)
    throw InputError(where + "/data/order", std::to_string(r.order) + ": this point's repetition of that order is "
                                            "journaled already (each repetition has an order of its own)");
  in.s.reps[rec.point].push_back(std::move(r));
}

void add_result(Reading& in, const nlohmann::json& v, const std::string& where) {
  Result r = result_from_json(v, 1e9, where);
  if (r.ok())
    throw InputError(where + "/status", "a measured point: a journal keeps measured points as repetitions, "
                                        "results only for points that will not be measured");
  in.s.results[r.name()] = std::move(r);
}

void mark_disturbed(Reading& in, const nlohmann::json& v, const std::string& where) {
  if (!v.is_array()) throw InputError(where, "expected a list of [point, order]");
  for (size_t i = 0; i < v.size(); ++i) {
    const nlohmann::json& e = v[i];
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number_unsigned())
      throw InputError(where + "/" + std::to_string(i), e.dump().substr(0, 60) + ": expected [point, order]");
    auto it = in.s.reps.find(e[0].get<std::string>());
    if (it == in.s.reps.end()) continue;
    for (auto& rep : it->second)
      if (rep.order == e[1].get<uint64_t>()) rep.disturbed = true;
  }
}

/// A seed-harness run from its line's header and results, each result checked as a
/// results file's entry is.
SeedRun seed_run_from(const SeedHeader& header, const nlohmann::json& results, const std::string& where) {
  SeedRun run;
  run.header = header;
  for (size_t i = 0; i < results.size(); ++i) {
    const std::string at = where + "/results/" + std::to_string(i);
    Result r = result_from_json(results[i], run.header.tsc_mhz * 1e6, at);
    if (r.ok())
      for (size_t k = 0; k < r.reps.size(); ++k) check_repetition(r.reps[k], at + "/reps/" + std::to_string(k));
    run.results.push_back(std::move(r));
  }
  return run;
}

void add_seed_run(Reading& in, const nlohmann::json& v, const std::string& where) {
  const SeedRunLine rec = read_record<SeedRunLine>(v, where, [](auto& io, auto& r) { map_seed_run_line(io, r); });
  in.s.seed_runs.emplace_back(rec.source, seed_run_from(rec.header, rec.results, where));
}

void add_seed_pass(Reading& in, const nlohmann::json& v, const std::string& where) {
  const SeedPassLine rec = read_record<SeedPassLine>(v, where, [](auto& io, auto& r) { map_seed_pass_line(io, r); });
  in.s.seed_passes.emplace_back(rec.source, rec.pass, seed_run_from(rec.header, rec.results, where));
}

/// The segment table's section (src/model/segments.hpp), read by the model's reader.
void add_segments(Reading& in, const nlohmann::json& v, const std::string& where) {
  in.s.segments = segment_section_from_json(v, where);
}

/// One record line (after the header) into the state.
void add_line(Reading& in, const nlohmann::json& j, const std::string& line_where) {
  const std::string where = line_where + ": not a journal line: ";
  if (!j.is_object() || j.size() != 1)
    throw InputError(line_where, "not a journal line (expected one record {kind: ...})");
  const std::string kind = j.begin().key();
  const nlohmann::json& v = j.begin().value();
  if (kind == "rep") add_rep(in, v, where + "/rep");
  else if (kind == "result") add_result(in, v, where + "/result");
  else if (kind == "disturbed") mark_disturbed(in, v, where + "/disturbed");
  else if (kind == "seed_run") add_seed_run(in, v, where + "/seed_run");
  else if (kind == "seed_pass") add_seed_pass(in, v, where + "/seed_pass");
  else if (kind == "segments") add_segments(in, v, where + "/segments");
  else if (kind == "partial") {
    in.s.partial = read_record<PartialFile>(v, where + "/partial", [](auto& io, auto& p) { map_partial(io, p); });
  } else if (kind == "partial_figures") {
    in.s.partial_figures =
        read_record<FiguresLine>(v, where + "/partial_figures", [](auto& io, auto& f) { map_figures_line(io, f); }).files;
  } else if (kind == "tune_stage") {
    TuneStageMark m = tune_stage_from(v, where + "/tune_stage");
    for (const auto& [point, reps] : in.s.reps) m.reps_before[point] = reps.size();
    in.s.tune_stages.push_back(std::move(m));
  } else {
    throw InputError(line_where, "not a journal line (unknown kind; allowed: rep, result, disturbed, seed_run, "
                                 "seed_pass, segments, partial, partial_figures, tune_stage)");
  }
}

JournalState read_fd(int fd, const std::string& path) {
  Reading in;
  bool any = false;
  const bool torn = for_each_line(fd, path, [&](const std::string& text, size_t number) {
    const std::string where = path + ":" + std::to_string(number);
    nlohmann::json j;
    try {
      j = parse_json_text(text, where, kMaxDepth, "not a line kex writes");
    } catch (const nlohmann::json::exception&) {
      throw InputError(where + ": not a journal line (malformed JSON)");
    }
    ++in.s.lines;
    try {
      if (number == 1) in.s.header = first_line(j, path);
      else add_line(in, j, where);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(where + ": not a journal line (" + e.what() + ")");
    }
    any = true;
  });
  if (!any) throw InputError(path + ": empty: not a kex journal");
  in.s.torn_tail = torn;  // cut off by a kill: the repetition in flight
  return std::move(in.s);
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

bool is_journal_file(const std::string& path) {
  std::ifstream in(path);
  std::string head(size_t(1) << 20, '\0');  // a first line kex wrote is far shorter
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(size_t(in.gcount()));
  const size_t nl = head.find('\n');
  if (nl == std::string::npos) return false;
  try {
    return journal_format(nlohmann::json::parse(head.substr(0, nl), nullptr, false), path) != 0;
  } catch (const InputError&) {
    return false;
  }
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
  line(written(FirstLine{kJournalFormat, to_json(header)}, [](auto& io, auto& f) { map_first_line(io, f); }));
  sync();
}

Journal::Journal(const std::string& path) : path_(path) {
  fd_ = open_regular(path, O_RDWR | O_APPEND);
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
  return read_fd(fd_, path_);
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
  const RepLine rec{point, nlohmann::json(to_json(r))};
  line(nlohmann::json{{"rep", written(rec, [](auto& io, auto& x) { map_rep_line(io, x); })}});
}

void Journal::result(const Result& r) { line(nlohmann::json{{"result", to_json(r)}}); }

void Journal::disturbed(const std::vector<std::pair<std::string, uint64_t>>& po) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& [p, o] : po) a.push_back({p, o});
  line(nlohmann::json{{"disturbed", a}});
}

void Journal::seed_run(const std::string& source, const SeedRun& run) {
  SeedRunLine rec{source, run.header, nlohmann::json::array()};
  for (const auto& r : run.results) rec.results.push_back(nlohmann::json(to_json(r)));
  line(nlohmann::json{{"seed_run", written(rec, [](auto& io, auto& x) { map_seed_run_line(io, x); })}});
}

void Journal::seed_pass(const std::string& source, uint32_t pass, const SeedRun& run) {
  SeedPassLine rec{source, pass, run.header, nlohmann::json::array()};
  for (const auto& r : run.results) rec.results.push_back(nlohmann::json(to_json(r)));
  line(nlohmann::json{{"seed_pass", written(rec, [](auto& io, auto& x) { map_seed_pass_line(io, x); })}});
}

void Journal::segments(const SegmentSection& section) { line(nlohmann::json{{"segments", to_json(section)}}); }

void Journal::partial_output(const PartialFile& p) {
  line(nlohmann::json{{"partial", written(p, [](auto& io, auto& x) { map_partial(io, x); })}});
  sync();
}

void Journal::partial_figures(const std::vector<PartialFile>& files) {
  const FiguresLine f{files};
  line(nlohmann::json{{"partial_figures", written(f, [](auto& io, auto& x) { map_figures_line(io, x); })}});
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

JournalState read_journal(const std::string& path) {
  const int fd = open_regular(path, O_RDONLY);
  try {
    JournalState s = read_fd(fd, path);
    close(fd);
    return s;
  } catch (const std::bad_alloc&) {
    close(fd);
    throw out_of_memory_reading(path);
  } catch (...) {
    close(fd);
    throw;
  }
}

}  // namespace kex
