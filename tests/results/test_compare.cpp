#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include <nlohmann/json.hpp>

#include "src/model/noise.hpp"
#include "src/model/result_json.hpp"
#include "src/results/compare.hpp"
#include "src/results/results.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/synth.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

static const std::string kData = std::string(KEX_SOURCE_DIR) + "/tests/data/";

// Hand-made files (one repetition a side: the verdict falls back to CI overlap):
// copy/sse 100 -> 200 ns (CIs apart), copy/avx 50 -> 50.5 ns (CIs overlap), memcpy
// 0.01 us -> 5 ns (no CI; unit conversion), copy/mmx skipped in B, clear/sse (A) and
// clear/avx (B) on one side only.
TEST_CASE("compare: speedups - CI overlap and geometric mean on two hand-made files") {
  auto a = load_one_run(kData + "compare_a.json");
  auto b = load_one_run(kData + "compare_b.json");
  Comparison c = compare_results(a, b);
  REQUIRE(c.rows.size() == 3);
  CHECK(c.rows[0].name == "copy/sse/4096");  // A's order
  CHECK(c.rows[0].a_ns == doctest::Approx(100));
  CHECK(c.rows[0].b_ns == doctest::Approx(200));
  CHECK(c.rows[0].speedup == doctest::Approx(0.5));  // B takes twice as long: half the throughput
  CHECK(c.rows[0].ci_overlap == std::optional<bool>(false));
  CHECK(c.rows[0].by_ci);
  CHECK(c.rows[0].verdict == Change::slower);
  CHECK(c.rows[1].name == "copy/avx/4096");
  CHECK(c.rows[1].speedup == doctest::Approx(1 / 1.01));
  CHECK(c.rows[1].ci_overlap == std::optional<bool>(true));
  CHECK(c.rows[1].verdict == Change::same);
  CHECK(c.rows[2].name == "memcpy/4096");
  CHECK(c.rows[2].a_ns == doctest::Approx(10));
  CHECK(c.rows[2].speedup == doctest::Approx(2.0));
  CHECK(!c.rows[2].ci_overlap.has_value());
  CHECK(c.rows[2].verdict == Change::same);  // no CI, one repetition: no evidence
  CHECK(c.geomean_speedup == doctest::Approx(std::cbrt(0.5 / 1.01 * 2.0)));
  CHECK(c.slower == 1);
  CHECK(c.same == 2);
  CHECK(c.only_a == std::vector<std::string>{"copy/mmx/4096", "clear/sse/4096"});
  CHECK(c.only_b == std::vector<std::string>{"clear/avx/4096"});

  auto r = regressions(c, 1.5);
  REQUIRE(r.size() == 1);
  CHECK(r[0]->name == "copy/sse/4096");
  CHECK(regressions(c, 1.005).size() == 1);  // copy/avx is above 1.005 but its CIs overlap: noise, not a regression
  CHECK(regressions(c, 2.5).empty());

  CompareOptions fo;
  fo.filter = "^copy/(sse|avx)/";
  Comparison f = compare_results(a, b, fo);
  CHECK(f.rows.size() == 2);
  fo.filter = "-^copy/(sse|avx)/";  // as run --filter: a leading - keeps the others
  f = compare_results(a, b, fo);
  REQUIRE(f.rows.size() == 1);
  CHECK(f.rows[0].name.rfind("memcpy/", 0) == 0);
  std::string text = format_comparison(c, "A", "B");
  CHECK(text.find("summary: 3 matched: B faster 0, B slower 1, same 2") != std::string::npos);
  CHECK(text.find("speedup = A time / B time = B throughput / A throughput (> 1: B is faster)") != std::string::npos);
  CHECK(text.find("CIs apart") != std::string::npos);
}

TEST_CASE("compare on synthetic runs: every ratio is the time scale") {
  synth::Options ob;
  ob.time_scale = 1.25;
  Comparison c = compare_results(synth::run(), synth::run(ob));
  CHECK(c.rows.size() > 200);
  for (const auto& r : c.rows) CHECK(r.speedup == doctest::Approx(1 / 1.25));
  CHECK(c.geomean_speedup == doctest::Approx(1 / 1.25));
}

