// Tests for "is B different from A" over repetitions (the unit of a comparison:
// samples inside one repetition are not independent;
// benchmarks/results/2026-12-01-zen4-second-machine.md).
#pragma once
#include <cstddef>
#include <vector>

namespace kex {

/// The two-sided Mann-Whitney U test of `a` against `b`, as scipy.stats.mannwhitneyu
/// computes it by default (the test Google Benchmark's tools/compare.py runs): the
/// exact distribution when a sample has at most 8 values and there are no ties,
/// else the normal approximation with the tie correction and a continuity
/// correction of 0.5. `u` is U of `a` (midranks for ties). Empty input gives p = 1.
struct UTest {
  double u = 0;
  double p = 1;
  bool exact = false;
};
UTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

/// The smallest two-sided p the exact test can give for samples of n1 and n2
/// values (both sides at the extreme): with 3 repetitions a side it is 0.1, so no
/// difference can be shown at alpha 0.01.
double smallest_p(size_t n1, size_t n2);

/// Benjamini-Hochberg adjusted p-values (false discovery rate), in the input's order.
std::vector<double> benjamini_hochberg(const std::vector<double>& p);

/// Holm-Bonferroni adjusted p-values (family-wise error), in the input's order.
std::vector<double> holm(const std::vector<double>& p);

}  // namespace kex
