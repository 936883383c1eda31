#include "src/run/schedule.hpp"

#include <random>

namespace kex {

std::vector<Task> ordered_tasks(size_t points, uint32_t reps) {
  std::vector<Task> out;
  for (uint32_t p = 0; p < points; ++p)
    for (uint32_t r = 0; r < reps; ++r) out.push_back({p, r});
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

std::string task_group(const std::string& family, uint64_t size) { return family + "@" + std::to_string(size); }

size_t adjacent_conflicts(const std::vector<Task>& order, const std::vector<uint32_t>& group) {
  size_t n = 0;
  for (size_t i = 1; i < order.size(); ++i) n += group[order[i].point] == group[order[i - 1].point];
  return n;
}

}  // namespace kex
