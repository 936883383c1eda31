#include <doctest/doctest.h>

#include "src/core/error.hpp"
#include "src/results/crossover.hpp"
#include "src/results/crossover_text.hpp"
#include "tests/support/paired_sweep.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/synth.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

/// A curve without rounds: each point's interval is its GB/s +-0.5%.
static Curve curve(std::initializer_list<std::pair<double, double>> pts) {
  Curve c;
  for (auto [s, g] : pts) c.push_back({s, g, g * 0.995, g * 1.005, {}});
  return c;
}

TEST_CASE("compare_curves without rounds: crossovers need two consecutive decided wins") {
  Curve b = curve({{1, 2}, {2, 2}, {4, 2}, {8, 2}, {16, 2}});
  SUBCASE("one clean crossover") {
    Curve a = curve({{1, 1}, {2, 1}, {4, 3}, {8, 3}, {16, 3}});
    Contest c = compare_curves(a, b, 0);
    REQUIRE(c.wins.size() == 1);
    CHECK(c.wins[0].lo == 4);
    CHECK(c.wins[0].hi == 16);
    CHECK(c.wins[0].below == 2.0);
    CHECK(!c.wins[0].above.has_value());
    REQUIRE(c.sustained().has_value());
    CHECK(c.sustained()->lo == 4);
    CHECK(!compare_curves(b, a, 0).sustained().has_value());
  }
  SUBCASE("a flapping curve: a single winning size is not a crossover") {
    Curve a = curve({{1, 1}, {2, 3}, {4, 1}, {8, 3}, {16, 3}});
    Contest c = compare_curves(a, b, 0);
    REQUIRE(c.wins.size() == 1);
    CHECK((c.wins[0].lo == 8 && c.wins[0].hi == 16 && c.wins[0].below == 4.0));
    CHECK(c.lone == std::vector<double>{2});
    CHECK(c.sustained()->lo == 8);
  }
  SUBCASE("a middle range: no sustained crossover") {
    Curve a = curve({{1, 1}, {2, 3}, {4, 3}, {8, 1}, {16, 1}});
    Contest c = compare_curves(a, b, 0);
    REQUIRE(c.wins.size() == 1);
    CHECK((c.wins[0].lo == 2 && c.wins[0].hi == 4 && c.wins[0].above == 8.0));
    CHECK(!c.sustained().has_value());
  }
  SUBCASE("margin: a win by less than the margin does not count; overlapping intervals are within noise") {
    Curve a = curve({{1, 2.02}, {2, 2.02}, {4, 2.5}, {8, 2.5}, {16, 2.5}});
    CHECK(compare_curves(a, b, 0).sustained()->lo == 4);  // 2.02 vs 2: the intervals (+-0.5%) overlap
    CHECK(compare_curves(a, b, 0).within_noise() == 2);
    CHECK(compare_curves(a, b, 0.3).wins.empty());
    CHECK(compare_curves(a, b, kCrossoverMargin).sustained()->lo == 4);
  }
  SUBCASE("only common sizes are compared") {
    Curve a = curve({{3, 100}, {4, 3}, {16, 3}, {32, 100}});
    Contest c = compare_curves(a, b, 0);
    REQUIRE(c.wins.size() == 1);
    CHECK((c.wins[0].lo == 4 && c.wins[0].hi == 16));
    CHECK(c.verdicts.size() == 2);
  }
}

TEST_CASE("envelope takes the best curve at each size") {
  Curve e = envelope({curve({{1, 1}, {2, 5}}), curve({{1, 3}, {2, 4}, {4, 7}})});
  REQUIRE(e.size() == 3);
  CHECK(e[0].gbps == 3);
  CHECK(e[1].gbps == 5);
  CHECK(e[2].gbps == 7);
}

