#include "src/cli/selection.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "generators/presets/presets.hpp"
#include "src/core/error.hpp"
#include "src/core/numbers.hpp"
#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"
#include "src/core/affinity.hpp"
#include "src/model/config_json.hpp"
#include "src/model/kernel_names.hpp"
#include "src/core/enum_words.hpp"

namespace kex {


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
  if (const auto n = parse_impl_name(name); n && source_row(n->source).loaded) {
    for (const LoadSpec& l : k.loads)
      if (load_kernel(l) == impl_name({n->source, n->symbol, 0})) return;  // runs already: its --load names it
    throw InputError(head + "loaded code is named by --load " + n->symbol + "=PATH:SYMBOL[:copy|move|clear] (it then "
                            "races with the rest); no --load gives " + n->symbol);
  }
  if (is_dispatch_name(name)) {  // a competitor as a baseline is: measured wherever kernels of its op are
    std::string canonical;
    try {
      canonical = dispatch_kernel_name(parse_dispatch_kernel(name));
    } catch (const std::invalid_argument& e) {
      throw InputError(head + e.what());
    }
    if (std::find(k.baselines.begin(), k.baselines.end(), canonical) == k.baselines.end()) k.baselines.push_back(canonical);
    return;
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

std::vector<uint64_t> sizes_option(const std::string& text) {
  const std::string opt = "--sizes";
  if (text.empty()) throw InputError(opt + ": '': give sizes, e.g. 4KiB,64KiB or 4KiB..64MiB");
  std::vector<uint64_t> out;
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
    for (uint64_t x : sizes_per_octave(a, b, static_cast<uint32_t>(steps))) out.push_back(x);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<CacheMode> cache_option(const std::string& text) {
  std::vector<CacheMode> out;
  for (const std::string& m : split(text, ',')) {
    const auto mode = parse_cache_mode(m);
    if (!mode) throw InputError("--cache: '" + text + "': allowed: " + enum_word_list(kCacheModes) + ", or both (" +
                         enum_word_list(kCacheModes, ",") + ")");
    if (std::find(out.begin(), out.end(), *mode) != out.end())
      throw InputError("--cache: '" + text + "': '" + m + "' is given twice");
    out.push_back(*mode);
  }
  return out;
}

std::vector<uint32_t> threads_option(const std::string& text) {
  std::vector<uint32_t> out;
  std::set<std::string> given;
  for (const std::string& t : split(text, ',')) {
    uint32_t v = 0;
    if (t == "all") {
      v = static_cast<uint32_t>(std::clamp<size_t>(startup_cpus().size(), 1, kMaxThreads));
    } else {
      try {
        v = static_cast<uint32_t>(parse_unsigned(t, 1, kMaxThreads));
      } catch (const std::exception&) {
        throw InputError("--threads: '" + text + "': allowed: thread counts 1.." + std::to_string(kMaxThreads) +
                         " or all (every CPU of the affinity mask), e.g. 1,2,all");
      }
    }
    if (!given.insert(t).second) throw InputError("--threads: '" + text + "': '" + t + "' is given twice");
    // "all" may be one of the counts listed (2,all on two CPUs): one value.
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

namespace {

/// One value of a --layout token's list: an offset (bytes), or for dist: a signed
/// distance or none.
std::optional<int64_t> layout_value(const std::string& opt, const std::string& tok, const std::string& key,
                                    const std::string& v) {
  if (key != "dist") return int64_t(size_value(opt, tok, v, 0));
  if (v == "none") return std::nullopt;
  const bool neg = v.front() == '-';
  const int64_t d = int64_t(size_value(opt, tok, neg ? v.substr(1) : v, 0));
  return neg ? -d : d;
}

}  // namespace

LayoutAxes layout_option(const std::vector<std::string>& tokens) {
  const std::string opt = "--layout";
  const std::string allowed = "allowed: src:N, dst:N, dist:D (signed bytes, or none), nohuge; lists N,N,...; tokens "
                              "joined by / as in point names, e.g. src:0,1/dist:0,64,4160";
  LayoutAxes out;
  std::set<std::string> given;  // the keys given so far
  for (const std::string& arg : tokens)
    for (const std::string& tok : split(arg, '/')) {
      if (tok == "nohuge") {
        if (!given.insert("nohuge").second) throw InputError(opt + ": 'nohuge' is given twice");
        out.huge_pages = {false};
        continue;
      }
      const size_t colon = tok.find(':');
      const std::string key = tok.substr(0, colon);
      if (colon == std::string::npos || (key != "src" && key != "dst" && key != "dist"))
        throw InputError(opt + ": '" + tok + "': unknown token (" + allowed + ")");
      if (!given.insert(key).second) throw InputError(opt + ": '" + key + ":' is given twice (list its values once: " + key + ":0,64)");
      std::vector<std::optional<int64_t>> values;
      for (const std::string& v : split(tok.substr(colon + 1), ',')) {
        if (v.empty()) throw InputError(opt + ": '" + tok + "': an empty value (" + allowed + ")");
        values.push_back(layout_value(opt, tok, key, v));
        if (std::count(values.begin(), values.end(), values.back()) > 1)
          throw InputError(opt + ": '" + tok + "': '" + v + "' is given twice");
      }
      if (key == "dist") {
        out.distances = values;
        continue;
      }
      std::vector<uint64_t>& offsets = key == "src" ? out.src_offsets : out.dst_offsets;
      offsets.clear();
      for (const auto& v : values) offsets.push_back(uint64_t(*v));
    }
  if (given.count("dst") && given.count("dist"))
    throw InputError(opt + ": dst: and dist: both place dst: give dist: (dst = src + D, one buffer) or dst: (dst's "
                           "own buffer), not both");
  return out;
}

void AxesOptions::apply(Axes& a) const {
  if (sizes) a.sizes = *sizes;
  if (!streams.empty()) a.streams = streams;
  if (footprints) a.footprints = *footprints;
  if (caches) a.caches = *caches;
  if (threads) a.threads = *threads;
  if (layout) {
    a.src_offsets = layout->src_offsets;
    a.dst_offsets = layout->dst_offsets;
    a.distances = layout->distances;
    a.huge_pages = layout->huge_pages;
  }
}

void AxesOptions::apply(Config& c) const {
  apply(c.axes);
  for (Grid& g : c.grids) apply(g.axes);
}

std::vector<std::string> stream_option(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& s : split(text, ',')) {
    if (s.empty() || s.size() > 4096) throw InputError("--stream", "'" + terminal_text(s) + "': expected NAME (kex list streams) or a file's path");
    if (std::find(out.begin(), out.end(), s) != out.end()) throw InputError("--stream", "'" + terminal_text(s) + "' given twice");
    out.push_back(s);
  }
  return out;
}

std::vector<Footprint> footprint_option(const std::string& text) {
  std::vector<Footprint> out;
  for (const std::string& s : split(text, ',')) {
    Footprint f;
    if (const auto l = parse_footprint_level(s)) {
      f.level = *l;
    } else {
      const auto b = parse_bytes(s);
      if (!b || *b < 64)
        throw InputError("--footprint", "'" + terminal_text(s) + "': allowed: L1, L2, LLC or a byte size of 64 B or more (65536, 1MiB)");
      f = Footprint{std::nullopt, *b};
    }
    if (std::find(out.begin(), out.end(), f) != out.end()) throw InputError("--footprint", "'" + terminal_text(s) + "' given twice");
    out.push_back(f);
  }
  return out;
}

std::vector<uint64_t> default_name_sizes(const NamedKernels& k) {
  if (k.specs.empty() && k.baselines.empty() && k.loads.empty()) return {4096};
  std::vector<uint64_t> out;
  for (uint64_t x = 256; x <= (uint64_t(64) << 20); x *= 4) out.push_back(x);
  return out;
}

Config names_config(const NamedKernels& k, const AxesOptions& axes) {
  Config c;
  c.description = "kernels named on the kex run command line";
  // With --stream, the streams alone unless --sizes asks for fixed sizes too.
  if (axes.streams.empty()) c.axes.sizes = default_name_sizes(k);
  axes.apply(c.axes);
  for (const KernelSpec& s : k.specs) c.grids.push_back(spec_grid_of(s, c.axes));
  c.presets = k.presets;
  c.loads = k.loads;
  // A baseline named replaces the default set; none named: every one (those of an op no
  // kernel has are left out when the points are expanded).
  c.baselines = k.baselines.empty() ? baseline_names() : k.baselines;
  return make_config(c, kCommandLineSource);
}

}  // namespace kex