namespace {
/// A synthetic run whose every point has repetitions with medians median * (1 + spread * k).
kex::RunDoc with_reps(double scale, std::vector<double> spread) {
  kex::RunDoc d = synth::run();
  for (auto& r : d.results) {
    if (!r.ok()) continue;
    const kex::Repetition base = r.reps.front();
    r.reps.clear();
    for (double s : spread) {
      kex::Repetition x = base;
      x.per_call.median *= scale * (1 + s);
      r.reps.push_back(x);
    }
  }
  return d;
}
}  // namespace

TEST_CASE("compare: the U test over repetitions decides, corrected, with a minimum effect") {
  const std::vector<double> noise = {-0.004, 0.002, 0.0, 0.003, -0.002, 0.001, -0.001};  // cv about 0.25%
  // Self-compare: nothing differs.
  Comparison self = compare_results(with_reps(1, noise), with_reps(1, noise));
  CHECK(self.faster == 0);
  CHECK(self.slower == 0);
  CHECK(self.same == self.rows.size());
  CHECK(self.min_effect == doctest::Approx(0.01));  // 3 x 0.25% is below the 1% floor
  // B 10% slower everywhere, seven repetitions a side: every point is called slower.
  Comparison slow = compare_results(with_reps(1, noise), with_reps(1.1, noise));
  CHECK(slow.slower == slow.rows.size());
  for (const auto& r : slow.rows) {
    CHECK(r.a_reps == 7);
    CHECK_FALSE(r.by_ci);
    CHECK(r.p < 0.001);
    CHECK(r.p_adjusted <= 0.01);
  }
  CHECK(regressions(slow, 1.05).size() == slow.rows.size());
  CHECK(regressions(slow, 1.2).empty());
  // 0.5% slower: significant by the test, but below the minimum effect: same.
  Comparison tiny = compare_results(with_reps(1, noise), with_reps(1.005, noise));
  CHECK(tiny.slower == 0);
  CompareOptions strict;
  strict.min_effect = 0.001;
  CHECK(compare_results(with_reps(1, noise), with_reps(1.005, noise), strict).slower > 0);
  // Three repetitions a side cannot reach 0.01: said, and nothing is called different.
  Comparison three = compare_results(with_reps(1, {0, 0.001, -0.001}), with_reps(1.5, {0, 0.001, -0.001}));
  CHECK(three.underpowered);
  CHECK(three.slower == 0);
  CHECK(format_comparison(three, "A", "B").find("no U test can reach p < 0.01") != std::string::npos);
}

namespace {
/// A two-state machine: every repetition's fastest sample is the fast state
/// (fast * scale, with `noise`), its median the fast state in the repetitions
/// marked true and the slow one (1.7x) in the others.
kex::RunDoc two_state(double scale, const std::vector<bool>& fast_median, const std::vector<double>& noise) {
  kex::RunDoc d = synth::run();
  for (auto& r : d.results) {
    if (!r.ok()) continue;
    const kex::Repetition base = r.reps.front();
    const double fast = base.per_call.median;
    r.reps.clear();
    for (size_t i = 0; i < fast_median.size(); ++i) {
      kex::Repetition x = base;
      x.sample_ticks.clear();  // the order statistics stand for the samples
      x.per_call.min = x.per_call.p10 = fast * scale * (1 + noise[i]);
      x.per_call.median = fast * scale * (fast_median[i] ? 1.01 : 1.7) * (1 + noise[i]);
      x.per_call.p90 = x.per_call.max = fast * scale * 1.8;
      r.reps.push_back(x);
    }
  }
  return d;
}
}  // namespace