TEST_CASE("find_crossovers on the synthetic sweep (no rounds) finds the decided crossovers placed in it") {
  // synth.hpp: temporal envelope 6.2 GB/s vs non-temporal 10 in DRAM (> 32 MiB): NT wins from 64 MiB.
  // rep movsb (30 ns start-up, 50/31 GB/s) beats the vector loops by more than 2% (beyond the points'
  // +-0.5% intervals) from 256 KiB through 1 MiB (L2); below, its start-up keeps it within 2%; it loses
  // in L3 (15 < 18). The prefetching loop (38/30/18/6) beats the others in L2 and L3 only. rep stosb
  // (25 ns, 70 GB/s in L1) beats the sse clear loop (4 ns, 60) at 16 and 32 KiB.
  for (double scale : {1.0, 1.7}) {
    synth::Options o;
    o.time_scale = scale;
    Crossovers x = find_crossovers(synth::run(o));
    CHECK(x.cache == "warm");
    REQUIRE(x.nt.sustained().has_value());
    CHECK(x.nt.sustained()->lo == 64.0 * 1024 * 1024);
    CHECK(x.nt.sustained()->below == 32.0 * 1024 * 1024);
    REQUIRE(x.rep_movsb.wins.size() == 1);
    CHECK(x.rep_movsb.wins[0].lo == 262144);
    CHECK(x.rep_movsb.wins[0].hi == 1048576);
    CHECK(x.rep_movsb.wins[0].above == 2097152.0);
    REQUIRE(x.prefetch.wins.size() == 1);
    CHECK(x.prefetch.wins[0].lo == 65536);
    CHECK(x.prefetch.wins[0].hi == 32.0 * 1024 * 1024);
    CHECK(x.prefetch.wins[0].above == 64.0 * 1024 * 1024);
    REQUIRE(x.rep_stosb.wins.size() == 1);
    CHECK((x.rep_stosb.wins[0].lo == 16384 && x.rep_stosb.wins[0].hi == 32768));
    CHECK(suggested_tunables(x) ==
          "glibc.cpu.x86_non_temporal_threshold=67108863:glibc.cpu.x86_rep_movsb_threshold=262143:"
          "glibc.cpu.x86_rep_stosb_threshold=16383");
    std::string text = format_crossovers(x);
    CHECK(text.find("GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=67108863") != std::string::npos);
    CHECK(text.find("non-temporal wins from 64 MiB up: threshold in (32 MiB, 64 MiB]") != std::string::npos);
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
  REQUIRE(x.nt.sustained().has_value());
  CHECK(x.nt.sustained()->lo == 64.0 * 1024 * 1024);
  CHECK(suggested_tunables(x) == suggested_tunables(find_crossovers(synth::run())));
}

TEST_CASE("find_crossovers says what it could not compare") {
  auto doc = synth::run();
  std::vector<kex::Result> only_temporal;
  for (auto& e : doc.results)
    if (e.point.kernel.find("/t/") != std::string::npos) only_temporal.push_back(e);
  doc.results = only_temporal;
  Crossovers x = find_crossovers(doc);
  CHECK(!x.nt.compared);
  CHECK(!x.rep_movsb.compared);
  CHECK(!x.nt.sustained().has_value());
  CHECK(suggested_tunables(x).empty());
  CHECK(format_crossovers(x).find("not measured") != std::string::npos);
}

TEST_CASE("golden: kex crossovers' text of a sweep with crossovers, and of the fixed run without them" *
          doctest::test_suite("golden")) {
  CHECK(golden::check("crossovers.txt", format_crossovers(find_crossovers(golden::crossover_run()))) == "");
  CHECK(golden::check("crossovers-run.txt", format_crossovers(find_crossovers(golden::run()))) == "");
}

namespace {

const std::string kT = "copy/avx/unroll:128/scratch:4/t/fwd", kNT = "copy/avx/unroll:128/scratch:4/nt/fwd";

/// Temporal at 10 GB/s everywhere; non-temporal at `nt` GB/s per size (sizes 64 KiB .. 64 MiB).
RunDoc nt_sweep(const std::vector<double>& nt, double noise, uint64_t seed = 1) {
  const auto sizes = paired_sweep::pow2(16, 26);
  REQUIRE(nt.size() == sizes.size());
  return paired_sweep::sweep(sizes, {{kT, std::vector<double>(sizes.size(), 10), noise}, {kNT, nt, noise}}, 15, seed);
}

}  // namespace

TEST_CASE("paired crossovers: a threshold is an interval between the last size lost and the first won") {
  //                            64K 128K 256K 512K 1M  2M  4M  8M  16M 32M 64M
  const RunDoc d = nt_sweep({5, 5, 5, 6, 7, 8, 9, 11, 12, 13, 13}, 0.005);
  const Crossovers x = find_crossovers(d);
  for (const SizeVerdict& v : x.nt.verdicts) CHECK(v.paired);
  REQUIRE(x.nt.sustained().has_value());
  CHECK(x.nt.sustained()->lo == 8.0 * 1024 * 1024);
  CHECK(x.nt.sustained()->below == 4.0 * 1024 * 1024);
  CHECK(x.nt.sustained()->sizes == 4);
  // The machine's state per round (up to 1.6x) cancels out: the ratio at 8 MiB is 1.1 to 1%, tightly.
  const SizeVerdict& at8 = x.nt.verdicts[7];
  CHECK(at8.size == 8.0 * 1024 * 1024);
  CHECK(at8.ratio == doctest::Approx(1.1).epsilon(0.01));
  CHECK(at8.low > 1.07);
  CHECK(at8.high < 1.13);
  const std::vector<Tunable> t = suggested(x);
  REQUIRE(t.size() == 1);
  CHECK(t[0].name == "glibc.cpu.x86_non_temporal_threshold");
  CHECK(t[0].value == (8u << 20) - 1);  // glibc takes the path for sizes above the value
  CHECK(format_crossovers(x).find("non-temporal wins from 8 MiB up: threshold in (4 MiB, 8 MiB] (time ratio 1.1") !=
        std::string::npos);
}

TEST_CASE("paired crossovers: one point inside the noise is no crossover and gives no tunable") {
  // Equal everywhere but at 64 MiB, where non-temporal is 1% faster under 3% noise per round.
  std::vector<double> nt(11, 10);
  nt.back() = 10.1;
  const Crossovers x = find_crossovers(nt_sweep(nt, 0.03));
  CHECK(x.nt.wins.empty());
  CHECK(x.nt.lone.empty());
  CHECK(x.nt.within_noise() == 11);
  CHECK(suggested_tunables(x).empty());
  const std::string text = format_crossovers(x);
  CHECK(text.find("non-temporal vs temporal stores: no crossover: differences within noise; within noise at 11 of 11 sizes\n") !=
        std::string::npos);
  CHECK(text.find("suggested GLIBC_TUNABLES: none (no decided crossover)") != std::string::npos);
}

TEST_CASE("paired crossovers: a decided win at one size alone is not a crossover") {
  std::vector<double> nt(11, 5);
  nt[3] = 14;  // 512 KiB: 40% faster, far outside the noise, but alone
  nt.back() = 14;  // and at the largest size only: no threshold either
  const Crossovers x = find_crossovers(nt_sweep(nt, 0.005));
  CHECK(x.nt.wins.empty());
  CHECK(x.nt.lone == std::vector<double>{524288, 64.0 * 1024 * 1024});
  CHECK(suggested_tunables(x).empty());
  CHECK(format_crossovers(x).find("no crossover: differences within noise; a win at 512 KiB, 64 MiB alone is not a "
                                  "crossover\n") != std::string::npos);
}

TEST_CASE("paired crossovers: the default margin (2%) keeps a 1.5% lead from making a threshold") {
  std::vector<double> nt(11, 10);
  for (size_t i = 8; i < 11; ++i) nt[i] = 10.15;
  const RunDoc d = nt_sweep(nt, 0.001);
  CHECK(suggested_tunables(find_crossovers(d)).empty());
  CHECK(find_crossovers(d).nt.within_noise() == 11);  // the 8 equal sizes and the 3 by 1.5%
  CHECK(find_crossovers(d).nt.lone.empty());
  const Crossovers x = find_crossovers(d, "", 0.005);
  REQUIRE(x.nt.sustained().has_value());
  CHECK(x.nt.sustained()->lo == 16.0 * 1024 * 1024);
}

TEST_CASE("check_crossover_data: a cache or layout the file has no copy points at is an error naming what it has") {
  RunDoc d = nt_sweep(std::vector<double>(11, 10), 0.005);
  CHECK_NOTHROW(check_crossover_data(d, "", "r.json"));
  CHECK_NOTHROW(check_crossover_data(d, "warm", "r.json"));
  CHECK_THROWS_WITH_AS(check_crossover_data(d, "cold", "r.json"),
                       "r.json: no measured copy points at cache cold with the default layout, call pattern and "
                       "data; the file has copy points at warm (22)",
                       InputError);
  for (Result& r : d.results) r.point.at.layout.distance = 4160;
  CHECK_THROWS_WITH_AS(check_crossover_data(d, "", "r.json"),
                       "r.json: no measured copy points at cache warm or cold with the default layout, call pattern "
                       "and data; the file has copy points at warm dist:4160 (22)",
                       InputError);
  d.results.clear();
  CHECK_THROWS_WITH_AS(check_crossover_data(d, "cold", "r.json"),
                       "r.json: no measured copy points at cache cold with the default layout, call pattern and "
                       "data; the file has no measured copy points",
                       InputError);
}

TEST_CASE("kex crossovers: a cache the file lacks exits 2 naming the file - --workload reads its CSV strictly" *
          doctest::test_suite("cli")) {
  TmpDir d;
  const std::string f = d / "r.json", w = d / "w.csv";
  RunDoc doc = nt_sweep({5, 5, 5, 6, 7, 8, 9, 11, 12, 13, 13}, 0.005);
  doc.context = synth::run().context;
  spit(f, kex::to_json(doc).dump());
  ShellOut r = shell(kKex + " crossovers " + f + " --cache cold");
  CHECK(r.status == 2);
  CHECK(r.text == "kex: " + f + ": no measured copy points at cache cold with the default layout, call pattern and "
                                "data; the file has copy points at warm (22)\n");
  r = shell_stdout(kKex + " crossovers " + f);
  CHECK(r.status == 0);
  CHECK(r.text.find("non-temporal wins from 8 MiB up: threshold in (4 MiB, 8 MiB]") != std::string::npos);
  CHECK(r.text.find("GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=8388607\n") != std::string::npos);
  spit(w, "size,count\n65536,10\n1048576,x\n");
  r = shell(kKex + " crossovers " + f + " --workload " + w);
  CHECK(r.status == 2);
  CHECK(r.text.rfind("kex: " + w + ":3: count 'x'", 0) == 0);
  spit(w, "size,count\n65536,10\n1048576,5\n");
  r = shell_stdout(kKex + " crossovers " + f + " --workload " + w);
  CHECK(r.status == 0);
  CHECK(r.text.find("workload (copy, cache warm): 15 calls, 15 at measured sizes [64 KiB, 64 MiB]") != std::string::npos);
  CHECK(r.text.find("per-size best kernel (dispatch)") != std::string::npos);
}
