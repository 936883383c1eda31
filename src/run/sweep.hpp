// The main job: configs -> plans x points -> JIT -> verify -> measure (supervised,
// repetitions interleaved) -> Results.
#pragma once
#include <csignal>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/model/config.hpp"
#include "src/model/context.hpp"
#include "src/model/expand.hpp"
#include "src/model/run_request.hpp"
#include "src/model/seed.hpp"
#include "src/run/journal.hpp"
#include "src/run/load_plans.hpp"
#include "src/run/streams.hpp"
#include "src/run/supervisor.hpp"

namespace kex {

/// How a sweep runs: the run's request (src/model/run_request.hpp: its shard, protocol
/// (worker CPU -1: pick one), run id ("" draws one) and the --filter for context.filter;
/// its configs and format are kex run's, the sweep measures its plan's configs) and what
/// the caller adds. The request is a base, not a member, so that `opt.protocol` reads as
/// before wherever the options are made.
struct RunOptions : RunRequest {
  const volatile std::sig_atomic_t* stop = nullptr;  ///< counts SIGINT/SIGTERM (1: stop after the task; 2: now)
  bool progress = true;                     ///< progress on stderr
  Journal* journal = nullptr;               ///< every finished repetition and point goes here as it is known
                                            ///< (its path is context.protocol.journal; none: "")
  std::optional<std::vector<CounterRecord>> counters;  ///< context.counters: what --counters resolved to
  const JournalState* resume = nullptr;     ///< work an earlier run of the same configs did: not redone
  bool pair_fills = false;                  ///< paired rounds: a clear's fill bytes race in one round (kex
                                            ///< explain's fill neighbour); the groups stay apart
  /// A seed harness's run as its seed program printed it (the results layer's
  /// seed_table_text): the sweep puts each one in context.seed_tables as the harness
  /// finishes. None: the context keeps no seed tables.
  std::function<std::string(const SeedRun&)> seed_table;
  /// The run's registry of loaded code (src/run/load_plans.hpp): a new one with each
  /// RunOptions made, the same one in its copies (kex tune's stages, --explain's races are
  /// one run). plan_configs loads into it and the SweepPlan keeps it alive.
  std::shared_ptr<LoadedCode> loaded = std::make_shared<LoadedCode>();
};

/// What --explain did, for its lines at the end of the run.
struct WinnersExplained {
  std::optional<ExplainSection> section;  ///< the joined sections; none when nothing was raced
  std::vector<std::string> notes;         ///< one line per winner not explained, with the reason
  size_t raced = 0;                       ///< winners explained
  size_t points = 0;                      ///< points measured for it (kernels and neighbours, baselines)
  double seconds = 0;                     ///< wall time of the races (the ceilings' is theirs)
  bool abandoned = false;                 ///< a second stop: nothing more should be written
  /// The per-level ceilings (src/run/ceilings.hpp), measured once after the races for the
  /// report's roofline; none when nothing was raced, the run was stopped or no level is
  /// known (a note says why). Their probes are not the run's points.
  std::optional<Ceilings> ceilings;
};

/// A finished sweep: the run, and each seed-harness run (with the config it came
/// from) whose Results are also in doc.results, for the seed-table writer.
struct SweepRun {
  RunDoc doc;
  std::vector<std::pair<std::string, SeedRun>> seed_runs;
  bool abandoned = false;  ///< a second stop: nothing should be written but the journal
  /// After run_and_explain (src/run/explain_winners.hpp) with rounds: what --explain did. Its section is in doc.context
  /// (moved there); its ceilings are in doc.context too, and here only to say they were
  /// measured now and in how long.
  std::optional<WinnersExplained> explained;
};

/// One point of a planned run: its config, its plan (index into that config's
/// ConfigPlans::plans), its coordinates and its full name.
struct PlannedSlot {
  size_t config = 0;
  size_t plan = 0;
  Coords at;
  std::string name;
};

/// A run planned once: its configs with their kernel plans, this shard's points, and
/// what --list, the limits and the journal header read (the points and a rough time).
struct SweepPlan {
  std::vector<std::string> names;  ///< this shard's points, in config order
  std::vector<std::string> skips;  ///< per name: why this CPU skips it ("" = it runs); not in tasks nor times
  size_t skipped = 0;              ///< names with a skip reason
  size_t tasks = 0;                ///< points this CPU runs x repetitions
  double estimate_s = 0;           ///< expected measuring time (half the time cap per task plus the warm-up)
  double worst_s = 0;              ///< every task at its time cap
  uint64_t buffer_bytes = 0;       ///< the measuring process's buffers
  bool complete = true;            ///< false: counting stopped past max_points; the figures are of those only
  uint32_t most_threads = 1;       ///< the most workers a point this CPU runs asks for
  std::string most_threads_point;  ///< the first such point ("" with one thread everywhere)
  std::vector<Config> configs;     ///< the configs planned, in order
  std::vector<ConfigPlans> plans;  ///< per config: its kernel plans (config_plans), made once
  std::vector<PlannedSlot> slots;  ///< per name: the point's config, plan and coordinates
  size_t shard_index = 0, shard_count = 1;  ///< the shard the points are of
  StreamSet streams;               ///< the configs' streams, drawn (resolve_streams) before the points were named
  /// The registry the plans' loaded code is in (RunOptions::loaded when planned): the
  /// stubs of its shared objects point into it, and the children that run them open it.
  std::shared_ptr<LoadedCode> loaded;
};

/// Every config's kernel plans (config_plans), in order, their code loaded into `loaded`
/// (RunOptions::loaded of the run they are for): InputError for an unknown preset or
/// baseline, before anything runs.
std::vector<ConfigPlans> plan_configs(const std::vector<Config>& configs, LoadedCode& loaded);

/// Plans this shard's points of `configs`, whose kernel plans `plans` holds (plan_configs
/// of the same configs into *opt.loaded; a filter set since is fine: it only picks points), without
/// measuring anything. With `max_points`, the count stops as soon as it is past it (the
/// run is certainly too large: a grid of 10^7 points is known to be in milliseconds, not
/// after naming every point): then `names` holds the first max_points + 1 points and
/// complete is false. std::invalid_argument when plans and configs differ in number.
SweepPlan plan_sweep(const std::vector<Config>& configs, std::vector<ConfigPlans> plans, const RunOptions& opt,
                     size_t max_points = SIZE_MAX);
/// plan_sweep of plan_configs(configs, *opt.loaded).
SweepPlan plan_sweep(const std::vector<Config>& configs, const RunOptions& opt, size_t max_points = SIZE_MAX);

/// Runs the plan's points (complete, and of opt's shard; else std::invalid_argument):
/// one Result per point, skipped and failed points included; the segment section lands
/// in the context. Points not measured because of a stop are absent and the context says
/// interrupted. Nothing is planned again: the plan's kernel plans and points are used.
SweepRun run_sweep(const SweepPlan& plan, const RunOptions& opt);
/// run_sweep of plan_sweep(configs, opt): for callers that have only configs (kex tune's
/// stages plan their own; explain, ceilings and the tests use this).
SweepRun run_sweep(const std::vector<Config>& configs, const RunOptions& opt);

/// Where the workers of the plan's most-threaded point run (place_threads over the affinity
/// mask the process started with, worker 0 on protocol.cpu or the CPU a run pins to); empty
/// when every point has one thread. InputError "POINT: threads: N workers need N CPUs; the
/// affinity mask ..." before anything is created or measured.
std::vector<ThreadPlace> plan_places(const SweepPlan& plan, const Protocol& protocol);

}  // namespace kex
