// The seed harnesses (fast.c v1.6, LaHaise's xmm64.c, Hahn's athlon.c) give typed
// Results, and the seed-table writer prints them in the seeds' layout.
#include <doctest/doctest.h>

#include <cstdio>

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
  CHECK(text.find("\nAthlon test program $Id: fast.c,v 1.6 2000/09/23 09:05:45 arjan Exp $ \n") != std::string::npos);
  CHECK(text.find("Cycles are TSC ticks") != std::string::npos);
  auto clear_at = text.find("clear_page() tests \n"), copy_at = text.find("\n\ncopy_page() tests \n");
  REQUIRE(clear_at != std::string::npos);
  REQUIRE(copy_at != std::string::npos);
  CHECK(clear_at < copy_at);
  CHECK(text.find("clear_page function 'warm up run'\t took ") != std::string::npos);
  CHECK(text.find("clear_page function '2.4 MMX version'\t took ") != std::string::npos);
  CHECK(text.find("copy_page function 'v26_copy_page'\t took ") != std::string::npos);
  CHECK(text.find("'xmma_clear'\t took ") != std::string::npos);
  CHECK(text.find("cycles per page\t[low-confidence reconstruction]") != std::string::npos);
  const std::string exact = seed_table_text(r, SeedText::exact);
  CHECK(exact.rfind("Athlon test program $Id: fast.c,v 1.6 2000/09/23 09:05:45 arjan Exp $ \nclear_page() tests \n", 0) == 0);
  CHECK(exact.find('#') == std::string::npos);
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
  // The offset is the program's, not the kernel family's: fast.c ran LaHaise's GPR copy at +8
  // too; a kernel needing 16-byte alignment cannot, and runs page-aligned with a note.
  CHECK(r.results[1].seed->buffer_offset == 0);
  CHECK(r.results[1].seed->note.find("16-byte alignment") != std::string::npos);
  const Result& e3 = r.results[3];
  CHECK(e3.op == Op::copy);
  CHECK(e3.reps.front().calls_per_sample == 2048);
  CHECK(e3.seed->buffer_offset == 8);
  CHECK(e3.placed->dst_page_offset == 8);
  CHECK(e3.seed->src_minus_dst == 8 * 1024 * 1024);
  // The median time per page and the printed TSC ticks agree within the integer truncation.
  const double ticks = aggregate(e3).median_ns * machine().tsc_hz / 1e9;
  const double printed = double(e3.seed->printed_ticks);
  CHECK(ticks == doctest::Approx(printed).epsilon(0.01 + 1.0 / printed));
  // The JSON of a seed result reads back to the same Result.
  CHECK(result_from_json(to_json(e3), e3.tsc_hz, "e3") == e3);
  CHECK_THROWS_AS(run_seed_harness({fc}, Harness::kex, {}), std::invalid_argument);
}

TEST_CASE("xmm64 harness: fast.c's passes on a page-aligned buffer, LaHaise's banner with the buffer" *
          doctest::test_suite("harness")) {
  const Preset* fc = find_preset("fastc/faster_clear_page");
  const Preset* xc = find_preset("xmm64/xmm_clear");
  const SeedRun r = run_seed_harness({fc, xc}, Harness::xmm64, {});
  REQUIRE(r.results.size() == 2);
  for (const Result& e : r.results) {
    REQUIRE_MESSAGE(e.ok(), e.status.message);
    CHECK(e.seed->buffer_offset == 0);  // fast.c's kernel too: xmm64.c's buffer was page-aligned
    CHECK(e.placed->dst_page_offset == 0);
    CHECK(e.reps.front().calls_per_sample == 4096);
    CHECK(e.seed->note.empty());
  }
  CHECK(r.results[0].name() == "fastc/faster_clear_page/4096/harness:xmm64");
  CHECK(r.header.buffer_address % 4096 == 0);
  const std::string exact = seed_table_text(r, SeedText::exact);
  char banner[160];
  snprintf(banner, sizeof banner, "SSE test program $Id: fast.c,v 1.6 2000/09/23 09:05:45 arjan Exp $ buffer = %p\n",
           reinterpret_cast<void*>(r.header.buffer_address));
  CHECK(exact.rfind(std::string(banner) + "clear_page() tests \nclear_page function 'faster_clear_page'\t took ", 0) == 0);
  CHECK(exact.find("\nclear_page function 'xmm_clear'\t took ") != std::string::npos);
  CHECK(exact.find("copy_page") == std::string::npos);  // no copies: no copy section
  CHECK(result_from_json(to_json(r.results[1]), r.results[1].tsc_hz, "x") == r.results[1]);
}

