#include "src/run/sweep.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <tuple>

#include "src/model/group.hpp"
#include "src/run/context.hpp"
#include "src/run/machine.hpp"
#include "src/run/result_build.hpp"
#include "src/run/schedule.hpp"
#include "src/run/sweep_detail.hpp"
#include "src/run/topology.hpp"

// run_sweep and its first stages (start, code, places, verification, jobs); the plan
// is made in sweep_plan.cpp, the later stages are in sweep_measure.cpp,
// sweep_results.cpp and sweep_once.cpp (shared through sweep_detail.hpp).

namespace kex::sweep_detail {

namespace {

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

/// Verification sizes beyond the standard ones are capped (the loop's behaviour
/// repeats; a 64 MiB verification would cost more than the measurement).
constexpr uint64_t kVerifyCap = 1 << 20;

/// The family a point belongs to for the order's adjacency rule.
std::string family_of(const KernelPlan& k) {
  if (k.spec && k.kind == KernelKind::generated)
    return std::string(to_string(k.spec->op)) + "/" + std::string(to_string(k.spec->regs));
  if (k.preset) return k.preset->family;
  return k.key;
}

/// Points with threads > 1: where each worker runs (InputError when the mask has too few CPUs).
void place_workers(Sweep& w) {
  const uint32_t most = w.sp.most_threads;
  if (most <= 1) return;
  w.places = place_threads(w.protocol.placement, most, w.protocol.cpu, startup_cpus());
  w.protocol.thread_cpus.clear();
  for (const ThreadPlace& p : w.places) w.protocol.thread_cpus.push_back(p.cpu);
}

/// Whether a resumed journal holds the point already (its result, or all its repetitions).
bool already_done(const Sweep& w, const std::string& name) {
  const JournalState* r = w.opt.resume;
  return r && (r->results.count(name) || (r->reps.count(name) && r->reps.at(name).size() >= w.protocol.repetitions));
}

}  // namespace

void start(Sweep& w) {
  if (w.protocol.placement.mode == PlacementMode::list && !w.protocol.placement.cpus.empty())
    w.protocol.cpu = w.protocol.placement.cpus.front();  // worker 0 on the list's first CPU
  const int cpu = w.protocol.cpu >= 0 && pin_thread_to(w.protocol.cpu) ? w.protocol.cpu : pin_to_one_cpu();
  w.protocol.cpu = cpu;
  w.out.doc.context = make_context(w.configs, cpu, w.opt.shard_index, w.opt.shard_count,
                                   w.opt.run_id.empty() ? new_run_id() : w.opt.run_id);
  w.out.doc.context.filter = w.opt.filter;
  w.out.doc.context.counters = w.opt.counters;
  for (const auto& [at, s] : w.sp.streams.all()) w.out.doc.context.streams.push_back(stream_record(at, *s));
  place_workers(w);
  warn_if_busy(w.opt.progress);
  for (const PlannedSlot& s : w.sp.slots) w.points.push_back({s, {}, SIZE_MAX, 1, std::nullopt, std::nullopt});
}

/// Generates the code of every plan a point uses, one W^X arena per config, never inside
/// a timed region; libc baselines keep their function.
void build_code(Sweep& w) {
  for (size_t ci = 0; ci < w.configs.size() && !w.stopped(); ++ci) {
    const auto& plans = w.sp.plans[ci].plans;
    std::vector<bool> used(plans.size(), false);
    for (const auto& s : w.sp.slots)
      if (s.config == ci) used[s.plan] = true;
    w.built.push_back(build_plan_set(plans, used, w.opt.stop));
  }
}

/// Places every point in its buffer plan: pure arithmetic (the measuring process maps the buffers).
void place_points(Sweep& w) {
  std::tie(w.bplans, w.bindex) = buffer_plans(w.sp);
  for (PointState& p : w.points)
    p.place = w.bplans[w.bindex.at(p.slot.at.layout.huge_pages)].place(p.slot.at.layout, w.plan(p.slot).alignment);
}

/// A stream's verification cases: each distinct size it calls (0 too) at the page offsets of
/// its first call of that size; the overlapping calls are verified one by one, as memmove.
std::vector<VerifyLayout::Case> stream_cases(const Stream& s) {
  std::map<uint64_t, VerifyLayout::Case> by_size{{0, {}}};
  for (const StreamCall& c : s.calls)
    if (!c.overlapping) by_size.emplace(c.size, VerifyLayout::Case{c.size, uint32_t(c.dst_offset % 4096), uint32_t(c.src_offset % 4096)});
  std::vector<VerifyLayout::Case> out;
  for (const auto& [n, c] : by_size) out.push_back(c);
  return out;
}

/// The checks of a stream point: its cases once per kernel and stream, and each overlapping
/// call (memmove's streams) at its distance; the first check's index and how many.
std::pair<size_t, size_t> add_stream_checks(Sweep& w, const PlannedSlot& s, const Stream& stream,
                                            std::map<std::string, std::pair<size_t, size_t>>& done) {
  const std::string key = std::to_string(s.config) + "/" + std::to_string(s.plan) + "/" + s.at.stream + "/" +
                          std::to_string(s.at.footprint) + "/" + std::to_string(s.at.stream_seed) + "/" +
                          std::to_string(s.at.stream_calls);
  if (auto it = done.find(key); it != done.end()) return it->second;
  VerifyTarget t = verify_target(w.plan(s), w.code(s));
  t.layout = VerifyLayout{};
  t.layout->cases = stream_cases(stream);
  const size_t first = w.checks.size();
  w.checks.push_back({t, {}});
  for (const StreamCall& c : stream.calls) {
    if (!c.overlapping) continue;
    VerifyTarget o = verify_target(w.plan(s), w.code(s));
    o.layout = VerifyLayout{uint32_t(c.src_offset % 4096), 0, int64_t(c.dst_offset) - int64_t(c.src_offset), {c.size}, {}};
    w.checks.push_back({o, {}});
  }
  return done[key] = {first, w.checks.size() - first};
}

/// Verifies every runnable kernel once on eight offset pairs, and once at every exact
/// placement (and overlapping distance) it will be measured at.
void verify_points(Sweep& w) {
  using CaseKey = std::tuple<size_t, size_t, uint32_t, uint32_t, std::optional<int64_t>, uint64_t>;
  std::map<CaseKey, size_t> cases;
  std::map<std::string, std::pair<size_t, size_t>> stream_checks;
  for (PointState& p : w.points) {
    const PlannedSlot& s = p.slot;
    if (w.stopped() || w.built.size() <= s.config) break;
    const Built& b = w.code(s);
    if (b.status.kind != StatusKind::ok || !b.fn || !p.place.refusal.empty() || already_done(w, s.name) ||
        !overlap_skip(w.plan(s), s.at).empty())
      continue;
    if (w.general.emplace(std::make_pair(s.config, s.plan), w.checks.size()).second)
      w.checks.push_back({verify_target(w.plan(s), b), {}});
    if (const auto ds = w.sp.streams.find(s.at)) {
      std::tie(p.placed_check, p.placed_checks) = add_stream_checks(w, s, ds->stream, stream_checks);
      continue;
    }
    const Placement& pl = p.place.placed;
    const bool ov = overlaps(s.at);
    // The size the overlap case is tried at: the measured one, or above the cap the
    // cap plus the same remainder modulo a page (the same tail).
    const uint64_t n = s.at.size <= kVerifyCap ? s.at.size : kVerifyCap + s.at.size % 4096;
    CaseKey key{s.config, s.plan, pl.src_page_offset, ov ? 0 : pl.dst_page_offset,
                ov ? s.at.layout.distance : std::nullopt, ov ? n : 0};
    auto [it, fresh] = cases.emplace(key, w.checks.size());
    if (fresh) {
      VerifyTarget t = verify_target(w.plan(s), b);
      t.layout = VerifyLayout{pl.src_page_offset, pl.dst_page_offset, std::get<4>(key), {}, {}};
      if (ov) t.max_size = std::max<uint64_t>(t.max_size, n);
      w.checks.push_back({t, {}});
    }
    auto& sizes = w.checks[it->second].target.layout->sizes;
    if (std::find(sizes.begin(), sizes.end(), n) == sizes.end()) sizes.push_back(n);
    p.placed_check = it->second;
  }
  if (w.opt.progress && !w.checks.empty())
    std::fprintf(stderr, "kex: verifying %zu kernel%s at %zu placements\n", w.general.size(),
                 w.general.size() == 1 ? "" : "s", cases.size());
  if (!w.stopped()) verify_all(w.checks, w.opt.stop, w.shared_objects());
}

namespace {

/// Why a stream point is not raced, "" when it is: its distribution is another function's
/// (a memset distribution's calls are clears), or its calls overlap and the kernel does not
/// promise memmove's result there.
Status stream_status(const Sweep& w, const PointState& p) {
  const auto ds = w.sp.streams.find(p.slot.at);
  if (!ds) return {};
  const KernelPlan& k = w.plan(p.slot);
  const auto& f = ds->distribution.function;
  if (f && function_row(*f).op != k.op)
    return {StatusKind::skipped, ds->distribution.name + "'s calls are " + std::string(to_string(*f)) + "'s: a " +
                                     std::string(to_string(k.op)) + " does not race on them"};
  if (ds->stream.overlapping && !overlap_refusal(k).empty()) return {StatusKind::skipped, overlap_refusal(k)};
  return {};
}

/// A point's status before measuring: its kernel's, its placement's, its verdicts'.
Status point_status(const Sweep& w, const PointState& p) {
  Status st = w.code(p.slot).status;
  if (st.kind == StatusKind::ok && !p.place.refusal.empty()) st = {StatusKind::skipped, p.place.refusal};
  if (const std::string o = overlap_skip(w.plan(p.slot), p.slot.at); st.kind == StatusKind::ok && !o.empty())
    st = {StatusKind::skipped, o};
  if (auto g = w.general.find({p.slot.config, p.slot.plan}); st.kind == StatusKind::ok && g != w.general.end())
    st = verification_status(w.checks[g->second]);
  for (size_t k = 0; p.placed_check != SIZE_MAX && k < p.placed_checks && st.kind == StatusKind::ok; ++k)
    st = verification_status(w.checks[p.placed_check + k]);
  if (st.kind == StatusKind::ok) st = stream_status(w, p);
  return st;
}

/// Adds a measurable point's job, with its family (separate order) and its group (paired rounds).
void add_job(Sweep& w, size_t i, std::map<std::string, uint32_t>& family_ids, std::map<GroupKey, uint32_t>& group_ids) {
  const PlannedSlot& s = w.points[i].slot;
  const KernelPlan& kp = w.plan(s);
  const Built& b = w.code(s);
  MeasureJob j;
  j.fn = b.fn;
  j.entry = b.entry;
  j.entry_slot = b.entry_slot;
  j.fill_in_esi = b.fill_in_esi;
  j.fill = kp.fill;
  if (auto ds = w.sp.streams.find(s.at)) j.stream = std::shared_ptr<const Stream>(ds, &ds->stream);
  j.code = b.code;
  j.code_size = b.info ? b.info->bytes : 0;
  j.buffer_plan = w.bindex.at(s.at.layout.huge_pages);
  j.alignment = kp.alignment;
  j.copy = op_info(kp.op).reads_src;
  j.at = s.at;
  j.policy = w.configs[s.config].policy;
  j.name = s.name;
  w.points[i].job = w.jobs.size();
  auto [fi, fresh_f] = family_ids.emplace(task_group(family_of(kp), s.at.size), uint32_t(family_ids.size()));
  w.jobs.push_back({std::move(j), i, fi->second, {}, std::nullopt, std::nullopt});
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

}  // namespace

/// A resumed or refused point is final; the measurable ones become jobs.
void plan_jobs(Sweep& w) {
  if (w.stopped()) return;
  std::map<std::string, uint32_t> family_ids;
  std::map<GroupKey, uint32_t> group_ids;
  std::map<std::string, std::pair<size_t, std::string>> left_out;  // kernel -> overlapping points, why
  for (size_t i = 0; i < w.points.size(); ++i) {
    PointState& p = w.points[i];
    if (w.opt.resume && w.opt.resume->results.count(p.slot.name)) {
      p.result = w.opt.resume->results.at(p.slot.name);
      continue;
    }
    const Status st = point_status(w, p);
    if (st.kind != StatusKind::ok) {
      p.result = make_result(w.plan(p.slot), p.slot.at, st, {}, std::nullopt, w.code(p.slot).info);
      if (w.opt.journal) w.opt.journal->result(*p.result);
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

}  // namespace kex::sweep_detail

namespace kex {

SweepRun run_sweep(const SweepPlan& plan, const RunOptions& opt) {
  if (!plan.complete || plan.shard_index != opt.shard_index || plan.shard_count != opt.shard_count)
    throw std::invalid_argument("run_sweep: the plan is cut short or of another shard");
  namespace d = sweep_detail;
  d::Sweep w(plan, opt);
  d::start(w);
  d::build_code(w);
  d::place_points(w);
  d::verify_points(w);
  d::plan_jobs(w);
  d::measure_jobs(w);
  d::collect_results(w);
  d::record_protocol(w);
  d::run_once_parts(w);
  return d::finish(w);
}

SweepRun run_sweep(const std::vector<Config>& configs, const RunOptions& opt) {
  return run_sweep(plan_sweep(configs, opt), opt);
}

}  // namespace kex
