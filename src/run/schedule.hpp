// The order a run measures in: every (point, repetition) once, shuffled over the
// whole sweep from a seed, so a disturbance that lasts seconds lands on a
// scattered handful of repetitions instead of one kernel family at one size
// (benchmarks/results/2026-12-01-zen4-second-machine.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/result.hpp"

namespace kex {

/// One unit of the measuring order: repetition `rep` of point `point` alone, or a
/// round: every member of a group measured back to back in the worker, in the order
/// of `members` (indices into the run's points), each giving one repetition.
struct Task {
  uint32_t point = 0;             ///< the point (a round: its first member)
  uint32_t rep = 0;               ///< the point's repetition number (a round: the group's round number)
  std::vector<uint32_t> members;  ///< a round's members in measuring order; empty: `point` alone
  uint64_t round = 0;             ///< a round's id, unique in the run and across its resumes (0: not a round)
  bool operator==(const Task&) const = default;

  /// The points this task measures, in order.
  std::vector<uint32_t> points() const { return members.empty() ? std::vector<uint32_t>{point} : members; }
  /// The task that stands for member `p` of this one (what the supervisor's events name).
  Task member(uint32_t p) const { return Task{p, rep, {}, round}; }
};

/// A permutation of every (point, repetition) of `points` points x `reps`
/// repetitions, reproducible from `seed` (std::mt19937_64, Fisher-Yates). Two
/// consecutive tasks never share a `group` (the kernel family at one size: group[i]
/// of point i) when the order can avoid it; the repair is deterministic too.
std::vector<Task> shuffled_tasks(const std::vector<uint32_t>& group, uint32_t reps, uint64_t seed);

/// Rounds of paired measurement: `rounds` rounds of each group (groups[g] lists the
/// points of group g: the points a user compares, measured together), ids first_id,
/// first_id + 1, ... in measuring order. The rounds are spread over the whole run in an
/// order shuffled from `seed` (std::mt19937_64) with no two consecutive rounds of one
/// group where the order can avoid it; each round's member order is shuffled too.
/// Round k of group g has rep = k. A group of one point gives tasks of that point alone
/// (members empty), with round ids like the others'.
std::vector<Task> round_tasks(const std::vector<std::vector<uint32_t>>& groups, uint32_t rounds, uint64_t seed,
                              uint64_t first_id = 1);

/// The rounds of a paired run: `rounds` rounds of each group, spread over the run as
/// round_tasks does (or group by group without `shuffle`), ids from `first_round`.
/// `reps[j]` are the repetitions of point j a resumed journal holds: its rounds count,
/// a partial one (a kill between the journal lines of one round) is completed by a
/// round of the members it lacks (each point ends with one repetition per round, none
/// measured twice), and only the rounds still missing are new.
std::vector<Task> paired_order(const std::vector<std::vector<uint32_t>>& groups,
                               const std::vector<std::vector<Repetition>>& reps, uint32_t rounds, bool shuffle,
                               uint64_t seed, uint64_t first_round);

/// Tasks in point order, repetitions in turn (the order of a run without shuffling).
std::vector<Task> ordered_tasks(size_t points, uint32_t reps);

/// The group of a point for the adjacency rule: "<family>@<size>", where the family
/// is the kernel's op/regs (generated), preset family, or baseline name.
std::string task_group(const std::string& family, uint64_t size);

/// Number of consecutive pairs of `order` that share a group.
size_t adjacent_conflicts(const std::vector<Task>& order, const std::vector<uint32_t>& group);

}  // namespace kex
