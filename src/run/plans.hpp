// Configs to kernel plans: generated specs, named presets and the libc and
// rep-string baselines, with the facts each needs (CPU gate, alignment, region).
#pragma once
#include <string>
#include <vector>

#include "generators/presets/presets.hpp"
#include "src/model/config.hpp"
#include "src/model/expand.hpp"
#include "src/model/plan.hpp"

namespace kex {

/// libc's memcpy (copy) or memset writing `fill` (clear), with the kernel ABI: what the
/// memcpy/memset baselines and `kex crossovers --validate`'s children time.
KernelFn libc_function(Op op, uint8_t fill = 0);

/// Expands preset names, ids, aliases and set names ("reference", "fastc", ...) in
/// order (a set may list a kernel twice, as its seed ran it). InputError naming
/// `source` and /presets/i for an unknown name.
std::vector<const Preset*> resolve_presets(const std::vector<std::string>& names, const std::string& source);

/// The plan of a generated spec (key = its canonical name).
KernelPlan spec_plan(const KernelSpec& s);

/// The plan of a preset under `opts` (key = its id). Emission problems become plan.error.
KernelPlan preset_plan(const Preset& p, const PresetOptions& opts);

/// The plan of a baseline: "memcpy", "memset" (libc) or "rep_movsb", "rep_stosb"
/// (rep-string specs); nullopt for another name.
std::optional<KernelPlan> baseline_plan(const std::string& name);

/// Every plan of a config: its grids' specs, its presets when the harness is kex,
/// and its baselines. InputError for an unknown preset or baseline, and for a seed
/// program's set (preset_set_harness) under another seed harness than its own.
ConfigPlans config_plans(const Config& c);

}  // namespace kex
