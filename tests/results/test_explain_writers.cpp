// The explain section's writers beyond the text: the Why figures (effects as bars with
// their intervals; names from the file only in the .dat and through gp_label), the
// report's Why section, and kex compare's effects of two explain files.
#include <doctest/doctest.h>

#include <filesystem>

#include "src/core/atomic_write.hpp"
#include "src/results/explain_compare.hpp"
#include "src/results/plot.hpp"
#include "src/results/plot_explain.hpp"
#include "src/results/report_html.hpp"
#include "tests/support/gnuplot_check.hpp"
#include "tests/support/gnuplot_draw.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

namespace {

ExplainEffect effect(const std::string& neighbour, const std::string& coord, const std::string& from,
                     const std::string& to, double ratio, double low, double high) {
  return {neighbour, coord, from, to, "", ratio, low, high, 20};
}

/// An explain section with one point: store (called, kernel faster), unroll (called,
/// neighbour faster), direction (no effect), one refused; the coordinate text hostile.
RunDoc explained(double store_ratio, double unroll_ratio) {
  RunDoc run;
  ExplainSection s;
  s.rounds = 20;
  ExplainPoint p{"copy/avx/unroll:256/scratch:4/t/fwd", "copy 4096", 4096, 20, {}, {}};
  p.effects = {effect("copy/avx/unroll:256/scratch:4/nt/fwd", "store", "t", "nt", store_ratio, store_ratio * 0.98,
                      store_ratio * 1.02),
               effect("copy/avx/unroll:128/scratch:4/t/fwd", "unroll\n\"`x`\" $(id)", "256", "128", unroll_ratio,
                      unroll_ratio * 0.99, unroll_ratio * 1.01),
               effect("copy/avx/unroll:256/scratch:4/t/bwd", "direction", "forward", "backward", 1.001, 0.998, 1.004),
               {"copy/avx512/unroll:256/scratch:4/t/fwd", "regs", "avx", "avx512", "this CPU lacks avx512f", 0, 0, 0, 0}};
  s.points.push_back(p);
  run.context.explain = s;
  return run;
}

}  // namespace

TEST_CASE("explain figures: a bar per measured effect with its interval, names only in the data" *
          doctest::test_suite("results")) {
  const std::vector<PlotFigure> figs = explain_figures(explained(4.0, 0.97));
  REQUIRE(figs.size() == 1);
  const PlotFigure& f = figs[0];
  CHECK(f.base == "why-1");
  // Three measured effects (the refused one left out), in the section's order.
  CHECK(f.dat.find("\"store t -> nt\" 4 3.92 4.08\n") != std::string::npos);
  CHECK(f.dat.find("\"direction forward -> backward\" 1.001 0.998 1.004\n") != std::string::npos);
  CHECK(f.dat.find("regs avx") == std::string::npos);
  CHECK(gpcheck::data_problem(f.dat) == "");
  CHECK(gpcheck::script_problem(f.gp) == "");
  CHECK(f.gp.find("$(id)") == std::string::npos);  // the hostile coordinate is data, never script
  CHECK(f.gp.find("-> 128") == std::string::npos);
  CHECK(f.gp.find("with boxxyerror") != std::string::npos);
  CHECK(f.gp.find("with xerrorbars") != std::string::npos);
  CHECK(f.gp.find("set object 1 rect from 0.990099, graph 0 to 1.01, graph 1") != std::string::npos);
  CHECK(explain_figures(RunDoc{}).empty());
  // plot_figures carries them, so kex plot and kex report draw them.
  bool found = false;
  for (const PlotFigure& p : plot_figures({explained(4.0, 0.97)}, PlotOptions{})) found |= p.base == "why-1";
  CHECK(found);
  if (find_gnuplot().empty()) return;
  TmpDir d;
  const std::string svg = drawn_svg(d.path, f);
  CHECK_MESSAGE(svg.find("store t -> nt") != std::string::npos, svg);
}

TEST_CASE("report: a Why section when the results carry an explain section" * doctest::test_suite("html")) {
  ReportFigures figs;
  figs.figures.push_back({"why-1", "<svg viewBox=\"0 0 3 3\"></svg>"});
  const std::string page = report_html({{"e.json", explained(4.0, 0.97)}}, figs);
  CHECK(page.find("<section id=\"why\">\n<h2>Why</h2>\n<pre>why copy/avx/unroll:256/scratch:4/t/fwd at copy 4096 (20 "
                  "rounds;") != std::string::npos);
  CHECK(page.find("  store t -&gt; nt: 4.00x the time [3.92-4.08]: t is faster\n") != std::string::npos);
  CHECK(page.find("<svg viewBox=\"0 0 3 3\"></svg>\n<figcaption>why-1</figcaption>") != std::string::npos);
  CHECK(page.find("<a href=\"#why\">Why</a>") != std::string::npos);
  const std::string plain = report_html({{"r.json", RunDoc{}}}, {});
  CHECK(plain.find("<section id=\"why\"") == std::string::npos);
}

TEST_CASE("compare: two explain files, the calls each makes and the contradictions" * doctest::test_suite("results")) {
  const RunDoc a = explained(4.0, 0.97);
  RunDoc b = explained(3.9, 1.03);  // unroll: A calls 128 faster, B 256 faster
  b.context.explain->points[0].effects[0] = effect("copy/avx/unroll:256/scratch:4/nt/fwd", "store", "t", "nt", 1.005,
                                                   0.995, 1.009);  // B: store no effect
  const std::vector<EffectPair> pairs = compare_effects(a, b);
  REQUIRE(pairs.size() == 4);
  CHECK(pairs[0].agreement == CallAgreement::a_only);
  CHECK(pairs[1].agreement == CallAgreement::contradicted);
  CHECK(pairs[2].agreement == CallAgreement::neither);
  CHECK(pairs[3].agreement == CallAgreement::neither);  // refused in both
  const std::string text = format_effect_comparison(pairs);
  CHECK(text.find("why copy/avx/unroll:256/scratch:4/t/fwd at copy 4096:\n") != std::string::npos);
  CHECK(text.find("  store t -> nt: A t is faster (4.00x), B no effect (1.00x): A only\n") != std::string::npos);
  CHECK(text.find("256 -> 128: A 128 is faster (0.97x), B 256 is faster (1.03x): CONTRADICTED\n") != std::string::npos);
  CHECK(text.find("\\n") != std::string::npos);  // the newline in the coordinate shown, not printed
  CHECK(text.ends_with("explain: 0 effects called by both runs alike, 1 contradicted, 1 by one run only, 2 by neither\n"));
  const std::vector<EffectPair> same = compare_effects(a, a);
  CHECK(format_effect_comparison(same).ends_with(
      "explain: 2 effects called by both runs alike, 0 contradicted, 0 by one run only, 2 by neither\n"));
  CHECK(compare_effects(a, RunDoc{}).empty());
  CHECK(format_effect_comparison({}) == "");
}