TEST_CASE("Hahn harness: MHz line, halved copy figure, MB/s" * doctest::test_suite("harness")) {
  const SeedRun r =
      run_seed_harness({find_preset("fastc/normal_clear_page"), find_preset("hahn/faster_copy")}, Harness::hahn, {});
  REQUIRE(r.results.size() == 2);
  const std::string text = seed_table_text(r);
  CHECK(text.find(" MHz\n") != std::string::npos);
  CHECK(text.find("clear_page by 'normal_clear_page'  \t took ") != std::string::npos);
  CHECK(text.find("\n\ncopy_page by 'faster_copy'\t took ") != std::string::npos);
  const std::string exact = seed_table_text(r, SeedText::exact);
  char mhz_line[32];
  snprintf(mhz_line, sizeof mhz_line, "%3.3f MHz\n", r.header.hahn_mhz);
  CHECK(exact.rfind(std::string(mhz_line) + "clear_page by 'normal_clear_page'  \t took ", 0) == 0);
  const Result& c = r.results[0];
  const Result& k = r.results[1];
  REQUIRE(c.ok());
  REQUIRE(k.ok());
  CHECK(c.reps.front().calls_per_sample == 8192);
  CHECK(k.reps.front().calls_per_sample == 4096);
  CHECK_FALSE(k.seed->note.empty());
  CHECK(c.seed->note.empty());
  const double mhz = k.seed->mhz;
  // athlon.c's own estimate (a TSC-on-wall-clock fit over 30 sleeps): near the TSC
  // rate, but a VM that stalls one sleep moves it by a percent, so only a sanity bound.
  CHECK(mhz == doctest::Approx(machine().tsc_hz / 1e6).epsilon(0.10));
  // athlon.c: copy cycles = delta/8192 for 4096 copies = half the per-copy time in TSC
  // ticks; MB/s = 32 MiB / time at its MHz, i.e. 2 * 4096 B per copy.
  REQUIRE(k.reps.front().sample_ticks.size() == 1);
  const uint64_t delta = k.reps.front().sample_ticks[0];
  CHECK(k.seed->printed_ticks == int64_t(delta / 8192));
  CHECK(k.seed->mb_per_s == doctest::Approx(2 * 4096.0 * 4096 / (double(delta) / (mhz * 1e6)) / (1 << 20)));
  CHECK(aggregate(k).median_ns == doctest::Approx(double(delta) / 4096 / machine().tsc_hz * 1e9));
}

TEST_CASE("mem_cp harness: 4 MiB of verified copies per size, MB/s from gettimeofday" * doctest::test_suite("harness")) {
  const Preset* b = find_preset("asami/generic_bcopy");
  const Preset* clear = find_preset("linux/clear_page_erms");
  const SeedRun r = run_seed_harness({b, clear}, Harness::mem_cp, {}, nullptr, {10000, 4096});
  REQUIRE(r.results.size() == 4);  // per preset, its sizes ascending
  CHECK(r.header.harness == Harness::mem_cp);
  CHECK(r.header.buffer_address % 4096 == 0);
  const Result& a = r.results[0];
  const Result& z = r.results[1];
  CHECK(a.name() == "asami/generic_bcopy/4096/harness:mem_cp");
  CHECK(z.name() == "asami/generic_bcopy/10000/harness:mem_cp");
  for (const Result* e : {&a, &z}) {
    REQUIRE_MESSAGE(e->ok(), e->status.message);
    REQUIRE(e->seed);
    CHECK(e->seed->buffer_bytes == 4194304);
    const uint64_t copies = 4194304 / e->point.at.size;
    CHECK(e->seed->pages == copies);
    CHECK(e->reps.front().calls_per_sample == copies);
    REQUIRE(e->reps.front().seconds > 0);
    // mem_cp's figure: the bytes copied, in MiB, over its gettimeofday time
    CHECK(e->seed->mb_per_s == doctest::Approx(double(copies * e->point.at.size) / (1 << 20) / e->reps.front().seconds));
  }
  CHECK(a.seed->pages == 1024);
  CHECK(z.seed->pages == 419);
  // mem_cp timed bcopy: a clear does not run
  CHECK(r.results[2].status.kind == StatusKind::skipped);
  CHECK(r.results[2].status.message == "mem_cp times copies only");
  const std::string exact = seed_table_text(r, SeedText::exact);
  CHECK(exact.rfind("generic_bcopy\n    size    bandwidth\n    4096", 0) == 0);
  CHECK(exact.find("\n   10000 ") != std::string::npos);
  CHECK(mem_cp_sizes().front() == 32);
  CHECK(mem_cp_sizes().back() == 10000);
  CHECK(result_from_json(to_json(z), z.tsc_hz, "z") == z);
}
