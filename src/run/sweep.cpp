#include "src/run/sweep.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <tuple>

#include "generators/jit.hpp"
#include "src/core/units.hpp"
#include "src/model/expand.hpp"
#include "src/run/buffers.hpp"
#include "src/run/context.hpp"
#include "src/run/harness.hpp"
#include "src/run/machine.hpp"
#include "src/run/measure.hpp"
#include "src/run/plans.hpp"
#include "src/run/result_build.hpp"
#include "src/run/segments.hpp"
#include "src/run/verify.hpp"

namespace kex {

namespace {

/// Progress on stderr: one updating line on a TTY, a plain line per 5% otherwise.
struct Progress {
  bool on, tty;
  size_t total, done = 0, last_pct = 0;
  Progress(bool enabled, size_t n) : on(enabled && n > 0), tty(isatty(2)), total(n) {}
  void step(const std::string& what) {
    ++done;
    if (!on) return;
    if (tty) {
      std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, what.c_str());
      if (done == total) std::fputc('\n', stderr);
    } else {
      size_t pct = done * 100 / total;
      if (pct >= last_pct + 5 || done == total) {
        last_pct = pct;
        std::fprintf(stderr, "kex: %zu/%zu points (%zu%%) %s\n", done, total, pct, what.c_str());
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

/// Overlapping regions need memmove semantics at this distance.
bool overlaps(const Coords& at) {
  if (!at.layout.distance) return false;
  const int64_t d = *at.layout.distance;
  return static_cast<uint64_t>(d < 0 ? -d : d) < at.size;
}

/// Verification sizes beyond the standard ones are capped (the loop's behaviour
/// repeats; a 64 MiB verification would cost more than the measurement).
constexpr uint64_t kVerifyCap = 1 << 20;

struct Config1 {
  ConfigPlans plans;
  std::vector<PlannedPoint> points;  // this shard's
};

}  // namespace

SweepRun run_sweep(const std::vector<Config>& configs, const RunOptions& opt) {
  const int cpu = pin_to_one_cpu();
  SweepRun out;
  RunDoc& doc = out.doc;
  doc.context = make_context(configs, cpu, opt.shard_index, opt.shard_count);
  bool interrupted = false;
  auto stopped = [&] { return opt.stop && *opt.stop; };

  // Enumerate every point of every config first: sharding is by global index.
  std::vector<Config1> cfgs;
  size_t global = 0, planned = 0;
  for (const Config& c : configs) {
    Config1 x;
    x.plans = config_plans(c);
    for (auto& p : expand_points(c, x.plans))
      if (global++ % opt.shard_count == opt.shard_index) x.points.push_back(std::move(p));
    planned += x.points.size();
    cfgs.push_back(std::move(x));
  }
  Progress progress(opt.progress, planned);
  const auto t_start = std::chrono::steady_clock::now();

  for (size_t ci = 0; ci < configs.size() && !interrupted; ++ci) {
    const Config& c = configs[ci];
    const auto& plans = cfgs[ci].plans.plans;
    const auto& points = cfgs[ci].points;
    if (points.empty()) continue;
    std::vector<bool> used(plans.size(), false);
    for (const auto& p : points) used[p.plan] = true;

    // 1. JIT everything up front into one W^X arena (never inside a timed region).
    CodeArena arena;
    std::vector<Built> built(plans.size());
    std::vector<size_t> code_index(plans.size(), SIZE_MAX);
    for (size_t k = 0; k < plans.size(); ++k) {
      built[k].status = plan_status(plans[k]);
      if (!used[k] || built[k].status.kind != StatusKind::ok || !plans[k].emit) continue;
      try {
        code_index[k] = arena.add(plans[k].emit);
      } catch (const std::exception& e) {
        built[k].status = {StatusKind::error, std::string("code generation failed: ") + e.what()};
      }
      if (stopped()) break;
    }
    arena.finalize();
    for (size_t k = 0; k < plans.size(); ++k) {
      if (plans[k].libc_fn) built[k].fn = plans[k].libc_fn;
      if (code_index[k] == SIZE_MAX) continue;
      CodeRef r = arena.ref(code_index[k]);
      built[k].fn = r.as<KernelFn>();
      built[k].code = r.code;
      built[k].info = CodeInfo{r.size, r.hash};
    }
    if (stopped()) { interrupted = true; break; }

    // 2. Buffers for every layout, one mapping per huge-page setting; each point's place.
    std::map<bool, std::vector<std::pair<Layout, uint64_t>>> layouts;
    uint32_t max_align = 1;
    for (const auto& p : points) {
      auto& v = layouts[p.at.layout.huge_pages];
      auto it = std::find_if(v.begin(), v.end(), [&](const auto& e) { return e.first == p.at.layout; });
      if (it == v.end()) v.push_back({p.at.layout, p.at.size});
      else it->second = std::max(it->second, p.at.size);
      max_align = std::max(max_align, plans[p.plan].alignment);
    }
    std::map<bool, std::unique_ptr<Buffers>> buffers;
    for (const auto& [huge, v] : layouts) buffers[huge] = std::make_unique<Buffers>(v, max_align, huge);
    std::vector<Place> places;
    for (const auto& p : points) places.push_back(buffers[p.at.layout.huge_pages]->place(p.at.layout, plans[p.plan].alignment));

    // 3. Verify every runnable kernel before any timing: once on eight offset pairs,
    //    and once at every exact placement (and overlapping distance) it will be measured at.
    std::vector<VerifyTarget> targets;
    std::vector<size_t> general(plans.size(), SIZE_MAX);
    using CaseKey = std::tuple<size_t, uint32_t, uint32_t, std::optional<int64_t>, uint64_t>;
    std::map<CaseKey, size_t> cases;
    std::vector<size_t> point_case(points.size(), SIZE_MAX);
    auto base_target = [&](size_t k) {
      const KernelPlan& kp = plans[k];
      VerifyTarget t;
      t.fn = built[k].fn;
      t.is_copy = kp.op == Op::copy;
      t.fill = kp.fill;
      t.alignment = kp.alignment;
      t.width = kp.width;
      t.unroll = kp.unroll;
      t.size_multiple = kp.region;
      if (kp.region > 1) t.max_size = 3 * kp.region;
      t.code = built[k].code;
      t.code_size = built[k].info ? built[k].info->bytes : 0;
      return t;
    };
    for (size_t i = 0; i < points.size(); ++i) {
      const size_t k = points[i].plan;
      if (built[k].status.kind != StatusKind::ok || !built[k].fn || !places[i].refusal.empty()) continue;
      if (general[k] == SIZE_MAX) {
        general[k] = targets.size();
        targets.push_back(base_target(k));
      }
      const Placement& pl = places[i].placed;
      const bool ov = overlaps(points[i].at);
      // The size the overlap case is tried at: the measured one, or above the cap the
      // cap plus the same remainder modulo a page (the same tail).
      const uint64_t n = points[i].at.size <= kVerifyCap ? points[i].at.size
                                                          : kVerifyCap + points[i].at.size % 4096;
      CaseKey key{k, pl.src_page_offset, ov ? 0 : pl.dst_page_offset,
                  ov ? points[i].at.layout.distance : std::nullopt, ov ? n : 0};
      auto [it, fresh] = cases.emplace(key, targets.size());
      if (fresh) {
        VerifyTarget t = base_target(k);
        t.layout = VerifyLayout{pl.src_page_offset, pl.dst_page_offset, std::get<3>(key), {}};
        if (ov) t.max_size = std::max<uint64_t>(t.max_size, n);
        targets.push_back(t);
      }
      auto& sizes = targets[it->second].layout->sizes;
      if (std::find(sizes.begin(), sizes.end(), n) == sizes.end()) sizes.push_back(n);
      point_case[i] = it->second;
    }
    if (opt.progress && !targets.empty())
      std::fprintf(stderr, "kex: %s: verifying %zu kernel%s at %zu placements\n", c.source.c_str(),
                   std::count_if(general.begin(), general.end(), [](size_t g) { return g != SIZE_MAX; }),
                   targets.size() == 1 ? "" : "s", cases.size());
    const std::vector<Verdict> verdicts = verify_targets(targets, opt.stop);
    if (stopped()) { interrupted = true; break; }

    // 4. Measure.
    for (size_t i = 0; i < points.size(); ++i) {
      if (stopped()) { interrupted = true; break; }
      const PlannedPoint& p = points[i];
      const KernelPlan& kp = plans[p.plan];
      const Built& b = built[p.plan];
      Status st = b.status;
      std::optional<Placement> placed;
      if (st.kind == StatusKind::ok && !places[i].refusal.empty()) st = {StatusKind::skipped, places[i].refusal};
      if (st.kind == StatusKind::ok) placed = places[i].placed;
      if (st.kind == StatusKind::ok && general[p.plan] != SIZE_MAX && !verdicts[general[p.plan]].ok()) {
        const Verdict& v = verdicts[general[p.plan]];
        st = {StatusKind::error, "verification failed: " + v.message, v.signal, v.fault_offset};
      }
      if (st.kind == StatusKind::ok && point_case[i] != SIZE_MAX && !verdicts[point_case[i]].ok()) {
        const Verdict& v = verdicts[point_case[i]];
        if (overlaps(p.at) && !v.signal)
          st = {StatusKind::skipped, "refused: the kernel does not give memmove's result where src and dst overlap: " +
                                         v.message};
        else
          st = {StatusKind::error, "verification at this placement failed: " + v.message, v.signal, v.fault_offset};
      }
      std::vector<Repetition> reps;
      if (st.kind == StatusKind::ok) {
        Operation op{b.fn, places[i].dst, kp.op == Op::copy ? places[i].src : nullptr, p.at};
        reps.push_back(measure(op, c.policy, opt.stop));
      }
      Result r = make_result(kp, p.at, st, std::move(reps), placed, b.info);
      std::string what = r.name();
      if (r.ok()) {
        char g[48];
        std::snprintf(g, sizeof g, " %.2f GB/s", median_gbps(r));
        what += g;
      }
      doc.results.push_back(std::move(r));
      progress.step(what);
    }
  }
  // Seed harnesses (fastc, hahn) and the segment table run once, in shard 0 only.
  if (opt.shard_index == 0) {
    for (const Config& c : configs) {
      if (interrupted || stopped()) { interrupted = true; break; }
      if (c.presets.empty() || c.harness == Harness::kex) continue;
      PresetOptions po;
      po.fsave = c.preset_fsave;
      if (opt.progress)
        std::fprintf(stderr, "kex: %s: running presets under the %s harness\n", c.source.c_str(),
                     std::string(to_string(c.harness)).c_str());
      SeedRun sr = run_seed_harness(resolve_presets(c.presets, c.source), c.harness, po);
      for (const auto& r : sr.results) doc.results.push_back(r);
      out.seed_runs.emplace_back(c.source, std::move(sr));
    }
    for (const Config& c : configs) {
      if (!c.segments.enabled) continue;
      if (interrupted || stopped()) { interrupted = true; break; }
      if (opt.progress) std::fprintf(stderr, "kex: running the segment-override table\n");
      SegmentOptions so;
      so.iterations = c.segments.iterations;
      so.mixed = c.segments.mixed;
      so.modern = c.segments.modern;
      doc.context.segments = run_segments(so);
      break;  // one table per run
    }
  }
  doc.context.interrupted = interrupted;
  doc.context.rest["points_planned"] = planned;
  doc.context.rest["points_written"] = doc.results.size();
  doc.context.rest["elapsed_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return out;
}

}  // namespace kex
