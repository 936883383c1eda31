// Reading results files written by `kex run` or `kex merge` into typed runs, and
// the small helpers the writers share.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/context.hpp"

namespace kex {

/// The JSON of a results file. InputError("<path>: ...") when it is not a regular file,
/// cannot be read or is not JSON.
nlohmann::json read_results_json(const std::string& path);

/// Loads a results file: one RunDoc per machine (a plain run gives one). Throws
/// InputError("<path>...: ...") when it cannot be read, is not JSON, or an entry
/// is malformed (naming its JSON path).
std::vector<RunDoc> load_results(const std::string& path);

/// load_results of a file's JSON already read (`path` names it in errors); the caller
/// catches std::bad_alloc.
std::vector<RunDoc> results_from_json(const nlohmann::json& doc, const std::string& path);

/// Every measured result's repetitions hold physical figures: a median > 0, order
/// statistics >= 0, all below 1e15 ticks, n and calls per sample >= 1, a TSC rate
/// of 1e6 to 1e11 Hz. Throws InputError naming the entry's JSON path otherwise
/// (a corrupted file must not pass a --fail-above gate with infinite speedups).
void check_measured(const RunDoc& d);

/// Exactly one run (compare's sides, summary's file): InputError naming `path`, the
/// machines it holds (their labels, escaped and cut) and `advice` when it holds several.
RunDoc load_one_run(const std::string& path, const std::string& advice = "give one run per side");

/// The one run of `docs` (read from `path`), or the InputError load_one_run throws.
RunDoc one_run(std::vector<RunDoc> docs, const std::string& path, const std::string& advice);

/// "4 KiB", "1.5 MiB", "512 B": binary units for byte sizes.
std::string human_bytes(double bytes);

/// The coordinates of a point with the size left out: the condition a row of a
/// table or a curve is measured under ("cache cold, dist 64"). Results with the
/// same condition are comparable across kernels.
Coords condition(const Coords& c);

/// A short text of a condition's non-default coordinates ("dist:64/cold"), "" for the defaults.
std::string condition_label(const Coords& condition);
/// The layout part of a condition, as a column label ("src:0/dst:0" for the default layout).
std::string layout_label(const Layout& l);

}  // namespace kex
