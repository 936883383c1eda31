// outside_faster: the outside implementations a tune raced that beat its dispatch, by the
// paired rounds, named as not emittable; none when they do not beat it beyond the margin.
#include <doctest/doctest.h>

#include "src/results/tune_outside.hpp"

using namespace kex;

namespace {

/// A copy result at 4096 bytes, `ticks[k]` in round k + 1; `outside` marks loaded code.
Result raced(const std::string& kernel, const std::vector<double>& ticks, bool outside = false) {
  Result r;
  r.point.kernel = kernel;
  r.point.at.size = 4096;
  r.op = Op::copy;
  r.tsc_hz = 1e9;
  if (outside) r.impl = ImplFacts{};
  for (double t : ticks) {  // round k + 1 holds ticks[k]
    Repetition& rep = r.reps.emplace_back();
    rep.round = r.reps.size();
    rep.per_call.n = 8;
    rep.per_call.median = t;
  }
  return r;
}

TuneRecord dispatching(const std::string& kernel) {
  TuneRecord t;
  t.margin = 0.01;
  TuneVerdict v;
  v.size = 4096;
  v.dispatched = kernel;
  v.ties = {kernel};
  t.verdicts.push_back(v);
  return t;
}

}  // namespace

TEST_CASE("outside_faster names loaded code that beat the dispatch, with its paired interval") {
  RunDoc doc;
  doc.results.push_back(raced("copy/sse/unroll:64/t/fwd", {125, 126, 124, 125, 125}));
  doc.results.push_back(raced("lib/fast", {100, 100, 100, 100, 100}, true));
  doc.results.push_back(raced("lib/same", {125, 126, 124, 125, 125}, true));
  const std::vector<std::string> lines = outside_faster(doc, dispatching("copy/sse/unroll:64/t/fwd"));
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "lib/fast was faster than the dispatch at 4 KiB by 25% [24%, 26%] over 5 rounds (not emittable: "
                    "kex emits only its own code)");
  doc.results.pop_back();
  doc.results.back() = raced("lib/fast", {125, 126, 124, 125, 125}, true);  // tied with the dispatch: nothing said
  CHECK(outside_faster(doc, dispatching("copy/sse/unroll:64/t/fwd")).empty());
}
