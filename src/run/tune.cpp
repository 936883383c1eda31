#include "src/run/tune.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "src/core/cpu_features.hpp"
#include "src/core/error.hpp"
#include "src/core/stats.hpp"
#include "src/core/terminal_text.hpp"
#include "src/core/units.hpp"
#include "src/model/config_json.hpp"
#include "src/model/function.hpp"
#include "src/model/kernel_names.hpp"
#include "src/model/stream_mix.hpp"
#include "src/model/tune_compose.hpp"
#include "src/run/glibc_impls.hpp"
#include "src/run/streams.hpp"

namespace kex {

namespace {

using Clock = std::chrono::steady_clock;

/// One size in the race: the specs still in it and the rounds its group has.
struct SizeRace {
  uint64_t size = 0;
  std::vector<KernelSpec> specs;
  uint32_t rounds = 0;
  bool settled = false;  ///< one candidate left (beside the reference), or the rounds at their cap
  std::string stream;    ///< a stream's race (size 0): its points are the stream's, whatever their pass's bytes
  std::vector<std::string> dispatches;  ///< dispatch kernels racing too (a stream's composition)
  std::vector<std::string> members;     ///< a mix's streams (`stream` is then the mix's name); else empty
  /// Whether a point at `at` is this race's: the stream's (the mix's or one of its streams'),
  /// or a fixed size's.
  bool holds(const Coords& at) const {
    if (stream.empty()) return at.stream.empty() && at.size == size;
    return at.stream == stream || std::find(members.begin(), members.end(), at.stream) != members.end();
  }
  size_t candidates() const { return specs.size() + dispatches.size(); }
  /// Whether kernel `k` is one of the candidates still racing here.
  bool has(const std::string& k) const {
    return std::find(dispatches.begin(), dispatches.end(), k) != dispatches.end() ||
           std::any_of(specs.begin(), specs.end(), [&](const KernelSpec& x) { return spec_name(x) == k; });
  }
};

/// The state of a tune between stages.
struct Race {
  const TuneRequest& req;
  RunOptions opt;
  const std::function<void(const std::string&)>& say;
  std::vector<std::string> kept;             ///< the reference baselines
  std::vector<SizeRace> sizes;               ///< ascending
  std::map<std::string, Result> results;     ///< every point measured, the latest of each
  JournalState acc;                          ///< every point's rounds so far: a stage goes on from them
  RunContext context;                        ///< of the latest stage
  TuneRecord rec;
  Clock::time_point start = Clock::now();
  double scale = 1;                          ///< measured stage time / plan_sweep's estimate
  uint32_t cap = 0;                          ///< rounds a size gets at most now (raised when budget is left)
  bool stopped = false;
  const JournalState* replay = nullptr;      ///< a resumed journal whose stages are not all replayed yet
  size_t replayed = 0;                       ///< its stages replayed so far
  const TuneStageMark* mark = nullptr;       ///< the journaled stage the next run_stage replays
  std::optional<StreamMix> mix = std::nullopt;  ///< several streams: raced as their mix

