// The answer first (src/results/answer_text.*): a line per op and condition, the machine's
// state as a warning, the speedup figure, and the report opening with them.
#include <doctest/doctest.h>

#include "src/results/answer_text.hpp"
#include "src/results/plot_speedup.hpp"
#include "src/results/report_html.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/paired_sweep.hpp"

using namespace kex;
using paired_sweep::Kernel;

namespace {

const char* const kAvx = "copy/avx/unroll:128/scratch:4/t/fwd";
const char* const kSse = "copy/sse/unroll:64/scratch:4/t/fwd";

/// avx clearly fastest at 4 and 16 KiB (2x memcpy); from 64 KiB three kernels within 0.5%
/// of each other, the fastest changing at every size.
RunDoc answer_run() {
  return paired_sweep::sweep({4096, 16384, 65536, 262144, 1 << 20},
                             {Kernel{kAvx, {30, 30, 20, 20.1, 20}, 0.001}, Kernel{kSse, {20, 20, 20.1, 20, 20.1}, 0.001},
                              Kernel{"memcpy", {15, 15, 20, 20, 20}, 0.001}},
                             15);
}

}  // namespace

TEST_CASE("answer_lines: an untied winner over its sizes with its speed over memcpy, then a tie where the winner changes" *
          doctest::test_suite("summary")) {
  const RunDoc run = answer_run();
  const std::vector<std::string> lines = answer_lines(run, answer_groups(run), false);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == std::string("copy (warm): ") + kAvx +
                        " at 4 KiB..16 KiB, 2.00x memcpy; a tie at 64 KiB..1 MiB (3 kernels within 1% at each; memcpy "
                        "among them)");
}

TEST_CASE("answer_lines: one winner tied at some of its sizes says at how many, and libc winning says nothing over itself" *
          doctest::test_suite("summary")) {
  // avx fastest everywhere, tied with sse at 64 KiB only; memset-free copy: memcpy far behind.
  const RunDoc run = paired_sweep::sweep({4096, 65536, 1 << 20},
                                         {Kernel{kAvx, {30, 20.1, 30}, 0.001}, Kernel{kSse, {20, 20, 20}, 0.001},
                                          Kernel{"memcpy", {10, 10, 10}, 0.001}},
                                         15);
  CHECK(answer_lines(run, answer_groups(run), false) ==
        std::vector<std::string>{std::string("copy (warm): ") + kAvx +
                                 " at 4 KiB..1 MiB (tied with 1 other at 1 of 3 sizes), 2.01..3.00x memcpy"});
  const RunDoc libc = paired_sweep::sweep({4096}, {Kernel{kSse, {20}, 0.001}, Kernel{"memcpy", {30}, 0.001}}, 15);
  CHECK(answer_lines(libc, answer_groups(libc), false) == std::vector<std::string>{"copy (warm): memcpy at 4 KiB"});
}

TEST_CASE("state_warnings: a busy machine before the run and disturbed windows, nothing on a quiet one" *
          doctest::test_suite("summary")) {
  RunDoc run = answer_run();
  CHECK(state_warnings(run).empty());
  run.context.gbench.load_avg = std::vector<double>{1.59, 0.9, 0.5};
  run.context.machine.num_cpus = 2;
  REQUIRE(state_warnings(run).size() == 1);
  CHECK(state_warnings(run)[0].starts_with("the machine was busy as the run started (load average 1.59 over the last "
                                           "minute on 2 CPUs)"));
  const std::string t = answer_text(run, true);
  CHECK(t.starts_with("answer:\n  copy (warm): "));
  CHECK(t.find("\n  warning: the machine was busy") != std::string::npos);
}

