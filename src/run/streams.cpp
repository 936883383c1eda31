#include "src/run/streams.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "src/core/error.hpp"
#include "src/core/file_read.hpp"
#include "src/core/terminal_text.hpp"

namespace kex {

StreamSet::Key StreamSet::key_of(const Coords& at) {
  return {at.stream, at.footprint, at.stream_seed, at.stream_calls};
}

std::shared_ptr<const DrawnStream> StreamSet::find(const Coords& at) const {
  if (at.stream.empty()) return nullptr;
  const auto it = by_key_.find(key_of(at));
  return it == by_key_.end() ? nullptr : it->second.second;
}

void StreamSet::add(const Coords& at, std::shared_ptr<const DrawnStream> s) {
  by_key_.emplace(key_of(at), std::make_pair(at, std::move(s)));
}

std::vector<std::pair<Coords, std::shared_ptr<const DrawnStream>>> StreamSet::all() const {
  std::vector<std::pair<Coords, std::shared_ptr<const DrawnStream>>> out;
  for (const auto& [k, v] : by_key_) out.push_back(v);
  return out;
}

uint64_t footprint_bytes(const Footprint& f, const CacheSizes& caches, const std::string& where) {
  if (!f.level) return f.bytes;
  const uint64_t level = *f.level == FootprintLevel::l1 ? caches.l1d * 3 / 8
                         : *f.level == FootprintLevel::l2 ? caches.l2 / 4
                                                          : caches.llc / 4;
  if (level < 64)
    throw InputError(where, "footprint " + to_string(f) + ": this machine's " + std::string(to_string(*f.level)) +
                                " size is unknown; give the footprint in bytes");
  return level;
}

Distribution load_distribution(const std::string& source, const std::string& where) {
  if (auto d = shipped_distribution(source)) return *d;
  const std::string shown = terminal_text(source);
  std::string name = std::filesystem::path(source).filename().string();
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".csv") == 0) name.resize(name.size() - 4);
  const bool path_like = source.find('/') != std::string::npos || source.find('.') != std::string::npos;
  if (!path_like)
    throw InputError(where, "'" + shown + "': no such stream (see `kex list streams`; a file of your own is a path, ./" +
                                shown + ".csv)");
  if (!is_stream_name(name))
    throw InputError(where, "'" + shown + "': its file name names the stream: 1 to 64 letters, digits, _ and - before .csv");
  const std::string text = read_regular_file(source, kMaxStreamFileBytes, "distribution file");
  return parse_distribution(text, name, shown);  // its own errors name the file and line
}

StreamRecord stream_record(const Coords& at, const DrawnStream& s) {
  StreamRecord r;
  r.name = at.stream;
  r.path = s.path;
  r.footprint_asked = to_string(s.footprint);
  r.footprint = at.footprint;
  r.seed = at.stream_seed;
  r.calls = at.stream_calls;
  r.bytes = s.stream.bytes;
  r.mean = s.facts.mean;
  r.p50 = s.facts.p50;
  r.p90 = s.facts.p90;
  r.p99 = s.facts.p99;
  r.max = s.facts.max;
  r.distinct = s.facts.distinct;
  r.capped = s.stream.capped;
  r.overlapping = s.stream.overlapping;
  r.fixed_weights = s.fixed_weights;
  r.cdf = s.facts.cdf;
  return r;
}

