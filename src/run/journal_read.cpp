// Reading a journal: every line checked as a results file's entries and a config are
// (journal.hpp's read_journal); a torn last line is a kill mid-write.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

#include "src/core/error.hpp"
#include "src/core/limits.hpp"
#include "src/model/kernel_names.hpp"
#include "src/model/json_text.hpp"
#include "src/model/result_check.hpp"
#include "src/model/result_json.hpp"
#include "src/run/journal_lines.hpp"

namespace kex::journal_detail {

uint32_t journal_format(const nlohmann::json& first, const std::string& where) {
  if (!first.is_object()) return 0;
  FieldReader probe(first, where, Keys::tolerant);
  FirstLine f;
  probe.whole("kex_journal", f.format, 1u, kMaxJournalFormat);
  return f.format;
}

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

namespace {

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

}  // namespace

JournalState read_fd(int fd, const std::string& path) {
  Reading in;
  bool any = false;
  const bool torn = for_each_line(fd, path, [&](const std::string& text, size_t number) {
    // A blank line after the header (an editor's last newline, echo >>) holds nothing: kex
    // never writes one, and it must not make the journal unresumable.
    if (number > 1 && text.find_first_not_of(" \t\r") == std::string::npos) return;
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

}  // namespace kex::journal_detail

namespace kex {

bool is_journal_file(const std::string& path) {
  std::ifstream in(path);
  std::string head(size_t(1) << 20, '\0');  // a first line kex wrote is far shorter
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(size_t(in.gcount()));
  const size_t nl = head.find('\n');
  if (nl == std::string::npos) return false;
  try {
    return journal_detail::journal_format(nlohmann::json::parse(head.substr(0, nl), nullptr, false), path) != 0;
  } catch (const InputError&) {
    return false;
  }
}

JournalState read_journal(const std::string& path) {
  const int fd = journal_detail::open_regular(path, O_RDONLY);
  try {
    JournalState s = journal_detail::read_fd(fd, path);
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
