#include "src/cli/selection.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "generators/presets/presets.hpp"
#include "src/core/error.hpp"
#include "src/core/numbers.hpp"
#include "src/core/units.hpp"
#include "src/model/json_fields.hpp"
#include "src/model/kernel_names.hpp"

namespace kex {

using nlohmann::json;

namespace {

const std::vector<std::string> kBaselines = {"memcpy", "memset", "rep_movsb", "rep_stosb"};

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t e = s.find(sep, start);
    out.push_back(s.substr(start, e == std::string::npos ? std::string::npos : e - start));
    if (e == std::string::npos) return out;
    start = e + 1;
  }
}

constexpr const char* kSizeHelp = "bytes (4096) or binary units (4K, 4KiB, 64MiB, 1GiB; KB and MB are refused as ambiguous)";

/// One size of --sizes (or a value of --layout): bytes, at least `lo`.
uint64_t size_value(const std::string& opt, const std::string& item, const std::string& t, uint64_t lo) {
  const auto b = parse_bytes(t);
  if (!b || t.empty() || t.front() == ' ' || t.back() == ' ')
    throw InputError(opt + ": '" + item + "': '" + t + "' is not a byte size: give " + kSizeHelp);
  if (*b < lo) throw InputError(opt + ": '" + item + "': a size is at least " + std::to_string(lo) + " byte");
  if (*b > max_config_size())
    throw InputError(opt + ": '" + item + "': " + format_bytes(*b) + " is above the largest buffer allowed here (" +
                     format_bytes(max_config_size()) + ", a quarter of MemAvailable)");
  return *b;
}

}  // namespace

bool is_config_argument(const std::string& arg) {
  if (arg == "-" || arg.rfind("built-in:", 0) == 0 || ends_with(arg, ".json")) return true;
  struct stat st;
  return stat(arg.c_str(), &st) == 0;
}

void add_kernel_name(NamedKernels& k, const std::string& name) {
  const std::string head = name + ": not a config file and not a kernel name: ";
  if (const auto n = parse_impl_name(name); n && n->source != ImplSource::glibc) {
    for (const LoadSpec& l : k.loads)
      if (load_kernel(l) == impl_name({n->source, n->symbol, 0})) return;  // runs already: its --load names it
    throw InputError(head + "loaded code is named by --load " + n->symbol + "=PATH:SYMBOL[:copy|move|clear] (it then "
                            "races with the rest); no --load gives " + n->symbol);
  }
  if (std::find(kBaselines.begin(), kBaselines.end(), name) != kBaselines.end() || find_impl_set(name) ||
      parse_impl_name(name)) {  // glibc's variants are resolved (or refused) when the plans are made
    if (std::find(k.baselines.begin(), k.baselines.end(), name) == k.baselines.end()) k.baselines.push_back(name);
    return;
  }
  std::string why;
  try {
    const KernelSpec s = parse_spec_name(name);
    if (std::string bad = validate(s); !bad.empty()) throw InputError(head + bad);
    if (std::find(k.specs.begin(), k.specs.end(), s) == k.specs.end()) k.specs.push_back(s);
    return;
  } catch (const std::invalid_argument& e) {
    why = e.what();
  }
  if (!preset_set(name).empty() || find_preset(name)) {
    if (std::find(k.presets.begin(), k.presets.end(), name) == k.presets.end()) k.presets.push_back(name);
    return;
  }
  if (const UnavailablePreset* u = find_unavailable_preset(name))
    throw InputError(head + "the preset " + u->id + " is not available: " + u->reason);
  // A name that starts like a spec is one with a mistake in it; anything else may have meant a preset.
  const std::string first = name.substr(0, name.find('/'));
  if (first == "copy" || first == "clear") throw InputError(head + why);
  throw InputError(head + why + "; and no preset, preset set, baseline (memcpy, memset, rep_movsb, rep_stosb) or glibc "
                                "set (glibc-copy, glibc-move, glibc-clear) is called that (see kex list presets)");
}

json sizes_option(const std::string& text) {
  const std::string opt = "--sizes";
  if (text.empty()) throw InputError(opt + ": '': give sizes, e.g. 4KiB,64KiB or 4KiB..64MiB");
  json out = json::array();
  for (const std::string& item : split(text, ',')) {
    if (item.empty())
      throw InputError(opt + ": '" + text + "': an empty item (sizes are separated by single commas)");
    const size_t dots = item.find("..");
    if (dots == std::string::npos) {
      out.push_back(size_value(opt, item, item, 1));
      continue;
    }
    std::string to = item.substr(dots + 2);
    uint64_t steps = 1;
    if (const size_t colon = to.find(':'); colon != std::string::npos) {
      const std::string n = to.substr(colon + 1);
      to = to.substr(0, colon);
      if (n.empty() || n.size() > 2 || !std::all_of(n.begin(), n.end(), [](unsigned char c) { return c >= '0' && c <= '9'; }) || std::stoul(n) < 1 ||
          std::stoul(n) > 64)
        throw InputError(opt + ": '" + item + "': the steps per octave after ':' must be a whole number 1..64");
      steps = std::stoul(n);
    }
    const uint64_t a = size_value(opt, item, item.substr(0, dots), 1), b = size_value(opt, item, to, 1);
    if (b < a)
      throw InputError(opt + ": '" + item + "': the range goes down (" + format_bytes(a) + " > " + format_bytes(b) +
                       "); write the smaller size first");
    out.push_back({{"from", a}, {"to", b}, {"steps_per_octave", steps}});
  }
  return out;
}

