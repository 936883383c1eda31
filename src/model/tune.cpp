#include "src/model/tune.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kex {

namespace {

bool tied_at(const TuneVerdict& v, const std::string& k) {
  return std::find(v.ties.begin(), v.ties.end(), k) != v.ties.end();
}

/// The index past the last size from `first` on where `k` stays tied.
size_t tied_run_end(const std::vector<TuneVerdict>& sizes, size_t first, const std::string& k) {
  size_t j = first;
  while (j < sizes.size() && tied_at(sizes[j], k)) ++j;
  return j;
}

/// Whether a kernel of the race needs width-aligned src and dst (an `aligned` spec): a
/// dispatch that sent a size to it would send a misaligned caller's calls to libc.
bool needs_alignment(const std::string& k) {
  try {
    return required_alignment(parse_spec_name(k)) > 1;
  } catch (const std::invalid_argument&) {  // a baseline (memcpy, rep_movsb): any address
    return false;
  }
}

/// The ties a dispatch may choose from at a size: those without alignment preconditions
/// when there are any (in rank order), else all of them.
std::vector<std::string> usable_ties(const TuneVerdict& v) {
  std::vector<std::string> any;
  for (const std::string& k : v.ties)
    if (!needs_alignment(k)) any.push_back(k);
  return any.empty() ? v.ties : any;
}

}  // namespace

DispatchTable choose_dispatch(const std::vector<TuneVerdict>& sizes, std::vector<DispatchSwitch>* switches) {
  DispatchTable t;
  if (switches) switches->clear();
  size_t i = 0;
  while (i < sizes.size()) {
    const TuneVerdict& at = sizes[i];
    if (at.ties.empty()) break;
    const std::vector<std::string> ties = usable_ties(at);
    std::string best = ties.front();
    size_t end = tied_run_end(sizes, i, best);
    for (const std::string& k : ties)  // ties in rank order: a longer run only replaces
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

TuneVerdict verdict_of(const GroupAnswer& g, const RunDoc& run) {
  TuneVerdict v;
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
