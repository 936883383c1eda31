// What `kex run` measures when it is named on the command line instead of in a
// config: kernel names (specs, presets, preset sets, baselines) and the axes
// --sizes, --cache and --layout. They become one more typed config, written and read
// back by make_config, so every check of a config file applies.
#pragma once
#include <string>
#include <vector>

#include <optional>

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
/// units (4096, 4K, 4KiB, 64MiB, 1GiB). The sizes, ascending, each once; InputError naming --sizes.
std::vector<uint64_t> sizes_option(const std::string& text);

/// --stream: NAME|PATH[,NAME|PATH...], each once. InputError naming --stream.
std::vector<std::string> stream_option(const std::string& text);

/// --footprint: L1, L2, LLC or a byte size (64 B up), a list, each once. InputError naming --footprint.
std::vector<Footprint> footprint_option(const std::string& text);

/// --cache: warm, cold or warm,cold. InputError naming --cache.
std::vector<CacheMode> cache_option(const std::string& text);

/// --threads: a list of thread counts 1..1024 and "all" (the affinity mask's CPUs,
/// 1,2,all), each count once. InputError naming --threads.
std::vector<uint32_t> threads_option(const std::string& text);

/// The layout axes --layout gives: the four together (a token not given keeps its default).
struct LayoutAxes {
  std::vector<uint64_t> src_offsets = {0};
  std::vector<uint64_t> dst_offsets = {0};
  std::vector<std::optional<int64_t>> distances = {std::nullopt};  ///< nullopt: separate buffers
  std::vector<bool> huge_pages = {true};
};

/// --layout (repeatable): point-name layout tokens joined by '/', each with a list
/// of values: src:N[,N...], dst:N[,N...], dist:D[,D...] (signed bytes, or none:
/// separate buffers), nohuge. InputError naming --layout.
LayoutAxes layout_option(const std::vector<std::string>& tokens);

/// The axes a command line gives (--sizes, --cache, --layout, --threads); each one given
/// replaces the config's axis (--layout: all four layout axes), at the top level and in
/// every grid.
struct AxesOptions {
  std::optional<std::vector<uint64_t>> sizes;
  std::vector<std::string> streams;          ///< --stream: distributions (names or paths)
  std::optional<std::vector<Footprint>> footprints;  ///< --footprint
  std::optional<std::vector<CacheMode>> caches;
  std::optional<LayoutAxes> layout;
  std::optional<std::vector<uint32_t>> threads;
  void apply(Axes& a) const;
  void apply(Config& c) const;
};

/// The sizes the names run at without --sizes: the built-in default sweep's
/// (256 B to 64 MiB, x4), or one page (4096) when only presets are named.
std::vector<uint64_t> default_name_sizes(const NamedKernels& k);

/// The config of the named kernels: one grid per spec, the presets, the loads and the
/// baselines named (none named: every baseline of the ops named, as in any config), at
/// default_name_sizes and the axes given. Made by make_config under the source
/// kCommandLineSource (InputError as for a config file).
Config names_config(const NamedKernels& k, const AxesOptions& axes);

}  // namespace kex
