// Sweep configs: JSON in, a validated Config out (schema: configs/schema/config.schema.json).
// Every coordinate is an axis: one value or a list (cartesian product), at the top
// level (every grid) or inside a kernel grid (overriding the top level for that grid).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/filter.hpp"
#include "src/model/load_spec.hpp"
#include "src/model/point.hpp"
#include "src/model/policy.hpp"
#include "src/model/protocol.hpp"
#include "src/model/spec.hpp"

namespace kex {

/// A cache level a stream's footprint is sized by.
enum class FootprintLevel { l1, l2, llc };
std::string_view to_string(FootprintLevel l);  ///< "L1", "L2", "LLC"
std::optional<FootprintLevel> parse_footprint_level(std::string_view s);
inline constexpr std::array kFootprintLevels{FootprintLevel::l1, FootprintLevel::l2, FootprintLevel::llc};

/// The bytes each region of a stream walks: a cache level's share (src/run/streams.hpp says
/// how much of it: fleetbench's) or a number of bytes.
struct Footprint {
  std::optional<FootprintLevel> level = FootprintLevel::l2;
  uint64_t bytes = 0;  ///< when there is no level
  bool operator==(const Footprint&) const = default;
};
/// "L2" or the bytes ("1048576").
std::string to_string(const Footprint& f);

/// The values of every coordinate axis (docs/DESIGN.md "The parameter space").
/// A point is one value of each; defaults are one value each.
struct Axes {
  std::vector<uint64_t> sizes;                                ///< ascending, unique, > 0
  std::vector<uint64_t> src_offsets = {0};
  std::vector<uint64_t> dst_offsets = {0};
  std::vector<std::optional<int64_t>> distances = {std::nullopt};  ///< nullopt: src and dst in separate buffers
  std::vector<bool> huge_pages = {true};
  std::vector<CacheMode> caches = {CacheMode::warm};
  std::vector<uint64_t> chunks = {0};                         ///< 0: one call over the extent
  std::vector<std::optional<uint8_t>> prefills = {std::nullopt};
  std::vector<bool> consumes = {false};
  std::vector<uint32_t> threads = {1};                        ///< workers at once ("all": the affinity mask's CPUs)
  /// Streams of calls (docs/DESIGN.md "A stream is an axis"): each distribution (a shipped
  /// name, configs/streams/, or a file's path) at each footprint, drawn with stream_seed,
  /// stream_calls a pass; their points are warm, one thread, at the default layout.
  std::vector<std::string> streams;
  std::vector<Footprint> footprints = {Footprint{}};
  uint64_t stream_seed = 1;
  uint32_t stream_calls = kDefaultStreamCalls;
  /// The stream points' coordinates once the run drew them (resolve_streams in
  /// src/run/streams.hpp): stream, footprint, seed, calls and the pass's bytes as size. Not
  /// a config key: empty until then, and a config's streams have no points before.
  std::vector<Coords> stream_coords;
  /// Whether each stream's prediction sizes (src/run/streams.hpp) are measured beside it.
  /// Not a config key: kex tune's stages race the stream points alone, and measure those
  /// sizes once at the end for the kernel chosen and the reference.
  bool stream_fixed_sizes = true;
  bool operator==(const Axes&) const = default;
};

/// One kernel grid of a config after expansion: its specs and its axes (the
/// top level's, with the grid's own overrides applied).
struct Grid {
  std::vector<KernelSpec> specs;    ///< valid specs in grid order, each once
  Axes axes;
};

/// `segments` section: run the segment-override table with the sweep.
struct SegmentsRequest {
  bool enabled = false;
  uint64_t iterations = 2'000'000;
  bool mixed = true;
  bool modern = true;
  bool operator==(const SegmentsRequest&) const = default;
};

/// One config file after validation. `raw` is the JSON as written (stored in results).
struct Config {
  std::string source;                  ///< file path, or "built-in:default.json"
  nlohmann::json raw;
  std::string name, description;       ///< "name" and "description" as written ("" = not given)
  Axes axes;                           ///< the top level's axes (presets and baselines use these)
  std::vector<Grid> grids;
  std::vector<std::string> presets;    ///< preset ids, aliases or set names as written (checked by the run layer)
  Harness harness = Harness::kex;      ///< presets only
  uint32_t repeat = 1;                 ///< seed harnesses: runs of the single-pass program (1..1000)
  bool preset_fsave = true;
  std::vector<std::string> baselines;  ///< subset of memcpy, memset, rep_movsb, rep_stosb
  /// "load": outside code to race (lib/NAME, asm/NAME), each NAME once. Loaded only
  /// from a config the user runs, never from a journal's copy (src/cli/run_resume.cpp).
  std::vector<LoadSpec> loads;
  Policy policy;
  ProtocolRequest protocol;            ///< the protocol knobs it sets (why: docs/methodology.md §6)
  SegmentsRequest segments;
  std::string out_json, plot_dir;      ///< outputs.json / outputs.plot_dir ("" = not set)
  bool seed_exact = false;             ///< outputs.seed_exact: print only what the seed programs printed
  std::string graph_dir;               ///< outputs.graph_dir: Asami's runtests -graph files ("" = not set)
  /// Which of its points run (`kex run --filter`; not a JSON key): unset = all. See expand_points.
  std::optional<NameFilter> filter;
};

/// The longest config kex reads (a file, stdin, a journal's copy): 16 MiB.
constexpr size_t kMaxConfigBytes = size_t(16) << 20;

/// Parses and validates a config. Errors throw InputError with one line:
/// "<source>: <JSON path>: <value>: <what is allowed>", or the parse position
/// ("<source>:<line>:<column>: <parser message>") for malformed JSON, or a text
/// above kMaxConfigBytes. `base` gives the top level's axes where the config does not
/// (kex tune --sizes for a config without sizes); Axes{}'s defaults otherwise.
Config parse_config(const std::string& text, const std::string& source, const Axes& base = Axes{});

/// parse_config of a config already read as JSON (a journal header's copy), read once:
/// the same checks and errors but the text's own (size, syntax, a NUL, a key twice).
Config config_from_json(nlohmann::json j, const std::string& source, const Axes& base = Axes{});

/// The checks parse_config makes, run on the typed record `c` (a config kex makes
/// itself; make_config, src/model/config_json.hpp): every field by the rule or form the
/// reader applies to it (FieldChecker, src/model/json_fields.hpp), then the reader's checks
/// across fields (a distance with a dst_offset, buffers beyond this machine's memory, a
/// repeat without a harness, a minimum above its maximum, each load's NAME once, nothing to
/// run). Errors as for a file, at the JSON path config_json writes the field at, quoting
/// the value from `c.raw` (config_json of it); presets under the kex harness without sizes
/// get 4096 as when read. std::logic_error for what no reader gives back: an axis listing a
/// value twice, or sizes out of order.
void check_config(Config& c);

/// Reads `path` (InputError if unreadable, not a regular file or above
/// kMaxConfigBytes, read no further than that) and parses it (over `base`, as parse_config);
/// "built-in:NAME" reads an embedded config.
Config load_config(const std::string& path, const Axes& base = Axes{});

/// Largest buffer a config may ask for: a quarter of MemAvailable (sizes,
/// offsets and distances together).
uint64_t max_config_size();

/// Sizes from `from` to `to` with `steps` points per doubling (from, from*2^(1/steps), ...,
/// rounded to whole bytes, unique, the last one <= to; `to` itself is included).
std::vector<uint64_t> sizes_per_octave(uint64_t from, uint64_t to, uint32_t steps);

}  // namespace kex