TEST_CASE("compare --statistic best: the fast state's figure, steady where the medians follow the state's share") {
  const std::vector<double> noise = {-0.004, 0.002, 0.0, 0.003, -0.002, 0.001, -0.001};
  // A ran while the fast state never lasted a repetition, B while it lasted (as in a minute
  // of this VM's host: benchmarks/results/2026-12-01-two-states.md).
  const kex::RunDoc a = two_state(1, {false, false, false, false, false, false, false}, noise);
  const kex::RunDoc b = two_state(1, {true, true, true, true, true, true, true}, noise);
  CompareOptions median_opt;
  median_opt.min_effect = 0.05;
  const Comparison by_median = compare_results(a, b, median_opt);
  CHECK(by_median.faster == by_median.rows.size());  // a false call on every point
  CompareOptions best_opt = median_opt;
  best_opt.statistic = Statistic::best;
  const Comparison by_best = compare_results(a, b, best_opt);
  CHECK(by_best.same == by_best.rows.size());
  for (const auto& r : by_best.rows) {
    CHECK(r.speedup == doctest::Approx(1.0));
    CHECK(r.a_ns == doctest::Approx(r.b_ns));
    CHECK(r.a_reps == 7);
  }
  // A real 10% slowdown of the fast state is still found.
  const Comparison slower = compare_results(a, two_state(1.1, {true, true, true, true, true, true, true}, noise), best_opt);
  CHECK(slower.slower == slower.rows.size());
  for (const auto& r : slower.rows) CHECK(r.speedup == doctest::Approx(1 / 1.1).epsilon(0.01));
  const std::string text = format_comparison(by_best, "A", "B");
  CHECK(text.find("Mann-Whitney U over the repetition fastest samples") != std::string::npos);
  CHECK(text.find("A best ns") != std::string::npos);
  CHECK(format_comparison(by_median, "A", "B").find("A median ns") != std::string::npos);
}

namespace {
/// A run whose context carries sentinel medians (L1 loop, memory read: ticks per KiB) and a threshold.
kex::RunDoc with_sentinel(double l1, double mem, double threshold = 0.15, double scale = 1) {
  kex::RunDoc d = two_state(scale, std::vector<bool>(7, true), {-0.004, 0.002, 0.0, 0.003, -0.002, 0.001, -0.001});
  const Noise n = compute_noise({l1, l1}, {mem, mem}, 0, 6, 0, 0.25, 1, {});
  d.context.protocol = ProtocolRecord{};
  d.context.protocol->sentinel.threshold = threshold;
  d.context.protocol->noise = n;
  return d;
}
}  // namespace

TEST_CASE("compare warns when the runs' sentinels say the machine was not in the same state") {
  // Measured on the Zen 5 VM: the L1 loop at 18.87 ticks/KiB in a quiet run, 22.48 in a run
  // with the core shared; the memory read 47.7 against 58.5 in the same pair of runs.
  const Comparison same = compare_results(with_sentinel(18.87, 48), with_sentinel(18.70, 52));
  CHECK(same.shifts.empty());
  const Comparison shared = compare_results(with_sentinel(18.87, 47.67), with_sentinel(22.48, 58.46));
  REQUIRE(shared.shifts.size() == 2);
  CHECK(shared.shifts[0].part == "L1 store loop");
  CHECK(shared.shifts[0].a == doctest::Approx(18.87));
  CHECK(shared.shifts[0].b == doctest::Approx(22.48));
  CHECK(shared.shifts[1].part == "memory read");
  const std::string text = format_comparison(shared, "A", "B");
  CHECK(text.find("warning: the machine was not in the same state in the two runs: sentinel L1 store loop 18.87 vs "
                  "22.48 TSC ticks per KiB (B +19%), the core's share (every point)") != std::string::npos);
  CHECK(text.find("sentinel memory read 47.67 vs 58.46 TSC ticks per KiB (B +23%), memory bandwidth") !=
        std::string::npos);
  // Nothing smaller than the machine's own shift is called: the default min effect follows it,
  // a --min-effect given stands.
  // The L1 loop's shift for every point, the memory read's beyond the L2 (1 MiB here).
  CHECK(shared.min_effect == doctest::Approx(22.48 / 18.87 - 1));
  CHECK(shared.min_effect_from_state);
  CHECK(shared.min_effect_beyond_l2 == doctest::Approx(58.46 / 47.67 - 1));
  CHECK(text.find("min effect 19.1% (the sentinels' shift), 22.6% beyond the L2 (the memory read's shift)") !=
        std::string::npos);
  // Only the memory read moved: a real 10% slowdown is found at every size up to the L2, and
  // hidden beyond it, where the machine alone moved the figures by 22.6%.
  const Comparison mem_only =
      compare_results(with_sentinel(18.87, 47.67), with_sentinel(18.87, 58.46, 0.15, 1.10));
  CHECK_FALSE(mem_only.min_effect_from_state);
  size_t within = 0, beyond = 0;
  for (const auto& r : mem_only.rows) {
    CHECK(r.verdict == (r.size <= (1u << 20) ? Change::slower : Change::same));
    (r.size <= (1u << 20) ? within : beyond)++;
  }
  CHECK(within > 0);
  CHECK(beyond > 0);
  // The warning and the effect use the same measure, |B/A - 1|: B 15% faster gives 15%.
  const Comparison faster = compare_results(with_sentinel(22.31, 48), with_sentinel(19.03, 48));
  CHECK(faster.min_effect == doctest::Approx(1 - 19.03 / 22.31));
  CHECK(format_comparison(faster, "A", "B").find("(B -15%)") != std::string::npos);
  CHECK_FALSE(same.min_effect_from_state);
  CompareOptions given;
  given.min_effect = 0.05;
  const Comparison kept = compare_results(with_sentinel(18.87, 47.67), with_sentinel(22.48, 58.46), given);
  CHECK(kept.min_effect == doctest::Approx(0.05));
  CHECK_FALSE(kept.min_effect_from_state);
  CHECK(kept.shifts.size() == 2);
  // Faster in B counts too; the larger of the two runs' thresholds decides, whichever side is A.
  CHECK(compare_results(with_sentinel(22.31, 48), with_sentinel(19.03, 48)).shifts.size() == 1);
  CHECK(compare_results(with_sentinel(18.87, 48, 0.25), with_sentinel(22.48, 48)).shifts.empty());
  CHECK(compare_results(with_sentinel(22.48, 48), with_sentinel(18.87, 48, 0.25)).shifts.empty());
  // Without a noise record (an imported or old file) there is nothing to say but that.
  const Comparison unknown = compare_results(two_state(1, {true}, {0}), with_sentinel(22.48, 58));
  CHECK(unknown.shifts.empty());
  CHECK(unknown.state_unknown);
  CHECK(format_comparison(unknown, "A", "B").find("note: only one of the runs has a sentinel record") !=
        std::string::npos);
  CHECK_FALSE(shared.state_unknown);
  CHECK(format_comparison(same, "A", "B").find("warning:") == std::string::npos);
}

