#include "src/run/sweep.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "generators/jit.hpp"
#include "src/core/units.hpp"
#include "src/model/expand.hpp"
#include "src/model/group.hpp"
#include "src/model/noise.hpp"
#include "src/run/buffers.hpp"
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

/// Progress on stderr: one updating line on a TTY, a plain line per 5% otherwise,
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
      if (pct >= last_pct + 5 || done == total) {
        last_pct = pct;
        std::fprintf(stderr, "kex: %zu/%zu tasks (%zu%%, %s) %s\n", done, total, pct, times, what.c_str());
      }
    }
  }
};

/// The code of one plan, once generated (the stage after KernelPlan).
struct Built {
  KernelFn fn = nullptr;
  const uint8_t* code = nullptr;
  std::optional<CodeInfo> info;
  Status status;  ///< not ok: the plan cannot be measured anywhere
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

/// The family a point belongs to for the order's adjacency rule.
std::string family_of(const KernelPlan& k) {
  if (k.spec && k.kind == KernelKind::generated)
    return std::string(to_string(k.spec->op)) + "/" + std::string(to_string(k.spec->regs));
  if (k.preset) return k.preset->family;
  return k.key;
}

/// Buffer plans: one per huge-page setting, over every layout of the run.
std::pair<std::vector<BufferPlan>, std::map<bool, size_t>> buffer_plans(const Expanded& e) {
  std::map<bool, std::vector<std::pair<Layout, uint64_t>>> layouts;
  uint32_t max_align = 1;
  for (const auto& s : e.slots) {
    auto& v = layouts[s.at.layout.huge_pages];
    auto it = std::find_if(v.begin(), v.end(), [&](const auto& x) { return x.first == s.at.layout; });
    if (it == v.end()) v.push_back({s.at.layout, s.at.size});
    else it->second = std::max(it->second, s.at.size);
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

/// Says which points were not measured as asked (at most 10 lines on stderr) and
/// records each in context.incomplete_points: point, why (the signal when a worker
/// was killed), the repetitions measured and asked for.
void report_incomplete(const std::vector<IncompletePoint>& points, RunDoc& doc) {
  if (points.empty()) return;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (size_t k = 0; k < points.size(); ++k) {
    const IncompletePoint& p = points[k];
    list.push_back({{"point", p.point}, {"message", p.why.message}, {"signal", p.why.signal},
                    {"repetitions", p.repetitions}, {"repetitions_asked", p.asked}});
    if (k < 10)
      std::fprintf(stderr, "kex: warning: %s: %s; %zu of %u repetitions measured\n", p.point.c_str(),
                   p.why.message.c_str(), p.repetitions, p.asked);
  }
  if (points.size() > 10)
    std::fprintf(stderr, "kex: warning: ... and %zu more points not measured as asked (context.incomplete_points)\n",
                 points.size() - 10);
  doc.context.rest["incomplete_points"] = list;
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
    SeedRun pass = run_seed_harness(list, c.harness, po, opt.stop);
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

/// The rounds of a paired run: `repetitions` rounds of each group, spread over the run
/// (or group by group without shuffling), ids from `first_round`; resumed, each group's
/// rounds minus those the journal holds complete (a repetition of every member).
std::vector<Task> paired_order(const std::vector<std::vector<uint32_t>>& pair_groups,
                               const std::vector<std::vector<Repetition>>& reps, const Protocol& protocol,
                               uint64_t first_round) {
  std::vector<uint32_t> need(pair_groups.size(), protocol.repetitions);
  for (size_t g = 0; g < pair_groups.size(); ++g) {
    std::map<uint64_t, size_t> members_in;  // round -> members of this group with a repetition in it
    for (uint32_t j : pair_groups[g])
      for (const Repetition& r : reps[j])
        if (r.round) ++members_in[r.round];
    uint32_t complete = 0;
    for (const auto& [round, n] : members_in) complete += n == pair_groups[g].size();
    need[g] -= std::min(need[g], complete);
  }
  std::vector<Task> all;
  if (protocol.shuffle) {
    all = round_tasks(pair_groups, protocol.repetitions, protocol.seed, 0);
  } else {
    for (size_t g = 0; g < pair_groups.size(); ++g)
      for (uint32_t r = 0; r < protocol.repetitions; ++r) {
        Task t{pair_groups[g].front(), r, pair_groups[g], 0};
        if (t.members.size() == 1) t.members.clear();
        all.push_back(std::move(t));
      }
  }
  std::vector<Task> kept;
  uint64_t id = first_round;
  for (Task& t : all) {
    const auto g = std::find_if(pair_groups.begin(), pair_groups.end(), [&](const auto& m) {
      return std::find(m.begin(), m.end(), t.point) != m.end();
    });
    uint32_t& n = need[size_t(g - pair_groups.begin())];
    if (n == 0) continue;
    --n;
    t.round = id++;
    kept.push_back(std::move(t));
  }
  return kept;
}

}  // namespace

SweepPlan plan_sweep(const std::vector<Config>& configs, const RunOptions& opt, size_t max_points) {
  const Expanded e = expand_all(configs, opt.shard_index, opt.shard_count, max_points);
  SweepPlan p;
  p.complete = e.complete;
  for (const auto& s : e.slots) {
    p.names.push_back(s.name);
    const Policy& pol = configs[s.config].policy;
    const double cap = pol.max_time_per_point, warm = 0.002 + pol.min_samples * pol.sample_us * 1e-6;
    p.estimate_s += opt.protocol.repetitions * (warm + std::max(cap / 2, pol.min_time_per_point));
    p.worst_s += opt.protocol.repetitions * (warm + cap);
  }
  p.tasks = e.slots.size() * opt.protocol.repetitions;
  for (const auto& b : buffer_plans(e).first) p.buffer_bytes += b.bytes();
  return p;
}

SweepRun run_sweep(const std::vector<Config>& configs, const RunOptions& opt) {
  Protocol protocol = opt.protocol;
  const int cpu = protocol.cpu >= 0 && pin_thread_to(protocol.cpu) ? protocol.cpu : pin_to_one_cpu();
  protocol.cpu = cpu;
  SweepRun out;
  RunDoc& doc = out.doc;
  doc.context = make_context(configs, cpu, opt.shard_index, opt.shard_count);
  bool interrupted = false;
  auto stopped = [&] { return opt.stop && *opt.stop; };

  const Expanded e = expand_all(configs, opt.shard_index, opt.shard_count);
  const size_t planned = e.slots.size();
  const auto t_start = std::chrono::steady_clock::now();
  warn_if_busy(opt.progress);

  // 1. JIT everything up front into one W^X arena per config (never inside a timed region).
  std::vector<std::vector<Built>> built(configs.size());
  std::vector<std::unique_ptr<CodeArena>> arenas;
  for (size_t ci = 0; ci < configs.size() && !stopped(); ++ci) {
    const auto& plans = e.plans[ci].plans;
    std::vector<bool> used(plans.size(), false);
    for (const auto& s : e.slots)
      if (s.config == ci) used[s.plan] = true;
    arenas.push_back(std::make_unique<CodeArena>());
    CodeArena& arena = *arenas.back();
    built[ci].resize(plans.size());
    std::vector<size_t> code_index(plans.size(), SIZE_MAX);
    for (size_t k = 0; k < plans.size(); ++k) {
      built[ci][k].status = plan_status(plans[k]);
      if (!used[k] || built[ci][k].status.kind != StatusKind::ok || !plans[k].emit) continue;
      try {
        code_index[k] = arena.add(plans[k].emit);
      } catch (const std::exception& ex) {
        built[ci][k].status = {StatusKind::error, std::string("code generation failed: ") + ex.what()};
      }
      if (stopped()) break;
    }
    arena.finalize();
    for (size_t k = 0; k < plans.size(); ++k) {
      if (plans[k].libc_fn) built[ci][k].fn = plans[k].libc_fn;
      if (code_index[k] == SIZE_MAX) continue;
      const CodeRef r = arena.ref(code_index[k]);
      built[ci][k].fn = r.as<KernelFn>();
      built[ci][k].code = r.code;
      built[ci][k].info = CodeInfo{r.size, r.hash};
    }
  }

  // 2. Every point's place (pure arithmetic: the measuring process maps the buffers).
  const auto [bplans, bindex] = buffer_plans(e);
  std::vector<Place> places;
  for (const auto& s : e.slots)
    places.push_back(bplans[bindex.at(s.at.layout.huge_pages)].place(s.at.layout, e.plans[s.config].plans[s.plan].alignment));

  // 3. Verify every runnable kernel before any timing: once on eight offset pairs,
  //    and once at every exact placement (and overlapping distance) it will be measured at.
  std::vector<VerifyTarget> targets;
  std::map<std::pair<size_t, size_t>, size_t> general;  // (config, plan) -> target
  using CaseKey = std::tuple<size_t, size_t, uint32_t, uint32_t, std::optional<int64_t>, uint64_t>;
  std::map<CaseKey, size_t> cases;
  std::vector<size_t> slot_case(e.slots.size(), SIZE_MAX);
  auto base_target = [&](size_t ci, size_t k) {
    const KernelPlan& kp = e.plans[ci].plans[k];
    const Built& b = built[ci][k];
    VerifyTarget t;
    t.fn = b.fn;
    t.is_copy = kp.op == Op::copy;
    t.fill = kp.fill;
    t.alignment = kp.alignment;
    t.width = kp.width;
    t.unroll = kp.unroll;
    t.size_multiple = kp.region;
    if (kp.region > 1) t.max_size = 3 * kp.region;
    t.code = b.code;
    t.code_size = b.info ? b.info->bytes : 0;
    return t;
  };
  auto already = [&](const std::string& name) {
    return opt.resume && (opt.resume->results.count(name) ||
                          (opt.resume->reps.count(name) &&
                           opt.resume->reps.at(name).size() >= protocol.repetitions));
  };
  for (size_t i = 0; i < e.slots.size() && !stopped(); ++i) {
    const Slot& s = e.slots[i];
    if (built.size() <= s.config) break;
    const Built& b = built[s.config][s.plan];
    if (b.status.kind != StatusKind::ok || !b.fn || !places[i].refusal.empty() || already(s.name)) continue;
    auto [g, fresh_g] = general.emplace(std::make_pair(s.config, s.plan), targets.size());
    if (fresh_g) targets.push_back(base_target(s.config, s.plan));
    const Placement& pl = places[i].placed;
    const bool ov = overlaps(s.at);
    // The size the overlap case is tried at: the measured one, or above the cap the
    // cap plus the same remainder modulo a page (the same tail).
    const uint64_t n = s.at.size <= kVerifyCap ? s.at.size : kVerifyCap + s.at.size % 4096;
    CaseKey key{s.config, s.plan, pl.src_page_offset, ov ? 0 : pl.dst_page_offset,
                ov ? s.at.layout.distance : std::nullopt, ov ? n : 0};
    auto [it, fresh] = cases.emplace(key, targets.size());
    if (fresh) {
      VerifyTarget t = base_target(s.config, s.plan);
      t.layout = VerifyLayout{pl.src_page_offset, pl.dst_page_offset, std::get<4>(key), {}};
      if (ov) t.max_size = std::max<uint64_t>(t.max_size, n);
      targets.push_back(t);
    }
    auto& sizes = targets[it->second].layout->sizes;
    if (std::find(sizes.begin(), sizes.end(), n) == sizes.end()) sizes.push_back(n);
    slot_case[i] = it->second;
  }
  if (opt.progress && !targets.empty())
    std::fprintf(stderr, "kex: verifying %zu kernel%s at %zu placements\n", general.size(),
                 general.size() == 1 ? "" : "s", cases.size());
  const std::vector<Verdict> verdicts = stopped() ? std::vector<Verdict>() : verify_targets(targets, opt.stop);

  // 4. The status of every point before measuring; the measurable ones become jobs.
  std::vector<std::optional<Result>> final_result(e.slots.size());  // points that will not be measured
  std::vector<MeasureJob> jobs;
  std::vector<size_t> job_slot;
  std::vector<uint32_t> groups;
  std::map<std::string, uint32_t> group_ids;
  std::vector<std::vector<uint32_t>> pair_groups;  // the jobs of each group, for paired rounds
  std::map<GroupKey, uint32_t> pair_ids;
  if (!stopped()) {
    for (size_t i = 0; i < e.slots.size(); ++i) {
      const Slot& s = e.slots[i];
      const KernelPlan& kp = e.plans[s.config].plans[s.plan];
      const Built& b = built[s.config][s.plan];
      if (opt.resume && opt.resume->results.count(s.name)) {
        final_result[i] = opt.resume->results.at(s.name);
        continue;
      }
      Status st = b.status;
      if (st.kind == StatusKind::ok && !places[i].refusal.empty()) st = {StatusKind::skipped, places[i].refusal};
      auto g = general.find({s.config, s.plan});
      if (st.kind == StatusKind::ok && g != general.end() && !verdicts[g->second].ok()) {
        const Verdict& v = verdicts[g->second];
        st = {StatusKind::error, "verification failed: " + v.message, v.signal, v.fault_offset};
      }
      if (st.kind == StatusKind::ok && slot_case[i] != SIZE_MAX && !verdicts[slot_case[i]].ok()) {
        const Verdict& v = verdicts[slot_case[i]];
        if (overlaps(s.at) && !v.signal)
          st = {StatusKind::skipped,
                "refused: the kernel does not give memmove's result where src and dst overlap: " + v.message};
        else
          st = {StatusKind::error, "verification at this placement failed: " + v.message, v.signal, v.fault_offset};
      }
      if (st.kind != StatusKind::ok) {
        final_result[i] = make_result(kp, s.at, st, {}, std::nullopt, b.info);
        if (opt.journal) opt.journal->result(*final_result[i]);
        continue;
      }
      MeasureJob j;
      j.fn = b.fn;
      j.code = b.code;
      j.code_size = b.info ? b.info->bytes : 0;
      j.buffer_plan = bindex.at(s.at.layout.huge_pages);
      j.alignment = kp.alignment;
      j.copy = kp.op == Op::copy;
      j.at = s.at;
      j.policy = configs[s.config].policy;
      j.name = s.name;
      jobs.push_back(j);
      job_slot.push_back(i);
      auto [gi, fresh] = group_ids.emplace(task_group(family_of(kp), s.at.size), uint32_t(group_ids.size()));
      (void)fresh;
      groups.push_back(gi->second);
      // The paired group: points of kex's harness doing the same thing under the same conditions.
      const auto key = group_of(kp.op, kp.fill, s.at);
      auto [pi, fresh_p] = pair_ids.emplace(*key, uint32_t(pair_groups.size()));
      if (fresh_p) pair_groups.emplace_back();
      pair_groups[pi->second].push_back(uint32_t(jobs.size() - 1));
    }
  }

  // 5. Measure: every (point, repetition) once, in a random order over the whole
  //    sweep, in a supervised worker; what an earlier run finished is not redone.
  std::vector<std::vector<Repetition>> reps(jobs.size());
  std::vector<std::optional<Status>> died(jobs.size());  // the kernel killed its worker: the point failed
  std::vector<std::optional<Status>> lost(jobs.size());  // not measured as asked, not by its kernel's fault
  if (opt.resume)
    for (size_t j = 0; j < jobs.size(); ++j)
      if (auto it = opt.resume->reps.find(jobs[j].name); it != opt.resume->reps.end()) reps[j] = it->second;
  // This session's orders and rounds follow the journal's (a disturbed window marks only
  // its own repetitions; a round pairs only its own).
  uint64_t first_round = 1;
  for (const auto& rs : reps)
    for (const auto& r : rs) {
      protocol.first_order = std::max(protocol.first_order, r.order + 1);
      first_round = std::max(first_round, r.round + 1);
    }
  std::vector<Task> todo = protocol.paired ? paired_order(pair_groups, reps, protocol, first_round)
                                           : separate_order(groups, reps, protocol, opt.resume != nullptr);
  size_t todo_reps = 0;
  for (const Task& t : todo) todo_reps += t.points().size();
  Progress progress(opt.progress, todo_reps);
  SupervisedRun sup;
  std::vector<double> sentinel_l1, sentinel_mem;
  size_t sentinel_disturbed = 0;
  if (!todo.empty() && !stopped()) {
    SupervisorEvents ev;
    ev.done = [&](const Task& t, const Repetition& r) {
      reps[t.point].push_back(r);
      if (opt.journal) opt.journal->repetition(jobs[t.point].name, r);
      char g[64] = "";
      const double size = double(jobs[t.point].at.size);
      if (r.per_call.median > 0)
        std::snprintf(g, sizeof g, " %.2f GB/s", size / (r.per_call.median / machine().tsc_hz * 1e9));
      progress.step(jobs[t.point].name + g);
    };
    ev.failed = [&](const Task& t, const Status& s) {
      died[t.point] = s;
      progress.step(jobs[t.point].name + " FAILED: " + s.message);
    };
    ev.lost = [&](const Task& t, const Status& s) {
      if (!lost[t.point]) lost[t.point] = s;
      progress.step(jobs[t.point].name + " NOT MEASURED: " + s.message);
    };
    ev.sentinel = [&](const SentinelReading& r, const std::vector<Task>& window, bool requeued) {
      doc.context.rest["sentinel_readings"].push_back({{"l1_ticks_per_kib", r.l1_ticks_per_kib},
                                                       {"mem_ticks_per_kib", r.mem_ticks_per_kib},
                                                       {"at_s", r.at_s},
                                                       {"after_task", r.after_task},
                                                       {"disturbed", r.disturbed},
                                                       {"window", window.size()},
                                                       {"requeued", requeued}});
      sentinel_l1.push_back(r.l1_ticks_per_kib);
      sentinel_mem.push_back(r.mem_ticks_per_kib);
      sentinel_disturbed += r.disturbed;
      if (!r.disturbed) return;
      std::vector<std::pair<std::string, uint64_t>> marked;
      for (const Task& t : window)
        for (auto& rep : reps[t.point])
          if (!rep.disturbed && rep.order + window.size() >= r.after_task && rep.order < r.after_task) {
            rep.disturbed = true;
            marked.emplace_back(jobs[t.point].name, rep.order);
          }
      if (opt.journal && !marked.empty()) opt.journal->disturbed(marked);
      if (requeued) progress.total += window.size();
    };
    sup = run_supervised(jobs, bplans, todo, protocol, ev, opt.stop);
    interrupted |= sup.stopped || sup.abandoned;
    out.abandoned = sup.abandoned;
  }
  interrupted |= stopped();

  // 6. Results, in config order: the measured ones, the refused and failed ones.
  std::vector<Result> measured(e.slots.size());
  std::vector<bool> have(e.slots.size(), false);
  for (size_t j = 0; j < jobs.size(); ++j) {
    const size_t i = job_slot[j];
    const Slot& s = e.slots[i];
    const KernelPlan& kp = e.plans[s.config].plans[s.plan];
    const Built& b = built[s.config][s.plan];
    if (died[j]) {
      final_result[i] = make_result(kp, s.at, *died[j], {}, places[i].placed, b.info);
      if (opt.journal) opt.journal->result(*final_result[i]);
    } else if (lost[j]) {
      // The repetitions it finished stand; without one, the point is an error in this
      // run's output, but not in the journal: a resume measures it again.
      out.incomplete.push_back({s.name, *lost[j], reps[j].size(), protocol.repetitions});
      if (!reps[j].empty()) {
        measured[i] = make_result(kp, s.at, {}, reps[j], places[i].placed, b.info);
        have[i] = true;
      } else {
        final_result[i] = make_result(kp, s.at, *lost[j], {}, places[i].placed, b.info);
      }
    } else if (!reps[j].empty()) {
      measured[i] = make_result(kp, s.at, {}, reps[j], places[i].placed, b.info);
      have[i] = true;
    }
  }
  for (size_t i = 0; i < e.slots.size(); ++i) {
    if (final_result[i]) doc.results.push_back(*final_result[i]);
    else if (have[i]) doc.results.push_back(measured[i]);
  }
  report_incomplete(out.incomplete, doc);
  // Sentinel and protocol facts for the context (the noise of the run).
  {
    nlohmann::ordered_json p;
    p["repetitions"] = protocol.repetitions;
    p["order"] = protocol.shuffle ? "random over the whole sweep" : "config order";
    p["seed"] = protocol.seed;
    p["worker_cpu"] = cpu;
    p["workers_started"] = sup.workers;
    p["tasks_measured"] = sup.tasks_done;
    p["remeasured_tasks"] = sup.remeasured;
    p["sentinel"] = {{"enabled", protocol.sentinel.enabled},
                     {"every", protocol.sentinel.every},
                     {"threshold", protocol.sentinel.threshold},
                     {"budget", protocol.sentinel.budget},
                     {"memory_bytes", protocol.sentinel.mem_bytes}};
    p["measuring_s"] = sup.seconds;
    p["measured_s"] = sup.measured_s;
    p["supervision_overhead_ms_per_task"] =
        sup.tasks_done ? (sup.seconds - sup.measured_s) * 1e3 / double(sup.tasks_done) : 0.0;
    // The same budget the supervisor allows (a fraction of the tasks to do).
    const auto budget_tasks = static_cast<size_t>(protocol.sentinel.budget * double(todo.size()));
    p["noise"] = noise_to_json(compute_noise(sentinel_l1, sentinel_mem, sentinel_disturbed, sup.tasks_done,
                                             sup.remeasured, protocol.sentinel.budget, budget_tasks, doc.results));
    doc.context.rest["protocol"] = p;
    if (!sup.buffers.empty()) {
      // Where the measured memory really is: a buffer on another node than the
      // worker's CPU reads remote memory (each plan's nodes, and the CPU's).
      const int node = numa_node_of_cpu(cpu);
      nlohmann::ordered_json plans = nlohmann::ordered_json::array();
      for (const BufferPlacement& b : sup.buffers) {
        plans.push_back(to_json(b));
        if (node >= 0 && !b.numa_nodes.empty() && b.numa_nodes != std::vector<int>{node})
          std::fprintf(stderr, "kex: warning: %s of buffers on NUMA node(s) %s, the worker's CPU %d on node %d\n",
                       format_bytes(b.bytes).c_str(), nlohmann::json(b.numa_nodes).dump().c_str(), cpu, node);
      }
      doc.context.rest["buffers"] = {{"worker_cpu_numa_node", node}, {"plans", plans}};
    }
  }

  // Seed harnesses (fastc, hahn) and the segment table run once, in shard 0 only.
  if (opt.shard_index == 0 && !out.abandoned) {
    pin_thread_to(cpu);
    interrupted = interrupted || stopped() || !run_seed_harnesses(configs, opt, out);
    for (const Config& c : configs) {
      if (!c.segments.enabled) continue;
      if (interrupted || stopped()) { interrupted = true; break; }
      if (opt.resume && opt.resume->segments) {
        doc.context.segments = opt.resume->segments;
        break;
      }
      if (opt.progress) std::fprintf(stderr, "kex: running the segment-override table\n");
      SegmentOptions so;
      so.iterations = c.segments.iterations;
      so.mixed = c.segments.mixed;
      so.modern = c.segments.modern;
      so.stop = opt.stop;
      auto section = run_segments(so);
      if (stopped()) {  // the cases measured so far are written, marked; the journal keeps none
        section["interrupted"] = true;  // (a resumed run measures the whole table again)
        doc.context.segments = section;
        interrupted = true;
        break;
      }
      doc.context.segments = section;
      if (opt.journal) opt.journal->segments(section);
      break;  // one table per run
    }
  }
  // A second stop in any phase (JIT, verification, measuring, harnesses, segments):
  // nothing is written but the journal.
  if (opt.stop && *opt.stop >= 2) out.abandoned = true;
  doc.context.interrupted = interrupted;
  doc.context.rest["load_avg_end"] = load_average();
  doc.context.rest["points_planned"] = planned;
  doc.context.rest["points_written"] = doc.results.size();
  doc.context.rest["elapsed_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return out;
}

}  // namespace kex
