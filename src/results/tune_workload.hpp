// The report's "Workload memcpy" section of a tune of a stream (kex tune --stream): the
// dispatch it chose by size range with each range's strategy and why it was chosen, the
// stream's time per call of the tuned kernel against libc's function (ifunc's pick),
// glibc's fastest variant and rep, with the paired rounds' intervals, and the fixed sizes
// the file measured beside glibc's.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/context.hpp"
#include "src/model/tune.hpp"

namespace kex {

/// Part of a kernel's sizes and how it moves them: [lo, hi] bytes (hi kNoBound: no bound).
struct StrategyRange {
  uint64_t lo = 0, hi = 0;
  std::string what;  ///< "one AVX-512BW masked move", "rep movsb", "the avx512 loop, 256 B an iteration, ..."
};
inline constexpr uint64_t kNoBound = ~uint64_t(0);

/// How kernel `name` moves each part of [lo, hi]: a spec by its small strategy (below one
/// register width), its rep:N threshold and its loop (the order generators/skeleton.cpp
/// tests them in); rep_movsb/rep_stosb, libc's function and other code as one range.
std::vector<StrategyRange> strategy_ranges(const std::string& name, Op op, uint64_t lo, uint64_t hi);

/// The section as GitHub Markdown (names through md_text) for a tune of a stream; "" for a
/// tune by size. `run` is the file as read (the section ranks race_view's group).
std::string tune_workload_markdown(const RunDoc& run, const TuneRecord& tune);

}  // namespace kex
