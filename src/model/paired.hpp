// The answer per group from paired rounds: which kernel is fastest, which ones it
// cannot be told from, and by how much it leads. Every figure is a ratio of times
// measured in the same round (the members of a group back to back in one short
// window), so a state of the machine that lasts longer than a round cancels out;
// intervals are over rounds, the level the comparison is replicated at.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "src/model/context.hpp"
#include "src/model/group.hpp"

namespace kex {

/// A time ratio of one kernel to another over the rounds both were measured in:
/// the median of the per-round ratios (> 1: the first is slower) and its 95%
/// interval (distribution-free, from the ranks of the sorted ratios).
struct PairedRatio {
  double ratio = 0;
  double low = 0, high = 0;
  size_t rounds = 0;  ///< rounds the two share (0: not paired; the figures are 0)
  /// The interval lies above 1 + `margin`: the first is slower by more than the margin.
  bool slower_beyond(double margin) const { return rounds > 0 && low > 1 + margin; }
  /// The interval holds 1: no difference can be told.
  bool covers_one() const { return rounds > 0 && low <= 1 && high >= 1; }
};

/// One member of a group, ranked.
struct RankedMember {
  size_t result = 0;      ///< index into the run's results
  double score = 0;       ///< median over rounds of its time / the round's geometric mean time: the rank key
  PairedRatio vs_winner;  ///< its time / the winner's (the winner: ratio 1, rounds of its own)
  std::optional<PairedRatio> vs_libc;  ///< its time / memcpy's (memset's) in the group, when there is one
  bool tie = false;       ///< in the winner's tie set (the winner itself too)
};

/// A group's answer. members[0] is the winner; the tie set is the members with tie;
/// the margin is the first member outside it (`next`), its vs_winner.
struct GroupAnswer {
  GroupKey key;
  std::vector<RankedMember> members;  ///< by score, fastest first
  size_t rounds = 0;                  ///< rounds with at least two of its members
  double resolution = 0;              ///< the tie margin used
  /// The first member not tied with the winner (nullopt: all tie, or one member).
  std::optional<size_t> next() const;
  size_t ties() const;                ///< members tied with the winner, the winner included
};

/// The tie margin by default: a kernel within 1% of the winner in the rounds' interval ties.
inline constexpr double kTieResolution = 0.01;

/// The fewest values (rounds, repetitions) whose order statistics give a 95% interval of
/// their median: [min, max] of n values holds it with probability 1 - 2^(1-n), 94% at 5,
/// 97% at 6. Fewer: a figure is shown without an interval, with its count.
inline constexpr size_t kMinIntervalCount = 6;

/// (round, ticks per operation) of each repetition of `r` measured in a paired round,
/// by round: the ones the sentinel flagged too, since a disturbance of the whole round
/// leaves its ratios be. Empty for the separate protocol (no rounds).
std::vector<std::pair<uint64_t, double>> round_times(const Result& r);

/// Ratio of two members' per-round times over their shared rounds (round id -> ticks
/// per operation); rounds 0 when they share fewer than 3.
PairedRatio paired_ratio(const std::vector<std::pair<uint64_t, double>>& a,
                         const std::vector<std::pair<uint64_t, double>>& b);

/// (round id, ticks per operation) of each repetition of `r` measured in a round, by
/// round id: the flagged ones too, since a disturbance of a whole round leaves its ratios be.
std::vector<std::pair<uint64_t, double>> round_times(const Result& r);

/// Every group of `run` whose measured members share rounds (at least 3 rounds of at
/// least two members), in the order the groups first appear in the results. A member
/// ties when the interval of its ratio to the winner reaches down to 1 + resolution
/// (it is not shown slower by more than that). Runs measured with the separate
/// protocol (no rounds) give no answers.
std::vector<GroupAnswer> answer_groups(const RunDoc& run, double resolution = kTieResolution);

/// The group of a result (nullopt for a seed harness's points).
std::optional<GroupKey> group_of(const Result& r);

}  // namespace kex