  double used() const { return std::chrono::duration<double>(Clock::now() - start).count(); }
};

/// Only the sizes may take several values: a race is between kernels, one group per size.
void check_single_axes(const Config& c) {
  const Axes& a = c.axes;
  auto one = [&](size_t n, const char* key) {
    if (n != 1)
      throw InputError(c.source + ": /" + key + ": " + std::to_string(n) +
                       " values: kex tune races one group per size, give one value (or run kex tune once per value)");
  };
  one(a.src_offsets.size(), "layout/src_offset");
  one(a.dst_offsets.size(), "layout/dst_offset");
  one(a.distances.size(), "layout/distance");
  one(a.huge_pages.size(), "layout/huge_pages");
  one(a.caches.size(), "cache");
  one(a.chunks.size(), "chunk");
  one(a.prefills.size(), "prefill");
  one(a.consumes.size(), "consume");
  one(a.threads.size(), "threads");
  if (!a.streams.empty()) one(a.footprints.size(), "footprint");
}

/// The config of one size in a stage: the space's axes at `size`, the specs still
/// racing there, the reference baselines and the space's loads; no presets, no segment table.
/// A stream's stages race its points alone; with `fixed_sizes` its prediction sizes too.
Config stage_config(const Race& r, const SizeRace& s, bool fixed_sizes = false) {
  const Config& space = r.req.space;
  Config c;
  c.name = space.name;
  c.description = "kex tune: the candidates still racing at " + (s.stream.empty() ? format_bytes(s.size) : "stream " + s.stream);
  c.axes = space.axes;
  c.axes.sizes.clear();
  c.axes.streams.clear();
  if (s.stream.empty()) c.axes.sizes = {s.size};
  else c.axes.streams = r.req.streams;  // as given: one stream, or a mix's
  c.axes.stream_fixed_sizes = fixed_sizes;
  for (const KernelSpec& k : s.specs) c.grids.push_back(spec_grid_of(k, c.axes));
  c.baselines = r.kept;
  c.baselines.insert(c.baselines.end(), s.dispatches.begin(), s.dispatches.end());
  c.loads = space.loads;
  c.policy = space.policy;
  c.protocol = space.protocol;
  return make_config(c, space.source);
}

std::string stage_line(const Race& r, const std::vector<size_t>& racing, uint32_t rounds, uint32_t stage) {
  size_t n = 0;
  std::string each;
  for (size_t i : racing) {
    n += r.sizes[i].candidates();
    const SizeRace& s = r.sizes[i];
    each += (each.empty() ? "" : ", ") + (s.stream.empty() ? format_bytes(s.size) : "stream " + terminal_text(s.stream)) +
            ": " + std::to_string(s.candidates());
  }
  char head[160];
  const char* what = r.req.streams.empty() ? "size" : "stream";
  std::snprintf(head, sizeof head, "stage %u: %u rounds at %zu %s%s, %zu candidates left (", stage, rounds,
                racing.size(), what, racing.size() == 1 ? "" : "s", n);
  char tail[96];
  std::snprintf(tail, sizeof tail, "); %.0f s of %.0f s used", r.used(), r.req.budget_s);
  return head + each + tail;
}

/// The specs of `s` whose points did not end measured (failed to verify, skipped):
/// they leave the race with their status as the reason.
void drop_unmeasured(Race& r, SizeRace& s, uint32_t stage) {
  std::vector<KernelSpec> keep;
  for (const KernelSpec& k : s.specs) {
    const Point p{spec_name(k), Coords{}};
    auto it = std::find_if(r.results.begin(), r.results.end(), [&](const auto& e) {
      return e.second.point.kernel == p.kernel && s.holds(e.second.point.at);
    });
    if (it != r.results.end() && it->second.status.kind != StatusKind::ok) {
      r.rec.drops.push_back({it->second.point.at.size, p.kernel, "", it->second.status.message, stage, PairedRatio{}});
      continue;
    }
    keep.push_back(k);
  }
  s.specs = std::move(keep);
  std::erase_if(s.dispatches, [&](const std::string& k) {
    const auto it = std::find_if(r.results.begin(), r.results.end(),
                                 [&](const auto& e) { return e.second.point.kernel == k && s.holds(e.second.point.at); });
    if (it == r.results.end() || it->second.status.kind == StatusKind::ok) return false;
    r.rec.drops.push_back({it->second.point.at.size, k, "", it->second.status.message, stage, PairedRatio{}});
    return true;
  });
}

/// `all` with only the results `keep` accepts (the context as is).
RunDoc only(const RunDoc& all, const std::function<bool(const Result&)>& keep) {
  RunDoc doc;
  doc.context = all.context;
  std::copy_if(all.results.begin(), all.results.end(), std::back_inserter(doc.results), keep);
  return doc;
}

/// Not an outside implementation: glibc's variants race in the same rounds to be
/// compared with, but they neither lead the race nor enter the dispatch (kex cannot emit them).
bool dispatchable(const Result& x) { return !x.impl; }

/// `doc` as the race reads it: a mix's streams' points as the mix's (each round the
/// streams' weighted time); else as it is.
RunDoc as_raced(const Race& r, const RunDoc& doc) { return r.mix ? mix_streams(doc, *r.mix) : doc; }

/// After a stage: each size's answer drops the candidates shown slower than its leader.
void apply_answers(Race& r, const RunDoc& all, uint32_t stage) {
  const RunDoc doc = as_raced(r, only(all, dispatchable));
  for (const GroupAnswer& g : answer_groups(doc, r.req.margin)) {
    auto it = std::find_if(r.sizes.begin(), r.sizes.end(), [&](const SizeRace& s) { return s.holds(g.key.at); });
    if (it == r.sizes.end()) continue;
    std::vector<RaceDrop> drops = race_drops(g, doc, r.req.margin, r.kept, stage);
    std::set<std::string> gone;
    for (const RaceDrop& d : drops) gone.insert(d.kernel);
    std::erase_if(it->specs, [&](const KernelSpec& k) { return gone.count(spec_name(k)) > 0; });
    std::erase_if(it->dispatches, [&](const std::string& k) { return gone.count(k) > 0; });
    r.rec.drops.insert(r.rec.drops.end(), drops.begin(), drops.end());
  }
}

/// The configs of a stage: one per size racing.
std::vector<Config> stage_configs(const Race& r, const std::vector<size_t>& racing) {
  std::vector<Config> configs;
  for (size_t i : racing) configs.push_back(stage_config(r, r.sizes[i]));
  return configs;
}

std::vector<uint64_t> sizes_of(const Race& r, const std::vector<size_t>& racing) {
  std::vector<uint64_t> out;
  for (size_t i : racing) out.push_back(r.sizes[i].size);
  return out;
}

/// The end of a resumed journal's replay: every repetition it holds is taken over
/// (the stage it was killed in goes on from them), and the rest is measured.
void end_replay(Race& r) {
  if (!r.replay) return;
  for (const auto& [point, reps] : r.replay->reps)
    if (r.acc.reps[point].size() < reps.size()) r.acc.reps[point] = reps;
  r.replay = nullptr;
  r.mark = nullptr;
}

/// The rounds of the journaled stage the next stage replays, when it races the same sizes
/// (set as r.mark), else 0: the replay ends there (a stage the journal does not hold).
uint32_t replay_rounds(Race& r, const std::vector<size_t>& racing, bool refine) {
  if (!r.replay) return 0;
  if (r.replayed < r.replay->tune_stages.size()) {
    const TuneStageMark& m = r.replay->tune_stages[r.replayed];
    if (m.sizes == sizes_of(r, racing) && m.refine == refine && !m.compose) {
      r.mark = &m;
      for (const auto& [point, n] : m.reps_before) {  // the rounds each point had at the stage's end
        const std::vector<Repetition>& all = r.replay->reps.at(point);
        r.acc.reps[point].assign(all.begin(), all.begin() + std::ptrdiff_t(std::min(n, all.size())));
      }
      return m.rounds;
    }
  }
  end_replay(r);
  return 0;
}

/// Measures the sizes `racing` (their `configs`) up to `rounds` rounds each (the rounds
/// they have are kept: only the missing ones are measured), then drops what the answers allow.
void run_stage(Race& r, const std::vector<size_t>& racing, const std::vector<Config>& configs, uint32_t rounds,
               bool refine, bool compose = false) {
  const auto stage = uint32_t(r.rec.stages.size() + 1);
  r.say(stage_line(r, racing, rounds, stage));
  RunOptions opt = r.opt;
  opt.protocol.repetitions = rounds;
  opt.protocol.seed = r.opt.protocol.seed + stage;
  opt.resume = &r.acc;
  opt.progress = r.opt.progress && stage == 1;  // later stages are short: their line says enough
  const SweepPlan plan = plan_sweep(configs, opt);
  const double estimate = plan.estimate_s;
  const auto t0 = Clock::now();
  SweepRun sw = run_sweep(plan, opt);
  const TuneStageMark* m = std::exchange(r.mark, nullptr);  // a replayed stage takes its journaled times
  const double dt = m ? m->seconds : std::chrono::duration<double>(Clock::now() - t0).count();
  if (m) r.start = Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(m->used_s));
  if (m) ++r.replayed;
  if (estimate > 0) r.scale = dt / estimate;
  for (const Result& res : sw.doc.results) {
    r.acc.reps[res.name()] = res.reps;
    r.results[res.name()] = res;
  }
  r.context = sw.doc.context;
  r.stopped = sw.abandoned || sw.doc.context.interrupted;
  r.rec.stages.push_back({stage, rounds, racing.size(), sw.doc.results.size(), dt, refine, compose});
  if (r.stopped) return;
  if (!m && r.opt.journal) r.opt.journal->tune_stage({stage, rounds, sizes_of(r, racing), refine, compose, dt, r.used(), {}});
  for (size_t i : racing) drop_unmeasured(r, r.sizes[i], stage);
  apply_answers(r, sw.doc, stage);
  for (size_t i : racing) {
    SizeRace& s = r.sizes[i];
    s.rounds = rounds;
    s.settled = s.candidates() <= 1 || rounds >= r.cap;
  }
}

/// The rounds the next stage can give `racing` within `until` seconds of the tune:
/// twice the fewest they have, at most the cap, fewer when the budget is short; 0
/// when fewer than 2 more rounds fit.
uint32_t next_rounds(const Race& r, const std::vector<size_t>& racing, const std::vector<Config>& configs,
                     double until) {
  uint32_t have = r.cap;
  for (size_t i : racing) have = std::min(have, r.sizes[i].rounds);
  uint32_t want = std::min(r.cap, std::max(have * 2, have + 2));
  RunOptions opt = r.opt;
  opt.protocol.repetitions = want;
  const double per_round = plan_sweep(configs, opt).estimate_s / want * r.scale;
  const double left = until - r.used();
  if (per_round > 0 && per_round * (want - have) > left)
    want = have + uint32_t(std::max(0.0, left / per_round));
  return want >= have + 2 ? want : 0;
}

/// What preparing one point of a stage costs before its first round: its kernel built
/// into the size's own arena and verified, in seconds, plus the verification's share
/// that grows with the size (every verified size fills and checks a buffer of the
/// measured size, at most 1 MiB). Measured on the 2-vCPU Zen 5 VM at load 2-9, and set
/// between its busy and quiet figures: benchmarks/results/2026-12-04-tune-estimate.md.
constexpr double kPrepareSecondsPerPoint = 0.019;
constexpr double kVerifySecondsPerMiB = 0.11;
constexpr uint64_t kVerifyCapBytes = uint64_t(1) << 20;  ///< src/run/sweep.cpp's kVerifyCap

/// How far above the race's budget the first stage may be estimated before the tune is
/// refused (without allow_large): the first stage runs whole, so the tune takes about
/// this much longer than asked at most.
constexpr double kFirstStageOverFactor = 1.5;

/// The first stage's estimate: plan_sweep's measuring time of `rounds` paired rounds
/// and the preparation of every point (kPrepareSecondsPerPoint, kVerifySecondsPerMiB).
TuneEstimate first_stage_estimate(const Race& r, const std::vector<Config>& configs, uint32_t rounds) {
  RunOptions opt = r.opt;
  opt.protocol.repetitions = rounds;
  const SweepPlan sp = plan_sweep(configs, opt);
  TuneEstimate e;
  e.points = sp.names.size() - sp.skipped;
  e.tasks = sp.tasks;
  e.measure_s = sp.estimate_s;
  for (const SizeRace& s : r.sizes) {
    const double mib = double(std::min(s.size, kVerifyCapBytes)) / double(kVerifyCapBytes);
    const double points = double(s.specs.size() + r.kept.size() + r.req.space.loads.size()) *
                          double(std::max<size_t>(1, s.members.size()));
    e.prepare_s += points * (kPrepareSecondsPerPoint + kVerifySecondsPerMiB * mib);
  }
  return e;
}

/// The first stage (every size and candidate, `rounds` rounds) estimated above
/// kFirstStageOverFactor times the race's budget: InputError naming the estimate and
/// the flag that races anyway.
void check_first_stage(const Race& r, const TuneEstimate& e, uint32_t rounds) {
  if (r.req.allow_large || e.first_s() <= kFirstStageOverFactor * r.req.budget_s) return;
  char line[400];
  std::snprintf(line, sizeof line,
                "the first stage alone (%zu points at %zu size%s x %u rounds = %zu tasks) is estimated at %.0f s "
                "(%.0f s building and verifying, %.0f s measuring), over %.1fx the race's %.0f s: give a larger "
                "--budget, fewer sizes or kernels, or pass --allow-large to race anyway",
                e.points, r.sizes.size(), r.sizes.size() == 1 ? "" : "s", rounds, e.tasks, e.first_s(), e.prepare_s, e.measure_s,
                kFirstStageOverFactor, r.req.budget_s);
  throw InputError("--budget", line);
}

std::string estimate_line(const TuneEstimate& e) {
  char line[200];
  std::snprintf(line, sizeof line,
                "estimated %.0f s: the first stage %.0f s (%.0f s building and verifying %zu points, %.0f s measuring), "
                "then the budget",
                e.total_s, e.first_s(), e.prepare_s, e.points, e.measure_s);
  return line;
}

/// Races the sizes not settled, stage after stage, until none is left, the stop flag
/// is raised or `until` seconds of the tune are used.
void race(Race& r, double until) {
  while (!r.stopped) {
    std::vector<size_t> racing;
    for (size_t i = 0; i < r.sizes.size(); ++i)
      if (!r.sizes[i].settled) racing.push_back(i);
    if (racing.empty()) return;
    const std::vector<Config> configs = stage_configs(r, racing);
    uint32_t rounds = replay_rounds(r, racing, false);
    if (rounds == 0) rounds = next_rounds(r, racing, configs, until);
    if (rounds == 0) return;
    run_stage(r, racing, configs, rounds, false);
  }
}

}  // namespace

