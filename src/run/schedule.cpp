#include "src/run/schedule.hpp"

#include <map>
#include <random>
#include <set>

namespace kex {

namespace {

/// What a resumed journal holds of one group's rounds: how many are complete (a
/// repetition of every member), and each partial one (a kill between the journal lines
/// of one round): its id and the members it lacks.
struct JournaledRounds {
  uint32_t complete = 0;
  std::vector<std::pair<uint64_t, std::vector<uint32_t>>> missing;
};

JournaledRounds journaled_rounds(const std::vector<uint32_t>& members, const std::vector<std::vector<Repetition>>& reps) {
  std::map<uint64_t, std::set<uint32_t>> in_round;  // round -> members with a repetition in it
  for (uint32_t j : members)
    for (const Repetition& r : reps[j])
      if (r.round) in_round[r.round].insert(j);
  JournaledRounds out;
  for (const auto& [round, have] : in_round) {
    if (have.size() == members.size()) {
      ++out.complete;
      continue;
    }
    std::vector<uint32_t> lack;
    for (uint32_t j : members)
      if (!have.count(j)) lack.push_back(j);
    out.missing.push_back({round, std::move(lack)});
  }
  return out;
}

}  // namespace

std::vector<Task> ordered_tasks(size_t points, uint32_t reps) {
  std::vector<Task> out;
  for (uint32_t p = 0; p < points; ++p)
    for (uint32_t r = 0; r < reps; ++r) out.push_back(Task{p, r, {}, 0});
  return out;
}

std::vector<Task> shuffled_tasks(const std::vector<uint32_t>& group, uint32_t reps, uint64_t seed) {
  std::vector<Task> t = ordered_tasks(group.size(), reps);
  std::mt19937_64 rng(seed);
  for (size_t i = t.size(); i > 1; --i) {
    std::uniform_int_distribution<size_t> pick(0, i - 1);
    std::swap(t[i - 1], t[pick(rng)]);
  }
  // Repair: where two neighbours share a group, swap the second with the first
  // later task that fits between its neighbours (a bounded search keeps this linear).
  auto same = [&](size_t a, size_t b) { return group[t[a].point] == group[t[b].point]; };
  for (size_t i = 1; i < t.size(); ++i) {
    if (!same(i - 1, i)) continue;
    for (size_t j = i + 1, tries = 0; j < t.size() && tries < 4096; ++j, ++tries) {
      if (group[t[j].point] == group[t[i - 1].point]) continue;
      if (i + 1 < t.size() && j != i + 1 && group[t[j].point] == group[t[i + 1].point]) continue;
      if (group[t[i].point] == group[t[j - 1].point] && j - 1 != i) continue;
      if (j + 1 < t.size() && group[t[i].point] == group[t[j + 1].point]) continue;
      std::swap(t[i], t[j]);
      break;
    }
  }
  return t;
}

std::vector<Task> round_tasks(const std::vector<std::vector<uint32_t>>& groups, uint32_t rounds, uint64_t seed,
                              uint64_t first_id) {
  // The order of the rounds: every (group, round) once, shuffled, no group twice in a
  // row where avoidable: shuffled_tasks over the groups as "points".
  std::vector<uint32_t> self(groups.size());
  for (uint32_t g = 0; g < self.size(); ++g) self[g] = g;
  const std::vector<Task> order = shuffled_tasks(self, rounds, seed);
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);  // the member orders: a stream of their own
  std::vector<Task> out;
  out.reserve(order.size());
  uint64_t id = first_id;
  for (const Task& o : order) {
    const std::vector<uint32_t>& m = groups[o.point];
    if (m.empty()) continue;
    Task t;
    t.rep = o.rep;
    t.round = id++;
    t.members = m;
    for (size_t i = t.members.size(); i > 1; --i) {
      std::uniform_int_distribution<size_t> pick(0, i - 1);
      std::swap(t.members[i - 1], t.members[pick(rng)]);
    }
    t.point = t.members.front();
    if (t.members.size() == 1) t.members.clear();
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<Task> paired_order(const std::vector<std::vector<uint32_t>>& pair_groups,
                               const std::vector<std::vector<Repetition>>& reps, uint32_t rounds, bool shuffle,
                               uint64_t seed, uint64_t first_round) {
  std::vector<uint32_t> need(pair_groups.size(), rounds);
  std::vector<uint32_t> group_of_job(reps.size(), 0);
  std::vector<Task> kept;
  uint64_t id = first_round;
  for (size_t g = 0; g < pair_groups.size(); ++g) {
    for (uint32_t j : pair_groups[g]) group_of_job[j] = uint32_t(g);
    const JournaledRounds jr = journaled_rounds(pair_groups[g], reps);
    need[g] -= std::min<uint32_t>(need[g], jr.complete + uint32_t(jr.missing.size()));
    // A partial round is completed under its own id: a later resume then counts it
    // complete (under a new id, each part looked partial and both were measured again).
    // Its members' ratios in that one round span two sessions.
    for (const auto& [round, lack] : jr.missing) {
      Task t{lack.front(), 0, lack, round};
      if (t.members.size() == 1) t.members.clear();
      kept.push_back(std::move(t));
    }
  }
  std::vector<Task> all;
  if (shuffle) {
    all = round_tasks(pair_groups, rounds, seed, 0);
  } else {
    for (size_t g = 0; g < pair_groups.size(); ++g)
      for (uint32_t r = 0; r < rounds; ++r) {
        Task t{pair_groups[g].front(), r, pair_groups[g], 0};
        if (t.members.size() == 1) t.members.clear();
        all.push_back(std::move(t));
      }
  }
  for (Task& t : all) {
    uint32_t& n = need[group_of_job[t.point]];
    if (n == 0) continue;
    --n;
    t.round = id++;
    kept.push_back(std::move(t));
  }
  return kept;
}


std::string task_group(const std::string& family, uint64_t size) { return family + "@" + std::to_string(size); }

size_t adjacent_conflicts(const std::vector<Task>& order, const std::vector<uint32_t>& group) {
  size_t n = 0;
  for (size_t i = 1; i < order.size(); ++i) n += group[order[i].point] == group[order[i - 1].point];
  return n;
}

}  // namespace kex
