// Crossovers found from sweep data (pure functions on bandwidth curves), and
// the glibc tunables they suggest.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "src/model/context.hpp"

namespace kex {

struct CurvePoint {
  double size = 0;  ///< bytes
  double gbps = 0;  ///< median GB/s
};
/// Bandwidth against size, sorted by size, one point per size.
using Curve = std::vector<CurvePoint>;

/// A run of consecutive measured sizes [lo, hi] (both measured sizes).
struct SizeRange {
  double lo = 0, hi = 0;
};

/// The upper envelope: at each size any curve has, the best GB/s among the curves there.
Curve envelope(const std::vector<Curve>& curves);

/// Maximal runs of consecutive common sizes where `a` beats `b` by more than
/// `margin` (a > b * (1 + margin)). Only sizes present in both curves count.
std::vector<SizeRange> winning_ranges(const Curve& a, const Curve& b, double margin = 0);

/// The smallest common size from which `a` beats `b` (by more than `margin`) at
/// that size and every larger common size; nullopt when `a` does not win at the
/// largest common size.
std::optional<double> sustained_crossover(const Curve& a, const Curve& b, double margin = 0);

struct Crossovers {
  std::string cache;                       ///< cache mode the curves came from
  double max_size = 0;                     ///< largest copy size measured
  std::optional<double> nt_above;          ///< non-temporal beats temporal from this size up
  bool nt_compared = false;                ///< both temporal and non-temporal loops were measured
  std::vector<SizeRange> rep_movsb_wins;   ///< where rep movsb beats the best vector loop
  bool rep_compared = false;
  std::vector<SizeRange> prefetch_helps;   ///< where the best prefetching loop beats the best one without
  bool prefetch_compared = false;
  std::optional<double> prefetch_stops;    ///< smallest measured size above the last range where prefetch helps
};

/// Finds the crossovers of one run's copy sweep in cache mode `cache` ("" =
/// "warm" when present, else the first mode found), at the default layout, call
/// pattern and data (points at other coordinates are another question). Curves:
/// temporal and non-temporal vector loops (generated, regs != string), rep movsb
/// (the rep_movsb baseline and generated forward string copies of 1-byte
/// elements), loops with and without prefetch.
Crossovers find_crossovers(const RunDoc& run, const std::string& cache = "", double margin = 0);

/// Suggested glibc tunables, e.g.
/// "glibc.cpu.x86_non_temporal_threshold=67108864:glibc.cpu.x86_rep_movsb_threshold=32768", or "" when the data
/// suggests neither.
std::string suggested_tunables(const Crossovers&);

/// The human report: each crossover with the sizes that show it, and a
/// `GLIBC_TUNABLES=...` line with the reasoning.
std::string format_crossovers(const Crossovers&);

}  // namespace kex
