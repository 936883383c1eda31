#include "src/model/tune.hpp"

#include <algorithm>
#include <cmath>

namespace kex {

namespace {

bool tied_at(const SizeVerdict& v, const std::string& k) {
  return std::find(v.ties.begin(), v.ties.end(), k) != v.ties.end();
}

/// The index past the last size from `first` on where `k` stays tied.
size_t tied_run_end(const std::vector<SizeVerdict>& sizes, size_t first, const std::string& k) {
  size_t j = first;
  while (j < sizes.size() && tied_at(sizes[j], k)) ++j;
  return j;
}

}  // namespace

DispatchTable choose_dispatch(const std::vector<SizeVerdict>& sizes, std::vector<DispatchSwitch>* switches) {
  DispatchTable t;
  if (switches) switches->clear();
  size_t i = 0;
  while (i < sizes.size()) {
    const SizeVerdict& at = sizes[i];
    if (at.ties.empty()) break;
    std::string best = at.ties.front();
    size_t end = tied_run_end(sizes, i, best);
    for (const std::string& k : at.ties)  // ties in rank order: a longer run only replaces
      if (size_t e = tied_run_end(sizes, i, k); e > end) best = k, end = e;
    if (end >= sizes.size() || sizes[end].ties.empty()) {
      t.entries.push_back({kDispatchRest, best});
      break;
    }
    const uint64_t low = sizes[end - 1].size, high = sizes[end].size;
    const auto boundary = uint64_t(std::floor(std::sqrt(double(low) * double(high))));
    t.entries.push_back({std::clamp(boundary, low, high - 1), best});
    if (switches) switches->push_back({best, "", low, high, t.entries.back().max_bytes});
    i = end;
  }
  if (switches)
    for (size_t s = 0; s < switches->size() && s + 1 < t.entries.size(); ++s) (*switches)[s].to = t.entries[s + 1].kernel;
  return t;
}

SizeVerdict verdict_of(const GroupAnswer& g, const RunDoc& run) {
  SizeVerdict v;
  v.size = g.key.at.size;
  v.rounds = g.rounds;
  for (const RankedMember& m : g.members) {
    const std::string& k = run.results[m.result].point.kernel;
    v.ranked.push_back(k);
    if (m.tie) v.ties.push_back(k);
  }
  return v;
}

std::vector<RaceDrop> race_drops(const GroupAnswer& g, const RunDoc& run, double margin,
                                 const std::vector<std::string>& kept, uint32_t stage) {
  std::vector<RaceDrop> out;
  if (g.members.empty()) return out;
  const std::string& leader = run.results[g.members.front().result].point.kernel;
  for (const RankedMember& m : g.members) {
    const std::string& k = run.results[m.result].point.kernel;
    if (std::find(kept.begin(), kept.end(), k) != kept.end()) continue;
    if (m.vs_winner.slower_beyond(margin)) out.push_back({g.key.at.size, k, leader, "", stage, m.vs_winner});
  }
  return out;
}

}  // namespace kex
