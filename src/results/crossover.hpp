// Crossovers found from sweep data: where one family of curves starts or stops
// beating another, decided only where the measurements can tell them apart
// (paired rounds: docs/methodology.md "Paired rounds"), and the glibc tunables the
// decided crossovers suggest.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/model/context.hpp"
#include "src/model/paired.hpp"
#include "src/model/tunables.hpp"

namespace kex {

struct CurvePoint {
  double size = 0;            ///< bytes
  double gbps = 0;            ///< median GB/s
  double low = 0, high = 0;   ///< the point's own 95% interval of GB/s (used when there are no rounds)
  std::vector<std::pair<uint64_t, double>> rounds;  ///< (round, ticks per operation); empty without rounds
};
/// Bandwidth against size, sorted by size, one point per size.
using Curve = std::vector<CurvePoint>;

/// The upper envelope: at each size any curve has, the point of the curve with the
/// best median GB/s there (its rounds and interval come with it).
Curve envelope(const std::vector<Curve>& curves);

/// By default a curve wins at a size only when it is faster by more than 2% with 95%
/// confidence: a glibc default is not worth changing for less, and the winners of two
/// runs agree within about 2% (docs/methodology.md "Paired rounds").
inline constexpr double kCrossoverMargin = 0.02;

/// A crossover needs a curve to win at this many consecutive measured sizes at least.
inline constexpr size_t kMinWinSizes = 2;

/// What the measurements say at one size about curve `a` against curve `b`.
enum class Decision { wins, loses, within_noise };

struct SizeVerdict {
  double size = 0;
  Decision verdict = Decision::within_noise;
  /// b's time / a's time (> 1: a is faster): the median over shared rounds and its 95%
  /// interval, or without rounds the ratio of medians and the ratios of the intervals' ends.
  double ratio = 0, low = 0, high = 0;
  bool paired = false;  ///< from paired rounds
};

/// `a` against `b` at every size both have, ascending. With at least 3 shared rounds,
/// `a` wins when b's time / a's time has its interval above 1 + margin (loses when the
/// inverse does); else (no rounds: the separate protocol) when a's interval of GB/s
/// lies above b's by more than the margin. Anything else is within the noise.
std::vector<SizeVerdict> duel(const Curve& a, const Curve& b, double margin);

/// A run of consecutive common sizes where `a` wins.
struct SizeRange {
  double lo = 0, hi = 0;        ///< first and last size of the run (both measured)
  std::optional<double> below;  ///< the common size before lo, where a did not win (none: lo is the smallest)
  std::optional<double> above;  ///< the common size after hi, where a did not win (none: hi is the largest)
  size_t sizes = 0;             ///< sizes in the run
};

/// One curve family against another.
struct Contest {
  bool compared = false;              ///< both families were measured
  std::vector<SizeVerdict> verdicts;  ///< per common size
  std::vector<SizeRange> wins;        ///< runs of >= kMinWinSizes sizes where a wins: the crossovers
  std::vector<double> lone;           ///< sizes of shorter winning runs: inside the noise, not crossovers
  /// The winning run that reaches the largest common size, if any.
  std::optional<SizeRange> sustained() const;
  /// Sizes whose verdict is within_noise.
  size_t within_noise() const;
};

/// The runs of consecutive sizes (ascending) whose `in` is true, each with the sizes
/// next to it; `sizes` and `in` are alike indexed.
std::vector<SizeRange> runs_of(const std::vector<double>& sizes, const std::vector<bool>& in);

/// Compares `a` with `b` (duel), then splits the winning sizes into crossovers and lone wins.
Contest compare_curves(const Curve& a, const Curve& b, double margin);

struct Crossovers {
  std::string cache;     ///< cache mode the curves came from
  uint32_t threads = 1;  ///< workers per operation of the points compared
  double max_size = 0;   ///< largest copy size measured
  double margin = kCrossoverMargin;
  Contest nt;         ///< non-temporal vector loops against temporal ones (copies)
  Contest rep_movsb;  ///< rep movsb against the best vector loop (copies)
  Contest prefetch;   ///< the best prefetching loop against the best one without (copies)
  Contest rep_stosb;  ///< rep stosb against the best vector loop (clears of zeros)
};

/// Measured by kex's own harness at the default layout, call pattern and data, in
/// cache mode `cache` by `threads` workers: the points the crossovers (and --workload) are about.
bool at_defaults(const Result& r, CacheMode cache, uint32_t threads = 1);

/// The thread counts of the run's measured points at the default layout, call pattern
/// and data (any cache mode), ascending; {1} when there are none.
std::vector<uint32_t> crossover_threads(const RunDoc& run);

/// The cache mode the curves come from: `cache` when given, else warm when a copy point
/// at the defaults has it, else the first such point's; nullopt without any.
std::optional<CacheMode> crossover_cache(const RunDoc& run, const std::string& cache);

/// Finds the crossovers of one run in cache mode `cache` ("" = "warm" when present,
/// else the first mode found), at the default layout, call pattern and data (points
/// at other coordinates are another question). Curves: temporal and non-temporal
/// vector loops (generated, regs != string), rep movsb / rep stosb (the baselines and
/// generated forward string loops of 1-byte elements), loops with and without prefetch.
/// With `threads`, among the points of that many workers (each thread count is its own question:
/// contention moves the crossovers).
Crossovers find_crossovers(const RunDoc& run, const std::string& cache = "", double margin = kCrossoverMargin,
                           uint32_t threads = 1);

/// Throws InputError("<file>: ...") when `run` has no measured copy point at the
/// default layout, call pattern and data in cache mode `cache` ("": any), naming the
/// cache and the conditions the file's copy points have.
void check_crossover_data(const RunDoc& run, const std::string& cache, const std::string& file);

/// The glibc path a kernel stands for: rep (the rep_movsb / rep_stosb baselines and
/// forward string loops of 1-byte elements), non-temporal or temporal stores (the other
/// generated loops), none (libc, the other string loops). `spec`: the kernel's, null
/// for a baseline.
enum class GlibcPath { none, temporal, nontemporal, rep };
GlibcPath glibc_path(const std::string& kernel, const KernelSpec* spec);

/// Where the paths glibc has thresholds for win: what suggested() turns into tunables.
struct PathWins {
  std::optional<SizeRange> nt;                ///< non-temporal stores win from lo up to the largest size
  std::vector<SizeRange> rep_movsb, rep_stosb;  ///< the ranges where rep wins, ascending
};

/// glibc raises x86_non_temporal_threshold to at least this many bytes.
constexpr uint64_t kGlibcNtMin = 0x4040;

/// The tunables `w` suggests: the non-temporal threshold where non-temporal stores win
/// up to the largest size; the rep movsb / rep stosb thresholds at the start of the
/// widest range (largest hi/lo) where rep wins.
std::vector<Tunable> suggested(const PathWins& w);

/// The tunables the decided crossovers suggest: suggested(PathWins) over the
/// non-temporal contest's sustained crossover and the rep contests' crossovers.
std::vector<Tunable> suggested(const Crossovers&);

/// "name=value:name=value" for GLIBC_TUNABLES, "" for none.
std::string tunables_string(const std::vector<Tunable>&);

/// tunables_string(suggested(x)).
std::string suggested_tunables(const Crossovers&);

}  // namespace kex
