// Other formats for a results document: Google Benchmark JSON for its
// tools/compare.py, and CSV (one row per entry) for spreadsheets and scripts.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace kex {

/// Google Benchmark JSON that tools/compare.py reads unchanged: the context's
/// Google Benchmark fields (and kex's, which its tools ignore), one
/// "iteration" entry per measured point with name, run_name, run_type,
/// family_index, per_family_instance_index, repetitions, repetition_index,
/// threads, iterations, real_time, cpu_time, time_unit "ns", label, and flat
/// numeric user counters (bytes_per_second, gbps, cycles_per_page, ...). Raw
/// samples and nested objects are left out. Skipped and failed entries are left
/// out too (compare.py would fold their zero times into its geometric mean);
/// their names and messages go to context.kex_not_measured.
nlohmann::json to_gbench(const nlohmann::json& results);

/// CSV (RFC 4180, header row first): one row per entry, measured or not, with
/// its parameters, statistics (ns and GB/s) and status. A multi-machine merge
/// gets a "machine" column filled in.
std::string to_csv(const nlohmann::json& results);

}  // namespace kex
