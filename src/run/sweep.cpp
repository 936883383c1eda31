#include "src/run/sweep.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "generators/jit.hpp"
#include "src/core/error.hpp"
#include "src/core/units.hpp"
#include "src/model/expand.hpp"
#include "src/model/group.hpp"
#include "src/model/noise.hpp"
#include "src/run/buffers.hpp"
#include "src/run/built.hpp"
#include "src/run/context.hpp"
#include "src/run/harness.hpp"
#include "src/run/machine.hpp"
#include "src/run/plans.hpp"
#include "src/run/result_build.hpp"
#include "src/run/schedule.hpp"
#include "src/run/segments.hpp"
#include "src/run/topology.hpp"
#include "src/run/verify.hpp"

namespace kex {

namespace {

/// Progress on stderr: one updating line on a TTY, a plain line per 20% otherwise,
/// with elapsed time and an estimate of the rest.
struct Progress {
  bool on, tty;
  size_t total, done = 0, last_pct = 0;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  Progress(bool enabled, size_t n) : on(enabled && n > 0), tty(isatty(2)), total(n) {}
  void step(const std::string& what) {
    ++done;
    if (!on) return;
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double eta = done ? el / double(done) * double(total - std::min(done, total)) : 0;
    char times[64];
    std::snprintf(times, sizeof times, "%.0f s, about %.0f s left", el, eta);
    if (tty) {
      std::fprintf(stderr, "\r\033[K[%zu/%zu %s] %s", done, total, times, what.c_str());
      if (done >= total) std::fputc('\n', stderr);
    } else {
      const size_t pct = done * 100 / total;
      if (pct >= last_pct + 20 || done == total) {
        last_pct = pct;
        std::fprintf(stderr, "kex: %zu/%zu tasks (%zu%%, %s) %s\n", done, total, pct, times, what.c_str());
      }
    }
  }
};

/// Says so on stderr when other work already keeps the machine's CPUs busy (a load
/// average of 1 or more before kex measures): every figure will be noisier, absolute
/// ones most (the paired ratios compare kernels inside one round and hold better).
void warn_if_busy(bool say) {
  const std::vector<double> load = load_average();
  if (!say || load.empty() || load[0] < 1) return;
  std::fprintf(stderr,
               "kex: warning: the machine is busy before the run (load average %.2f over the last minute on %ld CPUs): "
               "absolute figures will vary more than usual; the paired ratios hold better\n",
               load[0], sysconf(_SC_NPROCESSORS_ONLN));
}

/// Overlapping regions need memmove semantics at this distance.
bool overlaps(const Coords& at) {
  if (!at.layout.distance) return false;
  const int64_t d = *at.layout.distance;
  return static_cast<uint64_t>(d < 0 ? -d : d) < at.size;
}

/// Why kernel `k` is left out of point `at` because src and dst overlap there ("" = it runs).
std::string overlap_skip(const KernelPlan& k, const Coords& at) { return overlaps(at) ? overlap_refusal(k) : ""; }

/// Verification sizes beyond the standard ones are capped (the loop's behaviour
/// repeats; a 64 MiB verification would cost more than the measurement).
constexpr uint64_t kVerifyCap = 1 << 20;

/// One point of the run with everything known about it before measuring.
struct Slot {
  size_t config = 0;
  size_t plan = 0;
  Coords at;
  std::string name;
};

/// The points of every config, this shard's share, in config order; counting stops
/// past `max_slots` (complete is then false).
struct Expanded {
  std::vector<ConfigPlans> plans;  // per config
  std::vector<Slot> slots;
  bool complete = true;
};

Expanded expand_all(const std::vector<Config>& configs, size_t shard_index, size_t shard_count,
                    size_t max_slots = SIZE_MAX) {
  Expanded e;
  size_t global = 0;
  for (size_t ci = 0; ci < configs.size() && e.complete; ++ci) {
    e.plans.push_back(config_plans(configs[ci]));
    const ConfigPlans& cp = e.plans.back();
    e.complete = visit_points(configs[ci], cp, [&](const PlannedPoint& p) {
      if (global++ % shard_count == shard_index)
        e.slots.push_back({ci, p.plan, p.at, point_name({cp.plans[p.plan].key, p.at})});
      return e.slots.size() <= max_slots;
    });
  }
  return e;
}

/// The most workers a point this CPU runs asks for, and the first such point's name
/// ({1, ""} when every point runs one thread).
std::pair<uint32_t, std::string> most_threaded(const Expanded& e) {
  std::pair<uint32_t, std::string> most{1, ""};
  for (const Slot& s : e.slots)
    if (e.plans[s.config].plans[s.plan].skip.empty() && s.at.threads > most.first) most = {s.at.threads, s.name};
  return most;
}

/// The family a point belongs to for the order's adjacency rule.
std::string family_of(const KernelPlan& k) {
  if (k.spec && k.kind == KernelKind::generated)
    return std::string(to_string(k.spec->op)) + "/" + std::string(to_string(k.spec->regs));
  if (k.preset) return k.preset->family;
  return k.key;
}

/// Buffer plans: one per huge-page setting, over every layout of the run (of its points
/// with more than `above` threads: what worker `above` of a multi-threaded point maps).
std::pair<std::vector<BufferPlan>, std::map<bool, size_t>> buffer_plans(const Expanded& e, uint32_t above = 0) {
  std::map<bool, std::vector<std::pair<Layout, uint64_t>>> layouts;
  uint32_t max_align = 1;
  for (const auto& s : e.slots) {
    if (s.at.threads <= above) continue;
    add_layout(layouts[s.at.layout.huge_pages], s.at.layout, s.at.size);
    max_align = std::max(max_align, e.plans[s.config].plans[s.plan].alignment);
  }
  std::vector<BufferPlan> plans;
  std::map<bool, size_t> index;
  for (const auto& [huge, v] : layouts) {
    index[huge] = plans.size();
    plans.emplace_back(v, max_align, huge);
  }
  return {plans, index};
}

/// Says which points were not measured as asked (at most 10 lines on stderr); they are
/// in context.incomplete_points.
void report_incomplete(const std::vector<IncompletePoint>& points) {
  for (size_t k = 0; k < points.size() && k < 10; ++k)
    std::fprintf(stderr, "kex: warning: %s: %s; %zu of %u repetitions measured\n", points[k].point.c_str(),
                 points[k].message.c_str(), points[k].repetitions, points[k].asked);
  if (points.size() > 10)
    std::fprintf(stderr, "kex: warning: ... and %zu more points not measured as asked (context.incomplete_points)\n",
                 points.size() - 10);
}

/// The finished passes of the seed harness of config `c` (--repeat N: the program
/// run N times, as the seed authors ran theirs): those the resumed journal holds,
/// then new ones, each journaled the moment it ends. A pass a stop cut short is not
/// one: it has fewer Results than the list has kernels, and is dropped.
std::vector<SeedRun> seed_harness_passes(const Config& c, const RunOptions& opt) {
  std::vector<SeedRun> passes;
  if (opt.resume) {
    std::map<uint32_t, const SeedRun*> journaled;  // the first line of each pass number
    for (const auto& [source, pass, run] : opt.resume->seed_passes)
      if (source == c.source) journaled.emplace(pass, &run);
    for (uint32_t k = 1; k <= c.repeat && journaled.count(k); ++k) passes.push_back(*journaled.at(k));
  }
  if (passes.size() >= c.repeat) return passes;
  const std::vector<const Preset*> list = resolve_presets(c.presets, c.source);
  const auto kernels = size_t(std::count_if(list.begin(), list.end(), [](const Preset* p) { return p != nullptr; }));
  PresetOptions po;
  po.fsave = c.preset_fsave;
  if (opt.progress) {
    std::string which;  // with --repeat: the passes this session runs
    if (c.repeat > 1) {
      const std::string first = std::to_string(passes.size() + 1), all = std::to_string(c.repeat);
      which = passes.size() + 1 == c.repeat ? " (pass " + first + " of " + all : " (passes " + first + ".." + all + " of " + all;
      if (passes.size() == 1) which += "; pass 1 is in the journal";
      if (passes.size() > 1) which += "; passes 1.." + std::to_string(passes.size()) + " are in the journal";
      which += ")";
    }
    std::fprintf(stderr, "kex: %s: running presets under the %s harness%s\n", c.source.c_str(),
                 std::string(to_string(c.harness)).c_str(), which.c_str());
  }
  while (passes.size() < c.repeat && !(opt.stop && *opt.stop)) {
    SeedRun pass = run_seed_harness(list, c.harness, po, opt.stop, c.axes.sizes);
    if (pass.results.size() < kernels) break;  // cut short by a stop
    if (opt.journal) opt.journal->seed_pass(c.source, uint32_t(passes.size() + 1), pass);
    passes.push_back(std::move(pass));
  }
  return passes;
}

/// Passes as one run: the first pass's Results, each later pass one more repetition
/// of them (the same kernels in the same order); a kernel that did not run in a pass
/// adds nothing. `passes` is not empty.
SeedRun merge_passes(std::vector<SeedRun> passes) {
  SeedRun run = std::move(passes.front());
  for (size_t k = 1; k < passes.size(); ++k)
    for (size_t i = 0; i < run.results.size() && i < passes[k].results.size(); ++i)
      if (run.results[i].ok() && passes[k].results[i].ok())
        for (const Repetition& rep : passes[k].results[i].reps) run.results[i].reps.push_back(rep);
  return run;
}

/// Every config's seed harness (fastc, xmm64, hahn), in order; its Results go into
/// out.doc.results and the run into out.seed_runs, also when a stop leaves it with
/// fewer passes than asked. False when a stop ended them (the rest did not run).
bool run_seed_harnesses(const std::vector<Config>& configs, const RunOptions& opt, SweepRun& out) {
  for (const Config& c : configs) {
    if (opt.stop && *opt.stop) return false;
    if (c.presets.empty() || c.harness == Harness::kex) continue;
    if (opt.resume) {  // a whole run journaled in one line (an earlier kex)
      auto it = std::find_if(opt.resume->seed_runs.begin(), opt.resume->seed_runs.end(),
                             [&](const auto& sr) { return sr.first == c.source; });
      if (it != opt.resume->seed_runs.end()) {
        for (const auto& r : it->second.results) out.doc.results.push_back(r);
        out.seed_runs.push_back(*it);
        continue;
      }
    }
    std::vector<SeedRun> passes = seed_harness_passes(c, opt);
    const bool complete = passes.size() >= c.repeat;
    if (!passes.empty()) {
      SeedRun run = merge_passes(std::move(passes));
      for (const auto& r : run.results) out.doc.results.push_back(r);
      out.seed_runs.emplace_back(c.source, std::move(run));
    }
    if (!complete) return false;
  }
  return true;
}

/// The order of a separate run: every (point, repetition) once, shuffled or in turn;
/// resumed, only the repetitions each point still lacks (undisturbed ones count).
std::vector<Task> separate_order(const std::vector<uint32_t>& groups, const std::vector<std::vector<Repetition>>& reps,
                                 const Protocol& protocol, bool resumed) {
  const std::vector<Task> order = protocol.shuffle ? shuffled_tasks(groups, protocol.repetitions, protocol.seed)
                                                   : ordered_tasks(groups.size(), protocol.repetitions);
  if (!resumed) return order;
  std::vector<uint32_t> need(groups.size());
  for (size_t j = 0; j < groups.size(); ++j) {
    size_t have = 0;
    for (const auto& r : reps[j]) have += !r.disturbed;
    need[j] = protocol.repetitions > have ? uint32_t(protocol.repetitions - have) : 0;
  }
  std::vector<Task> kept;
  for (const Task& t : order)
    if (need[t.point] > 0) {
      --need[t.point];
      kept.push_back(t);
    }
  return kept;
}

/// What --list's estimate assumes a call moves: bytes per second, typical and slow (a
/// DRAM-sized copy under another tenant's traffic), and how much longer a busy machine
/// takes (measured: a default run took 22 s quiet and 98 s with two compilers running).
constexpr double kTypicalGBps = 30e9, kSlowGBps = 5e9, kBusyFactor = 4.5;

/// About how long one member of a round takes at `gbps`: its samples of sample_us, at most
/// member_us, or one call when a call takes longer; the settling calls before each turn.
double round_member_seconds(const RoundPolicy& r, const Coords& at, double gbps) {
  const double call = std::max(double(at.size) / gbps, 50e-9);
  const double sample = std::max(r.sample_us * 1e-6, call);
  const double samples = std::clamp(r.member_us * 1e-6 / sample, 1.0, double(std::max(r.samples, 1u)));
  const double turns = std::ceil(samples / std::max(r.block, 1u));
  const double settle = call > 1e-3 ? 0 : turns * std::max(r.settle_us * 1e-6, call);
  return samples * sample + settle;
}

}  // namespace

SweepPlan plan_sweep(const std::vector<Config>& configs, const RunOptions& opt, size_t max_points) {
  const Expanded e = expand_all(configs, opt.shard_index, opt.shard_count, max_points);
  SweepPlan p;
  p.complete = e.complete;
  for (const auto& s : e.slots) {
    p.names.push_back(s.name);
    const KernelPlan& kp = e.plans[s.config].plans[s.plan];
    p.skips.push_back(kp.skip.empty() ? overlap_skip(kp, s.at) : kp.skip);
    if (!p.skips.back().empty()) {
      ++p.skipped;
      continue;
    }
    if (opt.protocol.paired) {
      p.estimate_s += opt.protocol.repetitions * round_member_seconds(opt.protocol.round, s.at, kTypicalGBps);
      p.worst_s += opt.protocol.repetitions * round_member_seconds(opt.protocol.round, s.at, kSlowGBps) * kBusyFactor;
      continue;
    }
    const Policy& pol = configs[s.config].policy;
    const double cap = pol.max_time_per_point, warm = 0.002 + pol.min_samples * pol.sample_us * 1e-6;
    p.estimate_s += opt.protocol.repetitions * (warm + std::max(cap / 2, pol.min_time_per_point));
    p.worst_s += opt.protocol.repetitions * (warm + cap) * kBusyFactor;
  }
  p.tasks = (e.slots.size() - p.skipped) * opt.protocol.repetitions;
  std::tie(p.most_threads, p.most_threads_point) = most_threaded(e);
  uint32_t most = 1;
  for (const auto& s : e.slots) most = std::max(most, s.at.threads);
  for (uint32_t k = 0; k < most; ++k)  // the measuring thread's buffers, then each helper's
    for (const auto& b : buffer_plans(e, k).first) p.buffer_bytes += b.bytes();
  return p;
}

std::vector<ThreadPlace> plan_places(const SweepPlan& plan, const Protocol& protocol) {
  if (plan.most_threads <= 1) return {};
  int cpu = protocol.cpu >= 0 ? protocol.cpu : default_pin_cpu();
  if (protocol.placement.mode == PlacementMode::list && !protocol.placement.cpus.empty())
    cpu = protocol.placement.cpus.front();
  try {
    return place_threads(protocol.placement, plan.most_threads, cpu, startup_cpus());
  } catch (const InputError& e) {
    throw InputError(plan.most_threads_point, e.what());
  }
}

namespace {

/// One point of the run and everything learnt about it, stage by stage (STYLE rule 1:
/// each stage adds its part; nothing reaches back).
struct PointState {
  Slot slot;
  Place place;                          ///< where the buffers put it (2)
  size_t case_target = SIZE_MAX;        ///< its placement's verification target (3)
  std::optional<Result> final;          ///< not measured: resumed, refused, failed (4, 6)
  std::optional<size_t> job;            ///< its measuring job (4)
};

/// One measuring job on the sweep's side (the same index as its MeasureJob, which the
/// workers run): the point it measures, its family, and what the supervisor reported.
struct JobState {
  size_t point = 0;
  uint32_t family = 0;               ///< its family at its size (separate order)
  std::vector<Repetition> reps;      ///< finished, resumed ones first
  std::optional<Status> died;        ///< its kernel killed the worker
  std::optional<Status> lost;        ///< not measured as asked
};

/// The run as it goes: the plans, the built code, the points, the jobs and what the
/// supervisor reported for them, and the context facts gathered on the way.
struct Sweep {
  const std::vector<Config>& configs;
  const RunOptions& opt;
  Protocol protocol;
  SweepRun out;
  Expanded e;
  std::vector<BuiltSet> built;                         ///< per config: its plans' code
  std::vector<BufferPlan> bplans;
  std::map<bool, size_t> bindex;                       ///< huge pages -> buffer plan
  std::vector<PointState> points;
  std::vector<VerifyTarget> targets;
  std::map<std::pair<size_t, size_t>, size_t> general; ///< (config, plan) -> its general target
  std::vector<Verdict> verdicts;
  std::vector<MeasureJob> jobs;                        ///< what the workers run
  std::vector<JobState> job_state;                     ///< per job: its point and what came of it
  std::vector<std::vector<uint32_t>> pair_groups;      ///< the jobs of each group (paired order)
  SupervisedRun sup;
  size_t todo_tasks = 0;
  std::vector<ThreadPlace> places;                     ///< threads > 1: worker k's place
  std::vector<double> sentinel_l1, sentinel_mem;
  size_t sentinel_disturbed = 0;
  bool interrupted = false;
  std::chrono::steady_clock::time_point t_start = std::chrono::steady_clock::now();

