// The run's closing text (src/results/summary.*): the noise summary line. The
// summary and layout tables are in test_golden.cpp with the other writers of the
// fixed run.
#include <doctest/doctest.h>

#include <algorithm>

#include "src/model/noise.hpp"
#include "src/model/result_json.hpp"
#include "src/results/answer_text.hpp"
#include "src/results/markdown.hpp"
#include "src/results/summary.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/paired_sweep.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

TEST_CASE("golden: the noise summary line with sentinel readings and re-measured tasks, and without readings" *
          doctest::test_suite("golden")) {
  // Three repetitions a point (a repetition cv to report), six readings, one disturbed,
  // 8 tasks re-measured after the 48 planned.
  const RunDoc three = golden::repeated(golden::run(), 3);
  const RunDoc noisy = golden::with_readings(three, {100, 101, 99, 102, 130, 100}, {400, 410, 395, 405, 600, 402},
                                             {false, false, false, false, true, false}, 56, 8);
  CHECK(golden::check("noise-summary.txt", noise_summary(noisy)) == "");
  // --no-sentinel: no readings, nothing re-measured.
  RunDoc quiet = three;
  quiet.context.protocol->noise = compute_noise({}, {}, 0, 48, 0, 0.25, 12, quiet.results);
  CHECK(golden::check("noise-summary-no-readings.txt", noise_summary(quiet)) == "");
  // No noise record (a run from before it): no line.
  RunDoc none = three;
  none.context.protocol.reset();
  CHECK(noise_summary(none) == "");
}

namespace {
/// A run with a layout cliff (memcpy) and two fill effects (an nt clear, memset).
RunDoc findings_run() {
  RunDoc run;
  auto dist = [](int64_t d) {
    Layout l;
    l.distance = d;
    return l;
  };
  // memcpy at 4 and 16 KiB: 21x slower at distances 1..3 (4 KiB aliasing), steady elsewhere.
  for (uint64_t size : {4096u, 16384u}) {
    for (int64_t d : {65536, 65537, 65538, 65539, 69632})
      run.results.push_back(golden::baseline("memcpy", size, dist(d), d >= 65537 && d <= 65539 ? 2100 : 100));
  }
  // A steady kernel beside it says nothing.
  for (int64_t d : {65536, 65537}) run.results.push_back(golden::generated("copy/avx", 4096, dist(d), 60));
  // A non-temporal clear: 42 GB/s with zeros, 9.7 with 0xaa, at 16 MiB (1e9 B/s = bytes per ns).
  const uint64_t mib16 = 16u << 20;
  run.results.push_back(golden::generated("clear/avx/nt", mib16, {}, double(mib16) / 42 * 2));
  run.results.push_back(golden::generated("clear/avx/nt/fill:0xaa", mib16, {}, double(mib16) / 9.7 * 2));
  // rep_stosb is a string spec like clear/string, but another kernel: no "fill effect" between them.
  Result rep = golden::generated("clear/string/unroll:1", mib16, {}, 1000);
  rep.kind = KernelKind::baseline;
  rep.point.kernel = "rep_stosb";
  run.results.push_back(rep);
  run.results.push_back(golden::generated("clear/string/unroll:1", mib16, {}, 2000));
  // memset of zeros and of 0xaa: a fill effect of libc's, under its own name.
  run.results.push_back(golden::baseline("memset", mib16, {}, double(mib16) / 65 * 2));
  Result aa = golden::baseline("memset", mib16, {}, double(mib16) / 32.5 * 2);
  aa.point.kernel = "memset/fill:0xaa";
  aa.libc->fill = 0xaa;
  run.results.push_back(aa);
  // A temporal clear whose fill does not matter (within 1.25x).
  run.results.push_back(golden::generated("clear/avx", mib16, {}, 1000));
  run.results.push_back(golden::generated("clear/avx/fill:0xaa", mib16, {}, 1100));
  return run;
}
}  // namespace

