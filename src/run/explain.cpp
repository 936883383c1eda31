#include "src/run/explain.hpp"

#include <algorithm>

#include "src/core/cpu_features.hpp"
#include "src/core/error.hpp"

namespace kex {

std::vector<ExplainTarget> explain_targets(const Config& space) {
  std::vector<ExplainTarget> out;
  for (const Grid& g : space.grids)
    for (const KernelSpec& k : g.specs) {
      if (std::any_of(out.begin(), out.end(), [&](const ExplainTarget& t) { return t.kernel == k; })) continue;
      if (const std::string m = missing_features(spec_needs(k)); !m.empty())
        throw InputError(spec_name(k) + ": this CPU lacks " + m + ": kex explain races kernels this CPU runs");
      ExplainTarget t{k, neighbours(k)};
      mark_unrunnable(t.neighbours, &missing_features);
      out.push_back(std::move(t));
    }
  if (out.empty()) throw InputError(space.source + ": no generated kernel to explain (name one: copy/sse/unroll:64)");
  return out;
}

Config explain_config(const Config& space, const std::vector<ExplainTarget>& targets) {
  nlohmann::json raw = space.raw;
  for (const char* k : {"presets", "outputs", "harness", "repeat", "preset_options"}) raw.erase(k);
  raw["description"] = "kex explain: kernels and their one-coordinate neighbours";
  raw["segments"] = false;
  std::vector<KernelSpec> specs;
  auto add = [&](const KernelSpec& s) {
    if (std::find(specs.begin(), specs.end(), s) == specs.end()) specs.push_back(s);
  };
  for (const ExplainTarget& t : targets) {
    add(t.kernel);
    for (const Neighbour& n : t.neighbours)
      if (n.refused.empty()) add(n.spec);
  }
  raw["kernels"] = nlohmann::json::array();
  nlohmann::json baselines = nlohmann::json::array();
  for (const KernelSpec& s : specs) {
    raw["kernels"].push_back(spec_grid(s));
    const char* base = op_info(s.op).libc;
    if (*base && std::find(baselines.begin(), baselines.end(), base) == baselines.end()) baselines.push_back(base);
  }
  raw["baselines"] = baselines;
  return parse_config(raw.dump(), space.source);
}

namespace {

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

SweepRun run_explain(const ExplainRequest& req, RunOptions opt) {
  if (req.rounds < 3) throw InputError("--repetitions: " + std::to_string(req.rounds) + ": a paired ratio needs 3 rounds at least");
  const std::vector<ExplainTarget> targets = explain_targets(req.space);
  opt.protocol.paired = true;
  opt.protocol.repetitions = req.rounds;
  SweepRun run = run_sweep({explain_config(req.space, targets)}, opt);
  run.doc.context.explain = explain_section(run.doc, targets, req.resolution, req.rounds);
  if (req.ceilings && !run.abandoned && !run.doc.context.interrupted) add_ceilings(run, opt, req.ceiling_rounds);
  return run;
}

}  // namespace kex
