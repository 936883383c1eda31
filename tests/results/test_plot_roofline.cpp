// The roofline figure (src/results/plot_roofline.*): one core's ceilings per level as
// segments across the sizes each level holds, the best entry per size as points; its
// text golden, its place in kex plot and the report, and a hostile level name.
#include <doctest/doctest.h>

#include "src/results/plot.hpp"
#include "src/results/plot_roofline.hpp"
#include "src/results/report_html.hpp"
#include "tests/support/gnuplot_check.hpp"
#include "tests/support/gnuplot_draw.hpp"
#include "tests/support/golden.hpp"

using namespace kex;

namespace {

CeilingLevel level(const char* name, uint64_t cache, uint64_t size, double r, double w, double nt) {
  CeilingLevel l;
  l.level = name;
  l.cache_bytes = cache;
  l.size = size;
  l.read_gbps = r;
  l.write_gbps = w;
  l.nt_write_gbps = nt;
  return l;
}

/// crossover_run() (copies from 4 KiB to 64 MiB, caches 32 KiB, 512 KiB and 32 MiB) with
/// ceilings at each level and DRAM; the LLC's non-temporal write not measured.
RunDoc with_ceilings() {
  RunDoc d = golden::crossover_run();
  Ceilings c;
  c.levels = {level("L1d", 32768, 16384, 400, 200, 60), level("L2", 524288, 262144, 230, 180, 58),
              level("LLC", 33554432, 16777216, 120, 80, 0), level("DRAM", 0, 134217728, 30, 20, 25)};
  c.rounds = 5;
  c.seconds = 4.5;
  d.context.ceilings = c;
  return d;
}

}  // namespace

TEST_CASE("golden: the roofline figure of a copy run with ceilings per level" * doctest::test_suite("golden")) {
  const std::vector<PlotFigure> figs = roofline_figures(with_ceilings());
  REQUIRE(figs.size() == 1);
  CHECK(figs[0].base == "roofline-copy");
  CHECK(golden::check("plots/roofline-copy.dat", figs[0].dat) == "");
  CHECK(golden::check("plots/roofline-copy.gp", figs[0].gp) == "");
  // A copy's L1d (32 KiB of src + dst) holds sizes up to 16 KiB: its read ceiling from 4 KiB to there.
  CHECK(figs[0].dat.find("# L1d\n4096 400\n16384 400\n") != std::string::npos);
  // The best entry per size: at 16 KiB rep_movsb's 75 GB/s.
  CHECK(figs[0].dat.find("16384 75   # rep_movsb\n") != std::string::npos);
  // The LLC's non-temporal write was not measured: no segment for it.
  CHECK(figs[0].dat.find("# LLC\n524288 0\n") == std::string::npos);
}

TEST_CASE("roofline: a point above its level's ceilings is drawn with why it can be" * doctest::test_suite("results")) {
  RunDoc d = with_ceilings();
  CHECK(roofline_figures(d).at(0).gp.find("above its level's ceilings") == std::string::npos);
  d.context.ceilings->levels[2] = level("LLC", 33554432, 16777216, 12, 8, 0);  // a VM's LLC probed in DRAM, say
  d.context.machine.cache_source = "sysfs";
  const std::string gp = roofline_figures(d).at(0).gp;
  CHECK(gp.find(" points lie above its level's ceilings: the levels' sizes are the machine's report (sysfs), not "
                "measured, and may not be where the bandwidth changes (a VM may report its host's L3)\" at graph 0.01, "
                "graph 0.03 left") != std::string::npos);
  // The LLC measured (the knee): its mark says so, and so does the note.
  d.context.ceilings->levels[2].size_from = SizeSource::measured;
  d.context.ceilings->knee = CacheKnee{};
  const std::string measured = roofline_figures(d).at(0).gp;
  CHECK(measured.find("set label \"LLC (size measured)\\012probed at 16 MiB\"") != std::string::npos);
  CHECK(measured.find(" above its level's ceilings: the levels above the L2 are measured in steps of 2x (the others are "
                      "the machine's report, sysfs), and a level may end between two footprints probed\"") !=
        std::string::npos);
}

TEST_CASE("roofline: no ceilings, no figure, and kex plot carries it and the report shows it under Why" *
          doctest::test_suite("results")) {
  CHECK(roofline_figures(golden::crossover_run()).empty());
  CHECK(roofline_figures(golden::run()).empty());
  RunDoc d = with_ceilings();
  CHECK(roofline_figures(d, "-2").at(0).base == "roofline-copy-2");
  std::vector<std::string> names;
  for (const PlotFigure& f : plot_figures({d}, PlotOptions{})) names.push_back(f.base);
  CHECK(names.back() == "roofline-copy");
  ReportFigures figs;
  figs.figures.push_back({"roofline-copy", "<svg viewBox=\"0 0 3 3\"><!-- roofline --></svg>"});
  const std::string page = report_html({{"c.json", d}}, figs);
  const size_t why = page.find("<section id=\"why\">"), fig = page.find("<!-- roofline -->");
  REQUIRE(why != std::string::npos);
  CHECK(fig > why);
  CHECK(fig < page.find("<section id=\"figures\">"));
}

TEST_CASE("roofline: a level's name from the file reaches the script only as a literal" * doctest::test_suite("results")) {
  RunDoc d = with_ceilings();
  d.context.ceilings->levels[0].level = "L1d`rm -rf x`\n\" system \"@m $(id)";
  const PlotFigure f = roofline_figures(d).at(0);
  CHECK(gpcheck::script_problem(f.gp) == "");
  CHECK(gpcheck::data_problem(f.dat) == "");
  CHECK(f.gp.find('`') == std::string::npos);
  CHECK(f.dat.find("# L1d?rm -rf x?") != std::string::npos);
  if (find_gnuplot().empty()) return;
  TmpDir t;
  const std::string svg = drawn_svg(t.path, f);
  CHECK_MESSAGE(svg.find("non-temporal write ceiling") != std::string::npos, svg);
}
