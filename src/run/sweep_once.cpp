// The parts of a sweep run once, in shard 0: the seed harnesses (their passes, journaled
// as each ends) and the segment-override table.
#include <algorithm>
#include <cstdio>
#include <map>

#include "src/run/harness.hpp"
#include "src/run/plans.hpp"
#include "src/run/segments.hpp"
#include "src/run/sweep_detail.hpp"
#include "src/run/topology.hpp"

namespace kex::sweep_detail {

namespace {

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

/// Keeps a seed harness's run of config `source`: its Results in out.doc.results, the
/// run in out.seed_runs, its table (opt.seed_table) in the context.
void keep_seed_run(const std::string& source, SeedRun run, const RunOptions& opt, SweepRun& out) {
  for (const auto& r : run.results) out.doc.results.push_back(r);
  if (opt.seed_table) out.doc.context.seed_tables.push_back({source, run.header.harness, opt.seed_table(run)});
  out.seed_runs.emplace_back(source, std::move(run));
}

/// Every config's seed harness (fastc, xmm64, hahn), in order, kept (keep_seed_run) also
/// when a stop leaves it with fewer passes than asked. False when a stop ended them (the
/// rest did not run).
bool run_seed_harnesses(const std::vector<Config>& configs, const RunOptions& opt, SweepRun& out) {
  for (const Config& c : configs) {
    if (opt.stop && *opt.stop) return false;
    if (c.presets.empty() || c.harness == Harness::kex) continue;
    if (opt.resume) {  // a whole run journaled in one line (an earlier kex)
      auto it = std::find_if(opt.resume->seed_runs.begin(), opt.resume->seed_runs.end(),
                             [&](const auto& sr) { return sr.first == c.source; });
      if (it != opt.resume->seed_runs.end()) {
        keep_seed_run(c.source, it->second, opt, out);
        continue;
      }
    }
    std::vector<SeedRun> passes = seed_harness_passes(c, opt);
    const bool complete = passes.size() >= c.repeat;
    if (!passes.empty()) keep_seed_run(c.source, merge_passes(std::move(passes)), opt, out);
    if (!complete) return false;
  }
  return true;
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

}  // namespace

void run_once_parts(Sweep& w) {
  if (w.opt.shard_index != 0 || w.out.abandoned) return;
  pin_thread_to(w.protocol.cpu);
  w.interrupted = w.interrupted || w.stopped() || !run_seed_harnesses(w.configs, w.opt, w.out);
  run_segment_table(w);
}

}  // namespace kex::sweep_detail
