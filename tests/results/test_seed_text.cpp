// The seed-table writer prints each seed program's lines byte for byte: the seeds' and
// the archives' own lines (tests/golden/), numbers masked, equal kex's --seed-exact text
// after what each archive did to it (docs/seed-kernels.md §1.5).
#include <doctest/doctest.h>

#include "generators/presets/presets.hpp"
#include "src/core/terminal_text.hpp"
#include "src/results/seed_text.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/seed_golden.hpp"

using namespace kex;

namespace {

/// A seed run of `set` as run_seed_harness returns it (clears first, each op in set
/// order, the first fast.c MMX kernel labelled 'warm up run'), with made-up figures.
SeedRun synth_run(std::string_view set, Harness h) {
  SeedRun run;
  run.header.harness = h;
  run.header.tsc_mhz = 2000;
  run.header.tsc_source = "synthetic";
  run.header.cpu_model = "Synthetic CPU";
  run.header.pinned_cpu = 0;
  run.header.buffer_address = 0x7f3a12345000;
  run.header.hahn_mhz = h == Harness::hahn ? 2000.123 : 0;
  int n = 0;
  for (Op op : {Op::clear, Op::copy}) {
    bool first = true;
    for (const Preset* p : preset_set(set)) {
      if (p->op != op) continue;
      Result r;
      r.op = op;
      r.kind = KernelKind::preset;
      r.preset = preset_facts(*p, {}, true);
      r.point.kernel = p->id;
      r.point.at.size = 4096;
      r.point.at.harness = h;
      SeedFigures f;
      f.printed_ticks = 1000 + 379 * n++;
      f.mb_per_s = h == Harness::hahn ? 123.4 * n : 0;
      const bool warm = h != Harness::hahn && first &&
                        std::find(p->aliases.begin(), p->aliases.end(), "warm up run") != p->aliases.end();
      first = false;
      f.label = warm ? "warm up run" : h == Harness::hahn ? r.preset->hahn_printed : p->printed;
      f.buffer_offset = h == Harness::fastc && p->alignment <= 8 ? 8 : 0;
      r.seed = f;
      r.reps = {Repetition{}};
      run.results.push_back(r);
    }
  }
  return run;
}

std::vector<std::string> exact_lines(std::string_view set, Harness h) {
  return golden::lines(seed_table_text(synth_run(set, h), SeedText::exact));
}

}  // namespace

TEST_CASE("seed lines: fast.c's and athlon.c's printf, widths included" * doctest::test_suite("seedtext")) {
  auto facts = [](const char* name) { return preset_facts(*find_preset(name), {}, true); };
  CHECK(format_seed_line(facts("hahn/fast_clear_page"), Op::clear, Harness::hahn, 4662.9, 502.71) ==
        "clear_page by 'fast_clear_page'  \t took 4662 cycles (502.7 MB/s)");
  CHECK(format_seed_line(facts("hahn/faster_copy"), Op::copy, Harness::hahn, 2746, 853.5) ==
        "copy_page by 'faster_copy'\t took 2746 cycles (853.5 MB/s)");
  CHECK(format_seed_line(facts("hahn/faster_copy"), Op::copy, Harness::hahn, 57.9, 85.25) ==
        "copy_page by 'faster_copy'\t took   57 cycles (85.2 MB/s)");  // %4Lu, %0.1f
  CHECK(format_seed_line(facts("copy:2.4 non MMX"), Op::copy, Harness::fastc, 17886, 0) ==
        "copy_page function '2.4 non MMX'\t took 17886 cycles per page");
  CHECK(format_seed_line(facts("xmm64/v26_copy_page"), Op::copy, Harness::xmm64, 12, 0) ==
        "copy_page function 'v26_copy_page'\t took   12 cycles per page");  // %4lli
  CHECK(format_seed_line(facts("xmm64/nt_clear"), Op::clear, Harness::fastc, 4746, 0) ==
        "clear_page function 'nt clear  '\t took 4746 cycles per page");  // the name's own blanks
  CHECK(format_seed_line(facts("fastc/faster_copy"), Op::copy, Harness::kex, 1234.5, 99.94) ==
        "copy_page function 'faster_copy'\t took 1234 cycles per page (99.9 MB/s)");
}