TEST_CASE("kex compare: exit status 0 unless --fail-above finds a regression - bad input exits 2") {
  std::string k = KEX_BINARY;
  std::string a = kData + "compare_a.json", b = kData + "compare_b.json";
  CHECK(run_sh(k + " compare " + a + " " + b + " >/dev/null") == 0);
  CHECK(run_sh(k + " compare " + a + " " + b + " --fail-above 1.5 >/dev/null") == 1);
  {  // one repetition a side: the CIs decided the regression, and the line says so (no p)
    TmpDir g;
    run_sh(k + " compare -q " + a + " " + b + " --fail-above 1.5 --filter '^copy/sse/' >" + g / "out");
    CHECK(slurp(g / "out").find("regression: copy/sse/4096: B takes 2.0000x A's time (speedup 0.5000), CIs apart\n") !=
          std::string::npos);
  }
  CHECK(run_sh(k + " compare " + a + " " + b + " --fail-above 50% --filter '^copy/sse/' >/dev/null") == 1);
  CHECK(run_sh(k + " compare " + a + " " + b + " --fail-above 150% --filter '^copy/sse/' >/dev/null") == 0);
  // B lost copy/mmx (skipped there) and clear/sse: a gate fails on lost entries, whatever the ratios.
  CHECK(run_sh(k + " compare " + a + " " + b + " --fail-above 2.5 >/dev/null") == 1);
  CHECK(run_sh(k + " compare " + a + " " + b + " --fail-above 2.5 --filter '^(copy/(sse|avx)|memcpy)/' >/dev/null") == 0);
  // a gate that compares nothing fails; a gate of 0 or garbage is bad input
  CHECK(run_sh(k + " compare " + a + " " + b + " --fail-above 2.5 --filter nomatch >/dev/null") == 1);
  CHECK(run_sh(k + " compare " + a + " " + b + " --fail-above 0 2>/dev/null") == 2);
  CHECK(run_sh(k + " compare " + a + " " + b + " --fail-above nan 2>/dev/null") == 2);
  // Decimal only, the same with or without spaces, and the bound stated.
  for (const char* bad : {"' 1.05'", "'1.05 '", "0x1.1p0", "1e2", "1.0.5", "1000000"})
    CHECK_MESSAGE(run_sh(k + " compare " + a + " " + b + " --fail-above " + bad + " >/dev/null 2>&1") == 2, bad);
  {
    TmpDir g;
    CHECK(run_sh(k + " compare " + a + " " + b + " --fail-above 1000000 >/dev/null 2>" + g / "err") == 2);
    CHECK(slurp(g / "err") == "kex: --fail-above: 1000000: a slowdown of B against A: a factor from 1 to below "
                              "1000000 (1.05) or a percentage (5%)\n");
  }
  TmpDir d;
  spit(d / "bad.json", "{\"benchmarks\": 3}");
  CHECK(run_sh(k + " compare " + a + " " + d / "bad.json" + " 2>" + d / "err") == 2);
  std::string err = slurp(d / "err");
  CHECK(err.find("bad.json: benchmarks") != std::string::npos);
  // A malformed noise record or sentinel threshold is named by file and JSON path, with the value.
  {
    const std::string good = slurp(a);
    nlohmann::json j = nlohmann::json::parse(good);
    j["context"]["protocol"] = {{"noise", {{"sentinel_l1", {{"median_ticks_per_kib", "fast"}}}}}};
    spit(d / "noise.json", j.dump());
    CHECK(run_sh(k + " compare " + d / "noise.json" + " " + b + " >/dev/null 2>" + d / "err2") == 2);
    CHECK(slurp(d / "err2") == "kex: " + d / "noise.json" +
                                   ": context/protocol/noise/sentinel_l1/median_ticks_per_kib: \"fast\": expected a "
                                   "number >= 0\n");
    j["context"]["protocol"] = {{"sentinel", {{"threshold", -1}}}};
    spit(d / "thr.json", j.dump());
    CHECK(run_sh(k + " compare " + a + " " + d / "thr.json" + " >/dev/null 2>" + d / "err3") == 2);
    CHECK(slurp(d / "err3") == "kex: " + d / "thr.json" +
                                   ": context/protocol/sentinel/threshold: -1: expected a number in 0.001..10\n");
    j["context"]["protocol"] = nlohmann::json::object();
    j["context"]["sentinel_readings"] = {{{"l1_ticks_per_kib", 18.7}}, {{"l1_ticks_per_kib", "18.7"}}};
    spit(d / "readings.json", j.dump());
    CHECK(run_sh(k + " compare " + a + " " + d / "readings.json" + " >/dev/null 2>" + d / "err4") == 2);
    CHECK(slurp(d / "err4") == "kex: " + d / "readings.json" +
                                   ": context/sentinel_readings/1/l1_ticks_per_kib: \"18.7\": expected a number >= 0\n");
  }
  // Machine fields of the wrong type or range name the file and path.
  {
    nlohmann::json m = kex::to_json(synth::run());
    m["context"]["machine"]["caches"]["l1d_bytes"] = -1;
    spit(d / "l1d.json", m.dump());
    CHECK(run_sh(k + " compare " + d / "l1d.json" + " " + a + " >/dev/null 2>" + d / "err8") == 2);
    CHECK(slurp(d / "err8") == "kex: " + d / "l1d.json" +
                                   ": context/machine/caches/l1d_bytes: -1: expected an integer in 0..1099511627776\n");
    m["context"]["machine"]["caches"]["l1d_bytes"] = 49152;
    m["context"]["machine"]["cpu_family"] = 1e30;
    spit(d / "fam.json", m.dump());
    CHECK(run_sh(k + " compare " + d / "fam.json" + " " + a + " >/dev/null 2>" + d / "err9") == 2);
    CHECK(slurp(d / "err9").find(d / "fam.json" + ": context/machine/cpu_family: ") != std::string::npos);
  }
  // Corrupted timings never reach the table or a gate: negative, zero, beyond a double, a bad code hash.
  {
    nlohmann::json j = kex::to_json(synth::run());
    nlohmann::json* rep = nullptr;
    for (auto& e : j["benchmarks"])
      if (e.contains("reps")) {
        rep = &e["reps"][0];
        break;
      }
    REQUIRE(rep != nullptr);
    (*rep)["median_ticks"] = -104.4;
    spit(d / "neg.json", j.dump());
    CHECK(run_sh(k + " compare " + d / "neg.json" + " " + d / "neg.json" + " --fail-above 5% >/dev/null 2>" +
                 d / "err5") == 2);
    const std::string e5 = slurp(d / "err5");
    CHECK(e5.find(d / "neg.json" + ": benchmarks/") == 5);
    CHECK(e5.find("/reps/0/median_ticks: -104.4") != std::string::npos);
    CHECK(e5.find("expected a time > 0") != std::string::npos);
    spit(d / "big.json", "{\"benchmarks\": [], \"context\": {\"x\": 1e400}}");
    CHECK(run_sh(k + " compare " + d / "big.json" + " " + a + " >/dev/null 2>" + d / "err6") == 2);
    CHECK(slurp(d / "err6").find("kex: " + d / "big.json" + ": not JSON: ") == 0);
    nlohmann::json h = kex::to_json(synth::run());
    for (auto& e : h["benchmarks"])
      if (e.contains("code")) e["code"]["fnv1a"] = "zz";
    spit(d / "hash.json", h.dump());
    CHECK(run_sh(k + " compare " + d / "hash.json" + " " + a + " >/dev/null 2>" + d / "err7") == 2);
    CHECK(slurp(d / "err7").find("/code/fnv1a: \"zz\": allowed: 1 to 16 hex digits") != std::string::npos);
  }
  // Points that differ only in a coordinate never pair up: their names differ.
  kex::RunDoc x = synth::run(), y = synth::run();
  for (auto& r : y.results) r.point.at.layout.dst_offset = 1;
  Comparison none = compare_results(x, y);
  CHECK(none.rows.empty());
  CHECK(none.only_a.size() == none.only_b.size());
  CHECK(std::count(err.begin(), err.end(), '\n') == 1);
}

