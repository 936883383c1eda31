// Several streams raced as one workload (issue 51: "several streams at once give one
// dispatch that minimizes the weighted time per call across them"). A kernel's time on a
// mix is, round by round, the weighted sum of its times on each stream: the k-th round of
// each stream's group (its members back to back in one window) enters the k-th round of
// the mix, so every ratio between two kernels stays a ratio of times measured side by side.
#pragma once
#include <string>
#include <vector>

#include "src/model/distribution.hpp"
#include "src/model/result.hpp"

namespace kex {

/// Streams and their weights: each stream's name as its points spell it (a distribution's
/// name), at least two, each once; one weight per stream, each above 0, summing to 1.
struct StreamMix {
  std::vector<std::string> streams;
  std::vector<double> weights;
  /// The mix's name: the streams joined by ',' (its points' stream coordinate).
  std::string name() const;
};

/// The most streams a mix takes (a tune record's `streams` table holds as many).
inline constexpr size_t kMaxMixStreams = 64;

/// The mix of `streams` with `weights` (empty: equal weights) scaled to sum to 1.
/// InputError (named after `where`) for fewer than two streams or more than kMaxMixStreams, a stream given twice,
/// a weight count that is not the streams', or a weight that is not a finite number above 0.
StreamMix make_stream_mix(const std::vector<std::string>& streams, const std::vector<double>& weights,
                          const std::string& where);

/// `doc` with every kernel's points on the mix's streams replaced by one point on the mix,
/// in the place of its first stream's point: that point's coordinates, with stream =
/// mix.name() and size = the weighted bytes of a pass, and one repetition per round
/// ordinal k (the k-th round of each stream's group, counted over all its members) that
/// every stream holds for the kernel: ticks per pass = the weighted sum of its streams'
/// (every stream's pass makes the same number of calls). A kernel not measured on some
/// stream of the mix is left out; one whose point on some stream is not ok keeps that
/// point's status, without repetitions. Points on other coordinates pass unchanged.
RunDoc mix_streams(const RunDoc& doc, const StreamMix& mix);

/// The distribution of a call drawn from stream i with probability weights[i]: P(size) =
/// sum of weights[i] * P_i(size); named by the names joined with ','; no overlap or
/// alignment lines (a mix of calls has none of its own). `ds` and `weights` of one length.
Distribution mix_distributions(const std::vector<Distribution>& ds, const std::vector<double>& weights);

}  // namespace kex
