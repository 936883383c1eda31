#include "src/run/explain_winners.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "src/core/error.hpp"
#include "src/model/config_json.hpp"
#include "src/model/group.hpp"
#include "src/model/kernel_names.hpp"
#include "src/model/paired.hpp"
#include "src/model/source.hpp"
#include "src/run/load_plans.hpp"

namespace kex {

namespace {

/// The space of one winner: its spec at its size and cache state, no baselines but the
/// ones explain_config adds.
Config winner_space(const KernelSpec& k, const Coords& at) {
  Config c;
  c.description = "kex run --explain: a group's winner";
  c.axes.sizes = {at.size};
  c.axes.caches = {at.cache};
  c.grids = {spec_grid_of(k, c.axes)};
  c.baselines = baseline_names();
  return make_config(c, "kex run --explain");
}

/// Why a group's winner is not raced at its point, or "" when it is.
std::string not_raced(const Result& w) {
  Coords plain;
  plain.size = w.point.at.size;
  plain.cache = w.point.at.cache;
  if (w.point.at != plain) return "its layout, chunk, prefill, consume or threads coordinate is not raced by --explain";
  if (w.kind != KernelKind::generated && w.fill() != 0)
    return "a clear of a byte other than 0 by code kex did not generate is not raced by --explain (kex explain NAME is)";
  return "";
}

/// The space of a winner kex did not generate, alone at its size and cache state, for
/// the explain-any-competitor path (src/run/explain_outside.hpp): a baseline or glibc's
/// variant by its name, a preset by its id, loaded code by the run's load of its NAME;
/// nullopt with `why` when the run has no such load.
std::optional<Config> outside_space(const Result& w, const RunOptions& opt, std::string& why) {
  Config c;
  c.description = "kex run --explain: a group's winner kex did not generate";
  c.axes.sizes = {w.point.at.size};
  c.axes.caches = {w.point.at.cache};
  if (w.preset) {
    c.presets = {w.preset->id};
  } else if (w.impl && source_row(w.impl->source).loaded) {
    const std::optional<LoadSpec> l = opt.loaded ? opt.loaded->load_named(w.impl->label) : std::nullopt;
    if (!l) {
      why = "not explained: this run has no --load of " + w.impl->label;
      return std::nullopt;
    }
    c.loads = {*l};
  } else {
    c.baselines = {w.point.kernel};
  }
  return make_config(c, "kex run --explain");
}

/// The request that explains winner `w`: a spec against its neighbours, anything else
/// alone (no neighbours: its standing, counters and llvm-mca of its bytes); nullopt with
/// `why` when it is not raced.
std::optional<ExplainRequest> winner_request(const Result& w, const RunOptions& opt, uint32_t rounds, std::string& why) {
  why = not_raced(w);
  if (!why.empty()) return std::nullopt;
  ExplainRequest req;
  req.rounds = rounds;
  req.ceilings = false;  // once for the run, after the races
  if (w.kind == KernelKind::generated && w.spec) {
    req.space = winner_space(*w.spec, w.point.at);
    return req;
  }
  std::optional<Config> space = outside_space(w, opt, why);
  if (!space) return std::nullopt;
  req.space = std::move(*space);
  req.outside = true;
  return req;
}

/// The ceilings once for the whole run, on the CPU the races ran on; a note when none.
void add_ceilings(WinnersExplained& out, const RunDoc& run, RunOptions opt, uint32_t rounds) {
  if (run.context.ceilings) return;  // the run has them already (the report draws those)
  if (run.context.pinned_cpu && *run.context.pinned_cpu >= 0) opt.protocol.cpu = *run.context.pinned_cpu;
  try {
    CeilingsRun c = measure_ceilings(opt, rounds);
    if (c.run.abandoned) out.abandoned = true;
    else if (!c.run.doc.context.interrupted) out.ceilings = c.ceilings;
    else out.notes.push_back("ceilings: stopped: no roofline");
  } catch (const InputError& e) {
    out.notes.push_back(std::string("ceilings: not measured: ") + e.what());
  }
}

void join_section(ExplainSection& into, ExplainSection&& s) {
  for (ExplainPoint& p : s.points) into.points.push_back(std::move(p));
  for (ExplainCore& c : s.core)
    if (std::none_of(into.core.begin(), into.core.end(), [&](const ExplainCore& x) { return x.kernel == c.kernel; }))
      into.core.push_back(std::move(c));
  into.pmu = s.pmu;
}

}  // namespace

WinnersExplained explain_winners(const RunDoc& run, uint32_t rounds, RunOptions opt, uint32_t ceiling_rounds) {
  WinnersExplained out;
  opt.journal = nullptr;  // the races are not the run's points: neither in its journal nor its results
  opt.resume = nullptr;
  opt.filter.clear();
  opt.shard_index = 0;
  opt.shard_count = 1;
  const auto start = std::chrono::steady_clock::now();
  std::vector<Point> done;
  for (const GroupAnswer& g : answer_groups(run)) {
    if (g.members.empty()) continue;
    const Result& w = run.results[g.members[0].result];
    const std::string label = w.name() + " (winner of " + group_label(g.key) + ")";
    if (std::find(done.begin(), done.end(), w.point) != done.end()) continue;
    done.push_back(w.point);
    std::string why;
    std::optional<ExplainRequest> req = winner_request(w, opt, rounds, why);
    if (!req) {
      out.notes.push_back(label + ": " + why);
      continue;
    }
    if (out.raced == kMaxExplainedWinners) {
      out.notes.push_back(label + ": not explained: --explain races " + std::to_string(kMaxExplainedWinners) +
                          " winners at most (kex explain NAME --sizes S races it)");
      continue;
    }
    SweepRun r = run_explain(*req, opt);
    if (r.abandoned) {
      out.abandoned = true;
      break;
    }
    ++out.raced;
    out.points += r.doc.results.size();
    if (!r.doc.context.explain) continue;
    if (!out.section) {
      out.section = ExplainSection{};
      out.section->resolution = r.doc.context.explain->resolution;
      out.section->rounds = rounds;
    }
    join_section(*out.section, std::move(*r.doc.context.explain));
    if (r.doc.context.interrupted) break;
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (out.raced > 0 && !out.abandoned && !(opt.stop && *opt.stop)) add_ceilings(out, run, opt, ceiling_rounds);
  return out;
}

SweepRun run_and_explain(const SweepPlan& plan, const RunOptions& opt, uint32_t rounds) {
  SweepRun r = run_sweep(plan, opt);
  if (rounds == 0 || r.abandoned || r.doc.context.interrupted) return r;
  if (opt.progress) std::fprintf(stderr, "kex: --explain: racing each group's winner against its neighbours\n");
  WinnersExplained w = explain_winners(r.doc, rounds, opt);
  if (w.abandoned) {
    r.abandoned = true;
    return r;
  }
  if (w.section) r.doc.context.explain = std::move(w.section);
  w.section.reset();
  if (w.ceilings) r.doc.context.ceilings = w.ceilings;
  r.explained = std::move(w);
  return r;
}

}  // namespace kex
