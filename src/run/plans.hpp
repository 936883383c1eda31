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

class LoadedCode;

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
/// (rep-string specs), or of a dispatch kernel ("dispatch:...", dispatch_plan; a name that
/// is not one throws std::invalid_argument: configs check theirs first); nullopt for another name.
std::optional<KernelPlan> baseline_plan(const std::string& name);

struct GlibcImpl;
struct GlibcImpls;

/// The plan of glibc variant `g` (key glibc/SYMBOL, with /fill:0xNN for a memset variant
/// writing `fill`): it runs through an outside-call stub (generators/outside_call.hpp);
/// an unusable variant's plan has skip = its reason and is never called.
KernelPlan impl_plan(const GlibcImpl& g, uint8_t fill);

/// Whether a baselines entry names outside implementations: a set (glibc-copy,
/// glibc-move, glibc-clear) or an implementation name (glibc/SYMBOL).
bool is_impl_entry(const std::string& name);

/// The plans of a baselines entry from `impls`: every variant of a set (none, and a
/// warning line on stderr, when the list is missing), or the one named; memset variants
/// write `fill` unless the name has its own. Empty for a name of neither form;
/// InputError naming `where`, the name and the sets for an unknown glibc/NAME.
std::vector<KernelPlan> impl_plans(const std::string& name, uint8_t fill, const GlibcImpls& impls, const std::string& where);

/// Every plan of a config: its grids' specs, its presets when the harness is kex,
/// and its baselines. InputError for an unknown preset or baseline, and for a seed
/// program's set (preset_set_harness) under another seed harness than its own. The code
/// the config loads is loaded into `loaded` (the run's registry: a NAME given twice there
/// for other code is refused), whose slots the plans' stubs then point into.
ConfigPlans config_plans(const Config& c, LoadedCode& loaded);

}  // namespace kex
