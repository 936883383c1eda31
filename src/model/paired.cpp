#include "src/model/paired.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "src/core/stats.hpp"

namespace kex {

std::vector<std::pair<uint64_t, double>> round_times(const Result& r) {
  std::vector<std::pair<uint64_t, double>> v;
  for (const Repetition& rep : r.reps)
    if (rep.round && rep.per_call.median > 0) v.emplace_back(rep.round, rep.per_call.median);
  std::sort(v.begin(), v.end());
  return v;
}

namespace {

/// Per round, the geometric mean time of the members measured in it.
std::map<uint64_t, double> round_means(const std::vector<std::vector<std::pair<uint64_t, double>>>& times) {
  std::map<uint64_t, std::pair<double, size_t>> sum;
  for (const auto& t : times)
    for (const auto& [round, ticks] : t) {
      auto& s = sum[round];
      s.first += std::log(ticks);
      ++s.second;
    }
  std::map<uint64_t, double> mean;
  for (const auto& [round, s] : sum)
    if (s.second >= 2) mean[round] = std::exp(s.first / double(s.second));
  return mean;
}

}  // namespace

std::optional<size_t> GroupAnswer::next() const {
  for (size_t i = 1; i < members.size(); ++i)
    if (!members[i].tie) return i;
  return std::nullopt;
}

size_t GroupAnswer::ties() const {
  return size_t(std::count_if(members.begin(), members.end(), [](const RankedMember& m) { return m.tie; }));
}

PairedRatio paired_ratio(const std::vector<std::pair<uint64_t, double>>& a,
                         const std::vector<std::pair<uint64_t, double>>& b) {
  std::vector<double> ratios;
  std::map<uint64_t, double> in_b(b.begin(), b.end());
  for (const auto& [round, t] : a)
    if (auto it = in_b.find(round); it != in_b.end() && it->second > 0) ratios.push_back(t / it->second);
  PairedRatio p;
  if (ratios.size() < 3) return p;
  const SampleStats s = summarize(ratios);
  p.ratio = s.median;
  p.low = s.ci_low;
  p.high = s.ci_high;
  p.rounds = ratios.size();
  return p;
}

std::optional<GroupKey> group_of(const Result& r) {
  return group_of(r.op, r.fill(), r.point.at);
}

std::vector<GroupAnswer> answer_groups(const RunDoc& run, double resolution) {
  std::vector<GroupKey> order;
  std::map<GroupKey, std::vector<size_t>> members;
  for (size_t i = 0; i < run.results.size(); ++i) {
    const Result& r = run.results[i];
    const auto key = r.ok() ? group_of(r) : std::nullopt;
    if (!key) continue;
    auto [it, fresh] = members.emplace(*key, std::vector<size_t>{});
    if (fresh) order.push_back(*key);
    it->second.push_back(i);
  }
  std::vector<GroupAnswer> out;
  for (const GroupKey& key : order) {
    const std::vector<size_t>& idx = members[key];
    std::vector<std::vector<std::pair<uint64_t, double>>> times;
    for (size_t i : idx) times.push_back(round_times(run.results[i]));
    const std::map<uint64_t, double> mean = round_means(times);
    if (mean.size() < 3 || idx.size() < 2) continue;
    GroupAnswer g;
    g.key = key;
    g.rounds = mean.size();
    g.resolution = resolution;
    std::vector<double> scores(idx.size(), 0);
    for (size_t k = 0; k < idx.size(); ++k) {
      std::vector<double> rel;
      for (const auto& [round, t] : times[k])
        if (auto it = mean.find(round); it != mean.end()) rel.push_back(t / it->second);
      scores[k] = rel.size() >= 3 ? median(rel) : HUGE_VAL;  // too few rounds: ranked last
    }
    std::vector<size_t> rank(idx.size());
    for (size_t k = 0; k < rank.size(); ++k) rank[k] = k;
    std::stable_sort(rank.begin(), rank.end(), [&](size_t a, size_t b) { return scores[a] < scores[b]; });
    const size_t w = rank.front();
    std::optional<size_t> libc;
    for (size_t k = 0; k < idx.size(); ++k)
      if (run.results[idx[k]].libc) libc = k;
    for (size_t k : rank) {
      RankedMember m;
      m.result = idx[k];
      m.score = scores[k];
      m.vs_winner = paired_ratio(times[k], times[w]);
      if (k == w) m.vs_winner = {1, 1, 1, times[k].size()};
      if (libc) m.vs_libc = k == *libc ? PairedRatio{1, 1, 1, times[k].size()} : paired_ratio(times[k], times[*libc]);
      m.tie = k == w || (m.vs_winner.rounds > 0 && !m.vs_winner.slower_beyond(resolution));
      g.members.push_back(m);
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace kex