TEST_CASE("what the data shows: a layout cliff and a fill effect, said in a line each" * doctest::test_suite("golden")) {
  RunDoc run = findings_run();
  CHECK(findings(run) ==
        "\nwhat the data shows:\n"
        "layout cliff: memcpy at 4 KiB..16 KiB: up to 21.0x slower at dist:65537, dist:65538, dist:65539 than at its "
        "best layout (dist:65536)\n"
        "fill effect: clear/avx/unroll:128/scratch:4/nt/fwd at 16 MiB: 42.0 GB/s with fill 0x00, 9.7 GB/s with 0xaa "
        "(4.3x)\n"
        "fill effect: memset at 16 MiB: 65.0 GB/s with fill 0x00, 32.5 GB/s with 0xaa (2.0x)\n");
  CHECK(findings(golden::run()) == "");
  // A run's closing text: three lines at most, then how many more kex summary prints.
  CHECK(findings(run, true) == findings(run));
  const uint64_t mib16 = 16u << 20;
  run.results.push_back(golden::generated("clear/sse/nt", mib16, {}, double(mib16) / 40 * 2));
  run.results.push_back(golden::generated("clear/sse/nt/fill:0xaa", mib16, {}, double(mib16) / 8 * 2));
  const std::string full = findings(run), compact = findings(run, true);
  CHECK(std::count(full.begin(), full.end(), '\n') == 6);
  CHECK(compact == full.substr(0, full.rfind("fill effect: memset")) + "... and 1 more (kex summary prints them)\n");
}

TEST_CASE("what the data shows: a fill effect over sizes, one whose faster fill changes, and effects both ways" *
          doctest::test_suite("golden")) {
  RunDoc run;
  // clear/avx/nt: 0x00 faster at 4 and 16 MiB (2x, then 4x). clear/sse/nt: 0xaa faster at
  // 4 MiB, 0x00 at 16 MiB. clear/avx512/nt: 0xaa faster (3x) - against clear/avx/nt's 0x00.
  auto add = [&](const std::string& k, uint64_t size, double gbps_00, double gbps_aa) {
    run.results.push_back(golden::generated(k, size, {}, double(size) / gbps_00 * 2));  // as findings_run
    run.results.push_back(golden::generated(k + "/fill:0xaa", size, {}, double(size) / gbps_aa * 2));
  };
  add("clear/avx/nt", 4u << 20, 40, 20);
  add("clear/avx/nt", 16u << 20, 40, 10);
  add("clear/sse/nt", 4u << 20, 10, 30);
  add("clear/sse/nt", 16u << 20, 30, 10);
  add("clear/avx512/nt", 16u << 20, 10, 30);
  CHECK(findings(run) ==
        "\nwhat the data shows:\n"
        "fill effect: clear/avx/unroll:128/scratch:4/nt/fwd at 4 MiB..16 MiB: up to 4.0x, at 16 MiB: 40.0 GB/s with "
        "fill 0x00, 10.0 GB/s with 0xaa\n"
        "fill effect: clear/avx512/unroll:256/scratch:4/nt/fwd at 16 MiB: 30.0 GB/s with fill 0xaa, 10.0 GB/s with 0x00 "
        "(3.0x)\n"
        "fill, no effect to name: clear/sse/unroll:64/scratch:4/nt/fwd at 4 MiB..16 MiB differs by up to 3.0x between "
        "fills, but the faster fill changes (0x00 at 1 size, 0xaa at 1 size): fills are measured in separate rounds, so "
        "a machine state that changed during the run is likelier\n"
        "fill effects point both ways (a fill faster for one kernel, slower for another): fills are measured in separate "
        "rounds, so a machine state that changed during the run is likelier; a second run tells\n");
}

TEST_CASE("a summary block with a long condition keeps its columns under their header") {
  RunDoc run = golden::run();
  Layout far;
  far.src_offset = 1;
  far.distance = 2097153;
  Result r = golden::generated("copy/avx", 4096, far, 60);
  run.results = {r};
  const std::string t = summary_table(run);
  const size_t head = t.find("copy (src:1/dist:2097153) fastest kernel");
  REQUIRE(head != std::string::npos);
  const size_t head_col = t.find("fastest kernel", head) - (t.rfind('\n', head) + 1);
  const size_t row = t.find("4 KiB ", head);
  REQUIRE(row != std::string::npos);
  const size_t row_col = t.find("copy/avx", row) - (t.rfind('\n', row) + 1);
  CHECK(head_col == row_col);
}