TEST_CASE("Manfred Spraul's athlon.c (set spraul): Roger Luethi's raw lines byte for byte, seed 004" *
          doctest::test_suite("seedtext")) {
  const auto kex = exact_lines("spraul", Harness::fastc);
  // Mutt kept the program's tabs and trailing blanks: no rendering at all.
  CHECK(golden::mask(kex) == golden::mask(golden::lines(golden::read("lkml-20021024-luethi-spraul.txt"))));
  CHECK(golden::mask(golden::terminal(kex, false)) == golden::mask(golden::lines(golden::read("seed-004-spraul.txt"))));
  CHECK(kex[0] == "Athlon test program $Id: fast.c,v 1.6 2000/09/23 09:05:45 arjan Exp $ ");
  CHECK(kex[2] == "copy_page() tests ");
}

TEST_CASE("Arjan van de Ven's fast.c v1.6 (set fastc): both sections as Brian Litzinger's table" *
          doctest::test_suite("seedtext")) {
  const auto kex = exact_lines("fastc", Harness::fastc);
  CHECK(golden::mask(golden::terminal(kex, true)) ==
        golden::mask(golden::lines(golden::read("lkml-20010919-litzinger-fastc.txt"))));
}

TEST_CASE("Hahn's athlon.c (set hahn): Dieter Nuetzel's table column for column, seed 001" *
          doctest::test_suite("seedtext")) {
  const auto kex = exact_lines("hahn", Harness::hahn);
  CHECK(golden::mask(golden::terminal(kex, true)) ==
        golden::mask(golden::lines(golden::read("lkml-20021024-nuetzel-hahn.txt"))));
  CHECK(golden::mask(golden::hypermail(kex)) == golden::mask(golden::lines(golden::read("seed-001-hahn.txt"))));
  CHECK(kex[0] == "2000.123 MHz");
}

TEST_CASE("LaHaise's xmm64.c (set xmm64): banner and buffer on one line, seed 000 as Thunderbird wrapped it" *
          doctest::test_suite("seedtext")) {
  const auto kex = exact_lines("xmm64", Harness::xmm64);
  REQUIRE(kex.size() > 2);
  CHECK(kex[0] == "SSE test program $Id: fast.c,v 1.6 2000/09/23 09:05:45 arjan Exp $ buffer = 0x7f3a12345000");
  const auto head = golden::lines(golden::read("lkml-20050530-lahaise-xmm64-head.txt"));
  CHECK(golden::mask(std::vector<std::string>(kex.begin(), kex.begin() + 2)) == golden::mask(head));
  CHECK(golden::mask(golden::thunderbird(kex)) == golden::mask(golden::lines(golden::read("seed-000-xmm64.txt"))));
}

TEST_CASE("seed-exact has no '#' lines and no notes, the annotated table has both" * doctest::test_suite("seedtext")) {
  SeedRun run = synth_run("xmm64", Harness::fastc);
  run.results[8].status = {StatusKind::skipped, "this CPU lacks SSE2", 0, std::nullopt};  // xmma_clear
  run.results[9].status = {StatusKind::error, "test invalid; timer overflow", 0, std::nullopt};
  const std::string exact = seed_table_text(run, SeedText::exact);
  const std::string notes = seed_table_text(run);
  CHECK(exact.find('#') == std::string::npos);
  CHECK(exact.find("[low-confidence") == std::string::npos);
  CHECK(exact.find("(xmm64/") == std::string::npos);
  CHECK(exact.find("'xmma_clear'") == std::string::npos);  // did not run: no line
  CHECK(exact.find("\ntest invalid; timer overflow \n") != std::string::npos);  // fast.c's own line
  CHECK(notes.rfind("# kex seed harness 'fastc' (fast.c v1.6 protocol). Cycles are TSC ticks", 0) == 0);
  CHECK(notes.find("# buffer: 16 MiB at 0x7f3a12345000; every kernel at +8") != std::string::npos);
  CHECK(notes.find("clear_page function 'xmma_clear'\t skipped: this CPU lacks SSE2\n") != std::string::npos);
  CHECK(notes.find("test invalid; timer overflow \t('xmm2_clear')") != std::string::npos);
  CHECK(notes.find("cycles per page\t[low-confidence reconstruction]") != std::string::npos);
  // xmm_clear needs 16-byte alignment, so under fast.c's +8 buffer it ran page-aligned.
  CHECK(notes.find("'xmm_clear'\t took 3653 cycles per page\t(page-aligned: needs 16-byte alignment)") !=
        std::string::npos);
  // Every program line of the annotated table is the exact table's line, notes aside.
  std::vector<std::string> stripped;
  for (const auto& l : golden::lines(notes)) {
    if (l.rfind("#", 0) == 0 || l.find(" skipped: ") != std::string::npos) continue;
    stripped.push_back(l.substr(0, std::min(l.find("\t["), l.find("\t("))));
  }
  CHECK(stripped == golden::lines(exact));
}

