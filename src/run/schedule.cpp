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

std::string task_group(const std::string& family, uint64_t size) { return family + "@" + std::to_string(size); }

size_t adjacent_conflicts(const std::vector<Task>& order, const std::vector<uint32_t>& group) {
  size_t n = 0;
  for (size_t i = 1; i < order.size(); ++i) n += group[order[i].point] == group[order[i - 1].point];
  return n;
}

}  // namespace kex