TEST_CASE("golden: kex compare's text of the fixed run against a contender, median and best" *
          doctest::test_suite("golden")) {
  // As `kex compare a.json b.json [--statistic best]` prints it, B = golden::contender:
  // one repetition a side (CI verdicts; best has none), then eight (U tests; six a side
  // cannot reach p < 0.01 over 15 rows with three differences after the correction).
  const auto text = [](const RunDoc& a, const RunDoc& b, Statistic s) {
    CompareOptions o;
    o.statistic = s;
    return format_comparison(compare_results(a, b, o), "a.json (" + run_label(a.context) + ")",
                             "b.json (" + run_label(b.context) + ")");
  };
  const RunDoc a = golden::run(), b = golden::contender(a);
  CHECK(golden::check("compare.txt", text(a, b, Statistic::median)) == "");
  CHECK(golden::check("compare-best.txt", text(a, b, Statistic::best)) == "");
  const RunDoc a8 = golden::repeated(a, 8), b8 = golden::repeated(b, 8);
  CHECK(golden::check("compare-repeated.txt", text(a8, b8, Statistic::median)) == "");
  CHECK(golden::check("compare-repeated-best.txt", text(a8, b8, Statistic::best)) == "");
  // --format markdown: the same comparison as GitHub Markdown, for a pull request.
  CHECK(golden::check("compare-repeated.md", format_comparison_markdown(compare_results(a8, b8), "a.json (" +
                                                                          run_label(a8.context) + ")",
                                                                      "b.json (" + run_label(b8.context) + ")")) == "");
}