std::vector<uint64_t> prediction_sizes(const Stream& s, uint64_t cap) {
  std::map<uint64_t, size_t> count;
  uint64_t largest = 0;
  for (const StreamCall& c : s.calls) {
    if (c.size) ++count[c.size];
    largest = std::max(largest, c.size);
  }
  std::vector<std::pair<size_t, uint64_t>> by_count;
  for (const auto& [size, n] : count) by_count.emplace_back(n, size);
  std::sort(by_count.begin(), by_count.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  std::set<uint64_t> out;
  for (size_t i = 0; i < by_count.size() && i < 6; ++i) out.insert(by_count[i].second);
  for (uint64_t x = 4; x < 4 * largest; x *= 4) out.insert(x);
  std::vector<uint64_t> v;
  for (uint64_t x : out)
    if (x <= cap) v.push_back(x);
  return v;
}

std::vector<std::pair<uint64_t, double>> fixed_size_weights(const Stream& s, const std::vector<uint64_t>& sizes) {
  std::vector<std::pair<uint64_t, double>> out;
  if (sizes.empty() || s.calls.empty()) return out;
  std::vector<size_t> n(sizes.size());
  std::vector<double> at(sizes.size());  // log2(size + 1) of each, once (not per call and size)
  for (size_t i = 0; i < sizes.size(); ++i) at[i] = std::log2(double(sizes[i]) + 1);
  for (const StreamCall& c : s.calls) {
    const double x = std::log2(double(c.size) + 1);
    size_t best = 0;
    for (size_t i = 1; i < sizes.size(); ++i)
      if (std::fabs(x - at[i]) < std::fabs(x - at[best])) best = i;
    ++n[best];
  }
  for (size_t i = 0; i < sizes.size(); ++i) out.emplace_back(sizes[i], double(n[i]) / double(s.calls.size()));
  return out;
}

namespace {

/// The coordinates of a stream point drawn from `d` at `footprint` bytes.
Coords stream_point(const Axes& a, const DrawnStream& s, uint64_t footprint) {
  Coords c;
  c.stream = s.distribution.name;
  c.footprint = footprint;
  c.stream_seed = a.stream_seed;
  c.stream_calls = a.stream_calls;
  c.size = s.stream.bytes;
  return c;
}

/// Draws the streams of one Axes, into its stream_coords and `set`; `names` maps each
/// stream name to its source, so two files of one name are refused.
void resolve_axes(Axes& a, const CacheSizes& caches, const std::string& where, StreamSet& set,
                  std::map<std::string, std::string>& names) {
  a.stream_coords.clear();
  std::set<uint64_t> added;  // the fixed sizes the streams' predictions are measured at
  for (size_t i = 0; i < a.streams.size(); ++i) {
    const std::string at = where + "/streams/" + std::to_string(i);
    const Distribution d = load_distribution(a.streams[i], at);
    if (auto [it, fresh] = names.emplace(d.name, a.streams[i]); !fresh && it->second != a.streams[i])
      throw InputError(at, "'" + terminal_text(a.streams[i]) + "' and '" + terminal_text(it->second) +
                               "' both name the stream " + d.name + ": rename one file");
    for (size_t k = 0; k < a.footprints.size(); ++k) {
      const uint64_t fp = footprint_bytes(a.footprints[k], caches, where + "/footprints/" + std::to_string(k));
      if (fp < 64) throw InputError(where + "/footprints/" + std::to_string(k), "a footprint is at least 64 bytes");
      auto s = std::make_shared<DrawnStream>();
      s->distribution = d;
      s->facts = distribution_facts(d);
      s->stream = draw_stream(d, {a.stream_seed, a.stream_calls, fp});
      s->path = shipped_distribution(a.streams[i]) ? "" : a.streams[i];
      s->footprint = a.footprints[k];
      const std::vector<uint64_t> fixed = prediction_sizes(s->stream, fp / 2);
      s->fixed_weights = fixed_size_weights(s->stream, fixed);
      if (a.stream_fixed_sizes) added.insert(fixed.begin(), fixed.end());
      const Coords c = stream_point(a, *s, fp);
      a.stream_coords.push_back(c);
      set.add(c, std::move(s));
    }
  }
  added.insert(a.sizes.begin(), a.sizes.end());
  a.sizes.assign(added.begin(), added.end());
}

}  // namespace

StreamSet resolve_streams(std::vector<Config>& configs, const CacheSizes& caches) {
  StreamSet set;
  std::map<std::string, std::string> names;
  for (Config& c : configs) {
    resolve_axes(c.axes, caches, c.source, set, names);
    for (size_t g = 0; g < c.grids.size(); ++g) resolve_axes(c.grids[g].axes, caches, c.source + ": /kernels/" + std::to_string(g), set, names);
  }
  return set;
}

}  // namespace kex
