#include "src/model/config.hpp"
#include "src/model/config_reader.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "src/core/affinity.hpp"
#include "src/core/embedded.hpp"
#include "src/core/error.hpp"
#include "src/core/file_read.hpp"
#include "src/core/limits.hpp"
#include "src/model/config_fields.hpp"
#include "src/model/json_fields.hpp"
#include "src/model/json_text.hpp"
#include "src/model/kernel_names.hpp"
#include "src/core/numbers.hpp"
#include "src/core/units.hpp"

namespace kex {

std::string_view to_string(FootprintLevel l) {
  switch (l) {
    case FootprintLevel::l1: return "L1";
    case FootprintLevel::l2: return "L2";
    case FootprintLevel::llc: return "LLC";
  }
  return "?";
}

std::optional<FootprintLevel> parse_footprint_level(std::string_view s) {
  for (FootprintLevel l : kFootprintLevels)
    if (s == to_string(l)) return l;
  return std::nullopt;
}

std::string to_string(const Footprint& f) { return f.level ? std::string(to_string(*f.level)) : std::to_string(f.bytes); }

using nlohmann::json;
using config_detail::check_axes;
using config_detail::read_axes;
using config_forms::fail_at;

namespace {

std::string too_long_text() {
  return "longer than " + std::to_string(kMaxConfigBytes >> 20) + " MiB: a config is at most that";
}


/// The config text as JSON (comments allowed). Throws InputError naming `source`: a
/// text above kMaxConfigBytes, nesting deeper than 64, what parse_json_text refuses (a
/// NUL byte, a key twice in one object), malformed JSON (at its line:column).
json parse_json(const std::string& text, const std::string& source) {
  if (text.size() > kMaxConfigBytes) throw InputError(source + ": " + too_long_text());
  try {
    return parse_json_text(text, source, 64, "a kex config needs at most 5", /*comments=*/true);
  } catch (const json::parse_error& e) {
    // Recompute line and column from the byte offset for a compiler-style message.
    size_t line = 1, col = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') { ++line; col = 1; } else ++col;
    }
    std::string msg = e.what();
    auto pos = msg.find("syntax error");
    throw InputError(source + ":" + std::to_string(line) + ":" + std::to_string(col) + ": malformed JSON: " +
                    (pos == std::string::npos ? msg : msg.substr(pos)));
  } catch (const json::exception& e) {
    throw InputError(source + ": malformed JSON: " + e.what());
  }
}

/// The checks of a config's presets the field table cannot make: a repeat is a seed
/// harness's, and a seed harness runs one thread.
void check_presets(const FieldReader& in, const Config& c) {
  if (in.raw("repeat") && !in.raw("harness"))
    fail_at(in.path("repeat"), *in.raw("repeat"), "applies to a seed harness: give \"harness\"");
  // A seed program is one thread: its presets run as it ran them.
  if (in.raw("harness") && c.harness != Harness::kex && in.raw("threads") && c.axes.threads != std::vector<uint32_t>{1})
    fail_at(in.path("threads"), *in.raw("threads"),
            "a seed harness (" + std::string(to_string(c.harness)) + ") runs its program's single thread: leave threads at 1");
}

/// Each load's own checks, and each NAME once.
void check_loads(const std::vector<LoadSpec>& loads, const std::string& at) {
  for (size_t i = 0; i < loads.size(); ++i) check_load(loads[i], at + "/load/" + std::to_string(i));
  check_load_names(loads, at + "/load");
}

/// The "load" list into `c`, each NAME once; its records are read exactly (every field
/// but "function" given).
void read_loads(const FieldReader& top, const json& j, Config& c) {
  if (!top.raw("load")) return;
  FieldReader r(j, c.source + ": ");
  config_fields::map_loads(r, c);
  check_loads(c.loads, c.source + ": ");
}

/// A minimum above its maximum in the policy `p` the record `top` gave.
void check_policy(const FieldReader& top, const Policy& p) {
  if (top.raw("min_time_per_point") && p.min_time_per_point > p.max_time_per_point)
    fail_at(top.path("min_time_per_point"), *top.raw("min_time_per_point"),
            "must be <= max_time_per_point (" + json(p.max_time_per_point).dump() + ")");
  if (p.max_samples < p.min_samples) {
    // Name the key that was given.
    if (top.raw("max_samples"))
      fail_at(top.path("max_samples"), *top.raw("max_samples"),
              "must be >= min_samples (" + std::to_string(p.min_samples) + ")");
    fail_at(top.path("min_samples"), *top.raw("min_samples"),
            "must be <= max_samples (" + std::to_string(p.max_samples) + ", the default)");
  }
}

/// The measurement policy (precision, seconds per point, samples per repetition,
/// sample_us in µs) over `p`'s values; a minimum above its maximum is an error.
void read_policy(FieldReader& top, Policy& p) {
  config_fields::map_policy(top, p);
  check_policy(top, p);
}

/// Refuses a config with nothing to run or baselines without sizes; presets measured
/// by kex without sizes get the seeds' unit, one 4096-byte page. Then checks the top
/// level's axes again (their buffers with those sizes).
void check_runnable(const FieldReader& in, Config& c) {
  if (c.grids.empty() && c.presets.empty() && !c.segments.enabled && c.baselines.empty() && c.loads.empty())
    fail_at(in.path(""), c.raw, "nothing to run: give kernels, presets, baselines, load or segments");
  if (c.axes.sizes.empty() && c.axes.streams.empty()) {
    if (!c.presets.empty() && c.harness == Harness::kex) c.axes.sizes = {4096};  // the seeds' unit: one page
    else if (c.grids.empty() && (!c.baselines.empty() || !c.loads.empty()) && c.presets.empty())
      fail_at(in.path("sizes"), json(), c.loads.empty() ? "baselines need a list of sizes" : "loaded code needs a list of sizes");
  }
  check_axes(in, c.axes);
}

}  // namespace

