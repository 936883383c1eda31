// How bandwidth scales with threads: from a run's points measured at several thread counts.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/context.hpp"

namespace kex {

/// One kernel at one size and condition (threads aside), at each thread count it ran.
struct ScalingRow {
  Op op = Op::copy;
  std::string condition;   ///< condition_label of the coordinates but size and threads ("" = defaults)
  uint64_t size = 0;       ///< bytes per worker per operation
  std::string kernel;
  struct Cell {
    uint32_t threads = 1;
    double gbps = 0;          ///< aggregate: size x threads over the median sample time
    double per_thread = 0;    ///< gbps / threads
    /// gbps over the 1-thread gbps (0 without a 1-thread point): threads x the median over
    /// the rounds both ran in of (1-thread time / this time), with its 95% interval; from the
    /// medians (low = high = speedup) when they share fewer than 3 rounds
    double speedup = 0, speedup_low = 0, speedup_high = 0;
    double spread = 0;        ///< slowest worker's median time over the fastest's (1 = even; 0 unknown)
  };
  std::vector<Cell> cells;  ///< ascending threads
};

/// Every kernel of `run` measured at two or more thread counts, by op, condition, size
/// and kernel, its cells ascending by threads. Empty when no point has threads > 1.
std::vector<ScalingRow> scaling_rows(const RunDoc& run);

/// scaling_rows as a table per op and condition: a row per size and kernel, a column per
/// thread count with the aggregate GB/s, the speedup over one thread and the spread between
/// workers. "" when no point has threads > 1. Kernel names escaped for a terminal.
std::string scaling_table(const RunDoc& run);

}  // namespace kex