std::vector<KernelSpec> tune_candidates(const Config& space, Op op) {
  const std::string rep_name = spec_name(rep_string_spec(op));  // the rep reference's own code
  std::vector<KernelSpec> out;
  for (const Grid& g : space.grids)
    for (const KernelSpec& s : g.specs)
      if (s.op == op && missing_features(spec_needs(s)).empty() && spec_name(s) != rep_name &&
          std::find(out.begin(), out.end(), s) == out.end())
        out.push_back(s);
  return out;
}

namespace {

/// Every point measured, as one run: the latest stage's context, the points by size.
RunDoc race_doc(const Race& r) {
  RunDoc d;
  d.context = r.context;
  for (const auto& [name, res] : r.results) d.results.push_back(res);
  std::stable_sort(d.results.begin(), d.results.end(),
                   [](const Result& a, const Result& b) { return a.point.at.size < b.point.at.size; });
  return d;
}

const SizeRace* race_at(const Race& r, uint64_t size) {
  for (const SizeRace& s : r.sizes)
    if (s.size == size) return &s;
  return nullptr;
}

/// Whether `r` is still in its size's race: the reference, or a candidate not dropped.
bool alive(const Race& race, const Result& r) {
  const auto at = std::find_if(race.sizes.begin(), race.sizes.end(), [&](const SizeRace& s) { return s.holds(r.point.at); });
  const SizeRace* s = at == race.sizes.end() ? nullptr : &*at;
  const std::string& k = r.point.kernel;
  return s && (std::find(race.kept.begin(), race.kept.end(), k) != race.kept.end() || s->has(k));
}

/// Each size's verdict over all the rounds of the candidates still racing and the
/// reference: a dropped candidate, measured in fewer rounds with a wide interval, would
/// look tied with everything (and a kernel 1.2x slower than libc in 160 rounds with it).
std::vector<TuneVerdict> verdicts(const Race& r, const RunDoc& all) {
  const RunDoc doc = as_raced(r, only(all, [&](const Result& x) { return alive(r, x) && dispatchable(x); }));
  std::vector<TuneVerdict> out;
  for (const GroupAnswer& g : answer_groups(doc, r.req.margin))
    if (TuneVerdict v = verdict_of(g, doc); !v.ties.empty()) out.push_back(std::move(v));
  std::sort(out.begin(), out.end(), [](const TuneVerdict& a, const TuneVerdict& b) { return a.size < b.size; });
  return out;
}

/// Which points a figure is of: those at one size, or on one stream.
using PointsAt = std::function<bool(const Coords&)>;
PointsAt at_size(uint64_t size) {
  return [size](const Coords& c) { return c.size == size; };
}

/// The paired ratio of two kernels' points `at` (rounds 0 when either is missing).
PairedRatio ratio_at(const RunDoc& doc, const PointsAt& at, const std::string& a, const std::string& b) {
  const Result *ra = nullptr, *rb = nullptr;
  for (const Result& x : doc.results)
    if (at(x.point.at)) {
      if (x.point.kernel == a) ra = &x;
      if (x.point.kernel == b) rb = &x;
    }
  if (!ra || !rb) return {};
  return paired_ratio(round_times(*ra), round_times(*rb));
}

/// The sizes between two that dispatch to different kernels, still further apart
/// than refine_ratio: their geometric mean (a multiple of 64 from 4 KiB on), racing
/// the candidates left at both sides.
std::vector<SizeRace> refine_sizes(const Race& r, const std::vector<DispatchSwitch>& switches) {
  std::vector<SizeRace> out;
  for (const DispatchSwitch& sw : switches) {
    if (double(sw.high) / double(sw.low) <= r.req.refine_ratio) continue;
    const double g = std::sqrt(double(sw.low) * double(sw.high));
    const uint64_t step = g >= 4096 ? 64 : 8;
    const uint64_t mid = uint64_t(std::llround(g / double(step))) * step;
    if (mid <= sw.low || mid >= sw.high || race_at(r, mid)) continue;
    SizeRace s{mid, {}, 0, false, "", {}, {}};
    for (uint64_t side : {sw.low, sw.high})
      for (const KernelSpec& k : race_at(r, side)->specs)
        if (std::find(s.specs.begin(), s.specs.end(), k) == s.specs.end()) s.specs.push_back(k);
    out.push_back(std::move(s));
  }
  return out;
}

/// glibc's fastest variant `at` by median (--glibc's: the references after libc and
/// rep); "" when none was measured there.
std::string fastest_glibc(const Race& r, const RunDoc& doc, const PointsAt& at) {
  std::string best;
  double least = 0;
  for (const Result& x : doc.results) {
    if (!x.ok() || !at(x.point.at) || std::find(r.kept.begin() + 2, r.kept.end(), x.point.kernel) == r.kept.end())
      continue;
    const double m = aggregate(x).median_ns;
    if (m > 0 && (best.empty() || m < least)) least = m, best = x.point.kernel;
  }
  return best;
}

/// A stream point's ns per call: its entry's median (over the repetitions the sentinel left
/// undisturbed), or with every one flagged (a busy machine) the median over all its rounds; 0
/// when it has none.
double ns_per_call(const Result& x) {
  double ns = aggregate(x).median_ns;
  if (!(std::isfinite(ns) && ns > 0)) {
    std::vector<double> ticks;
    for (const auto& [round, t] : round_times(x)) ticks.push_back(t);
    ns = ticks.empty() || x.tsc_hz <= 0 ? 0 : median(ticks) * 1e9 / x.tsc_hz;
  }
  return ns / double(std::max<uint32_t>(1, x.point.at.stream_calls));
}

/// A mix's choice `kernel` on each of its streams alone: its time per call, this stream's
/// leader among the kernels still racing, and the ratios in the same rounds.
std::vector<StreamVerdict> stream_verdicts(const Race& r, const RunDoc& doc, const std::string& kernel) {
  const RunDoc racing = only(doc, [&](const Result& x) { return alive(r, x) && dispatchable(x); });
  const std::vector<GroupAnswer> answers = answer_groups(racing, r.req.margin);
  std::vector<StreamVerdict> out;
  for (size_t i = 0; i < r.mix->streams.size(); ++i) {
    const std::string& name = r.mix->streams[i];
    const PointsAt on = [&](const Coords& c) { return c.stream == name; };
    StreamVerdict s{name, r.mix->weights[i], 0, "", {}, {}, {}, "", {}};
    for (const Result& x : doc.results)
      if (x.ok() && on(x.point.at) && x.point.kernel == kernel) s.ns_per_call = ns_per_call(x);
    for (const GroupAnswer& g : answers)
      if (g.key.at.stream == name && !g.members.empty()) s.leader = racing.results[g.members.front().result].point.kernel;
    if (s.leader.empty()) s.leader = kernel;
    s.vs_leader = ratio_at(doc, on, kernel, s.leader);
    s.vs_libc = ratio_at(doc, on, kernel, r.kept[0]);
    s.vs_rep = ratio_at(doc, on, kernel, r.kept[1]);
    s.glibc = fastest_glibc(r, doc, on);
    if (!s.glibc.empty()) s.vs_glibc = ratio_at(doc, on, kernel, s.glibc);
    out.push_back(std::move(s));
  }
  return out;
}

/// The dispatch of the sizes raced so far, with its switches, in the record (and a mix's
/// choice on each of its streams).
void decide(Race& r, const RunDoc& doc) {
  r.rec.verdicts = verdicts(r, doc);
  r.rec.dispatch = choose_dispatch(r.rec.verdicts, &r.rec.switches);
  const RunDoc raced = as_raced(r, doc);
  for (TuneVerdict& v : r.rec.verdicts) {
    const PointsAt at = at_size(v.size);
    v.dispatched = r.rec.dispatch.kernel_for(v.size);
    v.vs_leader = ratio_at(raced, at, v.dispatched, v.ties.front());
    v.vs_libc = ratio_at(raced, at, v.dispatched, r.kept[0]);
    v.vs_rep = ratio_at(raced, at, v.dispatched, r.kept[1]);
    v.glibc = fastest_glibc(r, raced, at);
    if (!v.glibc.empty()) v.vs_glibc = ratio_at(raced, at, v.dispatched, v.glibc);
  }
  if (r.mix && !r.rec.verdicts.empty()) r.rec.streams = stream_verdicts(r, doc, r.rec.verdicts.front().dispatched);
}

/// Refines the switches while the budget lasts: each new size races its neighbours'
/// contenders (then more rounds, as any size), and the dispatch is decided again.
void refine(Race& r) {
  for (int pass = 0; pass < 8 && !r.stopped && r.used() < r.req.budget_s; ++pass) {
    decide(r, race_doc(r));
    std::vector<SizeRace> add = refine_sizes(r, r.rec.switches);
    if (add.empty()) return;
    std::vector<size_t> racing;
    for (SizeRace& s : add) {
      r.sizes.push_back(std::move(s));
      racing.push_back(r.sizes.size() - 1);
    }
    const uint32_t replayed = replay_rounds(r, racing, true);
    run_stage(r, racing, stage_configs(r, racing), replayed ? replayed : std::min(r.cap, r.req.first_rounds * 2), true);
    race(r, r.req.budget_s);
    std::stable_sort(r.sizes.begin(), r.sizes.end(), [](const SizeRace& a, const SizeRace& b) { return a.size < b.size; });
  }
}

/// Budget left after the race and the refining: the sizes where several candidates
/// still tie get more rounds (the cap doubled, up to 4x the asked one), which may split them.
void extend(Race& r) {
  const double until = r.req.streams.empty() ? 0.95 : 0.9;  // a stream's tune measures its fixed sizes after
  while (!r.stopped && r.used() < r.req.budget_s * until && r.cap < 4 * r.req.max_rounds) {
    bool open = false;
    for (SizeRace& s : r.sizes)
      if (s.candidates() > 1) s.settled = false, open = true;
    if (!open) return;
    r.cap *= 2;
    const size_t stages = r.rec.stages.size();
    race(r, r.req.budget_s);
    if (r.rec.stages.size() == stages) return;  // no stage fitted in the budget left
  }
}

/// The candidates of a composition step: the choice and its ties (the references race
/// anyway), then the neighbours.
void compose_group(Race& r, SizeRace& s, const TuneVerdict& v, const std::vector<std::string>& fresh) {
  s.specs.clear();
  s.dispatches.clear();
  std::vector<std::string> names(v.ties.begin(), v.ties.end());
  names.insert(names.begin(), v.dispatched);
  names.insert(names.end(), fresh.begin(), fresh.end());
  for (const std::string& k : names) {
    if (std::find(r.kept.begin(), r.kept.end(), k) != r.kept.end() || s.has(k)) continue;
    if (is_dispatch_name(k)) s.dispatches.push_back(k);
    else s.specs.push_back(parse_spec_name(k));
  }
  s.rounds = 0;
  s.settled = false;
  // Every earlier round of the points the step races, set aside (the others keep theirs:
  // the results file holds every kernel that raced, each with its latest rounds).
  for (auto it = r.results.begin(); it != r.results.end();) {
    const std::string& k = it->second.point.kernel;
    const bool mine = s.holds(it->second.point.at) &&
                      (s.has(k) || std::find(r.kept.begin(), r.kept.end(), k) != r.kept.end());
    if (mine) r.acc.reps.erase(it->first);
    it = mine ? r.results.erase(it) : std::next(it);
  }
}

/// A stream's composition (issue 51): a coordinate descent from the race's choice. Each
/// step races the choice, its ties and its neighbours not tried yet (compose_neighbours:
/// rep:N's threshold moved, two- and three-row dispatches of the loops left at the
/// stream's quartile sizes, a dispatch's bounds moved; once those are tried, the
/// thresholds by finer steps, down to 2^(1/8)) afresh in the same paired rounds,
/// so every ratio compares one window, and stops when none is left or `until` seconds are
/// used. A resumed tune replays the race before it and composes anew.
void compose(Race& r, double until) {
  if (r.req.streams.empty() || r.stopped) return;
  end_replay(r);
  const size_t at = r.sizes.size() - 1;  // the stream's race
  std::vector<Distribution> ds;
  for (const std::string& s : r.req.streams) ds.push_back(load_distribution(s, "--stream"));
  const std::vector<uint64_t> bounds = compose_bounds(r.mix ? mix_distributions(ds, r.mix->weights) : ds.front());
  std::set<std::string> tried;
  for (const auto& [name, res] : r.results) tried.insert(res.point.kernel);
  int level = 0;  // compose_neighbours' step: finer once a choice's coarser neighbours are all tried
  std::string center;
  while (!r.stopped && r.used() < until) {
    decide(r, race_doc(r));
    if (r.rec.verdicts.empty()) return;
    const TuneVerdict v = r.rec.verdicts.front();
    if (v.dispatched != center) center = v.dispatched, level = 0;  // a new choice: coarse steps first
    const std::vector<std::string> lower = compose_lower(v, r.rec.drops);
    std::vector<std::string> fresh;
    for (;; ++level) {
      for (const std::string& n : compose_neighbours(v.dispatched, lower, bounds, level))
        if (tried.insert(n).second) fresh.push_back(n);
      if (!fresh.empty() || level == kComposeFinestLevel) break;
    }
    if (fresh.empty()) return;
    compose_group(r, r.sizes[at], v, fresh);
    run_stage(r, {at}, stage_configs(r, {at}), std::max(r.req.first_rounds, 3u), false, true);
    race(r, until);
  }
}

/// Paired rounds of the fixed sizes a stream tune measures at its end (6: an interval's fewest).
constexpr uint32_t kFixedSizeRounds = 6;

/// A stream's tune after the race: the streams' prediction sizes (the fixed sizes kex run
/// measures beside a stream) for the kernel chosen and the reference, in kFixedSizeRounds
/// paired rounds, so the report sets the choice beside libc at each size; the stages raced
/// the stream points alone. Their stream points keep the race's rounds (none measured again).
void measure_fixed_sizes(Race& r) {
  if (r.req.streams.empty() || r.stopped) return;
  decide(r, race_doc(r));
  if (r.rec.verdicts.empty()) return;
  SizeRace s = r.sizes.back();  // the stream's race, with the choice alone beside the reference
  s.specs.clear();
  s.dispatches.clear();
  const std::string& k = r.rec.verdicts.front().dispatched;
  if (is_dispatch_name(k)) s.dispatches.push_back(k);
  else if (std::find(r.kept.begin(), r.kept.end(), k) == r.kept.end()) s.specs.push_back(parse_spec_name(k));
  RunOptions opt = r.opt;
  opt.protocol.repetitions = kFixedSizeRounds;
  opt.protocol.seed = r.opt.protocol.seed + r.rec.stages.size() + 1;
  opt.resume = &r.acc;
  opt.progress = false;
  r.say("the fixed sizes beside the stream: the choice and the reference, " + std::to_string(kFixedSizeRounds) + " rounds");
  const SweepRun sw = run_sweep(plan_sweep({stage_config(r, s, true)}, opt), opt);
  for (const Result& res : sw.doc.results)
    if (res.point.at.stream.empty()) r.acc.reps[res.name()] = res.reps, r.results[res.name()] = res;
  r.stopped = sw.abandoned || sw.doc.context.interrupted;
}

/// The race of the request's streams: one stream's group, or several raced as their mix
/// (the record names the stream as given, or the mix's streams joined).
void stream_race(Race& r, const std::vector<KernelSpec>& candidates) {
  std::vector<std::string> names;  // as the points spell them
  for (const std::string& s : r.req.streams) {
    const Distribution d = load_distribution(s, "--stream");
    if (d.function && function_row(*d.function).op != r.req.op)  // every candidate would be skipped on it
      throw InputError("--stream", "'" + terminal_text(s) + "': its calls are " + std::string(function_row(*d.function).name) +
                                       "'s: kex tune --op " + std::string(to_string(r.req.op)) + " races " +
                                       std::string(to_string(r.req.op)) + " kernels (give --op " +
                                       std::string(to_string(function_row(*d.function).op)) + ", or streams of its function)");
    names.push_back(d.name);
  }
  if (names.size() > 1) r.mix = make_stream_mix(names, r.req.weights, "--stream-weights");
  r.rec.stream = r.mix ? r.mix->name() : r.req.streams.front();
  r.rec.footprint = to_string(r.req.space.axes.footprints.front());
  r.sizes.push_back({0, candidates, 0, false, r.mix ? r.mix->name() : names.front(), {}, r.mix ? names : std::vector<std::string>{}});
}

}  // namespace

