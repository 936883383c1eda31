// The `tune` section of a results file (configs/schema/results.schema.json "tune") and back.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "src/model/tune.hpp"

namespace kex {

/// The record as the results file's "tune" object: op, budget and time used (s), the
/// margin, the reference kept, the stages, the drops with their evidence, the verdict
/// per size and the dispatch table (the last row without max_bytes: every larger size)
/// with its switches; the validation of the tunables it suggests, when there is one.
/// One field table serves both directions (src/model/json_fields.hpp).
nlohmann::ordered_json to_json(const TuneRecord& t);

/// Reads what to_json wrote. Throws InputError("<where>/<path>: ...") for a missing,
/// unknown, mistyped or out-of-range field, an unknown op, a name with a control
/// character, a tunable kex does not suggest, or a dispatch table out of order.
TuneRecord tune_from_json(const nlohmann::json& j, const std::string& where);

/// The "tune" section of a whole results document read from `path`. InputError
/// "PATH: no tune section: ..." when the document has none (not written by `kex tune`).
TuneRecord tune_section_from_json(const nlohmann::json& doc, const std::string& path);

}  // namespace kex
