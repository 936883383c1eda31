// The `tune` section of a results file (configs/schema/results.schema.json "tune") and back.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "src/model/tune.hpp"

namespace kex {

/// The record as the results file's "tune" object: op, budget and time used (s), the
/// margin, the reference kept, the stages, the drops with their evidence, the verdict
/// per size and the dispatch table (max_bytes null: every larger size) with its switches.
nlohmann::ordered_json to_json(const TuneRecord& t);

/// Reads what to_json wrote. Throws InputError("<where>/<path>: ...") for a missing or
/// mistyped field, an unknown op, or a dispatch table out of order.
TuneRecord tune_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace kex
