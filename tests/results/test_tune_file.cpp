// The file kex tune writes (src/results/tune_file.*): its interrupted flag and its tune
// section, read back.
#include <doctest/doctest.h>

#include "src/results/tune_file.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

TEST_CASE("a tune stopped after its race (in the tunables' validation) says interrupted in its file" *
          doctest::test_suite("tune")) {
  TuneRun run;
  run.tune.budget_s = 5;
  run.tune.used_s = 4.5;
  CHECK(tune_results_json(run)["context"]["interrupted"] == false);
  // The race finished (its context says so); the stop came during the validation.
  run.interrupted = true;
  const nlohmann::ordered_json j = tune_results_json(run);
  CHECK(j["context"]["interrupted"] == true);
  CHECK(j["tune"]["budget_s"] == 5.0);
  TmpDir d;
  spit(d / "t.json", j.dump());
  CHECK(load_tune(d / "t.json").used_s == 4.5);
}
