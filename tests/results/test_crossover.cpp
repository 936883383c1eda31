#include <doctest/doctest.h>

#include "src/results/crossover.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/synth.hpp"

using namespace kex;

static Curve curve(std::initializer_list<std::pair<double, double>> pts) {
  Curve c;
  for (auto [s, g] : pts) c.push_back({s, g});
  return c;
}

TEST_CASE("winning_ranges and sustained_crossover on hand-made curves") {
  Curve b = curve({{1, 2}, {2, 2}, {4, 2}, {8, 2}, {16, 2}});
  SUBCASE("one clean crossover") {
    Curve a = curve({{1, 1}, {2, 1}, {4, 3}, {8, 3}, {16, 3}});
    auto r = winning_ranges(a, b);
    REQUIRE(r.size() == 1);
    CHECK(r[0].lo == 4);
    CHECK(r[0].hi == 16);
    CHECK(sustained_crossover(a, b) == 4.0);
    CHECK(!sustained_crossover(b, a).has_value());
  }
  SUBCASE("a flapping curve: the sustained crossover is after the last loss") {
    Curve a = curve({{1, 1}, {2, 3}, {4, 1}, {8, 3}, {16, 3}});
    auto r = winning_ranges(a, b);
    REQUIRE(r.size() == 2);
    CHECK((r[0].lo == 2 && r[0].hi == 2));
    CHECK((r[1].lo == 8 && r[1].hi == 16));
    CHECK(sustained_crossover(a, b) == 8.0);
  }
  SUBCASE("a middle range: no sustained crossover") {
    Curve a = curve({{1, 1}, {2, 3}, {4, 3}, {8, 1}, {16, 1}});
    auto r = winning_ranges(a, b);
    REQUIRE(r.size() == 1);
    CHECK((r[0].lo == 2 && r[0].hi == 4));
    CHECK(!sustained_crossover(a, b).has_value());
  }
  SUBCASE("margin: a win by less than the margin does not count") {
    Curve a = curve({{1, 2.02}, {2, 2.02}, {4, 2.5}, {8, 2.5}, {16, 2.5}});
    CHECK(sustained_crossover(a, b, 0) == 1.0);
    CHECK(sustained_crossover(a, b, 0.05) == 4.0);
  }
  SUBCASE("only common sizes are compared") {
    Curve a = curve({{3, 100}, {4, 3}, {16, 3}, {32, 100}});
    auto r = winning_ranges(a, b);
    REQUIRE(r.size() == 1);
    CHECK((r[0].lo == 4 && r[0].hi == 16));
  }
}

TEST_CASE("envelope takes the best curve at each size") {
  Curve e = envelope({curve({{1, 1}, {2, 5}}), curve({{1, 3}, {2, 4}, {4, 7}})});
  REQUIRE(e.size() == 3);
  CHECK(e[0].gbps == 3);
  CHECK(e[1].gbps == 5);
  CHECK(e[2].gbps == 7);
}

TEST_CASE("find_crossovers on the synthetic sweep finds the crossovers placed in it") {
  // synth.hpp: temporal envelope 6.2 GB/s vs non-temporal 10 in DRAM (> 32 MiB): NT wins from 64 MiB.
  // rep movsb (30 ns start-up, 50/31 GB/s) beats the vector loops from 32 KiB (L1) through 1 MiB (L2),
  // loses in L3 (15 < 18). The prefetching loop (38/30/18/6) beats the others in L2 and L3 only.
  for (double scale : {1.0, 1.7}) {
    synth::Options o;
    o.time_scale = scale;
    Crossovers x = find_crossovers(synth::run(o));
    CHECK(x.cache == "warm");
    REQUIRE(x.nt_above.has_value());
    CHECK(*x.nt_above == 64.0 * 1024 * 1024);
    REQUIRE(x.rep_movsb_wins.size() == 1);
    CHECK(x.rep_movsb_wins[0].lo == 32768);
    CHECK(x.rep_movsb_wins[0].hi == 1048576);
    REQUIRE(x.prefetch_helps.size() == 1);
    CHECK(x.prefetch_helps[0].lo == 65536);
    CHECK(x.prefetch_helps[0].hi == 32.0 * 1024 * 1024);
    REQUIRE(x.prefetch_stops.has_value());
    CHECK(*x.prefetch_stops == 64.0 * 1024 * 1024);
    CHECK(suggested_tunables(x) ==
          "glibc.cpu.x86_non_temporal_threshold=67108864:glibc.cpu.x86_rep_movsb_threshold=32768");
    std::string text = format_crossovers(x);
    CHECK(text.find("GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=67108864") != std::string::npos);
  }
}

TEST_CASE("find_crossovers uses the default layout: points elsewhere do not move the thresholds") {
  auto doc = synth::run();
  const size_t n = doc.results.size();
  for (size_t i = 0; i < n; ++i) {  // the same kernels at a 4 KiB-aliased distance, with every GB/s doubled
    kex::Result r = doc.results[i];
    if (!r.ok()) continue;
    r.point.at.layout.distance = 4096 + 64;
    for (auto& rep : r.reps) rep.per_call.median /= 2;
    doc.results.push_back(r);
  }
  Crossovers x = find_crossovers(doc);
  REQUIRE(x.nt_above.has_value());
  CHECK(*x.nt_above == 64.0 * 1024 * 1024);
  CHECK(suggested_tunables(x) == suggested_tunables(find_crossovers(synth::run())));
}

TEST_CASE("find_crossovers says what it could not compare") {
  auto doc = synth::run();
  std::vector<kex::Result> only_temporal;
  for (auto& e : doc.results)
    if (e.point.kernel.find("/t/") != std::string::npos) only_temporal.push_back(e);
  doc.results = only_temporal;
  Crossovers x = find_crossovers(doc);
  CHECK(!x.nt_compared);
  CHECK(!x.rep_compared);
  CHECK(!x.nt_above.has_value());
  CHECK(suggested_tunables(x).empty());
  CHECK(format_crossovers(x).find("not measured") != std::string::npos);
}

TEST_CASE("golden: kex crossovers' text of a sweep with crossovers, and of the fixed run without them" *
          doctest::test_suite("golden")) {
  CHECK(golden::check("crossovers.txt", format_crossovers(find_crossovers(golden::crossover_run()))) == "");
  CHECK(golden::check("crossovers-run.txt", format_crossovers(find_crossovers(golden::run()))) == "");
}
