// `kex compare A B`: points matched by name, medians side by side, the speedup
// (B throughput / A throughput: > 1 means B is faster), and whether B differs from
// A: a Mann-Whitney U test over the repetition medians (the repetition is the unit),
// corrected for the number of points compared, and an effect larger than the
// runs' own noise.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/model/context.hpp"
#include "src/model/noise.hpp"

namespace kex {

enum class Correction { benjamini_hochberg, holm, none };
/// "bh", "holm", "none": the words of --correction.
std::string_view to_string(Correction);
inline constexpr std::array kCorrections{Correction::benjamini_hochberg, Correction::holm, Correction::none};

/// What a side's figure is. median: the median of the repetition medians (the
/// entry's figure everywhere else). best: the fastest sample over the repetitions,
/// and per repetition its fastest sample for the U test: on a VM whose core runs
/// in a fast and a slow state (benchmarks/results/2026-12-01-two-states.md), the fast
/// state's figure, which two runs agree on far better than on the mixture.
enum class Statistic { median, best };
/// "median", "best": the words of --statistic.
std::string_view to_string(Statistic);
inline constexpr std::array kStatistics{Statistic::median, Statistic::best};

struct CompareOptions {
  std::string filter;                  ///< name filter (parse_name_filter: a regex, a leading - inverts; "" = all)
  Statistic statistic = Statistic::median;
  double alpha = 0.01;                 ///< significance level after the correction
  std::optional<double> min_effect;    ///< |speedup - 1| needed to call a difference; unset: from the noise
  Correction correction = Correction::benjamini_hochberg;
  /// Compare each point's absolute time, not its time relative to its group in the
  /// same rounds (what a paired run measures best).
  bool absolute = false;
};

/// What a compare row concludes: no difference shown, or B faster or slower than A.
enum class Change { same, faster, slower };

struct CompareRow {
  std::string name;
  double a_ns = 0, b_ns = 0;       ///< ns per operation: the median, or the fastest (Statistic::best);
                                   ///< relative rows: the time over its group's in the same rounds (median)
  bool relative = false;           ///< each side's figure is relative to its group, from its rounds
  double detectable = 0;           ///< relative rows: the change the U test would find 80% of the time at alpha
  double speedup = 0;              ///< a_ns / b_ns = B throughput / A throughput: > 1, B is faster
  uint64_t size = 0;               ///< bytes per operation (the point's size)
  size_t a_reps = 0, b_reps = 0;   ///< repetitions each side's figure comes from
  double p = 1, p_adjusted = 1;    ///< U test over the repetitions' figures (1 when a side has one repetition)
  std::optional<bool> ci_overlap;  ///< the 95% CIs of the medians (nullopt when a side has none)
  bool by_ci = false;              ///< a side had one repetition: the verdict used CI overlap instead
  Change verdict = Change::same;
  /// Both sides ran identical code: equal code bytes (size and hash of what kex placed in
  /// its arena), or the same symbol of a file with the same SHA-256 (a shared object).
  /// A difference there is the machine's.
  bool same_code = false;
};

/// A sentinel figure that differs between the two runs by more than the runs'
/// sentinel threshold: the machine was not in the same state (the core shared
/// with another tenant, memory bandwidth taken), so differences at the sizes it
/// bears on may be the machine's, not the kernels'
/// (benchmarks/results/2026-12-01-zen5-noise.md).
struct StateShift {
  std::string part;        ///< "L1 store loop" or "memory read"
  std::string affects;     ///< the points it bears on, in words
  bool beyond_l2 = false;  ///< it bears on the points larger than the L2 only (the memory read)
  double a = 0, b = 0;  ///< each run's median over its readings, TSC ticks per KiB
};

struct Comparison {
  std::vector<CompareRow> rows;             ///< in A's order
  std::vector<std::string> only_a, only_b;  ///< names measured on one side only
  double geomean_speedup = 0;               ///< geometric mean of the rows' speedups (0 when no rows)
  double min_effect = 0;                    ///< the effect used
  double noise = 0;                         ///< median over rows of the larger repetition cv of the two sides
  double alpha = 0.01;
  Correction correction = Correction::benjamini_hochberg;
  Statistic statistic = Statistic::median;  ///< the figure compared
  size_t faster = 0, slower = 0, same = 0;
  size_t same_code = 0;                     ///< rows whose two sides ran identical code
  size_t relative_rows = 0;                 ///< rows compared relative to their groups
  double relative_min_effect = 0;           ///< the effect those rows need
  double between_runs = 0;                  ///< robust spread of those rows' shifts (1.4826 x MAD of the logs):
                                            ///< how much the runs moved the points' standing (0: under 10 rows)
  double detectable = 0;                    ///< median over relative rows of the change they could detect
  bool underpowered = false;                ///< no row had enough repetitions to reach alpha
  std::vector<StateShift> shifts;           ///< sentinel figures the two runs differ on (none when either lacks them)
  bool min_effect_from_state = false;       ///< the default min effect was raised to the L1 loop's shift
  double min_effect_beyond_l2 = 0;          ///< > 0: the min effect of points larger than A's L2 (the memory
                                            ///< read's shift, when larger than min_effect)
  bool state_unknown = false;               ///< one run has a noise record, the other not
};

/// The sentinel figures of two runs' noise records (context.protocol.noise) that
/// differ by more than `threshold` (0.15 = 15%) in either direction; empty when a
/// run has no record or a figure is missing on a side.
std::vector<StateShift> state_shifts(const std::optional<Noise>& a, const std::optional<Noise>& b, double threshold);

/// Matches measured points of `a` and `b` by canonical name (every coordinate is
/// in it, so points of different layouts never pair up) and compares them. Points
/// skipped or failed on a side count as absent there.
///
/// A point whose group was measured in paired rounds on both sides (at least 3 rounds
/// with 2 of the points both runs have) is compared relative to its group: each round
/// gives its time over the geometric mean time of the group's other points in the same
/// round, B's divided by the group's median shift between the runs (a point that changed
/// moves the others' references a little), and the U test runs over rounds; a change of
/// the whole machine between the runs cancels out.
/// Its default minimum effect is the larger of kRelativeMinEffect and 3 x the spread of
/// all relative rows' shifts between the runs (an empirical null: most points did not
/// change, and how far they moved is the runs' own disagreement). The other points (or all, with
/// opt.absolute) are compared by their absolute times over repetitions; their default
/// minimum effect is 3 x the noise (at least 1%), raised to the runs' sentinel shifts
/// |B/A - 1| (a machine in another state moves the figures about that much): the L1
/// loop's for every point, the memory read's for points larger than A's L2.
Comparison compare_results(const RunDoc& a, const RunDoc& b, const CompareOptions& opt = {});

/// The smallest change a relative comparison calls by default; it calls only beyond 3 x
/// the runs' own spread when that is larger, as it is between most runs of a shared VM
/// (docs/methodology.md, "Paired rounds").
inline constexpr double kRelativeMinEffect = 0.03;

/// Whether `a` and `b` ran identical code (CompareRow::same_code); false when either
/// side records none (libc's functions, glibc's variants).
bool same_code(const Result& a, const Result& b);

/// True when two closed intervals share a point.
bool intervals_overlap(double lo1, double hi1, double lo2, double hi2);

/// Rows that fail a `--fail-above SLOWDOWN` gate: called slower, and B's time is
/// more than `slowdown` (1.05 = 5%) times A's.
std::vector<const CompareRow*> regressions(const Comparison&, double slowdown);

/// The table `kex compare` prints: a header saying the direction, one line per
/// row, then the counts and the geometric mean. The labels and point names come from
/// the files and are escaped for a terminal (terminal_text), the name column padded by
/// display width; only kex's own summary line starts with "summary: " after a newline.
std::string format_comparison(const Comparison&, const std::string& a_label, const std::string& b_label);

/// The same comparison as GitHub Markdown, for a pull request: the labels, kex's lines
/// as paragraphs and the rows as a table (`kex compare --format markdown`). The labels
/// and point names come from the files and are escaped (md_text): a name holding |, `
/// or a newline stays in its cell.
std::string format_comparison_markdown(const Comparison&, const std::string& a_label, const std::string& b_label);

}  // namespace kex
