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

TEST_CASE("a tune's file keeps each repetition's statistics, not its raw samples, and the whole tune's wall time" *
          doctest::test_suite("tune")) {
  TuneRun run;
  run.tune.used_s = 184;
  Result r;
  r.point.kernel = "memcpy";
  r.point.at.size = 4096;
  r.kind = KernelKind::baseline;
  r.libc = LibcFacts{Function::memcpy};
  r.tsc_hz = 1e9;
  Repetition rep;
  rep.calls_per_sample = 4;
  rep.sample_ticks = {400, 404, 396, 440, 400, 408};
  rep.per_call = {6, 99, 99, 100, 105, 105, 99, 102, 0.015};
  rep.round = 1;
  r.reps = {rep, rep};
  run.doc.results = {r};
  run.doc.context.totals = RunTotals{};
  run.doc.context.totals->elapsed_s = 31.4;  // the last stage's
  const nlohmann::ordered_json j = tune_results_json(run);
  const auto& entry = j["benchmarks"][0];
  for (const auto& written : entry["reps"]) {
    CHECK(written["samples_ticks"].empty());
    CHECK(written["median_ticks"] == 100.0);
  }
  CHECK(entry["stats"]["max_ns"] == 110.0);  // computed from the samples before they were dropped
  CHECK(j["context"]["elapsed_s"] == 184.0);
  CHECK(j["context"]["points_written"] == 1);
}
