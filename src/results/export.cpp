#include "src/results/export.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <string_view>

#include "src/core/terminal_text.hpp"
#include "src/model/result_json.hpp"
#include "src/results/results.hpp"

namespace kex {

using nlohmann::json;

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
      const int inst = instance[kernel]++;
      const EntryFigures f = entry_figures(r);
      const Aggregate& a = f.a;
      const std::vector<const Repetition*> reps = counted_reps(r);
      auto row = [&](const std::string& row_name, double ns) {
        json b;
        b["name"] = row_name;
        b["family_index"] = family_index;
        b["per_family_instance_index"] = inst;
        b["run_name"] = name;
        b["run_type"] = "iteration";
        b["repetitions"] = reps.size();
        b["repetition_index"] = 0;
        b["threads"] = r.point.at.threads;
        b["iterations"] = f.iterations;
        b["real_time"] = ns;
        b["cpu_time"] = ns;
        b["time_unit"] = "ns";
        b["label"] = std::string(to_string(r.kind));
        b["bytes_per_second"] = gbps_at(moved_bytes(r.point.at), ns) * 1e9;
        b["size"] = r.point.at.size;
        return b;
      };
      if (reps.size() < 2) {
        json b = row(name, a.median_ns);
        // The entry's own figures under the results JSON's names ("stats").
        for (const auto& [k, v] : {std::pair<const char*, double>{"gbps", f.gbps}, {"gbps_best", f.gbps_best},
                                   {"gbps_p10", f.gbps_p10}, {"gbps_p90", f.gbps_p90}, {"min_ns", a.min_ns},
                                   {"p10_ns", a.p10_ns}, {"p90_ns", a.p90_ns}, {"max_ns", a.max_ns},
                                   {"ci95_low_ns", a.ci_low_ns}, {"ci95_high_ns", a.ci_high_ns},
                                   {"ci_rel_halfwidth", a.ci_rel}, {"cycles_per_page", f.cycles_per_page},
                                   {"bytes_per_cycle", f.bytes_per_cycle}})
          b[k] = v;
        benches.push_back(std::move(b));
        continue;
      }
      // One iteration row per repetition, then Google Benchmark's aggregates, so
      // tools/compare.py runs its U test on the repetitions.
      for (size_t k = 0; k < reps.size(); ++k) {
        const double ns = reps[k]->per_call.median * 1e9 / r.tsc_hz;
        json b = row(name, ns);
        b["repetition_index"] = k;
        b["iterations"] = uint64_t(reps[k]->calls_per_sample) * reps[k]->sample_ticks.size();
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
        b["bytes_per_second"] = std::string(g.unit) == "time" && g.ns > 0 ? gbps_at(moved_bytes(r.point.at), g.ns) * 1e9 : 0.0;
        benches.push_back(std::move(b));
      }
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

/// A cell of a JSON value: numbers and booleans as they are (a negative number is a
/// number, not a formula), strings as text cells.
std::string csv_cell(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return csv_text(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v.get<double>());
    return buf;
  }
  return csv_text(v.dump());
}

}  // namespace

std::optional<CsvTable> parse_csv_table(std::string_view word) {
  if (word == "entries") return CsvTable::entries;
  if (word == "repetitions") return CsvTable::repetitions;
  if (word == "samples") return CsvTable::samples;
  return std::nullopt;
}

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

/// One row per entry: its parameters and the statistics over its repetitions.
void entries_csv(std::ostringstream& o, const std::vector<RunDoc>& runs, bool has_machine) {
  static const char* param_cols[] = {"op",          "regs",           "unroll",          "scratch",   "prefetch",
                                     "pf_distance", "pf_every",       "store",           "direction", "align",
                                     "block_bytes", "fill",           "src_offset",      "dst_offset", "distance",
                                     "huge_pages",  "cache",          "chunk",           "prefill",   "consume",
                                     "threads",     "harness",     "src_page_offset", "dst_page_offset", "relative_offset"};
  static const char* stat_cols[] = {"n",           "repetitions",  "disturbed_repetitions", "median_ns", "min_ns",
                                    "p10_ns",      "p90_ns",       "max_ns",    "ci95_low_ns",  "ci95_high_ns",
                                    "ci_rel_halfwidth", "gbps",    "gbps_best", "gbps_p10",     "gbps_p90",
                                    "cycles_per_page",  "bytes_per_cycle"};
  std::vector<std::string> header = {"name", "kernel", "kind", "size", "status", "message"};
  if (has_machine) header.insert(header.begin(), "machine");
  for (auto c : param_cols) header.push_back(c);
  for (auto c : stat_cols) header.push_back(c);
  header.push_back("preset");
  csv_record(o, header);
  for (const RunDoc& run : runs)
    for (const Result& r : run.results) {
      const json e = to_json(r);
      std::vector<std::string> row = row_head(run, r, has_machine);  // finished cells
      row.push_back(csv_text(r.point.kernel));
      row.push_back(std::string(to_string(r.kind)));
      row.push_back(std::to_string(r.point.at.size));
      row.push_back(r.status.kind == StatusKind::error     ? "error"
                    : r.status.kind == StatusKind::skipped ? "skipped"
                    : r.ok()                               ? "ok"
                                                           : "no time");
      row.push_back(csv_text(r.status.message));
      for (auto c : param_cols)  // params leave threads out at its default
        row.push_back(std::string_view(c) == "threads" ? std::to_string(r.point.at.threads)
                                                       : csv_cell(e["params"].value(c, json())));
      json stats = e.value("stats", json::object());
      if (r.seed) stats["cycles_per_page"] = r.seed->printed_ticks;
      for (auto c : stat_cols) row.push_back(csv_cell(stats.value(c, json())));
      row.push_back(csv_text(r.preset ? r.preset->printed : ""));
      csv_record(o, row);
    }
}

/// One row per repetition: the fields of a results file's "reps" items but the
/// samples and counters.
void repetitions_csv(std::ostringstream& o, const std::vector<RunDoc>& runs, bool has_machine) {
  static const char* rep_cols[] = {"calls_per_sample", "n",          "min_ticks",        "p10_ticks",
                                   "median_ticks",     "p90_ticks",  "max_ticks",        "ci95_low_ticks",
                                   "ci95_high_ticks",  "ci_rel_halfwidth", "stop_reason", "cycles_per_tick",
                                   "cycles_method",    "context_switches", "cpu_migrations", "seconds",
                                   "steal_s",          "order",      "round",            "previous",
                                   "disturbed"};
  std::vector<std::string> header = {"name", "repetition"};
  if (has_machine) header.insert(header.begin(), "machine");
  for (auto c : rep_cols) header.push_back(c);
  csv_record(o, header);
  for (const RunDoc& run : runs)
    for (const Result& r : run.results)
      for (size_t k = 0; k < r.reps.size(); ++k) {
        const json rep = to_json(r.reps[k]);
        std::vector<std::string> row = row_head(run, r, has_machine);
        row.push_back(std::to_string(k));
        for (auto c : rep_cols) row.push_back(csv_cell(rep.value(c, json())));
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
