#include "src/results/export.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <string_view>
#include <type_traits>

#include "src/core/enum_words.hpp"
#include "src/core/terminal_text.hpp"
#include "src/model/result_json.hpp"
#include "src/results/results.hpp"

namespace kex {

using nlohmann::json;

namespace {

/// One Google Benchmark row of entry `r` (family `family_index`, instance `inst`, run
/// `name`): an iteration row named `row_name` at `ns` per operation over `repetitions`. A
/// stream point's row is per call, as Google Benchmark's memcpy benchmarks count a call an
/// iteration: ns and bytes over its pass's calls, iterations times them (counter
/// "calls_per_pass").
json gbench_row(const Result& r, const EntryFigures& f, const std::string& name, int family_index, int inst,
                size_t repetitions, const std::string& row_name, double ns) {
  const uint32_t calls = calls_per_operation(r.point.at);
  ns /= calls;
  json b;
  b["name"] = row_name;
  b["family_index"] = family_index;
  b["per_family_instance_index"] = inst;
  b["run_name"] = name;
  b["run_type"] = "iteration";
  b["repetitions"] = repetitions;
  b["repetition_index"] = 0;
  b["threads"] = r.point.at.threads;
  b["iterations"] = uint64_t(f.iterations) * calls;
  b["real_time"] = ns;
  b["cpu_time"] = ns;
  b["time_unit"] = "ns";
  b["label"] = std::string(to_string(r.kind));
  b["bytes_per_second"] = gbps_at(moved_bytes(r.point.at), ns * calls) * 1e9;
  b["size"] = r.point.at.size;
  if (calls > 1) b["calls_per_pass"] = calls;
  return b;
}

/// The entry's own figures under the results JSON's names ("stats"), into row `b`.
void kex_figures(json& b, const EntryFigures& f) {
  const Aggregate& a = f.a;
  for (const auto& [k, v] : {std::pair<const char*, double>{"gbps", f.gbps}, {"gbps_best", f.gbps_best},
                             {"gbps_p10", f.gbps_p10}, {"gbps_p90", f.gbps_p90}, {"min_ns", a.min_ns},
                             {"p10_ns", a.p10_ns}, {"p90_ns", a.p90_ns}, {"max_ns", a.max_ns},
                             {"ci95_low_ns", a.ci_low_ns}, {"ci95_high_ns", a.ci_high_ns},
                             {"ci_rel_halfwidth", a.ci_rel}, {"cycles_per_page", f.cycles_per_page},
                             {"bytes_per_cycle", f.bytes_per_cycle}})
    b[k] = v;
}

/// The Google Benchmark rows of a measured entry `r` named `name`: one row (with kex's
/// figures) for a single repetition; else a row per repetition and the mean, median,
/// stddev and cv aggregates, so compare.py runs its U test on the repetitions.
void gbench_rows(json& benches, const Result& r, const std::string& name, int family_index, int inst) {
  const EntryFigures f = entry_figures(r);
  const Aggregate& a = f.a;
  // Every repetition becomes a row, the disturbed ones marked: compare.py's overall
  // geomean is over all rows of each file, so two runs must give it the same rows (its
  // figure from only the undisturbed ones weighed the sizes differently on each side).
  // The aggregates are kex's figures, over the counted repetitions.
  const size_t n = r.reps.size();
  auto row = [&](const std::string& row_name, double ns) {
    return gbench_row(r, f, name, family_index, inst, n, row_name, ns);
  };
  if (n < 2) {
    json b = row(name, a.median_ns);
    kex_figures(b, f);
    benches.push_back(std::move(b));
    return;
  }
  for (size_t k = 0; k < n; ++k) {
    const Repetition& rep = r.reps[k];
    json b = row(name, rep.per_call.median * 1e9 / r.tsc_hz);
    b["repetition_index"] = k;
    b["iterations"] = uint64_t(rep.calls_per_sample) * rep.sample_ticks.size() * calls_per_operation(r.point.at);
    if (rep.disturbed) b["kex_disturbed"] = true;  // not in the aggregates below
    benches.push_back(std::move(b));
  }
  const struct {
    const char* agg;
    double ns;
    const char* unit;
  } aggs[] = {{"mean", a.mean_ns, "time"}, {"median", a.median_ns, "time"}, {"stddev", a.stddev_ns, "time"},
              {"cv", a.cv, "percentage"}};
  for (const auto& g : aggs) {
    json b = row(name + "_" + g.agg, g.ns);
    b["run_type"] = "aggregate";
    b["aggregate_name"] = g.agg;
    b["aggregate_unit"] = g.unit;
    b.erase("repetition_index");
    if (std::string(g.unit) == "percentage") b["real_time"] = b["cpu_time"] = g.ns;  // cv: a ratio, not per call
    b["bytes_per_second"] = std::string(g.unit) == "time" && g.ns > 0 ? gbps_at(moved_bytes(r.point.at), g.ns) * 1e9 : 0.0;
    benches.push_back(std::move(b));
  }
}

}  // namespace

json to_gbench(const std::vector<RunDoc>& runs) {
  json out;
  RunContext first = runs.empty() ? RunContext{} : runs.front().context;
  if (!first.gbench.library_build_type) first.gbench.library_build_type = "release";  // Google Benchmark's tools need it
  json ctx = runs.empty() ? json{{"library_build_type", "release"}} : json(to_json(first));
  // Keep the context (GB tools read only date/host/caches-style fields and ignore the rest),
  // except big per-run blobs that are not about the machine.
  ctx.erase("config");
  ctx["kex_export"] = "gbench";
  if (runs.size() > 1) ctx["host_name"] = "merged";
  json not_measured = json::array();
  json benches = json::array();
  std::map<std::string, int> family;  // kernel -> family_index
  std::map<std::string, int> instance;
  for (const RunDoc& run : runs) {
    const std::string prefix = runs.size() > 1 ? machine_key(run.context.machine) + "|" : "";
    for (const Result& r : run.results) {
      const std::string name = prefix + r.name();
      if (!r.ok()) {
        not_measured.push_back({{"name", name}, {"message", r.status.message}});
        continue;
      }
      const std::string kernel = prefix + r.point.kernel;
      const int family_index = family.emplace(kernel, int(family.size())).first->second;
      gbench_rows(benches, r, name, family_index, instance[kernel]++);
    }
  }
  if (!not_measured.empty()) ctx["kex_not_measured"] = not_measured;
  out["context"] = ctx;
  out["benchmarks"] = benches;
  return out;
}

namespace {

/// A text cell, RFC 4180: quoted when it holds a comma, a quote or a line break. A cell
/// that begins with a formula character (= + - @, their fullwidth forms, or tab or CR, after OWASP's advice on
/// CSV injection) gets a leading ' inside the quotes, which spreadsheets take as "this
/// is text": a kernel name "=HYPERLINK(...)" from someone's results file is never run.
/// Control characters are escaped as on a terminal (terminal_text): a CSV is also read
/// with cat and column, and no name kex writes holds one.
std::string csv_text(const std::string& raw) {
  const std::string s = terminal_text(raw);
  // Fullwidth ＝ ＋ － ＠ (U+FF1D, U+FF0B, U+FF0D, U+FF20) too: some spreadsheets fold them to ASCII.
  static constexpr std::string_view kFormulaStarts[] = {"=", "+", "-", "@", "\t", "\r",
                                                        "\xef\xbc\x9d", "\xef\xbc\x8b", "\xef\xbc\x8d", "\xef\xbc\xa0"};
  const bool formula = std::any_of(std::begin(kFormulaStarts), std::end(kFormulaStarts),
                                   [&](std::string_view w) { return s.rfind(w, 0) == 0; });
  if (!formula && s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string o = formula ? "\"'" : "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}

/// A cell of a typed value: numbers as they are (a negative number is a number, not
/// a formula; a real number to 9 significant digits), flags as true/false, names and
/// messages as text cells, an absent value as an empty cell.
template <class T>
std::string cell(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", double(v));
    return buf;
  } else {
    return csv_text(std::string(v));
  }
}

template <class T>
std::string cell(const std::optional<T>& v) {
  return v ? cell(*v) : std::string();
}

/// A cell of the Result's spec (generated kernels and rep-string baselines), else empty.
template <class F>
std::string spec_cell(const Result& r, F field) {
  return r.spec ? cell(field(*r.spec)) : std::string();
}

/// A cell of where the Result ran, else empty.
template <class F>
std::string placed_cell(const Result& r, F field) {
  return r.placed ? cell(field(*r.placed)) : std::string();
}

/// A column of a table: its header (the results JSON's key it mirrors) and its cell of a T.
template <class T>
struct Column {
  std::string_view name;
  std::string (*of)(const T&);
};

/// The entries table's parameters ("params"); a cell is empty where the entry has no
/// such parameter.
const Column<Result> kParamColumns[] = {
    {"op", [](const Result& r) { return cell(to_string(r.spec ? r.spec->op : r.op)); }},
    {"regs", [](const Result& r) { return spec_cell(r, [](const KernelSpec& s) { return to_string(s.regs); }); }},
    {"unroll", [](const Result& r) { return spec_cell(r, [](const KernelSpec& s) { return s.unroll; }); }},
    {"scratch", [](const Result& r) { return spec_cell(r, [](const KernelSpec& s) { return s.scratch; }); }},
    {"prefetch", [](const Result& r) { return spec_cell(r, [](const KernelSpec& s) { return to_string(s.prefetch); }); }},
    {"pf_distance", [](const Result& r) { return spec_cell(r, [](const KernelSpec& s) { return s.pf_distance; }); }},
    {"pf_every", [](const Result& r) { return spec_cell(r, [](const KernelSpec& s) { return s.pf_every; }); }},
    {"store", [](const Result& r) { return spec_cell(r, [](const KernelSpec& s) { return to_string(s.store); }); }},
    {"direction", [](const Result& r) { return spec_cell(r, [](const KernelSpec& s) { return to_string(s.direction); }); }},
    {"align", [](const Result& r) { return spec_cell(r, [](const KernelSpec& s) { return to_string(s.align); }); }},
    {"edges", [](const Result& r) { return spec_cell(r, [](const KernelSpec& s) { return to_string(s.edges); }); }},
    {"block_bytes", [](const Result& r) { return spec_cell(r, [](const KernelSpec& s) { return s.block.bytes; }); }},
    // A spec's fill byte; a memset baseline's or implementation's when it is not 0 (as "params" has it).
    {"fill", [](const Result& r) { return !r.spec && r.fill() ? cell(r.fill()) : spec_cell(r, [](const KernelSpec& s) { return s.fill; }); }},
    {"src_offset", [](const Result& r) { return cell(r.point.at.layout.src_offset); }},
    {"dst_offset", [](const Result& r) { return cell(r.point.at.layout.dst_offset); }},
    {"distance", [](const Result& r) { return cell(r.point.at.layout.distance); }},
    {"huge_pages", [](const Result& r) { return cell(r.point.at.layout.huge_pages); }},
    {"cache", [](const Result& r) { return cell(to_string(r.point.at.cache)); }},
    {"chunk", [](const Result& r) { return cell(r.point.at.chunk); }},
    {"prefill", [](const Result& r) { return cell(r.point.at.prefill); }},
    {"consume", [](const Result& r) { return cell(r.point.at.consume); }},
    {"threads", [](const Result& r) { return cell(r.point.at.threads); }},
    {"harness", [](const Result& r) { return cell(to_string(r.point.at.harness)); }},
    // A stream point's coordinates (empty for one size repeated).
    {"stream", [](const Result& r) { return csv_text(r.point.at.stream); }},
    {"footprint", [](const Result& r) { return r.point.at.stream.empty() ? std::string() : cell(r.point.at.footprint); }},
    {"stream_seed", [](const Result& r) { return r.point.at.stream.empty() ? std::string() : cell(r.point.at.stream_seed); }},
    {"stream_calls", [](const Result& r) { return r.point.at.stream.empty() ? std::string() : cell(r.point.at.stream_calls); }},
    {"src_page_offset", [](const Result& r) { return placed_cell(r, [](const Placement& p) { return p.src_page_offset; }); }},
    {"dst_page_offset", [](const Result& r) { return placed_cell(r, [](const Placement& p) { return p.dst_page_offset; }); }},
    {"relative_offset", [](const Result& r) { return placed_cell(r, [](const Placement& p) { return p.relative_offset; }); }},
};

/// The entries table's statistics ("stats"), of a measured Result's figures.
const Column<EntryFigures> kStatColumns[] = {
    {"n", [](const EntryFigures& f) { return cell(f.a.samples); }},
    {"repetitions", [](const EntryFigures& f) { return cell(f.a.repetitions); }},
    {"disturbed_repetitions", [](const EntryFigures& f) { return cell(f.a.disturbed); }},
    {"median_ns", [](const EntryFigures& f) { return cell(f.a.median_ns); }},
    {"min_ns", [](const EntryFigures& f) { return cell(f.a.min_ns); }},
    {"p10_ns", [](const EntryFigures& f) { return cell(f.a.p10_ns); }},
    {"p90_ns", [](const EntryFigures& f) { return cell(f.a.p90_ns); }},
    {"max_ns", [](const EntryFigures& f) { return cell(f.a.max_ns); }},
    {"ci95_low_ns", [](const EntryFigures& f) { return cell(f.a.ci_low_ns); }},
    {"ci95_high_ns", [](const EntryFigures& f) { return cell(f.a.ci_high_ns); }},
    {"ci_rel_halfwidth", [](const EntryFigures& f) { return cell(f.a.ci_rel); }},
    {"gbps", [](const EntryFigures& f) { return cell(f.gbps); }},
    {"gbps_best", [](const EntryFigures& f) { return cell(f.gbps_best); }},
    {"gbps_p10", [](const EntryFigures& f) { return cell(f.gbps_p10); }},
    {"gbps_p90", [](const EntryFigures& f) { return cell(f.gbps_p90); }},
    {"cycles_per_page", [](const EntryFigures& f) { return cell(f.cycles_per_page); }},
    {"bytes_per_cycle", [](const EntryFigures& f) { return cell(f.bytes_per_cycle); }},
};

/// The repetitions table's columns (the keys of a results file's "reps" items).
const Column<Repetition> kRepColumns[] = {
    {"calls_per_sample", [](const Repetition& r) { return cell(r.calls_per_sample); }},
    {"n", [](const Repetition& r) { return cell(r.per_call.n); }},
    {"min_ticks", [](const Repetition& r) { return cell(r.per_call.min); }},
    {"p10_ticks", [](const Repetition& r) { return cell(r.per_call.p10); }},
    {"median_ticks", [](const Repetition& r) { return cell(r.per_call.median); }},
    {"p90_ticks", [](const Repetition& r) { return cell(r.per_call.p90); }},
    {"max_ticks", [](const Repetition& r) { return cell(r.per_call.max); }},
    {"ci95_low_ticks", [](const Repetition& r) { return cell(r.per_call.ci_low); }},
    {"ci95_high_ticks", [](const Repetition& r) { return cell(r.per_call.ci_high); }},
    {"ci_rel_halfwidth", [](const Repetition& r) { return cell(r.per_call.ci_rel); }},
    {"stop_reason", [](const Repetition& r) { return cell(r.stop_reason); }},
    {"cycles_per_tick", [](const Repetition& r) { return cell(r.cycles_per_tick); }},
    {"cycles_method", [](const Repetition& r) { return cell(r.cycles_method); }},
    {"context_switches", [](const Repetition& r) { return cell(r.context_switches); }},
    {"cpu_migrations", [](const Repetition& r) { return cell(r.migrations); }},
    {"seconds", [](const Repetition& r) { return cell(r.seconds); }},
    {"steal_s", [](const Repetition& r) { return cell(r.steal_s); }},
    {"order", [](const Repetition& r) { return cell(r.order); }},
    {"round", [](const Repetition& r) { return r.round ? cell(r.round) : std::string(); }},  // 0: measured alone
    {"previous", [](const Repetition& r) { return cell(r.previous); }},
    {"disturbed", [](const Repetition& r) { return cell(r.disturbed); }},
};

}  // namespace

std::string_view to_string(CsvTable t) {
  switch (t) {
    case CsvTable::entries: return "entries";
    case CsvTable::repetitions: return "repetitions";
    case CsvTable::samples: return "samples";
  }
  return "?";
}

std::optional<CsvTable> parse_csv_table(std::string_view word) { return enum_from_word(kCsvTables, word); }

namespace {

/// Writes one CSV record.
void csv_record(std::ostringstream& o, const std::vector<std::string>& cells) {
  for (size_t i = 0; i < cells.size(); ++i) o << (i ? "," : "") << cells[i];
  o << "\r\n";
}

/// The first cells of a row of any table: the machine (several runs) and the entry's name.
std::vector<std::string> row_head(const RunDoc& run, const Result& r, bool has_machine) {
  std::vector<std::string> row;
  if (has_machine) row.push_back(csv_text(machine_key(run.context.machine)));
  row.push_back(csv_text(r.name()));
  return row;
}

/// One row per entry: its parameters and the statistics over its repetitions (a seed
/// program's printed figure as its cycles_per_page, measured or not).
void entries_csv(std::ostringstream& o, const std::vector<RunDoc>& runs, bool has_machine) {
  std::vector<std::string> header = {"name", "kernel", "kind", "size", "status", "message"};
  if (has_machine) header.insert(header.begin(), "machine");
  for (const Column<Result>& c : kParamColumns) header.emplace_back(c.name);
  for (const Column<EntryFigures>& c : kStatColumns) header.emplace_back(c.name);
  header.push_back("preset");
  csv_record(o, header);
  for (const RunDoc& run : runs)
    for (const Result& r : run.results) {
      std::vector<std::string> row = row_head(run, r, has_machine);
      row.push_back(csv_text(r.point.kernel));
      row.push_back(std::string(to_string(r.kind)));
      row.push_back(std::to_string(r.point.at.size));
      row.push_back(r.status.kind == StatusKind::error     ? "error"
                    : r.status.kind == StatusKind::skipped ? "skipped"
                    : r.ok()                               ? "ok"
                                                           : "no time");
      row.push_back(csv_text(r.status.message));
      for (const Column<Result>& c : kParamColumns) row.push_back(c.of(r));
      const std::optional<EntryFigures> f = r.ok() ? std::optional(entry_figures(r)) : std::nullopt;
      for (const Column<EntryFigures>& c : kStatColumns)
        row.push_back(r.seed && c.name == "cycles_per_page" ? cell(r.seed->printed_ticks) : f ? c.of(*f) : "");
      row.push_back(csv_text(r.preset ? r.preset->printed : ""));
      csv_record(o, row);
    }
}

/// One row per repetition: the fields of a results file's "reps" items but the
/// samples and counters.
void repetitions_csv(std::ostringstream& o, const std::vector<RunDoc>& runs, bool has_machine) {
  std::vector<std::string> header = {"name", "repetition"};
  if (has_machine) header.insert(header.begin(), "machine");
  for (const Column<Repetition>& c : kRepColumns) header.emplace_back(c.name);
  csv_record(o, header);
  for (const RunDoc& run : runs)
    for (const Result& r : run.results)
      for (size_t k = 0; k < r.reps.size(); ++k) {
        std::vector<std::string> row = row_head(run, r, has_machine);
        row.push_back(std::to_string(k));
        for (const Column<Repetition>& c : kRepColumns) row.push_back(c.of(r.reps[k]));
        csv_record(o, row);
      }
}

/// One row per sample: the TSC ticks of calls_per_sample operations.
void samples_csv(std::ostringstream& o, const std::vector<RunDoc>& runs, bool has_machine) {
  std::vector<std::string> header = {"name", "repetition", "sample", "calls_per_sample", "ticks"};
  if (has_machine) header.insert(header.begin(), "machine");
  csv_record(o, header);
  for (const RunDoc& run : runs)
    for (const Result& r : run.results)
      for (size_t k = 0; k < r.reps.size(); ++k)
        for (size_t i = 0; i < r.reps[k].sample_ticks.size(); ++i) {
          std::vector<std::string> row = row_head(run, r, has_machine);
          for (uint64_t v : {uint64_t(k), uint64_t(i), uint64_t(r.reps[k].calls_per_sample), r.reps[k].sample_ticks[i]})
            row.push_back(std::to_string(v));
          csv_record(o, row);
        }
}

}  // namespace

std::string to_csv(const std::vector<RunDoc>& runs, CsvTable table) {
  std::ostringstream o;
  const bool has_machine = runs.size() > 1;
  if (table == CsvTable::entries) entries_csv(o, runs, has_machine);
  else if (table == CsvTable::repetitions) repetitions_csv(o, runs, has_machine);
  else samples_csv(o, runs, has_machine);
  return o.str();
}

}  // namespace kex
