#include "src/run/explain.hpp"

#include <algorithm>

#include "src/core/cpu_features.hpp"
#include "src/core/error.hpp"
#include "src/model/config_json.hpp"
#include "src/model/explain_core.hpp"
#include "src/run/counters.hpp"
#include "src/run/explain_outside.hpp"
#include "src/run/machine.hpp"
#include "src/run/mca.hpp"

namespace kex {

std::vector<ExplainTarget> explain_targets(const Config& space, bool outside) {
  std::vector<ExplainTarget> out;
  for (const Grid& g : space.grids)
    for (const KernelSpec& k : g.specs) {
      if (std::any_of(out.begin(), out.end(), [&](const ExplainTarget& t) { return t.kernel == k; })) continue;
      if (const std::string m = missing_features(spec_needs(k)); !m.empty())
        throw InputError(spec_name(k) + ": this CPU lacks " + m + ": kex explain races kernels this CPU runs");
      ExplainTarget t{k, neighbours(k), "", k.op};
      mark_unrunnable(t.neighbours, &missing_features);
      out.push_back(std::move(t));
    }
  if (outside)
    for (ExplainTarget& t : outside_targets(space)) out.push_back(std::move(t));
  if (out.empty()) throw InputError(space.source + ": no kernel to explain (name one: copy/sse/unroll:64, rep_movsb)");
  return out;
}

Config explain_config(const Config& space, const std::vector<ExplainTarget>& targets) {
  Config c;
  c.description = "kex explain: kernels and their one-coordinate neighbours";
  c.axes = space.axes;
  c.loads = space.loads;
  c.policy = space.policy;
  c.protocol = space.protocol;
  auto baseline = [&](const std::string& b) {
    if (!b.empty() && std::find(c.baselines.begin(), c.baselines.end(), b) == c.baselines.end()) c.baselines.push_back(b);
  };
  auto add = [&](const KernelSpec& s) {
    for (const Grid& g : c.grids)
      if (g.specs.front() == s) return;
    c.grids.push_back(spec_grid_of(s, c.axes));
  };
  for (const ExplainTarget& t : targets) {
    baseline(op_info(t.op).libc);
    if (!t.outside.empty()) {  // raced through the space's presets, baselines and loads
      c.presets = space.presets;
      for (const std::string& b : space.baselines) baseline(b);
      continue;
    }
    add(t.kernel);
    for (const Neighbour& n : t.neighbours)
      if (n.refused.empty()) add(n.spec);
  }
  return make_config(c, space.source);
}

namespace {

/// The kernel's warm, default-layout point at `size` in `run`, measured; nullptr when none.
const Result* core_point(const RunDoc& run, const std::string& kernel, uint64_t size) {
  Coords at;
  at.size = size;
  for (const Result& r : run.results)
    if (r.point.kernel == kernel && r.point.at == at && r.ok()) return &r;
  return nullptr;
}

/// A config of `specs`, each at its L1-resident size (`sizes`), warm, no baselines.
Config core_config(const std::vector<KernelSpec>& specs, const std::vector<uint64_t>& sizes) {
  Config c;
  c.description = "kex explain: the explained kernels at an L1-resident size, for the model of the core";
  c.axes.sizes = sizes;
  std::sort(c.axes.sizes.begin(), c.axes.sizes.end());
  c.axes.sizes.erase(std::unique(c.axes.sizes.begin(), c.axes.sizes.end()), c.axes.sizes.end());
  for (const KernelSpec& s : specs) c.grids.push_back(spec_grid_of(s, c.axes));
  return make_config(c, "kex explain (model of the core)");
}

ExplainCore core_predicted(const KernelSpec& k, const Machine& m) {
  const McaPrediction p = predict_loop(k, m.vendor, m.family, m.model);
  ExplainCore c;
  c.kernel = spec_name(k);
  c.mcpu = p.mcpu;
  c.note = p.note;
  c.missing = p.why;
  c.predicted_cycles = p.summary.cycles_per_iteration();
  c.block_rthroughput = p.summary.block_rthroughput;
  c.bytes_per_iteration = p.bytes_per_iteration;
  c.measured_size = core_size(c.bytes_per_iteration, k.op, m.caches.l1d);
  if (c.measured_size == 0 && c.missing.empty()) c.missing = "4 iterations of the loop do not fit half the L1d";
  return c;
}

void core_measured(ExplainCore& c, const Result& r) {
  c.measured_cycles = measured_cycles_per_iteration(r, c.bytes_per_iteration);
  c.cycles_method = aggregate(r).cycles_method;
}

/// The ceilings probe after the race, on the CPU the race ran on: its results join the run's.
void add_ceilings(SweepRun& run, RunOptions opt, uint32_t rounds) {
  if (run.doc.context.pinned_cpu && *run.doc.context.pinned_cpu >= 0) opt.protocol.cpu = *run.doc.context.pinned_cpu;
  CeilingsRun c = measure_ceilings(opt, rounds);
  if (c.run.abandoned) {
    run.abandoned = true;
    return;
  }
  for (Result& r : c.run.doc.results) run.doc.results.push_back(std::move(r));
  run.doc.context.ceilings = c.ceilings;
  run.doc.context.interrupted = run.doc.context.interrupted || c.run.doc.context.interrupted;
}

}  // namespace

std::vector<ExplainCore> explain_core(const RunDoc& run, const std::vector<ExplainTarget>& targets, RunOptions opt) {
  std::vector<ExplainCore> out;
  std::vector<KernelSpec> to_measure;
  std::vector<uint64_t> sizes;
  for (const ExplainTarget& t : targets) {
    if (!t.outside.empty()) {
      out.push_back(outside_core(run, t, machine()));
      continue;
    }
    out.push_back(core_predicted(t.kernel, machine()));
    ExplainCore& c = out.back();
    if (c.predicted_cycles == 0 || c.measured_size == 0) continue;
    if (const Result* r = core_point(run, c.kernel, c.measured_size)) core_measured(c, *r);
    else {
      to_measure.push_back(t.kernel);
      if (std::find(sizes.begin(), sizes.end(), c.measured_size) == sizes.end()) sizes.push_back(c.measured_size);
    }
  }
  if (to_measure.empty()) return out;
  if (run.context.interrupted) {
    for (ExplainCore& c : out)
      if (c.predicted_cycles > 0 && c.measured_cycles == 0 && c.measured_size > 0) c.missing = "the run was stopped";
    return out;
  }
  opt.protocol.paired = false;
  opt.protocol.repetitions = 5;
  opt.protocol.counters.clear();
  opt.journal = nullptr;
  const SweepRun l1 = run_sweep({core_config(to_measure, sizes)}, opt);
  for (ExplainCore& c : out)
    if (c.predicted_cycles > 0 && c.measured_cycles == 0 && c.measured_size > 0) {
      if (const Result* r = core_point(l1.doc, c.kernel, c.measured_size)) core_measured(c, *r);
      else c.missing = "not measured at " + std::to_string(c.measured_size) + " B";
    }
  return out;
}

std::vector<std::string> explain_counter_names() {
  if (!pmu_status().available) return {};
  return {"l1d-misses", "llc-misses", "stores"};
}

std::string explain_pmu_line() {
  const PmuStatus& p = pmu_status();
  return p.available ? "" : "no PMU here (" + p.error_name + "): no cache-miss or store counts";
}

SweepRun run_explain(const ExplainRequest& req, RunOptions opt) {
  if (req.rounds < 3) throw InputError("--repetitions: " + std::to_string(req.rounds) + ": a paired ratio needs 3 rounds at least");
  const std::vector<ExplainTarget> targets = explain_targets(req.space, req.outside);
  opt.protocol.paired = true;
  opt.protocol.repetitions = req.rounds;
  opt.protocol.counters = explain_counter_names();
  opt.pair_fills = true;  // a clear's fill neighbour races in its kernel's rounds (src/model/ablation.hpp)
  SweepRun run = run_sweep({explain_config(req.space, targets)}, opt);
  if (run.abandoned) return run;
  run.doc.context.explain = explain_section(run.doc, targets, req.resolution, req.rounds);
  run.doc.context.explain->core = explain_core(run.doc, targets, opt);
  run.doc.context.explain->pmu = explain_pmu_line();
  if (req.ceilings && !run.abandoned && !run.doc.context.interrupted) add_ceilings(run, opt, req.ceiling_rounds);
  return run;
}

}  // namespace kex
