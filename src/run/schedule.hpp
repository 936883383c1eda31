// The order a run measures in: every (point, repetition) once, shuffled over the
// whole sweep from a seed, so a disturbance that lasts seconds lands on a
// scattered handful of repetitions instead of one kernel family at one size
// (benchmarks/results/2026-12-01-zen4-second-machine.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kex {

/// One measurement: repetition `rep` of point `point` (indices into the run's points).
struct Task {
  uint32_t point = 0;
  uint32_t rep = 0;
  bool operator==(const Task&) const = default;
};

/// A permutation of every (point, repetition) of `points` points x `reps`
/// repetitions, reproducible from `seed` (std::mt19937_64, Fisher-Yates). Two
/// consecutive tasks never share a `group` (the kernel family at one size: group[i]
/// of point i) when the order can avoid it; the repair is deterministic too.
std::vector<Task> shuffled_tasks(const std::vector<uint32_t>& group, uint32_t reps, uint64_t seed);

/// Tasks in point order, repetitions in turn (the order of a run without shuffling).
std::vector<Task> ordered_tasks(size_t points, uint32_t reps);

/// The group of a point for the adjacency rule: "<family>@<size>", where the family
/// is the kernel's op/regs (generated), preset family, or baseline name.
std::string task_group(const std::string& family, uint64_t size);

/// Number of consecutive pairs of `order` that share a group.
size_t adjacent_conflicts(const std::vector<Task>& order, const std::vector<uint32_t>& group);

}  // namespace kex
