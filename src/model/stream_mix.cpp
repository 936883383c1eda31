#include "src/model/stream_mix.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "src/core/error.hpp"
#include "src/core/terminal_text.hpp"

namespace kex {

std::string StreamMix::name() const {
  std::string out;
  for (const std::string& s : streams) out += (out.empty() ? "" : ",") + s;
  return out;
}

StreamMix make_stream_mix(const std::vector<std::string>& streams, const std::vector<double>& weights,
                          const std::string& where) {
  if (streams.size() < 2) throw InputError(where, "a mix of streams needs two or more");
  if (streams.size() > kMaxMixStreams)
    throw InputError(where, std::to_string(streams.size()) + " streams: a mix takes at most " + std::to_string(kMaxMixStreams));
  std::set<std::string> seen;
  for (const std::string& s : streams)
    if (!seen.insert(s).second) throw InputError(where, "'" + terminal_text(s) + "' is given twice: give each stream once");
  if (!weights.empty() && weights.size() != streams.size())
    throw InputError(where, std::to_string(weights.size()) + " weights for " + std::to_string(streams.size()) +
                                " streams: give one weight per stream, in the streams' order");
  StreamMix m{streams, weights.empty() ? std::vector<double>(streams.size(), 1.0) : weights};
  double sum = 0;
  for (double w : m.weights) {
    if (!std::isfinite(w) || w <= 0) throw InputError(where, "a weight of " + std::to_string(w) + ": each must be a number above 0");
    sum += w;
  }
  for (double& w : m.weights) w /= sum;
  return m;
}

namespace {

/// Each round id of a stream's group -> its ordinal (0 first), over every member measured there.
std::map<uint64_t, size_t> round_ordinals(const RunDoc& doc, const std::string& stream) {
  std::set<uint64_t> ids;
  for (const Result& r : doc.results)
    if (r.point.at.stream == stream)
      for (const Repetition& rep : r.reps)
        if (rep.round) ids.insert(rep.round);
  std::map<uint64_t, size_t> out;
  for (uint64_t id : ids) out.emplace(id, out.size());
  return out;
}

/// One kernel's point on the mix from its point on each stream (`on[i]`: stream i's).
Result mixed_point(const std::vector<const Result*>& on, const StreamMix& mix,
                   const std::vector<std::map<uint64_t, size_t>>& ordinals) {
  Result out = *on.front();
  out.point.at.stream = mix.name();
  out.reps.clear();
  double bytes = 0;
  for (size_t i = 0; i < on.size(); ++i) bytes += mix.weights[i] * double(on[i]->point.at.size);
  out.point.at.size = uint64_t(std::llround(bytes));
  for (const Result* r : on)
    if (!r->ok()) {
      out.status = r->status;
      return out;
    }
  std::map<size_t, std::pair<double, size_t>> sum;  // ordinal -> weighted ticks, streams holding it
  for (size_t i = 0; i < on.size(); ++i)
    for (const Repetition& rep : on[i]->reps)
      if (rep.round && rep.per_call.median > 0) {
        auto& s = sum[ordinals[i].at(rep.round)];
        s.first += mix.weights[i] * rep.per_call.median;
        ++s.second;
      }
  for (const auto& [k, s] : sum) {
    if (s.second != on.size()) continue;
    Repetition rep;
    rep.round = k + 1;
    rep.per_call.n = 1;
    rep.per_call.median = rep.per_call.min = rep.per_call.p10 = rep.per_call.p90 = rep.per_call.max = s.first;
    rep.per_call.ci_low = rep.per_call.ci_high = s.first;
    out.reps.push_back(rep);
  }
  return out;
}

}  // namespace

RunDoc mix_streams(const RunDoc& doc, const StreamMix& mix) {
  std::vector<std::map<uint64_t, size_t>> ordinals;
  for (const std::string& s : mix.streams) ordinals.push_back(round_ordinals(doc, s));
  std::map<std::string, std::vector<const Result*>> by_kernel;  // kernel -> its point on each stream
  for (const Result& r : doc.results) {
    const auto it = std::find(mix.streams.begin(), mix.streams.end(), r.point.at.stream);
    if (it == mix.streams.end()) continue;
    std::vector<const Result*>& on = by_kernel[r.point.kernel];
    on.resize(mix.streams.size(), nullptr);
    on[size_t(it - mix.streams.begin())] = &r;
  }
  RunDoc out;
  out.context = doc.context;
  for (const Result& r : doc.results) {
    if (std::find(mix.streams.begin(), mix.streams.end(), r.point.at.stream) == mix.streams.end()) {
      out.results.push_back(r);
      continue;
    }
    const std::vector<const Result*>& on = by_kernel.at(r.point.kernel);
    if (&r != *std::find_if(on.begin(), on.end(), [](const Result* p) { return p; })) continue;  // its first point only
    if (std::find(on.begin(), on.end(), nullptr) == on.end()) out.results.push_back(mixed_point(on, mix, ordinals));
  }
  return out;
}

Distribution mix_distributions(const std::vector<Distribution>& ds, const std::vector<double>& weights) {
  Distribution out;
  std::map<uint64_t, double> p;
  for (size_t i = 0; i < ds.size(); ++i) {
    out.name += (out.name.empty() ? "" : ",") + ds[i].name;
    double prev = 0;
    for (size_t k = 0; k < ds[i].sizes.size(); ++k) {
      p[ds[i].sizes[k]] += weights[i] * (ds[i].cumulative[k] - prev);
      prev = ds[i].cumulative[k];
    }
  }
  out.function = ds.empty() ? std::nullopt : ds.front().function;
  for (const Distribution& d : ds)
    if (d.function != out.function) out.function = std::nullopt;
  double total = 0, run = 0;
  for (const auto& [size, q] : p) total += q;
  for (const auto& [size, q] : p) {
    if (q <= 0) continue;
    run += q;
    out.sizes.push_back(size);
    out.cumulative.push_back(run / total);
  }
  if (!out.cumulative.empty()) out.cumulative.back() = 1;
  return out;
}

}  // namespace kex