  Sweep(const std::vector<Config>& c, const RunOptions& o) : configs(c), opt(o), protocol(o.protocol) {}
  bool stopped() const { return opt.stop && *opt.stop; }
  const KernelPlan& plan(const Slot& s) const { return e.plans[s.config].plans[s.plan]; }
  const Built& code(const Slot& s) const { return built[s.config].kernels[s.plan]; }
};

/// Points with threads > 1: where each worker runs (InputError when the mask has too few CPUs).
void place_workers(Sweep& w) {
  const uint32_t most = most_threaded(w.e).first;
  if (most <= 1) return;
  w.places = place_threads(w.protocol.placement, most, w.protocol.cpu, startup_cpus());
  w.protocol.thread_cpus.clear();
  for (const ThreadPlace& p : w.places) w.protocol.thread_cpus.push_back(p.cpu);
}

/// Pins to the run's CPU, starts the context and expands every config's points.
void start(Sweep& w) {
  if (w.protocol.placement.mode == PlacementMode::list && !w.protocol.placement.cpus.empty())
    w.protocol.cpu = w.protocol.placement.cpus.front();  // worker 0 on the list's first CPU
  const int cpu = w.protocol.cpu >= 0 && pin_thread_to(w.protocol.cpu) ? w.protocol.cpu : pin_to_one_cpu();
  w.protocol.cpu = cpu;
  w.out.doc.context = make_context(w.configs, cpu, w.opt.shard_index, w.opt.shard_count,
                                   w.opt.run_id.empty() ? new_run_id() : w.opt.run_id);
  w.out.doc.context.filter = w.opt.filter;
  w.out.doc.context.counters = w.opt.counters;
  w.e = expand_all(w.configs, w.opt.shard_index, w.opt.shard_count);
  place_workers(w);
  warn_if_busy(w.opt.progress);
  for (const Slot& s : w.e.slots) w.points.push_back({s, {}, SIZE_MAX, std::nullopt, std::nullopt});
}

/// 1. Every kernel a point uses, generated up front into one W^X arena per config
/// (never inside a timed region); libc baselines keep their function.
void build_code(Sweep& w) {
  for (size_t ci = 0; ci < w.configs.size() && !w.stopped(); ++ci) {
    const auto& plans = w.e.plans[ci].plans;
    std::vector<bool> used(plans.size(), false);
    for (const auto& s : w.e.slots)
      if (s.config == ci) used[s.plan] = true;
    w.built.push_back(build_plan_set(plans, used, w.opt.stop));
  }
}

/// 2. Every point's place (pure arithmetic: the measuring process maps the buffers).
void place_points(Sweep& w) {
  std::tie(w.bplans, w.bindex) = buffer_plans(w.e);
  for (PointState& p : w.points)
    p.place = w.bplans[w.bindex.at(p.slot.at.layout.huge_pages)].place(p.slot.at.layout, w.plan(p.slot).alignment);
}

/// Whether a resumed journal holds the point already (its result, or all its repetitions).
bool already_done(const Sweep& w, const std::string& name) {
  const JournalState* r = w.opt.resume;
  return r && (r->results.count(name) || (r->reps.count(name) && r->reps.at(name).size() >= w.protocol.repetitions));
}

/// 3. Every runnable kernel verified before any timing: once on eight offset pairs,
/// and once at every exact placement (and overlapping distance) it will be measured at.
void verify_points(Sweep& w) {
  using CaseKey = std::tuple<size_t, size_t, uint32_t, uint32_t, std::optional<int64_t>, uint64_t>;
  std::map<CaseKey, size_t> cases;
  for (PointState& p : w.points) {
    const Slot& s = p.slot;
    if (w.stopped() || w.built.size() <= s.config) break;
    const Built& b = w.code(s);
    if (b.status.kind != StatusKind::ok || !b.fn || !p.place.refusal.empty() || already_done(w, s.name) ||
        !overlap_skip(w.plan(s), s.at).empty())
      continue;
    auto [g, fresh_g] = w.general.emplace(std::make_pair(s.config, s.plan), w.targets.size());
    if (fresh_g) w.targets.push_back(verify_target(w.plan(s), b));
    const Placement& pl = p.place.placed;
    const bool ov = overlaps(s.at);
    // The size the overlap case is tried at: the measured one, or above the cap the
    // cap plus the same remainder modulo a page (the same tail).
    const uint64_t n = s.at.size <= kVerifyCap ? s.at.size : kVerifyCap + s.at.size % 4096;
    CaseKey key{s.config, s.plan, pl.src_page_offset, ov ? 0 : pl.dst_page_offset,
                ov ? s.at.layout.distance : std::nullopt, ov ? n : 0};
    auto [it, fresh] = cases.emplace(key, w.targets.size());
    if (fresh) {
      VerifyTarget t = verify_target(w.plan(s), b);
      t.layout = VerifyLayout{pl.src_page_offset, pl.dst_page_offset, std::get<4>(key), {}};
      if (ov) t.max_size = std::max<uint64_t>(t.max_size, n);
      w.targets.push_back(t);
    }
    auto& sizes = w.targets[it->second].layout->sizes;
    if (std::find(sizes.begin(), sizes.end(), n) == sizes.end()) sizes.push_back(n);
    p.case_target = it->second;
  }
  if (w.opt.progress && !w.targets.empty())
    std::fprintf(stderr, "kex: verifying %zu kernel%s at %zu placements\n", w.general.size(),
                 w.general.size() == 1 ? "" : "s", cases.size());
  if (!w.stopped()) w.verdicts = verify_targets(w.targets, w.opt.stop);
}

/// A point's status before measuring: its kernel's, its placement's, its verdicts'.
Status point_status(const Sweep& w, const PointState& p) {
  Status st = w.code(p.slot).status;
  if (st.kind == StatusKind::ok && !p.place.refusal.empty()) st = {StatusKind::skipped, p.place.refusal};
  if (const std::string o = overlap_skip(w.plan(p.slot), p.slot.at); st.kind == StatusKind::ok && !o.empty())
    st = {StatusKind::skipped, o};
  auto g = w.general.find({p.slot.config, p.slot.plan});
  if (st.kind == StatusKind::ok && g != w.general.end() && !w.verdicts[g->second].ok())
    st = verdict_status(w.verdicts[g->second]);
  if (st.kind == StatusKind::ok && p.case_target != SIZE_MAX && !w.verdicts[p.case_target].ok()) {
    const Verdict& v = w.verdicts[p.case_target];
    if (overlaps(p.slot.at) && !v.signal)
      st = {StatusKind::skipped, "refused: the kernel does not give memmove's result where src and dst overlap: " + v.message};
    else
      st = verdict_status(v, "verification at this placement failed");
  }
  return st;
}

/// Adds a measurable point's job, with its family (separate order) and its group (paired rounds).
void add_job(Sweep& w, size_t i, std::map<std::string, uint32_t>& family_ids, std::map<GroupKey, uint32_t>& group_ids) {
  const Slot& s = w.points[i].slot;
  const KernelPlan& kp = w.plan(s);
  const Built& b = w.code(s);
  MeasureJob j;
  j.fn = b.fn;
  j.code = b.code;
  j.code_size = b.info ? b.info->bytes : 0;
  j.buffer_plan = w.bindex.at(s.at.layout.huge_pages);
  j.alignment = kp.alignment;
  j.copy = op_info(kp.op).reads_src;
  j.at = s.at;
  j.policy = w.configs[s.config].policy;
  j.name = s.name;
  w.points[i].job = w.jobs.size();
  w.jobs.push_back(j);
  auto [fi, fresh_f] = family_ids.emplace(task_group(family_of(kp), s.at.size), uint32_t(family_ids.size()));
  w.job_state.push_back({i, fi->second, {}, std::nullopt, std::nullopt});
  // The paired group: points of kex's harness doing the same thing under the same conditions,
  // at every thread count (the answers compare one thread count at a time; the scaling
  // table compares thread counts in the same rounds).
  Coords round_at = s.at;
  round_at.threads = 1;
  const uint8_t round_fill = w.opt.pair_fills ? 0 : kp.fill;  // kex explain: the fill neighbour in the kernel's rounds
  auto [gi, fresh_g] = group_ids.emplace(*group_of(kp.op, round_fill, round_at), uint32_t(w.pair_groups.size()));
  if (fresh_g) w.pair_groups.emplace_back();
  w.pair_groups[gi->second].push_back(uint32_t(w.jobs.size() - 1));
}

/// 4. Every point's status before measuring; a resumed or refused one is final, the
/// measurable ones become jobs.
void plan_jobs(Sweep& w) {
  if (w.stopped()) return;
  std::map<std::string, uint32_t> family_ids;
  std::map<GroupKey, uint32_t> group_ids;
  std::map<std::string, std::pair<size_t, std::string>> left_out;  // kernel -> overlapping points, why
  for (size_t i = 0; i < w.points.size(); ++i) {
    PointState& p = w.points[i];
    if (w.opt.resume && w.opt.resume->results.count(p.slot.name)) {
      p.final = w.opt.resume->results.at(p.slot.name);
      continue;
    }
    const Status st = point_status(w, p);
    if (st.kind != StatusKind::ok) {
      p.final = make_result(w.plan(p.slot), p.slot.at, st, {}, std::nullopt, w.code(p.slot).info);
      if (w.opt.journal) w.opt.journal->result(*p.final);
      if (const std::string o = overlap_skip(w.plan(p.slot), p.slot.at); !o.empty() && o == st.message)
        left_out[w.plan(p.slot).key] = {left_out[w.plan(p.slot).key].first + 1, o};
      continue;
    }
    add_job(w, i, family_ids, group_ids);
  }
  if (w.opt.progress)  // one note per kernel (each point's skip_message says it too)
    for (const auto& [kernel, n_why] : left_out)
      std::fprintf(stderr, "kex: note: %s: %zu point%s %s\n", kernel.c_str(), n_why.first, n_why.first == 1 ? "" : "s",
                   n_why.second.c_str());
}

/// The measuring order: the repetitions the journal holds are taken over, this
/// session's orders and rounds follow the journal's (a disturbed window marks only its
/// own repetitions; a round pairs only its own); then the paired rounds or the separate
/// repetitions still to do.
std::vector<Task> measuring_order(Sweep& w) {
  if (w.opt.resume)
    for (size_t j = 0; j < w.jobs.size(); ++j)
      if (auto it = w.opt.resume->reps.find(w.jobs[j].name); it != w.opt.resume->reps.end())
        w.job_state[j].reps = it->second;
  uint64_t first_round = 1;
  std::vector<std::vector<Repetition>> reps;
  std::vector<uint32_t> families;
  for (const JobState& js : w.job_state) {
    for (const auto& r : js.reps) {
      w.protocol.first_order = std::max(w.protocol.first_order, r.order + 1);
      first_round = std::max(first_round, r.round + 1);
    }
    reps.push_back(js.reps);
    families.push_back(js.family);
  }
  return w.protocol.paired ? paired_order(w.pair_groups, reps, w.protocol.repetitions, w.protocol.shuffle,
                                          w.protocol.seed, first_round)
                           : separate_order(families, reps, w.protocol, w.opt.resume != nullptr);
}

/// A sentinel reading: recorded in the context; a disturbed one marks the window's
/// repetitions (journaled) and, when it was requeued, the progress grows by it.
void on_sentinel(Sweep& w, Progress& progress, const SentinelReading& r, const std::vector<Task>& window, bool requeued) {
  w.out.doc.context.sentinel_readings.push_back({r, window.size(), requeued});
  w.sentinel_l1.push_back(r.l1_ticks_per_kib);
  w.sentinel_mem.push_back(r.mem_ticks_per_kib);
  w.sentinel_disturbed += r.disturbed;
  if (!r.disturbed) return;
  std::vector<std::pair<std::string, uint64_t>> marked;
  for (const Task& t : window)
    for (auto& rep : w.job_state[t.point].reps)
      if (!rep.disturbed && rep.order + window.size() >= r.after_task && rep.order < r.after_task) {
        rep.disturbed = true;
        marked.emplace_back(w.jobs[t.point].name, rep.order);
      }
  if (w.opt.journal && !marked.empty()) w.opt.journal->disturbed(marked);
  if (requeued) progress.total += window.size();
}

/// 5. Measuring, in a supervised worker: what an earlier run finished is not redone.
void measure_jobs(Sweep& w) {
  const std::vector<Task> todo = measuring_order(w);
  w.todo_tasks = todo.size();
  size_t todo_reps = 0;
  for (const Task& t : todo) todo_reps += t.points().size();
  Progress progress(w.opt.progress, todo_reps);
  if (todo.empty() || w.stopped()) return;
  SupervisorEvents ev;
  ev.done = [&](const Task& t, const Repetition& r) {
    w.job_state[t.point].reps.push_back(r);
    if (w.opt.journal) w.opt.journal->repetition(w.jobs[t.point].name, r);
    char g[64] = "";
    if (r.per_call.median > 0)
      std::snprintf(g, sizeof g, " %.2f GB/s", double(moved_bytes(w.jobs[t.point].at)) / (r.per_call.median / machine().tsc_hz * 1e9));
    progress.step(w.jobs[t.point].name + g);
  };
  ev.failed = [&](const Task& t, const Status& s) {
    w.job_state[t.point].died = s;
    progress.step(w.jobs[t.point].name + " FAILED: " + s.message);
  };
  ev.lost = [&](const Task& t, const Status& s) {
    if (!w.job_state[t.point].lost) w.job_state[t.point].lost = s;
    progress.step(w.jobs[t.point].name + " NOT MEASURED: " + s.message);
  };
  ev.sentinel = [&](const SentinelReading& r, const std::vector<Task>& window, bool requeued) {
    on_sentinel(w, progress, r, window, requeued);
  };
  w.sup = run_supervised(w.jobs, w.bplans, todo, w.protocol, ev, w.opt.stop);
  w.interrupted |= w.sup.stopped || w.sup.abandoned;
  w.out.abandoned = w.sup.abandoned;
}

/// 6. Results in config order: the measured ones (with the repetitions a lost point
/// finished), the refused and failed ones.
void collect_results(Sweep& w) {
  w.interrupted |= w.stopped();
  std::vector<std::optional<Result>> measured(w.points.size());
  for (const JobState& js : w.job_state) {
    PointState& p = w.points[js.point];
    const Slot& s = p.slot;
    const KernelPlan& kp = w.plan(s);
    const Built& b = w.code(s);
    if (js.died) {
      p.final = make_result(kp, s.at, *js.died, {}, p.place.placed, b.info);
      if (w.opt.journal) w.opt.journal->result(*p.final);
    } else if (js.lost) {
      // The repetitions it finished stand; without one, the point is an error in this
      // run's output, but not in the journal: a resume measures it again.
      w.out.doc.context.incomplete_points.push_back(
          {s.name, js.lost->message, js.lost->signal, js.reps.size(), w.protocol.repetitions});
      if (!js.reps.empty()) measured[js.point] = make_result(kp, s.at, {}, js.reps, p.place.placed, b.info);
      else p.final = make_result(kp, s.at, *js.lost, {}, p.place.placed, b.info);
    } else if (!js.reps.empty()) {
      measured[js.point] = make_result(kp, s.at, {}, js.reps, p.place.placed, b.info);
    }
  }
  for (size_t i = 0; i < w.points.size(); ++i) {
    if (w.points[i].final) w.out.doc.results.push_back(*w.points[i].final);
    else if (measured[i]) w.out.doc.results.push_back(std::move(*measured[i]));
  }
  report_incomplete(w.out.doc.context.incomplete_points);
}

/// The protocol's facts and the run's noise for the context, and where the buffers were.
void record_protocol(Sweep& w) {
  const Protocol& pr = w.protocol;
  const SupervisedRun& sup = w.sup;
  ProtocolRecord p(pr);
  p.threads = w.places;
  p.journal = w.opt.journal ? w.opt.journal->path() : "";
  p.workers_started = sup.workers;
  p.tasks_measured = sup.tasks_done;
  p.remeasured_tasks = sup.remeasured;
  p.measuring_s = sup.seconds;
  p.measured_s = sup.measured_s;
  p.overhead_ms_per_task = sup.tasks_done ? (sup.seconds - sup.measured_s) * 1e3 / double(sup.tasks_done) : 0.0;
  // The same budget the supervisor allows (a fraction of the tasks to do).
  const auto budget_tasks = static_cast<size_t>(pr.sentinel.budget * double(w.todo_tasks));
  p.noise = compute_noise(w.sentinel_l1, w.sentinel_mem, w.sentinel_disturbed, sup.tasks_done, sup.remeasured,
                          pr.sentinel.budget, budget_tasks, w.out.doc.results);
  w.out.doc.context.protocol = p;
  if (sup.buffers.empty()) return;
  // Where the measured memory really is: a buffer on another node than the worker's
  // CPU reads remote memory (each plan's nodes, and the CPU's).
  const int node = numa_node_of_cpu(pr.cpu);
  for (const BufferPlacement& b : sup.buffers)
    if (node >= 0 && !b.numa_nodes.empty() && b.numa_nodes != std::vector<int>{node})
      std::fprintf(stderr, "kex: warning: %s of buffers on NUMA node(s) %s, the worker's CPU %d on node %d\n",
                   format_bytes(b.bytes).c_str(), nlohmann::json(b.numa_nodes).dump().c_str(), pr.cpu, node);
  w.out.doc.context.buffers = BufferRecord{node, sup.buffers};
}

/// The segment table of the first config that asks for it (one per run): from the
/// resumed journal, or measured now (a stop writes the cases so far, marked).
void run_segment_table(Sweep& w) {
  RunDoc& doc = w.out.doc;
  for (const Config& c : w.configs) {
    if (!c.segments.enabled) continue;
    if (w.interrupted || w.stopped()) {
      w.interrupted = true;
      return;
    }
    if (w.opt.resume && w.opt.resume->segments) {
      doc.context.segments = w.opt.resume->segments;
      return;
    }
    if (w.opt.progress) std::fprintf(stderr, "kex: running the segment-override table\n");
    SegmentOptions so;
    so.iterations = c.segments.iterations;
    so.mixed = c.segments.mixed;
    so.modern = c.segments.modern;
    so.stop = w.opt.stop;
    auto section = run_segments(so);
    if (w.stopped()) {  // the cases measured so far are written, marked; the journal keeps none
      section.interrupted = true;  // (a resumed run measures the whole table again)
      doc.context.segments = section;
      w.interrupted = true;
      return;
    }
    doc.context.segments = section;
    if (w.opt.journal) w.opt.journal->segments(section);
    return;
  }
}

/// The seed harnesses (fastc, hahn) and the segment table: once, in shard 0 only.
void run_once_parts(Sweep& w) {
  if (w.opt.shard_index != 0 || w.out.abandoned) return;
  pin_thread_to(w.protocol.cpu);
  w.interrupted = w.interrupted || w.stopped() || !run_seed_harnesses(w.configs, w.opt, w.out);
  run_segment_table(w);
}

/// The run's closing facts. A second stop in any phase (JIT, verification, measuring,
/// harnesses, segments): nothing is written but the journal.
SweepRun finish(Sweep& w) {
  if (w.opt.stop && *w.opt.stop >= 2) w.out.abandoned = true;
  RunContext& c = w.out.doc.context;
  c.interrupted = w.interrupted;
  c.totals = RunTotals{load_average(), w.points.size(), w.out.doc.results.size(),
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - w.t_start).count()};
  return std::move(w.out);
}

}  // namespace

SweepRun run_sweep(const std::vector<Config>& configs, const RunOptions& opt) {
  Sweep w(configs, opt);
  start(w);
  build_code(w);
  place_points(w);
  verify_points(w);
  plan_jobs(w);
  measure_jobs(w);
  collect_results(w);
  record_protocol(w);
  run_once_parts(w);
  return finish(w);
}

}  // namespace kex
