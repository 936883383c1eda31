// The readable table printed at the end of a run, computed from the results document.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace kex {

/// Per op, cache mode and size: the fastest kernel (by median GB/s), its GB/s, libc's
/// GB/s and the ratio, and rep movsb/stosb; then counts of skipped and failed kernels.
/// Empty string when the results hold no measured entries.
std::string summary_table(const nlohmann::ordered_json& results);

}  // namespace kex
