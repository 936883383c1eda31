// Reading results files written by `kex run` (Google Benchmark envelope:
// {"context": {...}, "benchmarks": [...]}) and the accessors that plot,
// compare, export, merge and crossovers share.
#pragma once
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kex {

/// Loads and checks a results file. Throws InputError("<path>: ...") when it
/// cannot be read, is not JSON, or lacks a "benchmarks" array.
nlohmann::json load_results(const std::string& path);

/// True when the entry was measured (not skipped, no error) and has a time.
bool entry_ok(const nlohmann::json& e);

/// "copy" or "clear": params.op, else derived from a baseline/preset kernel name; "" if unknown.
std::string entry_op(const nlohmann::json& e);

/// params.cache, "warm" when absent.
std::string entry_cache(const nlohmann::json& e);

/// Median GB/s (1e9 bytes per second, bytes counted once): stats.gbps, else
/// bytes_per_second / 1e9, else size / real_time; nullopt when none is there.
std::optional<double> entry_gbps(const nlohmann::json& e);

/// Median ns per call: stats.median_ns, else real_time converted from time_unit.
std::optional<double> entry_median_ns(const nlohmann::json& e);

/// 95% CI of the median in ns, when the entry has one.
std::optional<std::pair<double, double>> entry_ci_ns(const nlohmann::json& e);

/// Numeric field at `key` of object `o` (or nullopt when absent / not a number).
std::optional<double> num(const nlohmann::json& o, const char* key);

/// A string identifying the kind of machine a run's context describes: CPU model,
/// family/model/stepping and cache sizes (not the host name, so shards that a
/// scheduler spread over identical nodes share it).
std::string machine_key(const nlohmann::json& context);

/// Short human label for a run: host name and CPU model.
std::string run_label(const nlohmann::json& context);

/// Splits a document into one results document per machine. A plain results
/// file gives itself; a multi-machine file from `kex merge` (context.machines[],
/// entries tagged with "machine") gives one document per machine, in order.
std::vector<nlohmann::json> split_machines(const nlohmann::json& doc);

/// Cache sizes for the figure markers: (label, bytes), from context.machine.caches,
/// else Google Benchmark's context.caches (data/unified caches only).
std::vector<std::pair<std::string, double>> cache_marks(const nlohmann::json& context);

/// "4 KiB", "1.5 MiB", "512 B": binary units for byte sizes.
std::string human_bytes(double bytes);

/// The --filter option as a regex (ECMAScript); nullopt for "". InputError when invalid.
std::optional<std::regex> filter_regex(const std::string& filter);

}  // namespace kex