Config parse_config(const std::string& text, const std::string& source, const Axes& base) {
  return config_from_json(parse_json(text, source), source, base);
}

Config config_from_json(json j_in, const std::string& source, const Axes& base) {
  Config c;
  c.source = source;
  c.raw = std::move(j_in);
  const json& j = c.raw;
  if (!j.is_object()) fail_at(source + ": /", j, "expected an object (a kex config)");
  FieldReader in(j, source + ": ", Keys::partial);  // the sections' keys, each read in turn
  config_fields::map_names(in, c);  // the names' types first, then unknown keys, as kex always did
  in.check_keys([](FieldReader& names) {
    Config scratch;
    config_fields::map_config(names, scratch);
  });
  c.axes = read_axes(in, base);
  check_axes(in, c.axes);  // the top level's own conflicts first, named at the top level
  in.value("kernels", c.grids, config_forms::KernelsForm{c.axes});
  config_fields::map_presets(in, c);
  check_presets(in, c);
  c.baselines = baseline_names();  // none said: every one
  in.value("baselines", c.baselines, config_forms::BaselinesForm{});
  read_loads(in, j, c);
  read_policy(in, c.policy);
  c.protocol = ProtocolRequest::read(j, source);
  config_fields::map_sections(in, c);
  check_runnable(in, c);
  return c;
}

void check_config(Config& c) {
  const std::string at = c.source + ": ";
  FieldChecker fields(at);
  config_fields::map_config(fields, c);  // each field as the reader reads it (the kernels: KernelsForm::check)
  (void)ProtocolRequest::read(c.raw, c.source);  // the knobs are JSON already: the reader's own check
  const FieldReader in(c.raw, at, Keys::partial);  // only to quote a value in an error
  config_detail::check_listed_once(c.axes, at);
  check_axes(in, c.axes);
  check_presets(in, c);
  check_loads(c.loads, at);
  check_policy(in, c.policy);
  check_runnable(in, c);
}

Config load_config(const std::string& path, const Axes& base) {
  if (path.rfind("built-in:", 0) == 0) {
    std::string name = path.substr(9);
    if (name.size() < 5 || name.compare(name.size() - 5, 5, ".json") != 0) name += ".json";
    const char* t = name.find(".schema.") == std::string::npos ? embedded_file(name) : nullptr;
    if (!t)
      throw InputError(path + ": no such built-in config (built-in: default, unroll, reference, asami, aliasing, tune, "
                              "clear_pages, threads)");
    return parse_config(t, path, base);
  }
  try {
    const std::string text = read_regular_file(path, kMaxConfigBytes, "config");
    return parse_config(text, path, base);
  } catch (const std::bad_alloc&) {
    throw out_of_memory_reading(path);
  }
}

}  // namespace kex
