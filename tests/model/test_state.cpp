// The fast state's figure: samples classified by the core-state probe taken before
// each (docs/methodology.md, "Two states"), through aggregate(), JSON and compare.
#include <doctest/doctest.h>

#include "src/model/result.hpp"
#include "src/model/result_json.hpp"
#include "src/results/compare.hpp"
#include "tests/support/synth.hpp"

using namespace kex;

namespace {

/// A repetition of 10 samples of 2 calls: fast samples take 100 ticks a call and
/// follow a probe at the floor (1000) or within 6%; slow ones 170 after a probe of 1150.
Repetition two_state_rep(const std::vector<bool>& fast, double scale = 1) {
  Repetition r;
  r.calls_per_sample = 2;
  for (size_t i = 0; i < fast.size(); ++i) {
    r.sample_ticks.push_back(uint64_t((fast[i] ? 200 : 340) * scale));
    r.probe_ticks.push_back(fast[i] ? 1000 + uint32_t(i) * 5 : 1150);
  }
  r.probe_floor = 1000;
  std::vector<double> per_call;
  for (uint64_t t : r.sample_ticks) per_call.push_back(double(t) / 2);
  r.per_call = summarize(per_call);
  return r;
}

}  // namespace

TEST_CASE("fast-state samples are those whose probe is within 6% of the floor") {
  const Repetition r = two_state_rep({true, false, false, true, false, false, true, false, false, false});
  const std::vector<double> f = fast_state_per_call(r);
  CHECK(f == std::vector<double>{100, 100, 100});
  Repetition edge = r;
  edge.probe_ticks[1] = 1060;  // exactly 6% above: fast
  edge.probe_ticks[2] = 1061;
  CHECK(fast_state_per_call(edge).size() == 4);
  Repetition unprobed = r;
  unprobed.probe_ticks.clear();
  CHECK(fast_state_per_call(unprobed).empty());
  unprobed = r;
  unprobed.probe_floor = 0;
  CHECK(fast_state_per_call(unprobed).empty());
}

TEST_CASE("aggregate: the fast figure is steady while the median follows the share of fast samples") {
  Result mostly_slow = synth::run().results.front();
  REQUIRE(mostly_slow.ok());
  Result mostly_fast = mostly_slow;
  mostly_slow.reps = {two_state_rep({true, false, false, true, false, false, true, false, false, false}),
                      two_state_rep({false, true, true, false, true, false, false, false, false, false})};
  mostly_fast.reps = {two_state_rep({true, true, true, true, false, true, true, true, true, false}),
                      two_state_rep({true, true, false, true, true, true, true, true, true, true})};
  const Aggregate s = aggregate(mostly_slow), f = aggregate(mostly_fast);
  const double ns = 1e9 / mostly_slow.tsc_hz;
  CHECK(s.median_ns == doctest::Approx(170 * ns));
  CHECK(f.median_ns == doctest::Approx(100 * ns));
  CHECK(s.fast_ns == doctest::Approx(100 * ns));
  CHECK(f.fast_ns == doctest::Approx(100 * ns));
  CHECK(s.fast_share == doctest::Approx(0.3));
  CHECK(f.fast_share == doctest::Approx(0.85));
  CHECK(s.fast_reps == 2);
  // A repetition with fewer than 3 fast samples gives no fast median.
  mostly_slow.reps[1] = two_state_rep({false, true, false, false, false, false, false, false, false, true});
  CHECK(aggregate(mostly_slow).fast_reps == 1);
}

TEST_CASE("probe readings survive JSON, and a list of the wrong length is refused by name") {
  const Repetition r = two_state_rep({true, false, true, true});
  const nlohmann::json j = to_json(r);
  CHECK(j.at("probe_ticks") == nlohmann::json::array({1000, 1150, 1010, 1015}));
  CHECK(j.at("probe_floor_ticks") == 1000);
  CHECK(repetition_from_json(j, "t") == r);
  nlohmann::json bad = j;
  bad["probe_ticks"].erase(0);
  CHECK_THROWS_WITH(repetition_from_json(bad, "f.json: /benchmarks/0/reps/0"),
                    doctest::Contains("probe_ticks"));
  // A repetition without probes (an earlier kex, a CPU without AVX) writes none.
  Repetition plain = r;
  plain.probe_ticks.clear();
  plain.probe_floor = 0;
  CHECK_FALSE(to_json(plain).contains("probe_ticks"));
}

TEST_CASE("compare --statistic fast: no false call where the share of fast samples moved, a real 10% found") {
  auto run = [](const std::vector<bool>& pattern, double scale) {
    RunDoc d = synth::run();
    for (auto& r : d.results)
      if (r.ok()) r.reps.assign(7, two_state_rep(pattern, scale));
    return d;
  };
  const std::vector<bool> rare = {true, false, false, true, false, false, true, false, false, false};
  const std::vector<bool> common = {true, true, true, true, false, true, true, true, true, false};
  CompareOptions o;
  o.min_effect = 0.05;
  o.statistic = Statistic::fast;
  const Comparison same = compare_results(run(rare, 1), run(common, 1), o);
  CHECK(same.same == same.rows.size());
  CHECK(same.rows.front().speedup == doctest::Approx(1.0));
  const Comparison slower = compare_results(run(rare, 1), run(common, 1.1), o);
  CHECK(slower.slower == slower.rows.size());
  o.statistic = Statistic::median;
  CHECK(compare_results(run(rare, 1), run(common, 1), o).faster > 0);  // the median's false call
}
