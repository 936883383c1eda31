// Presets inside `kex run`: names and sets to presets, presets to kernel entries
// (kex harness), and the seed-layout text of kex-harness results.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/config.hpp"
#include "generators/presets/presets.hpp"
#include "src/run/sweep.hpp"

namespace kex {

/// Appends a config's presets (kex harness only; each id once) as kernel entries.
void append_preset_kernels(const Config& c, std::vector<KernelEntry>& out);

/// "clear_page function 'xmm_clear'\ttook N cycles per page (X MB/s)" lines for the
/// kex-harness preset entries measured at 4096 bytes, with a header; "" when none.
std::string preset_seed_text(const nlohmann::ordered_json& results);

}  // namespace kex