TEST_CASE("speedup_figures: the winner over memcpy per size with its interval, 1 where memcpy wins" *
          doctest::test_suite("plot")) {
  RunDoc run = answer_run();
  run.context.host_name = "lab\" `id` $HOME";
  const std::vector<PlotFigure> figs = speedup_figures(run);
  REQUIRE(figs.size() == 1);
  CHECK(figs[0].base == "speedup-copy");
  // The 4 KiB row: about 2x, its interval around it.
  const size_t at = figs[0].dat.find("\n4096 ");
  REQUIRE(at != std::string::npos);
  double speedup = 0, low = 0, high = 0;
  REQUIRE(std::sscanf(figs[0].dat.c_str() + at + 6, "%lf %lf %lf", &speedup, &low, &high) == 3);
  CHECK(speedup == doctest::Approx(2.0).epsilon(0.01));
  CHECK(low <= speedup);
  CHECK(high >= speedup);
  // Each size names its winner: its number in the key and its name (a .dat string), a block per winner after.
  const std::string row = figs[0].dat.substr(at + 1, figs[0].dat.find('\n', at + 1) - at - 1);
  CHECK(row.ends_with(" \"" + std::string(kAvx) + "\""));
  CHECK(figs[0].dat.find("\n\n\n# index 1: ") != std::string::npos);
  CHECK(figs[0].gp.find("with labels offset 0,0.7") != std::string::npos);
  CHECK(figs[0].gp.find(" index 1 using 1:2 with points pt 7 ps 1.3 lc rgb \"") != std::string::npos);
  CHECK(figs[0].gp.find("title \"1: ") != std::string::npos);
  // The host name reaches the script only inside a string literal, its quote and backtick escaped.
  CHECK(figs[0].gp.find('`') == std::string::npos);
  CHECK(figs[0].gp.find("lab\\042 \\140id\\140 \\044HOME") != std::string::npos);
}

TEST_CASE("report_html opens with the answer, its warnings, and the speedup figures before the machine table" *
          doctest::test_suite("html")) {
  RunDoc run = answer_run();
  run.context.gbench.load_avg = std::vector<double>{2.5, 1, 1};
  ReportFigures figs;
  figs.figures.push_back({"speedup-copy", "<svg viewBox=\"0 0 3 3\"></svg>"});
  const std::string page = report_html({{"a.json", run}}, figs);
  const size_t answer = page.find("<section id=\"answer\">"), machine = page.find("<section id=\"machine\">");
  REQUIRE(answer != std::string::npos);
  CHECK(answer < machine);
  CHECK(page.find("<a href=\"#answer\">") < page.find("<a href=\"#machine\">"));
  const std::string part = page.substr(answer, machine - answer);
  CHECK(part.find("<li>copy (warm): copy/avx/unroll:128/scratch:4/t/fwd at 4 KiB..16 KiB") != std::string::npos);
  CHECK(part.find("warning: the machine was busy as the run started (load average 2.50") != std::string::npos);
  CHECK(part.find("<figcaption>speedup-copy</figcaption>") != std::string::npos);
}

TEST_CASE("report_html: what the data shows is a list of lines, not a <pre> the page's edge clips" *
          doctest::test_suite("html")) {
  RunDoc run;
  const uint64_t mib16 = 16u << 20;  // a fill effect: 42 GB/s with zeros, 9.7 with 0xaa
  run.results.push_back(golden::generated("clear/avx/nt", mib16, {}, double(mib16) / 42 * 2));
  run.results.push_back(golden::generated("clear/avx/nt/fill:0xaa", mib16, {}, double(mib16) / 9.7 * 2));
  const std::string page = report_html({{"a.json", run}}, {});
  CHECK(page.find("<ul>\n<li>fill effect: clear/avx/unroll:128/scratch:4/nt/fwd at 16 MiB: 42.0 GB/s with fill 0x00") !=
        std::string::npos);
  CHECK(page.find("<pre>fill effect") == std::string::npos);
  CHECK(page.find("<li>what the data shows:") == std::string::npos);
  // Two figures to a row at most (a column of 36rem): a heatmap's labels keep their size.
  CHECK(page.find("grid-template-columns:repeat(auto-fill,minmax(36rem,1fr))") != std::string::npos);
}
