// kex summary and kex report of a tune's file (src/results/tune_summary.*, tune_file.*):
// a file whose groups hold candidates measured in unequal numbers of rounds names the
// tune's verdict winners and prints its dispatch, never a recomputed "fastest".
#include <doctest/doctest.h>

#include <algorithm>

#include "src/model/tune.hpp"
#include "src/results/markdown.hpp"
#include "src/results/report_html.hpp"
#include "src/results/summary.hpp"
#include "src/results/tune_file.hpp"
#include "src/results/tune_summary.hpp"
#include "tests/support/paired_sweep.hpp"

using namespace kex;

namespace {

const std::string kTuneFast = "copy/sse/unroll:64/scratch:4/t/fwd";      // 2% faster than memcpy, all 40 rounds
const std::string kTuneEarly = "copy/avx/unroll:128/scratch:4/t/fwd";    // 0.81x memcpy's speed, left after 3 rounds
const std::vector<std::string> kTuneSlow = {"copy/sse/unroll:64/scratch:4/nt/fwd", "copy/avx/unroll:128/scratch:4/nt/fwd",
                                        "copy/sse/unroll:64/scratch:4/pf:nta@256/t/fwd"};  // 0.4x, left after 3

/// A tune's run at 4 KiB and 64 KiB: memcpy, rep_movsb and kTuneFast in 40 rounds; kTuneEarly and
/// the slow ones only in the first stage's 3 rounds, whose mean the slow ones raise (so
/// kTuneEarly, slower than memcpy, has the best score of all over its rounds).
RunDoc unequal_rounds_run() {
  using paired_sweep::Kernel;
  std::vector<Kernel> ks = {{"memcpy", {10, 10}}, {"rep_movsb", {7.7, 7.7}}, {kTuneFast, {10.2, 10.2}}, {kTuneEarly, {8.1, 8.1}}};
  for (const std::string& s : kTuneSlow) ks.push_back({s, {4, 4}});
  RunDoc d = paired_sweep::sweep({4096, 65536}, ks, 40);
  for (Result& r : d.results)
    if (r.point.kernel == kTuneEarly || std::count(kTuneSlow.begin(), kTuneSlow.end(), r.point.kernel))
      std::erase_if(r.reps, [](const Repetition& rep) { return rep.round > 3; });
  d.context.host_name = "vm";
  d.context.totals = RunTotals{};
  d.context.totals->elapsed_s = 31.4;  // the last stage's wall time, as a tune's context holds it
  return d;
}

/// The tune's record of that run, decided as run_tune decides: the early leavers dropped,
/// the verdicts over the rest.
TuneRecord record_of(const RunDoc& run) {
  TuneRecord t;
  t.kept = {"memcpy", "rep_movsb"};
  t.budget_s = 600;
  t.used_s = 184;
  t.margin = kTieResolution;
  for (uint64_t size : {4096, 65536})
    for (const std::string& k : kTuneSlow) t.drops.push_back({size, k, kTuneFast, "", 1, PairedRatio{}});
  for (uint64_t size : {4096, 65536}) t.drops.push_back({size, kTuneEarly, kTuneFast, "", 1, PairedRatio{}});
  const RunDoc view = race_view(run, t);
  for (const GroupAnswer& g : answer_groups(view, t.margin)) t.verdicts.push_back(verdict_of(g, view));
  t.dispatch = choose_dispatch(t.verdicts, &t.switches);
  for (TuneVerdict& v : t.verdicts) v.dispatched = t.dispatch.kernel_for(v.size);
  return t;
}

}  // namespace

TEST_CASE("a tune's file whose groups have unequal rounds: summary and report show the tune's verdicts") {
  const RunDoc run = unequal_rounds_run();
  const TuneRecord tune = record_of(run);
  // The trap: ranked over the whole file, the early leaver (slower than memcpy) looks fastest.
  const std::vector<GroupAnswer> naive = answer_groups(run);
  REQUIRE(naive.size() == 2);
  CHECK(run.results[naive[0].members[0].result].point.kernel == kTuneEarly);
  CHECK(summary_table(run).find(kTuneEarly) != std::string::npos);
  REQUIRE(tune.verdicts.size() == 2);
  CHECK(tune.verdicts[0].ties == std::vector<std::string>{kTuneFast});

  const std::string text = tune_summary_text(run, tune);
  CHECK(text.find("kex tune: copy on vm: 2 sizes, 184 s of a 600 s budget\n") == 0);
  CHECK(text.find("\n4 KiB      " + kTuneFast + " ") != std::string::npos);
  CHECK(text.find("\n64 KiB     " + kTuneFast + " ") != std::string::npos);
  CHECK(text.find("dispatch:\n  every size     " + kTuneFast + "\n") != std::string::npos);
  CHECK(text.find(kTuneEarly) == std::string::npos);

  const std::string md = tune_summary_markdown(run, tune);
  CHECK(md.find("**dispatch**  \nevery size: " + md_text(kTuneFast) + "  \n") != std::string::npos);
  CHECK(md.find(md_text(kTuneEarly)) == std::string::npos);

  const RunDoc view = race_view(run, tune);
  CHECK(view.results.size() == 6);  // memcpy, rep_movsb and kTuneFast at two sizes
  REQUIRE(view.context.totals);
  CHECK(view.context.totals->elapsed_s == 184);
  const std::string page = report_html({{"t.json", view, tune}}, {});
  CHECK(page.find("<th>wall time</th><td>184.0 s</td>") != std::string::npos);
  CHECK(page.find("<strong>dispatch</strong><br>\nevery size: " + kTuneFast + "</p>") != std::string::npos);
  CHECK(page.find(kTuneEarly) == std::string::npos);
  CHECK(page.find("a kex tune&#39;s file: its verdict per size is in the answer") != std::string::npos);
}
