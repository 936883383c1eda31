// The journal's lines (src/run/journal*.cpp): one field table per record kind, for the
// writer (journal.cpp) and the reader (journal_read.cpp). Internal to src/run.
#pragma once
#include <climits>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/field_records.hpp"
#include "src/model/json_fields.hpp"
#include "src/run/journal.hpp"

namespace kex::journal_detail {

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

inline bool is_hex64(const std::string& s) {
  return s.size() == 16 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

inline std::string_view harness_name(Harness h) { return to_string(h); }

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
uint32_t journal_format(const nlohmann::json& first, const std::string& where);

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

/// A journal line's record as JSON (keys sorted, as every journal line is written).
template <class T, class Map>
nlohmann::json written(const T& record, Map map) {
  return record_json<nlohmann::json>(record, map);
}

/// A journal line's record read back, every field required.
template <class T, class Map>
T read_record(const nlohmann::json& j, const std::string& where, Map map) {
  return record_from<T>(j, where, Keys::exact, map);
}

/// Each record kind's line (the value under its kind's key), written through its field table.
inline nlohmann::json first_line_json(const FirstLine& f) {
  return written(f, [](auto& io, auto& x) { map_first_line(io, x); });
}
inline nlohmann::json rep_line_json(const RepLine& r) {
  return written(r, [](auto& io, auto& x) { map_rep_line(io, x); });
}
inline nlohmann::json seed_run_line_json(const SeedRunLine& r) {
  return written(r, [](auto& io, auto& x) { map_seed_run_line(io, x); });
}
inline nlohmann::json seed_pass_line_json(const SeedPassLine& r) {
  return written(r, [](auto& io, auto& x) { map_seed_pass_line(io, x); });
}
inline nlohmann::json partial_json(const PartialFile& p) {
  return written(p, [](auto& io, auto& x) { map_partial(io, x); });
}
inline nlohmann::json figures_line_json(const FiguresLine& f) {
  return written(f, [](auto& io, auto& x) { map_figures_line(io, x); });
}

/// The journal at `path` opened with `flags` (O_NONBLOCK while opening: a FIFO put there
/// does not hang the open; a writer never follows a symbolic link), or InputError when
/// it is not a regular file.
int open_regular(const std::string& path, int flags);

/// Every line of the journal open on `fd` read and checked (read_journal's rules).
JournalState read_fd(int fd, const std::string& path);

}  // namespace kex::journal_detail
