#include <doctest/doctest.h>

#include <cmath>

#include "src/results/compare.hpp"
#include "src/results/results.hpp"
#include "tests/support/synth.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

static const std::string kData = std::string(KEX_SOURCE_DIR) + "/tests/data/";

// Hand-made files: x 100 -> 200 ns (CIs apart), y 50 -> 50.5 ns (CIs overlap),
// z 0.01 us -> 5 ns (no CI; unit conversion), w skipped in B, onlya / onlyb on one side.
TEST_CASE("compare: ratios - CI overlap and geometric mean on two hand-made files") {
  auto a = load_one_run(kData + "compare_a.json");
  auto b = load_one_run(kData + "compare_b.json");
  Comparison c = compare_results(a, b);
  REQUIRE(c.rows.size() == 3);
  CHECK(c.rows[0].name == "x/4096");  // A's order
  CHECK(c.rows[0].a_ns == doctest::Approx(100));
  CHECK(c.rows[0].b_ns == doctest::Approx(200));
  CHECK(c.rows[0].ratio == doctest::Approx(2.0));
  CHECK(c.rows[0].ci_overlap == std::optional<bool>(false));
  CHECK(c.rows[1].name == "y/4096");
  CHECK(c.rows[1].ratio == doctest::Approx(1.01));
  CHECK(c.rows[1].ci_overlap == std::optional<bool>(true));
  CHECK(c.rows[2].name == "z/4096");
  CHECK(c.rows[2].a_ns == doctest::Approx(10));
  CHECK(c.rows[2].ratio == doctest::Approx(0.5));
  CHECK(!c.rows[2].ci_overlap.has_value());
  CHECK(c.geomean_ratio == doctest::Approx(std::cbrt(2.0 * 1.01 * 0.5)));
  CHECK(c.only_a == std::vector<std::string>{"w/4096", "onlya/4096"});
  CHECK(c.only_b == std::vector<std::string>{"onlyb/4096"});

  auto r = regressions(c, 1.5);
  REQUIRE(r.size() == 1);
  CHECK(r[0]->name == "x/4096");
  CHECK(regressions(c, 1.005).size() == 1);  // y is above 1.005 but its CIs overlap: noise, not a regression
  CHECK(regressions(c, 2.5).empty());

  Comparison f = compare_results(a, b, "^[xy]/");
  CHECK(f.rows.size() == 2);
  std::string text = format_comparison(c, "A", "B");
  CHECK(text.find("summary: 3 matched") != std::string::npos);
  CHECK(text.find("apart") != std::string::npos);
}

TEST_CASE("compare on synthetic runs: every ratio is the time scale") {
  synth::Options ob;
  ob.time_scale = 1.25;
  Comparison c = compare_results(synth::run(), synth::run(ob));
  CHECK(c.rows.size() > 200);
  for (const auto& r : c.rows) CHECK(r.ratio == doctest::Approx(1.25));
  CHECK(c.geomean_ratio == doctest::Approx(1.25));
}

TEST_CASE("kex compare: exit status 0 unless --fail-above finds a regression - bad input exits 2") {
  std::string k = KEX_BINARY;
  std::string a = kData + "compare_a.json", b = kData + "compare_b.json";
  CHECK(run_sh(k + " compare " + a + " " + b + " >/dev/null") == 0);
  CHECK(run_sh(k + " compare " + a + " " + b + " --fail-above 1.5 >/dev/null") == 1);
  // B lost w (skipped there) and onlya: a gate fails on lost entries, whatever the ratios.
  CHECK(run_sh(k + " compare " + a + " " + b + " --fail-above 2.5 >/dev/null") == 1);
  CHECK(run_sh(k + " compare " + a + " " + b + " --fail-above 2.5 --filter '^[xyz]/' >/dev/null") == 0);
  // a gate that compares nothing fails; a gate of 0 or garbage is bad input
  CHECK(run_sh(k + " compare " + a + " " + b + " --fail-above 2.5 --filter nomatch >/dev/null") == 1);
  CHECK(run_sh(k + " compare " + a + " " + b + " --fail-above 0 2>/dev/null") == 2);
  CHECK(run_sh(k + " compare " + a + " " + b + " --fail-above nan 2>/dev/null") == 2);
  TmpDir d;
  spit(d / "bad.json", "{\"benchmarks\": 3}");
  CHECK(run_sh(k + " compare " + a + " " + d / "bad.json" + " 2>" + d / "err") == 2);
  std::string err = slurp(d / "err");
  CHECK(err.find("bad.json: benchmarks") != std::string::npos);
  // Points that differ only in a coordinate never pair up: their names differ.
  kex::RunDoc x = synth::run(), y = synth::run();
  for (auto& r : y.results) r.point.at.layout.dst_offset = 1;
  Comparison none = compare_results(x, y);
  CHECK(none.rows.empty());
  CHECK(none.only_a.size() == none.only_b.size());
  CHECK(std::count(err.begin(), err.end(), '\n') == 1);
}