namespace {

/// A run of one paired group at 4096 bytes: each kernel's time in each of `rounds`
/// rounds is base x the round's machine state x the run's state x a little noise.
RunDoc paired_run(const std::vector<std::pair<std::string, double>>& kernels, double run_state, uint64_t seed,
                  size_t rounds = 20) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> state(0.8, 1.6);
  std::normal_distribution<double> noise(0, 0.004);
  std::vector<double> s(rounds);
  for (double& x : s) x = state(rng) * run_state;
  RunDoc d;
  for (const auto& [name, base] : kernels) {
    Result r;
    r.spec = parse_spec_name(name);
    r.op = r.spec->op;
    r.point = {name, {}};
    r.point.at.size = 4096;
    r.tsc_hz = 1e9;
    for (size_t k = 0; k < rounds; ++k) {
      Repetition rep;
      rep.per_call.n = 8;
      rep.per_call.median = rep.per_call.min = base * s[k] * std::exp(noise(rng));
      rep.round = k + 1;
      r.reps.push_back(rep);
    }
    d.results.push_back(r);
  }
  return d;
}

}  // namespace

TEST_CASE("compare relative to the group: a whole-machine change cancels, a kernel's own change is called") {
  const std::vector<std::pair<std::string, double>> a = {{"copy/sse/unroll:64/scratch:4/t/fwd", 100},
                                                         {"copy/avx/unroll:128/scratch:4/t/fwd", 80},
                                                         {"copy/gpr/unroll:64/scratch:8/t/fwd", 150},
                                                         {"copy/avx512/unroll:256/scratch:4/t/fwd", 70}};
  std::vector<std::pair<std::string, double>> b = a;
  b[1].second = 80 * 1.10;  // avx 10% slower relative to the others
  // Run B's machine is 30% slower throughout (another state for the whole run).
  const RunDoc ra = paired_run(a, 1.0, 1), rb = paired_run(b, 1.3, 2);
  const Comparison rel = compare_results(ra, rb);
  REQUIRE(rel.rows.size() == 4);
  CHECK(rel.relative_rows == 4);
  CHECK(rel.relative_min_effect == doctest::Approx(kRelativeMinEffect));
  for (const CompareRow& r : rel.rows) {
    CAPTURE(r.name);
    CHECK(r.relative);
    CHECK(r.a_reps == 20);
    const bool avx = r.name.find("copy/avx/") == 0;
    CHECK(r.verdict == (avx ? Change::slower : Change::same));
    // 10% slower, seen a little larger: its change also moved its group's shift by 1/4 of it.
    if (avx) CHECK(r.speedup == doctest::Approx(1 / 1.10).epsilon(0.04));
    CHECK(r.detectable < 0.02);  // 20 rounds of 0.4% noise: a 2% change would be found
  }
  CHECK(rel.slower == 1);
  // Absolute: the machine's 30% is every kernel's.
  CompareOptions abs;
  abs.absolute = true;
  abs.min_effect = 0.05;
  const Comparison c = compare_results(ra, rb, abs);
  CHECK(c.relative_rows == 0);
  CHECK(c.slower == 4);
  const std::string text = format_comparison(rel, "a", "b");
  CHECK(text.find("4 points measured in paired rounds on both sides are compared relative to their group") !=
        std::string::npos);
  CHECK(text.find("power: with these rounds a relative change of about") != std::string::npos);
  CHECK(text.find("0.9") != std::string::npos);
  // Every row relative: one threshold is said, the one in force (not the absolute rows' 1%
  // beside the relative rows' 3% on the next line).
  CHECK_MESSAGE(text.find("a point differs when") == std::string::npos, text);
  CHECK_MESSAGE(text.find("min effect 3.0% (relative to the group)") != std::string::npos, text);
  const std::string absolute_text = format_comparison(c, "a", "b");
  CHECK(absolute_text.find("a point differs when p < 0.01 and the speedup is off 1 by at least 5.0%") != std::string::npos);
  CHECK(absolute_text.find("min effect 5.0%;") != std::string::npos);
}

