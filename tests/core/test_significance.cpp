// The U test and the corrections, against known values and against scipy (the
// implementation Google Benchmark's compare.py uses) where python3-scipy is installed.
#include <doctest/doctest.h>

#include <cstdio>
#include <random>
#include <sstream>
#include <string>

#include "src/core/significance.hpp"
#include "tests/support/shell.hpp"

using namespace kex;

namespace {
std::string run_text(const std::string& cmd) { return shell_stdout(cmd).text; }
std::string list(const std::vector<double>& v) {
  std::ostringstream o;
  o.precision(17);
  o << "[";
  for (size_t i = 0; i < v.size(); ++i) o << (i ? "," : "") << v[i];
  return o.str() + "]";
}
}  // namespace

TEST_CASE("Mann-Whitney U: exact small-sample values" * doctest::test_suite("statistics")) {
  // Completely separated samples of 3 and 3: U = 0, two-sided p = 2/C(6,3) = 0.1.
  UTest t = mann_whitney_u({1, 2, 3}, {4, 5, 6});
  CHECK(t.exact);
  CHECK(t.u == 0);
  CHECK(t.p == doctest::Approx(0.1));
  CHECK(mann_whitney_u({4, 5, 6}, {1, 2, 3}).u == 9);
  CHECK(mann_whitney_u({4, 5, 6}, {1, 2, 3}).p == doctest::Approx(0.1));
  // 5 against 5 separated: 2/252.
  CHECK(mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}).p == doctest::Approx(2.0 / 252));
  // Interleaved: no evidence.
  CHECK(mann_whitney_u({1, 3, 5}, {2, 4, 6}).p == doctest::Approx(0.7));
  CHECK(smallest_p(3, 3) == doctest::Approx(0.1));
  CHECK(smallest_p(5, 5) == doctest::Approx(2.0 / 252));
  CHECK(smallest_p(9, 9) < 0.001);
  CHECK(mann_whitney_u({}, {1}).p == 1);
  CHECK(mann_whitney_u({2, 2, 2}, {2, 2, 2}).p == 1);
}

TEST_CASE("Benjamini-Hochberg and Holm adjust in the input's order" * doctest::test_suite("statistics")) {
  const std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
  const auto bh = benjamini_hochberg(p);
  // sorted 0.005,0.01,0.03,0.04 -> 0.02,0.02,0.04,0.04
  CHECK(bh[3] == doctest::Approx(0.02));
  CHECK(bh[0] == doctest::Approx(0.02));
  CHECK(bh[2] == doctest::Approx(0.04));
  CHECK(bh[1] == doctest::Approx(0.04));
  const auto h = holm(p);
  // sorted: 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1=0.04 -> max-accumulated 0.02, 0.03, 0.06, 0.06
  CHECK(h[3] == doctest::Approx(0.02));
  CHECK(h[0] == doctest::Approx(0.03));
  CHECK(h[2] == doctest::Approx(0.06));
  CHECK(h[1] == doctest::Approx(0.06));
}

TEST_CASE("Mann-Whitney U agrees with scipy.stats.mannwhitneyu (exact, ties, large samples)" * doctest::test_suite("statistics")) {
  if (run_text("python3 -c 'import scipy.stats; print(1)' 2>/dev/null") != "1\n") {
    MESSAGE("skipped: python3-scipy is not installed");
    return;
  }
  std::mt19937_64 rng(5);
  std::normal_distribution<double> n(100, 5);
  std::vector<std::pair<std::vector<double>, std::vector<double>>> cases = {
      {{1, 2, 3}, {4, 5, 6}},
      {{1, 2, 2, 3}, {2, 3, 4, 5}},                       // ties: asymptotic
      {{10, 11, 12, 13, 14, 15, 16, 17, 18}, {12, 13.5, 14.5, 20, 21, 22, 23, 24, 25}},  // both 9: asymptotic
      {{1, 5, 9}, {2, 3, 4, 6, 7, 8, 10, 11, 12, 13}},  // one side <= 8: exact
  };
  for (int k = 0; k < 4; ++k) {
    std::vector<double> a, b;
    for (int i = 0; i < 12 + k; ++i) a.push_back(std::round(n(rng) * 10) / 10);
    for (int i = 0; i < 10 + 2 * k; ++i) b.push_back(std::round((n(rng) + k) * 10) / 10);
    cases.push_back({a, b});
  }
  for (const auto& [a, b] : cases) {
    const std::string py = "python3 -c 'import scipy.stats as s; r=s.mannwhitneyu(" + list(a) + "," + list(b) +
                           ", alternative=\"two-sided\"); print(repr(float(r.statistic)), repr(float(r.pvalue)))'";
    std::istringstream out(run_text(py));
    double u = -1, p = -1;
    out >> u >> p;
    const UTest t = mann_whitney_u(a, b);
    CHECK_MESSAGE(t.u == doctest::Approx(u), list(a) << " vs " << list(b));
    CHECK_MESSAGE(t.p == doctest::Approx(p).epsilon(1e-9), list(a) << " vs " << list(b) << " exact=" << t.exact);
  }
}