TEST_CASE("seed passes: each repetition is one pass with the figure the program printed for it, and the annotated line gives the spread" *
          doctest::test_suite("seed")) {
  SeedRun run = golden::seed_run();
  Result* r = nullptr;
  for (auto& x : run.results)
    if (x.ok() && x.seed && x.seed->divisor) { r = &x; break; }
  REQUIRE(r != nullptr);
  const uint64_t div = r->seed->divisor;
  r->reps.front().sample_ticks = {1012 * div + 3};
  r->seed->printed_ticks = 1012;
  Repetition second = r->reps.front(), third = r->reps.front();
  second.sample_ticks = {1090 * div};
  third.sample_ticks = {1050 * div + div - 1};
  r->reps.push_back(second);
  r->reps.push_back(third);
  const std::vector<SeedRun> passes = seed_passes(run);
  REQUIRE(passes.size() == 3);
  for (const SeedRun& p : passes) CHECK(p.results.size() == run.results.size());
  auto printed = [&](const SeedRun& p) {
    for (const auto& x : p.results)
      if (x.point == r->point) return x.seed->printed_ticks;
    return int64_t(-1);
  };
  CHECK(printed(passes[0]) == 1012);
  CHECK(printed(passes[1]) == 1090);
  CHECK(printed(passes[2]) == 1050);
  CHECK(seed_table_text(passes[1], SeedText::exact).find("took 1090 cycles per page") != std::string::npos);
  CHECK(seed_table_text(run, SeedText::exact).find("[") == std::string::npos);
  CHECK(seed_table_text(run).find("took 1012 cycles per page  [3 runs: min 1012, max 1090, spread 7.7%]") !=
        std::string::npos);
  CHECK(seed_passes(golden::seed_run()).size() == 1);
}

TEST_CASE("seed tables print labels, messages and the CPU model of a file escaped" * doctest::test_suite("seedtext")) {
  const std::string payload = "\x1b[2J\nFORGED took 1 cycles per page\r\xc2\x9b";
  for (Harness h : {Harness::fastc, Harness::hahn}) {
    SeedRun run = synth_run(h == Harness::hahn ? "hahn" : "xmm64", h);
    run.header.cpu_model = "CPU" + payload;
    run.header.tsc_source = "tsc" + payload;
    run.results[0].seed->label = "label" + payload;
    run.results[1].status = {StatusKind::skipped, "lacks" + payload, 0, std::nullopt};
    run.results[2].status = {StatusKind::error, "test invalid; timer overflow", 0, std::nullopt};
    run.results[2].seed->label = "overflow" + payload;
    for (SeedText mode : {SeedText::exact, SeedText::annotated}) {
      const std::string out = seed_table_text(run, mode);
      for (std::string l : golden::lines(out)) {
        std::erase(l, '\t');  // the programs' own tabs
        CHECK_MESSAGE(terminal_text(l) == l, l);
        CHECK(l.rfind("FORGED", 0) == std::string::npos);
      }
      const std::string shown = "\\x1b[2J\\nFORGED took 1 cycles per page\\r\\u009b";
      CHECK(out.find("'label" + shown + "'") != std::string::npos);
      if (mode == SeedText::exact) continue;
      CHECK(out.find("# CPU" + shown + ", pinned to CPU 0") != std::string::npos);
      CHECK(out.find("(TSC 2000.000 MHz, tsc" + shown + ")") != std::string::npos);
      CHECK(out.find("\t skipped: lacks" + shown + "\n") != std::string::npos);
      CHECK(out.find("\t('overflow" + shown + "')") != std::string::npos);
    }
  }
}
