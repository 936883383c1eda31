// The run's closing text (src/results/summary.*): the noise summary line. The
// summary and layout tables are in test_golden.cpp with the other writers of the
// fixed run.
#include <doctest/doctest.h>

#include "src/model/noise.hpp"
#include "src/results/summary.hpp"
#include "tests/support/golden.hpp"

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
  quiet.context.rest["protocol"]["noise"] = noise_to_json(compute_noise({}, {}, 0, 48, 0, 0.25, 12, quiet.results));
  CHECK(golden::check("noise-summary-no-readings.txt", noise_summary(quiet)) == "");
  // No noise record (a run from before it): no line.
  RunDoc none = three;
  none.context.rest.erase("protocol");
  CHECK(noise_summary(none) == "");
}
