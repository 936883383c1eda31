// `kex explain`: a kernel raced against its one-coordinate neighbours (src/model/ablation.hpp)
// in paired rounds by run_sweep, one group per size, and the effect of each change
// (src/model/explain.hpp) as the run's `explain` section.
#pragma once
#include <vector>

#include "src/model/config.hpp"
#include "src/model/explain.hpp"
#include "src/model/paired.hpp"
#include "src/run/ceilings.hpp"
#include "src/run/sweep.hpp"

namespace kex {

/// What to explain: the generated kernels of `space` (its grids' specs) at its sizes,
/// cache states and layouts.
struct ExplainRequest {
  Config space;
  uint32_t rounds = 20;                 ///< paired rounds per group (3 at least)
  double resolution = kTieResolution;   ///< an effect within 1 ± this is "no effect"
  bool ceilings = true;                 ///< also measure the ceilings per level (src/run/ceilings.hpp)
  uint32_t ceiling_rounds = 5;          ///< their paired rounds
  /// Explain the space's presets, baselines and loaded code too (outside_targets,
  /// src/run/explain_outside.hpp): kex explain's names, and kex run --explain's winners
  /// kex did not generate (each raced alone).
  bool outside = false;
};

/// The kernels of `space` with their neighbours, those this CPU cannot run marked; with
/// `outside`, then its competitors that are not specs (no neighbours). InputError naming
/// the kernel when this CPU cannot run one of the kernels itself, or when there is none.
std::vector<ExplainTarget> explain_targets(const Config& space, bool outside = false);

/// The config that races the targets: the space's axes, every target's kernel and its
/// neighbours that run (each once), and memcpy / memset for the ops present; with an
/// outside target, the space's presets and baselines (its loaded code always).
Config explain_config(const Config& space, const std::vector<ExplainTarget>& targets);

/// Per target, llvm-mca's prediction for its main loop (an outside one: outside_core) (src/run/mca.hpp) and its core
/// cycles per iteration at an L1-resident size (core_size, src/model/explain_core.hpp):
/// from `run` when it measured the kernel there (warm, default layout), else from a short
/// run of those kernels alone (`opt`'s protocol, unpaired, 5 repetitions).
std::vector<ExplainCore> explain_core(const RunDoc& run, const std::vector<ExplainTarget>& targets, RunOptions opt);

/// The counters the race asks for where a PMU exists (cache misses and stores; none
/// without one) and the section's `pmu` line: "" when counted, else "no PMU here (...)".
std::vector<std::string> explain_counter_names();
std::string explain_pmu_line();

/// Runs the race (`opt`'s protocol with paired rounds, `rounds` repetitions) and
/// returns the run with its context's `explain` section: the effects, the model of the
/// core (explain_core) and, where a PMU exists, the kernel's counters per point; with
/// `ceilings`, then the probes on the same CPU (their results join the run's,
/// context.ceilings their figures).
SweepRun run_explain(const ExplainRequest& req, RunOptions opt);

}  // namespace kex
