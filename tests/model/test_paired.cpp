// The answer per group from paired rounds, on synthetic timings with a known answer:
// the winner, the tie set at the resolution, the lead, the ratio to libc; and the
// coverage of the intervals on a synthetic machine whose state changes per round and
// per run (docs/methodology.md: the state of a shared VM lasts milliseconds to a run).
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "src/model/paired.hpp"
#include "src/model/spec.hpp"

using namespace kex;

namespace {

/// A measured copy result at 4096 bytes: one repetition per round, its median `ticks[r]` in round r + 1.
Result paired_member(const std::string& kernel, const std::vector<double>& ticks, bool libc = false) {
  Result r;
  r.point = {kernel, {}};
  r.point.at.size = 4096;
  r.op = Op::copy;
  r.kind = libc ? KernelKind::baseline : KernelKind::generated;
  if (libc) r.libc = LibcFacts{Function::memcpy};
  r.tsc_hz = 1e9;
  for (size_t k = 0; k < ticks.size(); ++k) {
    Repetition rep;
    rep.per_call.n = 8;
    rep.per_call.median = ticks[k];
    rep.round = k + 1;
    rep.stop_reason = "round";
    r.reps.push_back(rep);
  }
  return r;
}

/// Times of a kernel of true time `base` over `rounds` rounds: the round's machine state
/// (a factor shared by every member of the round) times its own noise.
std::vector<double> times(double base, const std::vector<double>& state, std::mt19937_64& rng, double noise) {
  std::normal_distribution<double> n(0, noise);
  std::vector<double> v;
  for (double s : state) v.push_back(base * s * std::exp(n(rng)));
  return v;
}

std::vector<double> states(size_t rounds, std::mt19937_64& rng) {
  // A two-state core (1x or 1.7x) and a drift: what a shared VM does between rounds.
  std::bernoulli_distribution slow(0.4);
  std::uniform_real_distribution<double> drift(0.9, 1.3);
  std::vector<double> s;
  for (size_t r = 0; r < rounds; ++r) s.push_back((slow(rng) ? 1.7 : 1.0) * drift(rng));
  return s;
}

}  // namespace

TEST_CASE("paired answer: the winner, its ties within 1%, the lead over the next, the ratio to libc" *
          doctest::test_suite("model")) {
  std::mt19937_64 rng(5);
  const std::vector<double> s = states(25, rng);
  RunDoc run;
  run.results.push_back(paired_member("copy/sse", times(110, s, rng, 0.003)));      // 10% slower than avx
  run.results.push_back(paired_member("memcpy", times(120, s, rng, 0.003), true));  // libc
  run.results.push_back(paired_member("copy/avx", times(100, s, rng, 0.003)));      // the fastest
  run.results.push_back(paired_member("copy/avx512", times(100.4, s, rng, 0.003))); // 0.4% slower: a tie at 1%
  const std::vector<GroupAnswer> a = answer_groups(run);
  REQUIRE(a.size() == 1);
  const GroupAnswer& g = a[0];
  CHECK(g.rounds == 25);
  REQUIRE(g.members.size() == 4);
  CHECK(run.results[g.members[0].result].point.kernel == "copy/avx");
  CHECK(run.results[g.members[1].result].point.kernel == "copy/avx512");
  CHECK(g.ties() == 2);
  CHECK(g.members[1].tie);
  CHECK_FALSE(g.members[2].tie);
  REQUIRE(g.next() == std::optional<size_t>(2));
  const PairedRatio& lead = g.members[2].vs_winner;
  CHECK(run.results[g.members[2].result].point.kernel == "copy/sse");
  CHECK(lead.ratio == doctest::Approx(1.10).epsilon(0.01));
  CHECK(lead.low > 1.08);  // the state (up to 2.2x between rounds) cancels out of every ratio
  CHECK(lead.high < 1.12);
  REQUIRE(g.members[0].vs_libc.has_value());
  CHECK(g.members[0].vs_libc->ratio == doctest::Approx(100.0 / 120).epsilon(0.01));
  CHECK_FALSE(g.members[0].vs_libc->covers_one());
  CHECK(g.members[3].vs_libc->ratio == doctest::Approx(1.0));  // libc against itself
}

TEST_CASE("paired answer: with no rounds (separate protocol) or one member there is none" * doctest::test_suite("model")) {
  RunDoc run;
  Result a = paired_member("copy/avx", {100, 100, 100}), b = paired_member("copy/sse", {110, 110, 110});
  for (Repetition& r : a.reps) r.round = 0;
  for (Repetition& r : b.reps) r.round = 0;
  run.results = {a, b};
  CHECK(answer_groups(run).empty());
  run.results = {paired_member("copy/avx", {100, 100, 100})};
  CHECK(answer_groups(run).empty());
}

TEST_CASE("paired answer: a kernel not shown slower by more than the resolution ties" * doctest::test_suite("model")) {
  std::mt19937_64 rng(9);
  const std::vector<double> s = states(21, rng);
  RunDoc run;
  run.results.push_back(paired_member("copy/a", times(100, s, rng, 0.002)));
  run.results.push_back(paired_member("copy/b", times(103, s, rng, 0.002)));
  CHECK(answer_groups(run, 0.01)[0].ties() == 1);  // 3% slower: outside 1%
  CHECK(answer_groups(run, 0.05)[0].ties() == 2);  // inside 5%
  // Noisy rounds: a 1% difference whose interval reaches below 1.01 cannot be called.
  RunDoc noisy;
  noisy.results.push_back(paired_member("copy/a", times(100, s, rng, 0.05)));
  noisy.results.push_back(paired_member("copy/b", times(101, s, rng, 0.05)));
  CHECK(answer_groups(noisy)[0].ties() == 2);
}

TEST_CASE("coverage on a synthetic machine with run-level state: the paired interval holds the true ratio, the "
          "absolute one does not hold the next run's figure" * doctest::test_suite("model")) {
  // Each run draws a state that lasts the whole run (its pages, its share of the L2: a
  // factor on every time of the run) and a state per round; kernels differ by 7%.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> run_state(0.8, 1.45);
  size_t paired_covered = 0, absolute_covered = 0;
  const size_t runs = 300;
  double previous_a = 0;
  for (size_t k = 0; k < runs; ++k) {
    const double rs = run_state(rng);
    std::vector<double> s = states(20, rng);
    for (double& x : s) x *= rs;
    RunDoc run;
    run.results.push_back(paired_member("copy/a", times(100, s, rng, 0.01)));
    run.results.push_back(paired_member("copy/b", times(107, s, rng, 0.01)));
    const auto g = answer_groups(run);
    REQUIRE(g.size() == 1);
    const PairedRatio& r = g[0].members[1].vs_winner;
    paired_covered += r.low <= 1.07 && 1.07 <= r.high;
    // The absolute figure's interval (over rounds) against the next run's median.
    const Aggregate a = aggregate(run.results[0]);
    if (k) absolute_covered += a.ci_low_ns <= previous_a && previous_a <= a.ci_high_ns;
    previous_a = a.median_ns;
  }
  const double paired = double(paired_covered) / runs, absolute = double(absolute_covered) / (runs - 1);
  CAPTURE(paired);
  CAPTURE(absolute);
  CHECK(paired >= 0.9);
  CHECK(absolute < 0.75);  // an interval over one run's rounds says little about the next run
  CHECK(paired > absolute + 0.2);
}
