// Other formats for a run: Google Benchmark JSON for its tools/compare.py, and
// CSV (entries, repetitions or samples, one table each) for spreadsheets and scripts.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/context.hpp"
#include "src/model/results_format.hpp"

namespace kex {

/// Google Benchmark JSON that tools/compare.py reads unchanged: the context (kex's
/// fields too, which its tools ignore; the configs left out), one "iteration"
/// entry per measured point with name, run_name, run_type, family_index,
/// per_family_instance_index, repetitions, repetition_index, threads, iterations,
/// real_time, cpu_time, time_unit "ns", label, and flat numeric user counters
/// (bytes_per_second, gbps, cycles_per_page, ...). Raw samples and nested objects
/// are left out. Skipped and failed points are left out too (compare.py would fold
/// their zero times into its geometric mean); their names and messages go to
/// context.kex_not_measured. Several machines: names are prefixed "MACHINE|".
nlohmann::json to_gbench(const std::vector<RunDoc>& runs);

/// The tables a results file holds, one CSV each: its entries (points), their
/// repetitions, and the repetitions' samples.
enum class CsvTable { entries, repetitions, samples };
/// "entries", "repetitions", "samples": the words of kex export --table.
std::string_view to_string(CsvTable);
inline constexpr std::array kCsvTables{CsvTable::entries, CsvTable::repetitions, CsvTable::samples};

/// The table's word ("entries", "repetitions", "samples"), or nullopt.
std::optional<CsvTable> parse_csv_table(std::string_view word);

/// The formats kex export writes (kex's own JSON is the file it reads).
inline constexpr std::array kExportFormats{ResultsFormat::csv, ResultsFormat::gbench};

/// CSV (RFC 4180, header row first) of one table; the tables join on "name" (and
/// "machine"), "repetition". entries: one row per point, measured or not, with its
/// parameters, every coordinate, where it ran, the statistics over its repetitions
/// (ns and GB/s) and status. repetitions: one row per repetition (its index, TSC
/// ticks per operation, stop_reason, cycles method, disturbances, order and round).
/// samples: one row per sample (its TSC ticks for calls_per_sample operations).
/// Several machines get a "machine" column. A text cell that begins with = + - @, tab
/// or CR is written quoted with a leading ' (a spreadsheet takes it as text, never as
/// a formula); numbers are written as numbers, negative ones too. Control characters
/// in text are escaped (terminal_text).
std::string to_csv(const std::vector<RunDoc>& runs, CsvTable table = CsvTable::entries);

}  // namespace kex
