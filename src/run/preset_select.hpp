// Preset names, ids, aliases and set names to presets, for configs and --preset.
#pragma once
#include <string>
#include <vector>

#include "generators/presets/presets.hpp"

namespace kex {

/// Expands preset names, ids, aliases and set names ("reference", "fastc", ...) in
/// order. InputError naming source and /presets/i for an unknown name.
std::vector<const Preset*> resolve_presets(const std::vector<std::string>& names, const std::string& source);

}  // namespace kex
