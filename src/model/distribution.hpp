// Size distributions of calls (docs/DESIGN.md "Streams"): what a stream's calls are drawn
// from. Three file formats are read: fleetbench's (up to three lines of value:probability
// pairs: sizes, overlap, alignment), llvm-libc's (one line of probabilities indexed by
// size) and a histogram of `size,count` lines (kex crossovers --workload's). The shipped
// ones are configs/streams/*.csv, built into the binary (configs/streams/README.md).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/model/function.hpp"

namespace kex {

/// One histogram bin: `count` calls of `size` bytes.
struct WorkloadBin {
  uint64_t size = 0;
  uint64_t count = 0;
  bool operator==(const WorkloadBin&) const = default;
};

/// Parses CSV text: lines "size,count" (two integers of kex's grammar, size >= 0,
/// count >= 0); an optional header line "size,count" first; empty lines and lines
/// starting with '#' are skipped; "\r\n" endings are read. Throws InputError
/// "<path>:<line>: ..." for anything else, for a size given twice, and for a file
/// without calls.
std::vector<WorkloadBin> parse_workload(const std::string& text, const std::string& path);

/// The largest call size a distribution may hold (1 GiB): a larger one is refused.
inline constexpr uint64_t kMaxDistributionSize = uint64_t(1) << 30;

/// A distribution of call sizes and, where its file says, of overlaps and alignments.
struct Distribution {
  std::string name;                 ///< "Memcpy_Fleet", or a file's name without its folder and .csv
  std::optional<Function> function; ///< the function its calls are of (Memcpy_*: memcpy); nullopt: any copy or clear
  std::vector<uint64_t> sizes;      ///< ascending, distinct, each with a probability above 0
  std::vector<double> cumulative;   ///< P(size <= sizes[i]), the last one 1
  double overlap = 0;               ///< P(src and dst overlap) (memmove's line; 0 when absent)
  std::vector<std::pair<uint32_t, double>> alignments;  ///< power of two -> P, summing to 1; empty: none given
  double given_sum = 1;             ///< the sizes' probabilities as the file gives them, before normalizing
};

/// What `kex list streams` and results say of a distribution.
struct DistributionFacts {
  size_t distinct = 0;   ///< sizes with a probability above 0
  double mean = 0;       ///< bytes per call
  uint64_t p50 = 0, p90 = 0, p99 = 0, max = 0;
  /// P(size <= s) at s = 0, then 1, 2, 3, 4, 6, 8, 12, ... (powers of two and 1.5 times
  /// them) up to the first at or above max: the size CDF a report draws, in at most 63 points.
  std::vector<std::pair<uint64_t, double>> cdf;
};
DistributionFacts distribution_facts(const Distribution& d);

/// The size at cumulative probability `q` (the smallest size whose P(size <= s) >= q).
uint64_t distribution_quantile(const Distribution& d, double q);

/// Parses `text` (any of the three formats; the first line with ':' decides fleetbench's,
/// one line of many fields llvm-libc's, else size,count). `name` names it; `where` goes in
/// front of every error: InputError "WHERE:LINE: ..." for a negative, NaN or infinite
/// probability, a size over kMaxDistributionSize, a value given twice, an empty file, a
/// total probability that is not 1 within 1e-3 (fleetbench's and llvm-libc's; a histogram's
/// counts are normalized), an overlap or alignment line that is not a distribution.
Distribution parse_distribution(const std::string& text, const std::string& name, const std::string& where);

/// The shipped distributions' names, in `kex list streams` order: Memcpy_Fleet, Memcpy_0..8,
/// then Memmove's and Memset's.
const std::vector<std::string>& shipped_distributions();

/// The shipped distribution `name`; nullopt for any other name.
std::optional<Distribution> shipped_distribution(const std::string& name);

/// Whether `name` can name a stream in a point name: 1 to 64 letters, digits, _ and -.
bool is_stream_name(const std::string& name);

}  // namespace kex
