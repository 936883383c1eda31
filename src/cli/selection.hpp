// What `kex run` measures when it is named on the command line instead of in a
// config: kernel names (specs, presets, preset sets, baselines) and the axes
// --sizes, --cache and --layout. They become one more config, written as JSON
// text and parsed with parse_config, so every check of a config file applies.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/config.hpp"
#include "src/model/spec.hpp"

namespace kex {

/// The source label of the config the command line's names make.
inline constexpr const char* kCommandLineSource = "command line";

/// Whether a positional argument of `kex run` is a config rather than a kernel name:
/// "-" (stdin), "built-in:NAME", an existing path, or a name ending in ".json".
bool is_config_argument(const std::string& arg);

/// Kernels named on the command line, each once, in the order given.
struct NamedKernels {
  std::vector<KernelSpec> specs;        ///< generated kernels (copy/avx/unroll:256, ...)
  std::vector<std::string> presets;     ///< preset ids, printed names, aliases or set names
  std::vector<std::string> baselines;   ///< memcpy, memset, rep_movsb, rep_stosb
  std::vector<LoadSpec> loads;          ///< --load: outside code (lib/NAME, asm/NAME)
  bool empty() const { return specs.empty() && presets.empty() && baselines.empty() && loads.empty(); }
};

/// Adds one name: a baseline, else a spec name (parse_spec_name, then validate),
/// else a preset or preset set. InputError, one line:
/// "NAME: not a config file and not a kernel name: <why the name does not parse>".
void add_kernel_name(NamedKernels& into, const std::string& name);

/// --sizes: ITEM[,ITEM...]; ITEM = SIZE, SIZE..SIZE (powers of two from the first,
/// the last included) or SIZE..SIZE:N (N sizes per octave); SIZE = bytes or binary
/// units (4096, 4K, 4KiB, 64MiB, 1GiB). The config's "sizes" value; InputError naming --sizes.
nlohmann::json sizes_option(const std::string& text);

/// --cache: warm, cold or warm,cold. The config's "cache" value; InputError naming --cache.
nlohmann::json cache_option(const std::string& text);

/// --threads: a list of thread counts 1..1024 and "all" (1,2,all). The config's "threads"
/// value; InputError naming --threads.
nlohmann::json threads_option(const std::string& text);

/// --layout (repeatable): point-name layout tokens joined by '/', each with a list
/// of values: src:N[,N...], dst:N[,N...], dist:D[,D...] (signed bytes, or none:
/// separate buffers), nohuge. The config's "layout" object; InputError naming --layout.
nlohmann::json layout_option(const std::vector<std::string>& tokens);

/// The sizes the names run at without --sizes: the built-in default sweep's
/// (256 B to 64 MiB, x4), or one page (4096) when only presets are named.
nlohmann::json default_name_sizes(const NamedKernels& k);

/// The config of the named kernels: one grid per spec, the presets, and the baselines
/// named (none named: every baseline of the ops named, as in any config), at
/// `sizes`, `cache`, `layout`, `threads` (null = not given). Parsed with parse_config under
/// the source kCommandLineSource.
Config names_config(const NamedKernels& k, const nlohmann::json& sizes, const nlohmann::json& cache,
                    const nlohmann::json& layout, const nlohmann::json& threads);

}  // namespace kex