TEST_CASE("golden: a run's compact summary prints the first block of each op and names the others" *
          doctest::test_suite("golden")) {
  const RunDoc run = golden::run();
  CHECK(golden::check("summary-compact.txt", summary_table(run, true)) == "");
  const std::string full = summary_table(run);
  CHECK(full.find("copy (dist:4160)") != std::string::npos);
  CHECK(full.find("also measured") == std::string::npos);
}

TEST_CASE("golden: the paired summary table (winner, ties, lead, ratio to libc with intervals)" *
          doctest::test_suite("golden")) {
  // Two groups of four (copy at 4 KiB and 1 MiB), 12 rounds; each round's times are the
  // kernel's time x a machine state shared by the round x a fixed, small, per-kernel wobble.
  const std::vector<double> state = {1.0, 1.7, 1.1, 1.0, 1.6, 1.2, 1.0, 1.05, 1.7, 1.0, 1.3, 1.1};
  auto paired = [&](Result r, double ticks, double wobble) {
    r.reps.clear();
    for (size_t k = 0; k < state.size(); ++k) {
      const double t = ticks * state[k] * (1 + wobble * ((k * 7) % 5 - 2.0) / 2);
      Repetition rep = golden::rep(t, 8, {uint64_t(t * 8), uint64_t(t * 8)}, "round");
      rep.round = k + 1;
      r.reps.push_back(rep);
    }
    return r;
  };
  RunDoc run = golden::run();
  run.results.clear();
  for (uint64_t size : {4096u, 1u << 20}) {
    const double s = size == 4096 ? 1 : 256;
    run.results.push_back(paired(golden::generated("copy/avx", size, {}, 60 * s), 60 * s, 0.004));
    run.results.push_back(paired(golden::generated("copy/avx512", size, {}, 60.3 * s), 60.3 * s, 0.004));
    run.results.push_back(paired(golden::generated("copy/sse", size, {}, 90 * s), 90 * s, 0.004));
    run.results.push_back(paired(golden::baseline("memcpy", size, {}, (size == 4096 ? 75 : 59) * s),
                                 (size == 4096 ? 75 : 59) * s, 0.02));
  }
  CHECK(golden::check("summary-paired.txt", summary_table(run)) == "");
  CHECK(golden::check("summary-paired.md", summary_markdown(run)) == "");
}

TEST_CASE("golden: the summary of the fixed run as Markdown, and kex summary prints it" * doctest::test_suite("golden")) {
  const RunDoc run = golden::run();
  CHECK(golden::check("summary.md", summary_markdown(run)) == "");
  TmpDir d;
  spit(d / "r.json", to_json(run).dump());
  auto md = shell_stdout(kKex + " summary " + d / "r.json" + " --format markdown");
  CHECK(md.status == 0);
  CHECK(md.text == answer_markdown(run) + summary_markdown(run));
  auto text = shell_stdout(kKex + " summary " + d / "r.json");
  CHECK(text.status == 0);
  CHECK(text.text == answer_text(run, false) + summary_table(run) + layout_table(run) + findings(run) + noise_summary(run));
  CHECK(shell(kKex + " summary " + d / "r.json --format html").status == 2);
}

TEST_CASE("md_text: every character that could end a cell or open markup is escaped, controls made visible" *
          doctest::test_suite("text")) {
  CHECK(md_text("copy/avx/unroll:128/scratch:4/t/fwd") == "copy/avx/unroll:128/scratch:4/t/fwd");
  CHECK(md_text("a|b`c\nd<e>&f*g_h[i](j)~k$") == "a\\|b\\`c\\\\nd\\<e\\>\\&f\\*g\\_h\\[i\\](j)\\~k\\$");
  CHECK(md_text("two\nlines\x1b[2J") == "two\\\\nlines\\\\x1b\\[2J");
  CHECK(md_table({"a", "b"}, "lr", {{"1", "2"}, {"3"}}) == "| a | b |\n| :--- | ---: |\n| 1 | 2 |\n| 3 |  |\n");
  CHECK_THROWS_AS(md_table({"a"}, "l", {{"1", "2"}}), std::logic_error);
}

