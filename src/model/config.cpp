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

using nlohmann::json;
using config_detail::Reader;
using config_detail::read_axes;
using config_detail::check_axes;
using config_detail::read_grid;

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

/// Checks the top level: an object, its name fields strings, every key one kex knows.
void check_top_level(const Reader& r, const json& j) {
  if (!j.is_object()) r.fail("", j, "expected an object (a kex config)");
  for (const char* k : {"$schema", "name", "description"})
    if (j.contains(k)) r.string(j[k], std::string("/") + k);
  r.keys(j, "", {"$schema", "name", "description", "sizes", "kernels", "presets", "harness", "repeat", "preset_options",
                 "baselines", "load", "layout", "cache", "chunk", "prefill", "consume", "threads", "precision", "max_time_per_point",
                 "min_time_per_point", "min_samples", "max_samples", "sample_us", "repetitions", "protocol", "segments", "outputs"});
}

/// An object section of the top level (`key`) read by its field table `map`: every key
/// it names known, none required.
template <class Map>
void read_section(const Reader& r, const json& j, const char* key, Map map) {
  FieldReader in(j[key], r.source + ": /" + key, Keys::partial);
  map(in);
  in.finish();
}

/// What the config runs: its kernel grids (over c.axes, read before), presets, seed
/// harness, repeat and preset options, into `c`.
void read_kernels(const Reader& r, const json& j, Config& c) {
  if (j.contains("kernels")) {
    if (!j["kernels"].is_array() || j["kernels"].empty())
      r.fail("/kernels", j["kernels"], "expected a non-empty list of kernel grids");
    for (size_t i = 0; i < j["kernels"].size(); ++i)
      c.grids.push_back(read_grid(r, j["kernels"][i], "/kernels/" + std::to_string(i), c.axes));
  }
  if (j.contains("presets")) {
    r.each(j["presets"], "/presets", [&](const json& e, const std::string& p) { c.presets.push_back(r.string(e, p)); });
  }
  if (j.contains("harness")) {
    auto h = parse_harness(r.string(j["harness"], "/harness"));
    if (!h) r.fail("/harness", j["harness"], "allowed: kex, fastc, hahn, xmm64, mem_cp");
    c.harness = *h;
    // A seed program is one thread: its presets run as it ran them.
    if (c.harness != Harness::kex && j.contains("threads") && c.axes.threads != std::vector<uint32_t>{1})
      r.fail("/threads", j["threads"], "a seed harness (" + std::string(to_string(c.harness)) +
                                           ") runs its program's single thread: leave threads at 1");
  }
  if (j.contains("repeat")) {
    if (!j.contains("harness")) r.fail("/repeat", j["repeat"], "applies to a seed harness: give \"harness\"");
    c.repeat = static_cast<uint32_t>(r.uint(j["repeat"], "/repeat", 1, 1000));
  }
  if (j.contains("preset_options"))
    read_section(r, j, "preset_options", [&](FieldReader& in) { config_fields::map_preset_options(in, c); });
}

/// The libc baselines "baselines" asks for: every one when absent or true, none for
/// false, else the names listed (each one of baseline_names(), an implementation set
/// such as glibc-copy, or an implementation name glibc/SYMBOL: which exist is known only
/// when the plans are made, src/run/plans.hpp).
std::vector<std::string> read_baselines(const Reader& r, const json& j) {
  const std::vector<std::string>& all_baselines = baseline_names();
  if (!j.contains("baselines") || (j["baselines"].is_boolean() && j["baselines"].get<bool>())) return all_baselines;
  if (j["baselines"].is_boolean()) return {};
  if (!j["baselines"].is_array())
    r.fail("/baselines", j["baselines"],
           "expected true, false or a list of memcpy, memset, rep_movsb, rep_stosb, glibc-copy, glibc-move, glibc-clear, "
           "glibc/SYMBOL");
  std::vector<std::string> out;
  for (size_t i = 0; i < j["baselines"].size(); ++i) {
    std::string b = r.string(j["baselines"][i], "/baselines/" + std::to_string(i));
    if (std::find(all_baselines.begin(), all_baselines.end(), b) == all_baselines.end() && !find_impl_set(b) &&
        !parse_impl_name(b))
      r.fail("/baselines/" + std::to_string(i), j["baselines"][i],
             "allowed: memcpy, memset, rep_movsb, rep_stosb, glibc-copy, glibc-move, glibc-clear, glibc/SYMBOL");
    if (const auto n = parse_impl_name(b); n && n->source != ImplSource::glibc)
      r.fail("/baselines/" + std::to_string(i), j["baselines"][i],
             "loaded code is named in \"load\" ({\"name\": \"" + n->symbol + "\", \"path\": ..., \"symbol\": ...}), "
             "and races with the rest from there");
    out.push_back(b);
  }
  return out;
}

