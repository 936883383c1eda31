// The parts of run_sweep (src/run/sweep*.cpp) share: the run as it goes (Sweep) and
// its stages. Internal to src/run: sweep_plan.cpp plans the points, sweep.cpp builds,
// places and verifies them and makes the jobs, sweep_measure.cpp measures the jobs,
// sweep_results.cpp assembles the Results and the protocol's record, sweep_once.cpp
// runs the seed harnesses and the segment table.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/run/buffers.hpp"
#include "src/run/built.hpp"
#include "src/run/sweep.hpp"
#include "src/run/verify.hpp"

namespace kex::sweep_detail {

/// Overlapping regions need memmove semantics at this distance.
bool overlaps(const Coords& at);

/// Why kernel `k` is left out of point `at` because src and dst overlap there ("" = it runs).
std::string overlap_skip(const KernelPlan& k, const Coords& at);

/// Buffer plans: one per huge-page setting, over every layout of the plan's points (of
/// those with more than `above` threads: what worker `above` of a multi-threaded point
/// maps), and which plan each huge-page setting uses.
std::pair<std::vector<BufferPlan>, std::map<bool, size_t>> buffer_plans(const SweepPlan& sp, uint32_t above = 0);

/// One point of the run and everything learnt about it, stage by stage (STYLE rule 1:
/// each stage adds its part; nothing reaches back).
struct PointState {
  PlannedSlot slot;
  Place place;                          ///< where the buffers put it (2)
  size_t placed_check = SIZE_MAX;       ///< its placement's verification, in Sweep::checks (3)
  size_t placed_checks = 1;             ///< how many checks from placed_check on (a stream's: its cases and overlaps)
  std::optional<Result> result;         ///< its Result: resumed or refused (4), or from its job (6)
  std::optional<size_t> job;            ///< its measuring job (4)
};

/// One measuring job: what the workers run (its MeasureJob, at the same index in their
/// list), the point it measures (index into Sweep::points), its family, and what the
/// supervisor reported for it.
struct Job {
  MeasureJob work;                   ///< what the workers run
  size_t point = 0;
  uint32_t family = 0;               ///< its family at its size (separate order)
  std::vector<Repetition> reps;      ///< finished, resumed ones first
  std::optional<Status> died;        ///< its kernel killed the worker
  std::optional<Status> lost;        ///< not measured as asked
};

/// The run as it goes: the plans, the built code, the points, the jobs and what the
/// supervisor reported for them, and the context facts gathered on the way.
struct Sweep {
  const SweepPlan& sp;                                 ///< the configs, their kernel plans and the points
  const std::vector<Config>& configs;                  ///< sp.configs
  const RunOptions& opt;
  Protocol protocol;
  SweepRun out;
  std::vector<BuiltSet> built;                         ///< per config: its plans' code
  std::vector<BufferPlan> bplans;
  std::map<bool, size_t> bindex;                       ///< huge pages -> buffer plan
  std::vector<PointState> points;
  std::vector<Verification> checks;                    ///< each kernel's and each placement's, with its verdict
  std::map<std::pair<size_t, size_t>, size_t> general; ///< (config, plan) -> its kernel's check
  std::vector<Job> jobs;                               ///< the measuring jobs: their work, point and outcome
  std::vector<std::vector<uint32_t>> pair_groups;      ///< the jobs of each group (paired order)
  SupervisedRun sup;
  size_t todo_tasks = 0;
  std::vector<ThreadPlace> places;                     ///< threads > 1: worker k's place
  std::vector<double> sentinel_l1, sentinel_mem;
  size_t sentinel_disturbed = 0;
  bool interrupted = false;
  std::chrono::steady_clock::time_point t_start = std::chrono::steady_clock::now();

  Sweep(const SweepPlan& p, const RunOptions& o) : sp(p), configs(p.configs), opt(o), protocol(o.protocol) {}
  bool stopped() const { return opt.stop && *opt.stop; }
  const KernelPlan& plan(const PlannedSlot& s) const { return sp.plans[s.config].plans[s.plan]; }
  /// The shared objects the plans' stubs call through (null: the plan loads none).
  SharedObjects* shared_objects() const { return sp.loaded ? &sp.loaded->shared_objects() : nullptr; }
  const Built& code(const PlannedSlot& s) const { return built[s.config].kernels[s.plan]; }
};

/// Pins to the run's CPU, starts the context and places the workers of multi-threaded points.
void start(Sweep& w);
/// 1. Every kernel a point uses, generated up front (sweep.cpp).
void build_code(Sweep& w);
/// 2. Every point's place (sweep.cpp).
void place_points(Sweep& w);
/// 3. Every runnable kernel verified before any timing (sweep.cpp).
void verify_points(Sweep& w);
/// 4. Every point's status before measuring; the measurable ones become jobs (sweep.cpp).
void plan_jobs(Sweep& w);
/// 5. Measuring, in a supervised worker: what an earlier run finished is not redone (sweep_measure.cpp).
void measure_jobs(Sweep& w);
/// 6. Results in config order (sweep_results.cpp).
void collect_results(Sweep& w);
/// The protocol's facts and the run's noise for the context, and where the buffers were (sweep_results.cpp).
void record_protocol(Sweep& w);
/// The seed harnesses (fastc, hahn) and the segment table: once, in shard 0 only (sweep_once.cpp).
void run_once_parts(Sweep& w);
/// The run's closing facts (sweep_results.cpp). A second stop in any phase: abandoned.
SweepRun finish(Sweep& w);

}  // namespace kex::sweep_detail
