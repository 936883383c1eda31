// Streams everywhere a group goes (issue 50): the fixed stream run (tests/support/
// golden_stream.hpp) through the summary's stream table, the results JSON (a round trip
// and the schema), the Google Benchmark export (time per call), the plot writer's stream
// figure (the size CDF beside the times) and the report's Streams section.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "src/model/result_json.hpp"
#include "src/results/export.hpp"
#include "src/results/plot.hpp"
#include "src/results/render.hpp"
#include "src/results/report_html.hpp"
#include "src/results/summary.hpp"
#include "tests/support/gnuplot_check.hpp"
#include "tests/support/gnuplot_draw.hpp"
#include "tests/support/golden_stream.hpp"

using namespace kex;

TEST_CASE("golden: a stream run's table, results file and the fixed sizes' prediction" * doctest::test_suite("golden")) {
  const RunDoc run = golden::stream_run();
  CHECK(golden::check("stream-summary.txt", summary_table(run)) == "");
  CHECK(golden::check("stream.json", to_json(run).dump(1) + "\n") == "");
  const std::vector<RunDoc> back = docs_from_json(to_json(run), "stream");
  REQUIRE(back.size() == 1);
  CHECK(back.front().context.streams == run.context.streams);  // the CDF and the fixed-size shares too
  CHECK(back.front().results == run.results);
  // (A real stream run's file against the schema: tests/cli/test_stream.cpp.)
}

TEST_CASE("the CDF a stream records: P(size <= s) at 0, 1, 2, 3, 4, 6, 8, ... up to the largest size" *
          doctest::test_suite("model")) {
  const Distribution d = parse_distribution("size,count\n0,1\n5,2\n100,1\n", "x", "x.csv");
  const auto cdf = distribution_facts(d).cdf;
  const std::vector<std::pair<uint64_t, double>> want = {{0, 0.25}, {1, 0.25}, {2, 0.25}, {3, 0.25}, {4, 0.25},
                                                         {6, 0.75}, {8, 0.75}, {12, 0.75}, {16, 0.75}, {24, 0.75},
                                                         {32, 0.75}, {48, 0.75}, {64, 0.75}, {96, 0.75}, {128, 1.0}};
  CHECK(cdf == want);
  // Memcpy_Fleet's: at most 63 points, rising, ending at 1.
  const auto fleet = distribution_facts(*shipped_distribution("Memcpy_Fleet")).cdf;
  REQUIRE(fleet.size() <= 63);
  CHECK(fleet.back().second == doctest::Approx(1));
  for (size_t i = 1; i < fleet.size(); ++i) CHECK(fleet[i].second >= fleet[i - 1].second);
}

TEST_CASE("Google Benchmark export: a stream point's row is per call, as a memcpy benchmark counts a call an iteration" *
          doctest::test_suite("results")) {
  const RunDoc run = golden::stream_run();
  const nlohmann::json g = to_gbench({run});
  size_t rows = 0;
  for (const auto& b : g["benchmarks"]) {
    if (b["name"] != "rep_movsb/552960/stream:Memcpy_Fleet/footprint:65536/calls:4096" &&
        b["name"] != "rep_movsb/552960/stream:Memcpy_Fleet/footprint:65536/calls:4096_median")
      continue;
    ++rows;
    CHECK(b["calls_per_pass"] == 4096);
    CHECK(b["iterations"].get<uint64_t>() % 4096 == 0);
    if (b["run_type"] == "aggregate") {
      const double ns = aggregate(run.results[0]).median_ns / 4096;  // rep_movsb's median pass over its calls
      CHECK(ns == doctest::Approx(6.6).epsilon(0.05));
      CHECK(b["real_time"].get<double>() == doctest::Approx(ns));
      CHECK(b["bytes_per_second"].get<double>() == doctest::Approx(552960 / (ns * 4096) * 1e9));
    }
  }
  CHECK(rows == 13);  // 12 repetitions and the median
  for (const auto& b : g["benchmarks"])
    if (b["name"] == "rep_movsb/8") CHECK(!b.contains("calls_per_pass"));
}

TEST_CASE("golden: the stream figure, the distribution's CDF beside each competitor's ns per call" *
          doctest::test_suite("golden")) {
  const RunDoc run = golden::stream_run();
  PlotOptions o;
  o.render = false;
  std::vector<PlotFigure> streams;
  for (PlotFigure& f : plot_figures({run}, o))
    if (f.base.starts_with("stream-")) streams.push_back(std::move(f));
  REQUIRE(streams.size() == 1);
  const PlotFigure& f = streams.front();
  CHECK(f.base == "stream-copy-Memcpy-Fleet-65536");
  CHECK(golden::check("plots/" + f.base + ".dat", f.dat) == "");
  CHECK(golden::check("plots/" + f.base + ".gp", f.gp) == "");
  CHECK(gpcheck::script_problem(f.gp) == "");
  CHECK(gpcheck::data_problem(f.dat) == "");
  // The bars: fastest first, at ns per call.
  CHECK(f.dat.find("\n0 6.6") != std::string::npos);
  CHECK(f.dat.find(" \"rep_movsb\"\n1 ") != std::string::npos);
  if (find_gnuplot().empty()) return;
  TmpDir d;
  const std::string svg = drawn_svg(d.path, f);
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("rep_movsb") != std::string::npos);
}

TEST_CASE("report: a Streams section with the stream table and its figure, linked from the contents" *
          doctest::test_suite("html")) {
  const RunDoc run = golden::stream_run();
  ReportFigures figs;
  figs.figures.push_back({"stream-copy-Memcpy-Fleet-65536", "<svg viewBox=\"0 0 1 1\"></svg>"});
  const std::string page = report_html({{"s.json", run}}, figs);
  const size_t at = page.find("<section id=\"streams\">\n<h2>Streams</h2>\n<pre>");
  REQUIRE(at != std::string::npos);
  CHECK(page.find("copy on stream Memcpy_Fleet", at) != std::string::npos);
  CHECK(page.find("<figcaption>stream-copy-Memcpy-Fleet-65536</figcaption>", at) != std::string::npos);
  CHECK(page.find("<li><a href=\"#streams\">Streams</a></li>") != std::string::npos);
  // A run without streams has no such section.
  CHECK(report_html({{"r.json", golden::run()}}, {}).find("id=\"streams\"") == std::string::npos);
}
