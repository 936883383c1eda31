// Preset names, ids, aliases and set names to presets, for configs and --preset.
#include "src/run/preset_select.hpp"

#include "src/core/error.hpp"

namespace kex {

std::vector<const Preset*> resolve_presets(const std::vector<std::string>& names, const std::string& source) {
  std::vector<const Preset*> out;
  for (size_t i = 0; i < names.size(); ++i) {
    auto set = preset_set(names[i]);
    if (!set.empty()) {
      out.insert(out.end(), set.begin(), set.end());
      continue;
    }
    if (const Preset* p = find_preset(names[i])) {
      out.push_back(p);
      continue;
    }
    std::string sets;
    for (const auto& s : preset_set_names()) sets += (sets.empty() ? "" : ", ") + s;
    throw InputError(source + ": /presets/" + std::to_string(i) + ": \"" + names[i] +
                    "\": unknown preset (see `kex list presets`; sets: " + sets + ")");
  }
  return out;
}

}  // namespace kex
