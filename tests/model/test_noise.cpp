// The run's noise: the sentinel's spread, disturbed windows, re-measurements and
// the repetition cv, computed, written into the context, read back and printed.
#include <doctest/doctest.h>

#include "src/model/noise.hpp"
#include "src/model/result_json.hpp"
#include "src/results/summary.hpp"
#include "tests/support/golden.hpp"

using namespace kex;

TEST_CASE("noise: sentinel spread is p10, p90, max and MAD over the median" * doctest::test_suite("model")) {
  // sorted: 99 100 101 102 130; median 101; p10 = 99 + 0.4*1 = 99.4; p90 = 102 + 0.6*28 = 118.8
  const SentinelSpread s = sentinel_spread({100, 101, 99, 102, 130});
  CHECK(s.median == doctest::Approx(101));
  CHECK(s.p10 == doctest::Approx(99.4 / 101));
  CHECK(s.p90 == doctest::Approx(118.8 / 101));
  CHECK(s.max == doctest::Approx(130.0 / 101));
  // deviations 1 0 2 1 29 -> median 1
  CHECK(s.mad == doctest::Approx(1.0 / 101));
  CHECK(sentinel_spread({}) == SentinelSpread{});
}

TEST_CASE("noise: median repetition cv over the points with two or more counted repetitions" * doctest::test_suite("model")) {
  Result a = golden::generated("copy/avx/unroll:128/scratch:4/t/fwd", 4096, Layout{}, 100);
  a.reps.push_back(golden::rep(110, 1, {110, 110, 110}, "precision"));
  Result b = golden::generated("copy/string/unroll:1/t/fwd", 4096, Layout{}, 100);
  b.reps.push_back(golden::rep(100, 1, {100, 100, 100}, "precision"));
  b.reps.push_back(golden::rep(130, 1, {130, 130, 130}, "precision"));
  Result single = golden::generated("copy/string/unroll:1/t/fwd", 65536, Layout{}, 100);
  REQUIRE(single.reps.size() == 1);
  const Noise n = compute_noise({1, 2}, {3, 4}, 0, 10, 0, 0.25, 2, {a, b, single});
  CHECK(n.points_with_cv == 2);
  CHECK(n.median_repetition_cv == doctest::Approx((aggregate(a).cv + aggregate(b).cv) / 2));
  CHECK(aggregate(a).cv > 0);
  CHECK(n.readings == 2);
}

TEST_CASE("noise: written into context.protocol, read back equal, printed in one line" * doctest::test_suite("model")) {
  const RunDoc run = golden::run();
  const std::optional<Noise> n = run_noise(run.context);
  REQUIRE(n.has_value());
  CHECK(n->readings == 5);
  CHECK(n->disturbed == 1);
  CHECK(n->remeasured_tasks == 8);
  const auto back = docs_from_json(nlohmann::json(to_json(run)), "noise");
  REQUIRE(back.size() == 1);
  CHECK(run_noise(back[0].context) == n);
  const auto j = to_json(run)["context"]["protocol"]["noise"];
  CHECK(j["budget_used_tasks"] == 8);
  CHECK(j["budget_left_tasks"] == 0);
  // L1: (118.8 - 99.4) / 2 / 101 = 9.6%; memory: sorted 395 400 405 410 600, p10 397, p90 524 -> 15.7%
  CHECK(noise_summary(run) ==
        "\nnoise: sentinel L1 \u00b19.6% (p10..p90), memory \u00b116%; 1 of 5 windows disturbed, 8 tasks re-measured "
        "(budget 25%: 25% used)\n");
  RunDoc none = run;
  none.context.protocol.reset();
  CHECK(noise_summary(none) == "");
}
