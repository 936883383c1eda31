// The seed harnesses (fast.c v1.6, Hahn's athlon.c) give typed Results, and the
// seed-table writer prints them in the seeds' layout.
#include <doctest/doctest.h>

#include "generators/presets/presets.hpp"
#include "src/model/result_json.hpp"
#include "src/results/seed_text.hpp"
#include "src/run/harness.hpp"
#include "src/run/machine.hpp"
#include "src/run/plans.hpp"

using namespace kex;

TEST_CASE("fast.c harness: seed layout and results" * doctest::test_suite("harness")) {
  const Preset* fc = find_preset("fastc/fast_clear_page");
  const Preset* v26 = find_preset("xmm64/v26_copy_page");
  const Preset* low = find_preset("xmm64/xmma_clear");
  const SeedRun r = run_seed_harness({fc, low, fc, v26}, Harness::fastc, {});
  REQUIRE(r.results.size() == 4);
  const std::string text = seed_table_text(r);
  CHECK(text.find("Athlon test program $Id: fast.c,v 1.6 2000/09/23 09:05:45 arjan Exp $") != std::string::npos);
  CHECK(text.find("Cycles are TSC ticks") != std::string::npos);
  auto clear_at = text.find("clear_page() tests\n"), copy_at = text.find("copy_page() tests\n");
  REQUIRE(clear_at != std::string::npos);
  REQUIRE(copy_at != std::string::npos);
  CHECK(clear_at < copy_at);
  CHECK(text.find("clear_page function 'warm up run'\ttook ") != std::string::npos);
  CHECK(text.find("clear_page function '2.4 MMX version'\ttook ") != std::string::npos);
  CHECK(text.find("copy_page function 'v26_copy_page'\ttook ") != std::string::npos);
  CHECK(text.find("'xmma_clear'\ttook ") != std::string::npos);
  CHECK(text.find("cycles per page\t[low-confidence reconstruction]") != std::string::npos);
  const Result& e0 = r.results[0];
  CHECK(e0.name() == "fastc/fast_clear_page/4096/harness:fastc");
  CHECK(r.results[2].name() == "fastc/fast_clear_page/4096/harness:fastc/pass:2");
  REQUIRE(e0.seed);
  CHECK(e0.seed->label == "warm up run");
  CHECK(r.results[2].seed->label == "2.4 MMX version");
  REQUIRE(e0.ok());
  CHECK(e0.reps.front().calls_per_sample == 4096);
  CHECK(e0.seed->buffer_offset == 8);
  CHECK(e0.preset->confidence == Confidence::high);
  CHECK(e0.code->bytes > 0);
  CHECK(e0.seed->printed_ticks > 0);
  const Result& e3 = r.results[3];
  CHECK(e3.op == Op::copy);
  CHECK(e3.reps.front().calls_per_sample == 2048);
  CHECK(e3.seed->buffer_offset == 0);  // xmm64 family: page-aligned as xmm64.c
  CHECK(e3.seed->src_minus_dst == 8 * 1024 * 1024);
  // The median time per page and the printed TSC ticks agree within the integer truncation.
  const double ticks = aggregate(e3).median_ns * machine().tsc_hz / 1e9;
  const double printed = double(e3.seed->printed_ticks);
  CHECK(ticks == doctest::Approx(printed).epsilon(0.01 + 1.0 / printed));
  // The JSON of a seed result reads back to the same Result.
  CHECK(result_from_json(to_json(e3), e3.tsc_hz, "e3") == e3);
  CHECK_THROWS_AS(run_seed_harness({fc}, Harness::kex, {}), std::invalid_argument);
}

TEST_CASE("seed lines: fast.c and athlon.c layouts" * doctest::test_suite("harness")) {
  auto facts = [](const char* name) { return preset_plan(*find_preset(name), {}).preset.value(); };
  CHECK(format_seed_line(facts("hahn/fast_clear_page"), Op::clear, Harness::hahn, 4662.9, 502.71) ==
        "clear_page by 'fast_clear_page'  \ttook 4662 cycles (502.7 MB/s)");
  CHECK(format_seed_line(facts("hahn/faster_copy"), Op::copy, Harness::hahn, 2746, 853.5) ==
        "copy_page by 'faster_copy'\ttook 2746 cycles (853.5 MB/s)");
  CHECK(format_seed_line(facts("copy:2.4 non MMX"), Op::copy, Harness::fastc, 17886, 0) ==
        "copy_page function '2.4 non MMX'\ttook 17886 cycles per page");
  CHECK(format_seed_line(facts("xmm64/v26_copy_page"), Op::copy, Harness::fastc, 12, 0) ==
        "copy_page function 'v26_copy_page'\ttook   12 cycles per page");
}

TEST_CASE("Hahn harness: MHz line, halved copy figure, MB/s" * doctest::test_suite("harness")) {
  const SeedRun r =
      run_seed_harness({find_preset("fastc/normal_clear_page"), find_preset("hahn/faster_copy")}, Harness::hahn, {});
  REQUIRE(r.results.size() == 2);
  const std::string text = seed_table_text(r);
  CHECK(text.find(" MHz\n") != std::string::npos);
  CHECK(text.find("clear_page by 'normal_clear_page'  \ttook ") != std::string::npos);
  CHECK(text.find("copy_page by 'faster_copy'\ttook ") != std::string::npos);
  const Result& c = r.results[0];
  const Result& k = r.results[1];
  REQUIRE(c.ok());
  REQUIRE(k.ok());
  CHECK(c.reps.front().calls_per_sample == 8192);
  CHECK(k.reps.front().calls_per_sample == 4096);
  CHECK_FALSE(k.seed->note.empty());
  CHECK(c.seed->note.empty());
  const double mhz = k.seed->mhz;
  CHECK(mhz == doctest::Approx(machine().tsc_hz / 1e6).epsilon(0.02));
  // athlon.c: copy cycles = delta/8192 for 4096 copies = half the per-copy time;
  // MB/s = 32 MiB / time, i.e. 2 * 4096 B per copy.
  const double ns = aggregate(k).median_ns;
  const double cyc = double(k.seed->printed_ticks);
  CHECK(cyc == doctest::Approx(ns * mhz / 1e3 / 2).epsilon(0.01 + 1.0 / cyc));
  CHECK(k.seed->mb_per_s == doctest::Approx(2 * 4096.0 / (ns * 1e-9) / (1 << 20)).epsilon(0.01));
}
