// Other formats for a run: Google Benchmark JSON for its tools/compare.py, and
// CSV (one row per point) for spreadsheets and scripts.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/context.hpp"

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

/// CSV (RFC 4180, header row first): one row per point, measured or not, with its
/// parameters, every coordinate, where it ran, statistics (ns and GB/s) and
/// status. Several machines get a "machine" column. A text cell that begins with
/// = + - @, tab or CR is written quoted with a leading ' (a spreadsheet takes it as
/// text, never as a formula); numbers are written as numbers, negative ones too.
/// Control characters in text are escaped (terminal_text).
std::string to_csv(const std::vector<RunDoc>& runs);

}  // namespace kex