TEST_CASE("the summary of presets under a seed harness names the fastest baseline, never a row of '-'" *
          doctest::test_suite("golden")) {
  // kex run --preset fastc --harness fastc --separate: the presets are timed by fast.c's
  // harness, only the baselines by kex's (measured alone, no rounds).
  RunDoc run = golden::run();
  run.results.clear();
  Result seed = golden::preset("fastc/faster_copy", 4096, 800);
  seed.point.at.harness = Harness::fastc;
  run.results.push_back(seed);
  run.results.push_back(golden::baseline("memcpy", 4096, {}, 80));
  Result rep = golden::generated("copy/string/unroll:1", 4096, {}, 64);
  rep.kind = KernelKind::baseline;
  rep.point.kernel = "rep_movsb";
  run.results.push_back(rep);
  const std::string table = summary_table(run);
  // 4096 B in 64 ticks at 2 GHz = 32 ns: 128 GB/s; memcpy 80 ticks: 102.4 GB/s.
  CHECK(table.find("\n           4 KiB rep_movsb ") != std::string::npos);
  CHECK(table.find("   128.00    102.40   1.25x    128.00\n") != std::string::npos);
  CHECK(table.find(" - ") == std::string::npos);
  // Nothing under kex's harness at all: no table.
  run.results.erase(run.results.begin() + 1, run.results.end());
  CHECK(summary_table(run) == "");
}

TEST_CASE("a figure on fewer rounds than a 95% interval needs is shown with its count, never as ±0.0%" *
          doctest::test_suite("summary")) {
  using paired_sweep::Kernel;
  // Four rounds: [min, max] of four holds the median with 88%, not 95%.
  const RunDoc four = paired_sweep::sweep({4096}, {Kernel{"copy/sse/unroll:64/scratch:4/t/fwd", {20}},
                                                   Kernel{"copy/avx/unroll:128/scratch:4/t/fwd", {10}},
                                                   Kernel{"memcpy", {12}}}, 4);
  const std::string t = summary_table(four);
  CHECK_MESSAGE(t.find(" (n=4)  1 ") != std::string::npos, t);  // GB/s, then the ties
  CHECK_MESSAGE(t.find("% (n=4) ") != std::string::npos, t);     // the lead: no interval either
  CHECK_MESSAGE(t.find("x (n=4) ") != std::string::npos, t);     // nor the ratio to memcpy
  CHECK_MESSAGE(t.find("\u00b1") == t.find("\u00b1 its 95% interval"), t);  // no ± but the legend's
  // Twenty rounds, 19 of the winner's flagged by the sentinel: one is left, and it is said.
  RunDoc flagged = paired_sweep::sweep({4096}, {Kernel{"copy/sse/unroll:64/scratch:4/t/fwd", {20}},
                                                Kernel{"memcpy", {12}}}, 20);
  for (size_t k = 1; k < 20; ++k) flagged.results[0].reps[k].disturbed = true;
  const std::string f = summary_table(flagged);
  CHECK_MESSAGE(f.find("(n=1)") != std::string::npos, f);
  CHECK_MESSAGE(f.find("\u00b10.0%") == std::string::npos, f);
  // Enough rounds: the interval.
  const RunDoc many = paired_sweep::sweep({4096}, {Kernel{"copy/sse/unroll:64/scratch:4/t/fwd", {20}},
                                                   Kernel{"memcpy", {12}}}, 12);
  CHECK(summary_table(many).find("20.00 (n=") == std::string::npos);
  CHECK(summary_table(many).find("\u00b1") != summary_table(many).find("\u00b1 its 95% interval"));
}

TEST_CASE("kex summary of a merge of two machines names them and says how to read one" * doctest::test_suite("cli")) {
  TmpDir d;
  RunDoc a = golden::run(), b = golden::run();
  a.context.host_name = "alpha";
  b.context.host_name = "beta\x1b[2J";
  b.context.machine.cpu_model = "Other CPU";
  spit(d / "m.json", nlohmann::json(to_json(std::vector<RunDoc>{a, b})).dump());
  const ShellOut r = shell(kKex + " summary " + d / "m.json");
  CHECK(r.status == 2);
  CHECK(r.text.find("m.json: holds 2 machines (a kex merge of several: M1 alpha (") != std::string::npos);
  CHECK(r.text.find(", M2 beta\\x1b[2J (Other CPU)); kex summary reads one machine's run: give the file that "
                    "machine's kex run wrote, or see them side by side with kex report FILE -o PAGE\n") !=
        std::string::npos);
  CHECK(r.text.find("per side") == std::string::npos);  // compare's wording
}