TuneRun run_tune(const TuneRequest& asked, RunOptions opt, const std::function<void(const std::string&)>& say) {
  TuneRequest req = asked;  // the race's budget: the reserve is kept for what follows it
  req.budget_s = std::max(asked.budget_s - asked.reserve_s, 0.0);
  check_single_axes(req.space);
  const std::vector<KernelSpec> candidates = tune_candidates(req.space, req.op);
  if (candidates.empty())
    throw InputError(req.space.source + ": /kernels: no " + std::string(to_string(req.op)) +
                     " kernel this CPU runs: kex tune races the config's kernels of the op asked for");
  if (req.sizes.empty() && req.streams.empty()) throw InputError("--sizes: no size to race");
  if (!req.sizes.empty() && !req.streams.empty()) throw std::logic_error("run_tune: sizes and a stream");
  Race r{req, opt, say, tune_references(req.op, req.glibc), {}, {}, {}, {}, {}};
  r.opt.protocol.paired = true;
  r.rec.op = req.op;
  r.rec.budget_s = asked.budget_s;
  r.rec.margin = req.margin;
  r.rec.kept = r.kept;
  r.cap = req.max_rounds;
  for (uint64_t s : req.sizes) r.sizes.push_back({s, candidates, 0, false, "", {}, {}});
  if (!req.streams.empty()) stream_race(r, candidates);
  std::vector<size_t> all(r.sizes.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  const std::vector<Config> first = stage_configs(r, all);
  r.replay = asked.replay;
  if (r.replay) r.acc.results = r.replay->results;  // points that failed or were skipped stay so
  const uint32_t replayed = replay_rounds(r, all, false);
  const uint32_t first_rounds = replayed ? replayed : std::max(req.first_rounds, 3u);
  TuneEstimate estimate = first_stage_estimate(r, first, first_rounds);
  if (!asked.replay) check_first_stage(r, estimate, first_rounds);  // a resume was let race before
  estimate.total_s = std::max(estimate.first_s(), req.budget_s) + asked.reserve_s;
  say(estimate_line(estimate));
  run_stage(r, all, first, first_rounds, false);
  race(r, req.budget_s * (req.streams.empty() ? 0.75 : 0.4));  // the rest refines the switches (or composes)
  compose(r, req.budget_s * 0.85);
  for (int turn = 0; turn < 3 && !r.stopped; ++turn) {  // more rounds can move a switch: refine it again
    refine(r);
    extend(r);
  }
  end_replay(r);
  measure_fixed_sizes(r);
  TuneRun out;
  out.doc = race_doc(r);
  decide(r, out.doc);
  r.rec.used_s = r.used();
  out.estimate = estimate;
  out.tune = std::move(r.rec);
  out.interrupted = r.stopped;
  out.abandoned = opt.stop && *opt.stop >= 2;
  return out;
}

std::vector<std::string> tune_references(Op op, bool glibc) {
  std::vector<std::string> out = op == Op::copy ? std::vector<std::string>{"memcpy", "rep_movsb"}
                                                : std::vector<std::string>{"memset", "rep_stosb"};
  if (glibc)
    for (const GlibcImpl* g : glibc_impls().of(*libc_function_of(op)))
      if (g->facts.usable) out.push_back(impl_name({g->facts.source, g->facts.symbol, 0}));
  return out;
}

uint64_t tune_output_bytes(const TuneRequest& req) {
  const uint64_t groups = req.sizes.size() + req.streams.size();
  const uint64_t entries = (tune_candidates(req.space, req.op).size() + 2) * groups;  // + rep and libc
  return entries * std::max(req.first_rounds, 3u) * 1500 + (uint64_t(1) << 20);
}

}  // namespace kex
