// `kex crossovers --workload FILE`: the expected time per call of a histogram of copy
// sizes (e.g. captured from libc's memcpy with a bpftrace uprobe, examples/) under
// libc memcpy, each kernel of a results file and a per-size best-kernel dispatch.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/model/context.hpp"
#include "src/model/distribution.hpp"

namespace kex {

/// A workload file is at most this long (16 MiB: about a million "size,count" lines).
constexpr size_t kMaxWorkloadBytes = size_t(16) << 20;

/// Reads (read_regular_file: a regular file of at most kMaxWorkloadBytes, else
/// InputError "--workload: PATH: ...") and parses the file at `path`.
std::vector<WorkloadBin> load_workload(const std::string& path);

/// A candidate's expected cost.
struct WorkloadCost {
  std::string name;         ///< kernel name, or "per-size best kernel (dispatch)"
  double ns_per_call = 0;   ///< over the calls at sizes inside the measured range
  bool libc = false;        ///< libc memcpy
  bool dispatch = false;    ///< the per-size best kernel
};

struct WorkloadReport {
  std::string cache;
  double lo = 0, hi = 0;           ///< the measured copy sizes' range (bytes)
  uint64_t calls = 0;              ///< in the histogram
  uint64_t below = 0, above = 0;   ///< calls at sizes outside [lo, hi]: left out of every figure
  std::vector<WorkloadCost> ranked;       ///< candidates measured over the whole range used, fastest first
  std::vector<std::string> incomplete;    ///< kernels not measured at sizes spanning the calls used
};

/// Ranks libc memcpy, every copy kernel of `run` (default layout, call pattern and
/// data, cache mode `cache`: "" = warm when present) and the per-size best kernel
/// (libc left out) by the expected time per call over the histogram's calls inside
/// the measured range: at a size between two measured sizes, GB/s is interpolated
/// linearly in log2(size); time = size / GB/s.
WorkloadReport rank_workload(const RunDoc& run, const std::vector<WorkloadBin>& bins, const std::string& cache = "");

/// The ranking: the first `top` rows, then libc and the dispatch when they are below;
/// ratios to libc; what the calls outside the measured range were.
std::string format_workload(const WorkloadReport& r, size_t top = 10);

}  // namespace kex
