// What a run that raced glibc's variants says of ifunc's pick (src/results/ifunc_text.*):
// a claim that a sibling is faster holds over every sibling and size compared (Holm), and
// where the rounds' spread cannot decide, none is claimed.
#include <doctest/doctest.h>

#include <string>

#include "src/results/ifunc_text.hpp"
#include "tests/support/paired_sweep.hpp"

using namespace kex;

namespace {

/// glibc's memcpy variants __memcpy_v0 (ifunc's pick) .. __memcpy_v9 at 20 sizes, 15
/// rounds; variant i at `gbps[i]` GB/s with `noise` of its own per round.
RunDoc variants_run(const std::vector<double>& gbps, double noise, uint64_t seed) {
  std::vector<paired_sweep::Kernel> ks;
  const std::vector<double> sizes = paired_sweep::pow2(8, 27);
  for (size_t i = 0; i < gbps.size(); ++i)
    ks.push_back({"copy/sse/unroll:" + std::to_string(64 * (i + 1)) + "/scratch:4/t/fwd",
                  std::vector<double>(sizes.size(), gbps[i]), noise});
  RunDoc d = paired_sweep::sweep(sizes, ks, 15, seed);
  for (Result& r : d.results) {
    const std::string symbol = "__memcpy_v" + std::to_string(r.spec->unroll / 64 - 1);
    r.point.kernel = "glibc/" + symbol;
    r.kind = KernelKind::implementation;
    r.spec.reset();
    r.impl = ImplFacts{};
    r.impl->function = Function::memcpy;
    r.impl->symbol = symbol;
  }
  d.context.ifunc = IfuncRecord{};
  d.context.ifunc->memcpy_impl = "__memcpy_v0";
  return d;
}

/// Whether any sibling's interval alone (no correction for the 180 comparisons) lies
/// beyond the tie margin: the claim the sibling lines made before.
bool uncorrected_claim(const RunDoc& run, const std::vector<GroupAnswer>& answers) {
  for (const GroupAnswer& g : answers) {
    const Result* pick = nullptr;
    for (const RankedMember& m : g.members)
      if (run.results[m.result].point.kernel == "glibc/__memcpy_v0") pick = &run.results[m.result];
    for (const RankedMember& m : g.members)
      if (paired_ratio(round_times(*pick), round_times(run.results[m.result])).slower_beyond(g.resolution)) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("ifunc's pick among 10 tied variants: no sibling is claimed faster, the undecided sizes are named") {
  uint64_t seed = 1;  // a run where, by chance, an interval of the 180 lies beyond the margin
  RunDoc run = variants_run(std::vector<double>(10, 10.0), 0.03, seed);
  while (!uncorrected_claim(run, answer_groups(run)) && seed < 50) run = variants_run(std::vector<double>(10, 10.0), 0.03, ++seed);
  const std::vector<GroupAnswer> answers = answer_groups(run);
  REQUIRE(uncorrected_claim(run, answers));
  const std::vector<std::string> lines = ifunc_lines(run, answers);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find("glibc memcpy: ifunc picks __memcpy_v0; no variant raced beside it is shown faster (20 groups) "
                      "(Holm over 180 comparisons, family-wise error 0.05); none is shown faster where the rounds' "
                      "spread cannot decide: ") == 0);
  CHECK(lines[0].find(" faster [") == std::string::npos);  // no "at SIZE Y is N x faster [..]"

  // Without noise beyond the margin nothing is left undecided.
  const RunDoc quiet = variants_run(std::vector<double>(10, 10.0), 0.001, 3);
  CHECK(ifunc_lines(quiet, answer_groups(quiet)) ==
        std::vector<std::string>{"glibc memcpy: ifunc picks __memcpy_v0; no variant raced beside it is shown faster "
                                 "(20 groups) (Holm over 180 comparisons, family-wise error 0.05)"});
}

TEST_CASE("ifunc's pick 1.3x slower than a sibling: the claim holds over the family at every size") {
  std::vector<double> gbps(10, 10.0);
  gbps[4] = 13;
  const RunDoc run = variants_run(gbps, 0.005, 7);
  const std::vector<std::string> lines = ifunc_lines(run, answer_groups(run));
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find("glibc memcpy: ifunc picks __memcpy_v0; at 256 B __memcpy_v4 is 1.30x faster [") == 0);
  CHECK(lines[0].find("; at 128 MiB __memcpy_v4 is 1.30x faster [") != std::string::npos);
  CHECK(lines[0].find("(Holm over 180 comparisons, family-wise error 0.05)") != std::string::npos);
}
