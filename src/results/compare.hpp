// `kex compare A B`: entries matched by name, medians side by side, the time
// ratio B/A, whether the 95% confidence intervals overlap, and a summary
// (geometric mean of the ratios).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "src/model/context.hpp"

namespace kex {

struct CompareRow {
  std::string name;
  double a_ns = 0, b_ns = 0;  ///< median ns per call
  double ratio = 0;           ///< b_ns / a_ns: above 1 means B is slower
  std::optional<bool> ci_overlap;  ///< nullopt when either side has no CI
};

struct Comparison {
  std::vector<CompareRow> rows;          ///< in A's order
  std::vector<std::string> only_a, only_b;  ///< names measured on one side only
  double geomean_ratio = 0;              ///< geometric mean of rows' ratios (0 when no rows)
};

/// Matches measured points of `a` and `b` by canonical name (every coordinate is
/// in it, so points of different layouts never pair up) and computes the ratios.
/// Points that were skipped or failed on a side count as absent there. `filter`
/// (ECMAScript regex, empty: all) keeps matching names.
Comparison compare_results(const RunDoc& a, const RunDoc& b, const std::string& filter = "");

/// True when two closed intervals share a point.
bool intervals_overlap(double lo1, double hi1, double lo2, double hi2);

/// Rows that fail a `--fail-above RATIO` gate: ratio > limit and the confidence
/// intervals do not overlap (or are unknown).
std::vector<const CompareRow*> regressions(const Comparison&, double limit);

/// The table `kex compare` prints: one line per row, then the summary line.
std::string format_comparison(const Comparison&, const std::string& a_label, const std::string& b_label);

}  // namespace kex