json cache_option(const std::string& text) {
  json out = json::array();
  for (const std::string& m : split(text, ',')) {
    if (!parse_cache_mode(m)) throw InputError("--cache: '" + text + "': allowed: warm, cold, or both (warm,cold)");
    if (std::find(out.begin(), out.end(), json(m)) != out.end())
      throw InputError("--cache: '" + text + "': '" + m + "' is given twice");
    out.push_back(m);
  }
  return out;
}

json threads_option(const std::string& text) {
  json out = json::array();
  for (const std::string& t : split(text, ',')) {
    json v;
    if (t == "all") v = t;
    else {
      try {
        v = parse_unsigned(t, 1, kMaxThreads);
      } catch (const std::exception&) {
        throw InputError("--threads: '" + text + "': allowed: thread counts 1.." + std::to_string(kMaxThreads) +
                         " or all (every CPU of the affinity mask), e.g. 1,2,all");
      }
    }
    if (std::find(out.begin(), out.end(), v) != out.end())
      throw InputError("--threads: '" + text + "': '" + t + "' is given twice");
    out.push_back(v);
  }
  return out;
}

json layout_option(const std::vector<std::string>& tokens) {
  const std::string opt = "--layout";
  const std::string allowed = "allowed: src:N, dst:N, dist:D (signed bytes, or none), nohuge; lists N,N,...; tokens "
                              "joined by / as in point names, e.g. src:0,1/dist:0,64,4160";
  json out = json::object();
  std::set<std::string> given;  // the keys written so far
  for (const std::string& arg : tokens)
    for (const std::string& tok : split(arg, '/')) {
      if (tok == "nohuge") {
        if (!given.insert("huge_pages").second) throw InputError(opt + ": 'nohuge' is given twice");
        out["huge_pages"] = false;
        continue;
      }
      const size_t colon = tok.find(':');
      const std::string key = tok.substr(0, colon);
      const std::string jkey = key == "src" ? "src_offset" : key == "dst" ? "dst_offset" : key == "dist" ? "distance" : "";
      if (colon == std::string::npos || jkey.empty()) throw InputError(opt + ": '" + tok + "': unknown token (" + allowed + ")");
      if (!given.insert(jkey).second) throw InputError(opt + ": '" + key + ":' is given twice (list its values once: " + key + ":0,64)");
      json values = json::array();
      for (const std::string& v : split(tok.substr(colon + 1), ',')) {
        if (v.empty()) throw InputError(opt + ": '" + tok + "': an empty value (" + allowed + ")");
        if (key != "dist") {
          values.push_back(size_value(opt, tok, v, 0));
        } else if (v == "none") {
          values.push_back(nullptr);
        } else {
          const bool neg = v.front() == '-';
          const int64_t d = int64_t(size_value(opt, tok, neg ? v.substr(1) : v, 0));
          values.push_back(neg ? -d : d);
        }
        if (std::count(values.begin(), values.end(), values.back()) > 1)
          throw InputError(opt + ": '" + tok + "': '" + v + "' is given twice");
      }
      out[jkey] = values;
    }
  if (given.count("dst_offset") && given.count("distance"))
    throw InputError(opt + ": dst: and dist: both place dst: give dist: (dst = src + D, one buffer) or dst: (dst's "
                           "own buffer), not both");
  return out;
}

json default_name_sizes(const NamedKernels& k) {
  if (k.specs.empty() && k.baselines.empty() && k.loads.empty()) return json::array({4096});
  return json::array({{{"from", 256}, {"to", "64MiB"}, {"factor", 4}}});
}

Config names_config(const NamedKernels& k, const json& sizes, const json& cache, const json& layout,
                    const json& threads) {
  json raw = {{"description", "kernels named on the kex run command line"}};
  raw["sizes"] = sizes.is_null() ? default_name_sizes(k) : sizes;
  if (!cache.is_null()) raw["cache"] = cache;
  if (!layout.is_null() && !layout.empty()) raw["layout"] = layout;
  if (!threads.is_null()) raw["threads"] = threads;
  if (!k.specs.empty()) {
    raw["kernels"] = json::array();
    for (const KernelSpec& s : k.specs) raw["kernels"].push_back(spec_grid(s));
  }
  if (!k.presets.empty()) raw["presets"] = k.presets;
  for (const LoadSpec& l : k.loads) {
    json e;
    FieldWriter w(e);
    LoadSpec written = l;
    map_load(w, written);
    raw["load"].push_back(std::move(e));
  }
  // A baseline named replaces the default set; none named: every one (those of an op no
  // kernel has are left out when the points are expanded).
  if (k.baselines.empty()) raw["baselines"] = true;
  else raw["baselines"] = k.baselines;
  Config c = parse_config(raw.dump(), kCommandLineSource);
  for (size_t i = 0; i < k.specs.size(); ++i)
    if (c.grids.at(i).specs != std::vector<KernelSpec>{k.specs[i]})
      throw std::logic_error("the grid written for " + spec_name(k.specs[i]) + " expands to another kernel");
  return c;
}

}  // namespace kex
