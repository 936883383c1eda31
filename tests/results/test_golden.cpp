// Golden files: one fixed run (measured, skipped, refused, crashed, interrupted
// and seed-harness points) through every writer, compared with tests/golden/.
#include <doctest/doctest.h>

#include "src/model/result_json.hpp"
#include "src/results/export.hpp"
#include "src/results/plot.hpp"
#include "src/results/seed_text.hpp"
#include "src/results/summary.hpp"
#include "tests/support/golden.hpp"

using namespace kex;

TEST_CASE("golden: every writer prints the fixed run exactly" * doctest::test_suite("golden")) {
  const RunDoc run = golden::run();
  CHECK(golden::check("run.json", to_json(run).dump(1) + "\n") == "");
  CHECK(golden::check("gbench.json", to_gbench({run}).dump(1) + "\n") == "");
  CHECK(golden::check("run.csv", to_csv({run})) == "");
  CHECK(golden::check("run-repetitions.csv", to_csv({run}, CsvTable::repetitions)) == "");
  CHECK(golden::check("run-samples.csv", to_csv({run}, CsvTable::samples)) == "");
  CHECK(golden::check("summary.txt", summary_table(run)) == "");
  CHECK(golden::check("layout.txt", layout_table(run)) == "");
  CHECK(golden::check("seed-fastc.txt", seed_table_text(golden::seed_run())) == "");
  CHECK(golden::check("seed-kex.txt", kex_seed_text(run)) == "");
}

TEST_CASE("round trip: JSON -> Result -> JSON is the same document, and the Results are equal" * doctest::test_suite("golden")) {
  const RunDoc run = golden::run();
  const nlohmann::json j = to_json(run);
  const std::vector<RunDoc> back = docs_from_json(j, "golden");
  REQUIRE(back.size() == 1);
  REQUIRE(back.front().results.size() == run.results.size());
  for (size_t i = 0; i < run.results.size(); ++i) CHECK_MESSAGE(back.front().results[i] == run.results[i], run.results[i].name());
  CHECK(nlohmann::json(to_json(back.front())) == j);
  // A second machine: the multi-machine document splits back into the two runs.
  RunDoc other = run;
  other.context.machine.cpu_model = "Other CPU";
  const std::vector<RunDoc> both = docs_from_json(to_json(std::vector<RunDoc>{run, other}), "merged");
  REQUIRE(both.size() == 2);
  CHECK(both[1].context.machine.cpu_model == "Other CPU");
  CHECK(both[1].results == run.results);
}

TEST_CASE("golden: the plot writer's .dat and .gp of the fixed run, and of two runs with --ratio" *
          doctest::test_suite("golden")) {
  const RunDoc run = golden::run();
  PlotOptions o;
  o.render = false;
  std::vector<std::string> names;
  for (const auto& f : plot_figures({run}, o)) {
    names.push_back(f.base);
    CHECK(golden::check("plots/" + f.base + ".dat", f.dat) == "");
    CHECK(golden::check("plots/" + f.base + ".gp", f.gp) == "");
  }
  // Heatmaps named by kernel (kex's name of it: "kernel" for a preset) and their two axes.
  CHECK(names == std::vector<std::string>{"copy-warm", "copy-warm-presets", "clear-warm",
                                          "heatmap-copy-avx-unroll-128-scratch-4-t-fwd-by-size-and-distance",
                                          "heatmap-copy-string-unroll-1-t-fwd-by-size-and-distance",
                                          "heatmap-memcpy-by-size-and-distance",
                                          "heatmap-clear-avx-unroll-128-scratch-4-t-fwd-by-size-and-distance",
                                          "heatmap-memset-by-size-and-distance", "heatmap-kernel-by-size-and-distance",
                                          "presets-clear", "presets-copy"});
  RunDoc other = run;
  other.context.host_name = "other";
  for (auto& r : other.results)
    for (auto& rep : r.reps) rep.per_call.median *= 1.25;
  o.ratio = true;
  o.labels = {"A", "B"};
  for (const auto& f : plot_figures({run, other}, o))
    if (f.base == "ratio-copy-warm") {
      CHECK(golden::check("plots/two-runs-ratio-copy-warm.dat", f.dat) == "");
      CHECK(golden::check("plots/two-runs-ratio-copy-warm.gp", f.gp) == "");
    }
}
