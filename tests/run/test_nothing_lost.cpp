// Nothing finished is lost: seed-harness passes are journaled as they end, a measuring
// worker killed from outside keeps what it finished, and the segment table answers a
// stop within a chunk of time, whatever its iteration count.
#include <doctest/doctest.h>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/child.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/slowdown.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

const std::string kKex = KEX_BINARY;

}  // namespace

TEST_CASE("the segment table inside kex run stops within 3 s of a SIGINT at segments.iterations 5e7" *
          doctest::test_suite("nothing_lost")) {
  TmpDir d;
  // 5e7 iterations a case over 101 samples: a sample is shorter than the old 4 M-iteration
  // chunk, so the stop was seen only between cases (4.5-10.3 s on a VM).
  spit(d / "seg.json", R"({"segments": {"iterations": 50000000}, "baselines": false})");
  KexChild c({"run", d / "seg.json", "-o", d / "r.json"}, d / "log");
  REQUIRE_MESSAGE(wait_until([&] { return slurp(d / "log").find("segment-override table") != std::string::npos; },
                             30 * kSlowdown),
                  slurp(d / "log"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));  // past the probes, into a measured case
  const auto [status, s] = c.stop({SIGINT});
  CHECK(status == 130);
  CHECK(s < 3 * kSlowdown);
  const auto doc = nlohmann::json::parse(slurp(d / "r.json"));
  CHECK(doc["context"]["interrupted"] == true);
  CHECK(doc["context"]["segments"]["interrupted"] == true);
}