TEST_CASE("compare relative to the group: the runs' own disagreement sets the minimum effect (an empirical null)") {
  // 16 kernels; run B moves each one's standing by a run-level 0..±8% (no round shows
  // that), and one kernel by 40%: only that one is called.
  std::vector<std::pair<std::string, double>> a, b;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> run_level(-0.08, 0.08);
  for (uint32_t k = 0; k < 16; ++k) {
    const std::string name = "copy/avx/unroll:" + std::to_string(32 * (k + 1)) + "/scratch:2/t/fwd";
    a.push_back({name, 100.0 + k});
    b.push_back({name, (100.0 + k) * (1 + run_level(rng)) * (k == 5 ? 1.4 : 1.0)});
  }
  const Comparison c = compare_results(paired_run(a, 1.0, 4), paired_run(b, 1.0, 5));
  CHECK(c.relative_rows == 16);
  CHECK(c.between_runs > 0.02);
  CHECK(c.between_runs < 0.08);
  CHECK(c.relative_min_effect == doctest::Approx(std::pow(1 + c.between_runs, 3) - 1));
  CHECK(c.slower == 1);
  CHECK(c.faster == 0);
  for (const CompareRow& r : c.rows) CHECK((r.verdict == Change::slower) == (r.name.find("unroll:192/") != std::string::npos));
  const std::string text = format_comparison(c, "a", "b");
  CHECK(text.find("between the runs: the points' standing in their groups moved by") != std::string::npos);
  CHECK(text.find("so a point is called only beyond") != std::string::npos);
}