/// The "load" list (map_load's records, at most 64, each NAME once) into `c`.
void read_loads(const json& j, Config& c) {
  if (!j.contains("load")) return;
  FieldReader r(j, c.source + ": ");
  r.list("load", c.loads, 1, 64, [](FieldReader& f, LoadSpec& l) { map_load(f, l); });
  for (size_t i = 0; i < c.loads.size(); ++i) check_load(c.loads[i], c.source + ": /load/" + std::to_string(i));
  check_load_names(c.loads, c.source + ": /load");
}

/// The measurement policy's keys (precision, seconds per point, samples per repetition,
/// sample_us in µs) over `p`'s values; a minimum above its maximum is an error.
void read_policy(const Reader& r, const json& j, Policy& p) {
  FieldReader in(j, r.source + ": ", Keys::partial);  // the top level's keys are checked by check_top_level
  config_fields::map_policy(in, p);
  if (j.contains("min_time_per_point") && p.min_time_per_point > p.max_time_per_point)
    r.fail("/min_time_per_point", j["min_time_per_point"],
           "must be <= max_time_per_point (" + json(p.max_time_per_point).dump() + ")");
  if (p.max_samples < p.min_samples) {
    // j is const: operator[] of an absent key is undefined, so name the key that was given.
    if (j.contains("max_samples"))
      r.fail("/max_samples", j["max_samples"], "must be >= min_samples (" + std::to_string(p.min_samples) + ")");
    r.fail("/min_samples", j["min_samples"], "must be <= max_samples (" + std::to_string(p.max_samples) + ", the default)");
  }
}

/// The "segments" section, true/false or an object of options, into `s`.
void read_segments(const Reader& r, const json& j, SegmentsRequest& s) {
  if (!j.contains("segments")) return;
  if (j["segments"].is_boolean()) {
    s.enabled = j["segments"].get<bool>();
    return;
  }
  read_section(r, j, "segments", [&](FieldReader& in) { config_fields::map_segments(in, s); });
  s.enabled = true;
}

/// The "outputs" section (file and directory names as written) into `c`.
void read_outputs(const Reader& r, const json& j, Config& c) {
  if (j.contains("outputs")) read_section(r, j, "outputs", [&](FieldReader& in) { config_fields::map_outputs(in, c); });
}

/// Refuses a config with nothing to run or baselines without sizes; presets measured
/// by kex without sizes get the seeds' unit, one 4096-byte page. Then checks the top
/// level's axes again (their buffers with those sizes).
void check_runnable(const Reader& r, const json& j, Config& c) {
  if (c.grids.empty() && c.presets.empty() && !c.segments.enabled && c.baselines.empty() && c.loads.empty())
    r.fail("", j, "nothing to run: give kernels, presets, baselines, load or segments");
  if (c.axes.sizes.empty()) {
    if (!c.presets.empty() && c.harness == Harness::kex) c.axes.sizes = {4096};  // the seeds' unit: one page
    else if (c.grids.empty() && (!c.baselines.empty() || !c.loads.empty()) && c.presets.empty())
      r.fail("/sizes", json(), c.loads.empty() ? "baselines need a list of sizes" : "loaded code needs a list of sizes");
  }
  check_axes(r, j, "", c.axes);
}

}  // namespace

Config parse_config(const std::string& text, const std::string& source) {
  Config c;
  c.source = source;
  const Reader r{source};
  c.raw = parse_json(text, source);
  const json& j = c.raw;
  check_top_level(r, j);
  if (j.contains("name")) c.name = j["name"].get<std::string>();
  if (j.contains("description")) c.description = j["description"].get<std::string>();
  c.axes = read_axes(r, j, "", Axes{});
  check_axes(r, j, "", c.axes);  // the top level's own conflicts first, named at the top level
  read_kernels(r, j, c);
  c.baselines = read_baselines(r, j);
  read_loads(j, c);
  read_policy(r, j, c.policy);
  c.protocol = ProtocolRequest::read(j, source);
  read_segments(r, j, c.segments);
  read_outputs(r, j, c);
  check_runnable(r, j, c);
  return c;
}

Config load_config(const std::string& path) {
  if (path.rfind("built-in:", 0) == 0) {
    std::string name = path.substr(9);
    if (name.size() < 5 || name.compare(name.size() - 5, 5, ".json") != 0) name += ".json";
    const char* t = name.find(".schema.") == std::string::npos ? embedded_file(name) : nullptr;
    if (!t)
      throw InputError(path + ": no such built-in config (built-in: default, unroll, reference, asami, aliasing, tune, "
                              "clear_pages, threads)");
    return parse_config(t, path);
  }
  try {
    const std::string text = read_regular_file(path, kMaxConfigBytes, "config");
    return parse_config(text, path);
  } catch (const std::bad_alloc&) {
    throw out_of_memory_reading(path);
  }
}

}  // namespace kex
