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

/// One event counter of the explained kernel at a point, per byte (bytes counted once):
/// what `kex run --counters` gives, where a PMU exists.
struct ExplainCounter {
  std::string name;                        ///< "llc-misses", "stores"
  double per_byte = 0;
  bool operator==(const ExplainCounter&) const = default;
};

/// One kernel in one group (a size under one cache state and layout).
struct ExplainPoint {
  std::string kernel;                      ///< the explained kernel's name
  std::string group;                       ///< group_label: "copy 4096", "clear 65536 cold"
  uint64_t size = 0;                       ///< bytes
  uint64_t rounds = 0;                     ///< rounds the kernel was measured in
  std::vector<ExplainEffect> effects;      ///< largest effect first (explain.hpp's order)
  std::vector<ExplainCounter> counters;    ///< the kernel's counters here; none without a PMU
  bool operator==(const ExplainPoint&) const = default;
};

/// llvm-mca's prediction for one explained kernel's main loop against its measurement at
/// an L1-resident size (src/model/explain_core.hpp; docs/methodology.md "A model of the core").
struct ExplainCore {
  std::string kernel;                      ///< the explained kernel's name
  std::string mcpu;                        ///< the llvm-mca model used; "" when there is no prediction
  std::string note;                        ///< the nearest model named, or a caveat; "" when none
  std::string missing;                     ///< why a figure is missing (no llvm-mca, no marked loop, ...); "" when none
  double predicted_cycles = 0;             ///< llvm-mca: core cycles per iteration (total cycles / iterations)
  double block_rthroughput = 0;            ///< llvm-mca's reciprocal block throughput, core cycles
  uint64_t bytes_per_iteration = 0;        ///< bytes the main loop moves per iteration
  uint64_t measured_size = 0;              ///< bytes per operation of the L1-resident measurement (warm)
  double measured_cycles = 0;              ///< core cycles per iteration measured (operation / iterations); 0: none
  std::string cycles_method;               ///< how core cycles were had: "perf" or "imul-chain estimate"
  bool operator==(const ExplainCore&) const = default;
};

/// Everything `kex explain` found.
struct ExplainSection {
  double resolution = 0.01;                ///< an effect within 1 ± this is "no effect"
  uint32_t rounds = 0;                     ///< rounds asked for
  std::vector<ExplainPoint> points;
  std::vector<ExplainCore> core;           ///< one per explained kernel (none in files before the model of the core)
  std::string pmu;                         ///< why there are no counters ("no PMU here ..."); "" when they were read
  bool operator==(const ExplainSection&) const = default;
};

}  // namespace kex
