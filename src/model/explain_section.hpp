// The `explain` section of a results file written by `kex explain` (context.explain,
// configs/schema/results.schema.json "explain"): per kernel and group, the effect of
// each one-coordinate change (src/model/ablation.hpp) as a paired time ratio over rounds.
// Plain records only: src/model/explain.hpp computes them, explain_fields.hpp maps them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kex {

/// One neighbour's effect: its time / the kernel's over the rounds both ran in (the
/// median of the per-round ratios, > 1: the neighbour is slower) with its 95% interval.
struct ExplainEffect {
  std::string neighbour;                   ///< the neighbour's kernel name
  std::string coordinate, from, to;        ///< the change (Neighbour)
  std::string refused;                     ///< why it was not measured ("" when it was)
  double ratio = 0, low = 0, high = 0;     ///< 0 when not measured
  uint64_t rounds = 0;                     ///< rounds shared with the kernel (0: not paired)
  bool operator==(const ExplainEffect&) const = default;
};

/// One kernel in one group (a size under one cache state and layout).
struct ExplainPoint {
  std::string kernel;                      ///< the explained kernel's name
  std::string group;                       ///< group_label: "copy 4096", "clear 65536 cold"
  uint64_t size = 0;                       ///< bytes
  uint64_t rounds = 0;                     ///< rounds the kernel was measured in
  std::vector<ExplainEffect> effects;      ///< largest effect first (explain.hpp's order)
  bool operator==(const ExplainPoint&) const = default;
};

/// Everything `kex explain` found.
struct ExplainSection {
  double resolution = 0.01;                ///< an effect within 1 ± this is "no effect"
  uint32_t rounds = 0;                     ///< rounds asked for
  std::vector<ExplainPoint> points;
  bool operator==(const ExplainSection&) const = default;
};

}  // namespace kex
