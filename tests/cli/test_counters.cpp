// kex run --counters: counters per repetition and per byte, the no-PMU note once,
// bad names refused before any work.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

size_t count_of(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

const std::string src_dir = KEX_SOURCE_DIR;

}  // namespace

TEST_CASE("--counters: task-clock per operation agrees with the TSC time, cycles as the machine allows" *
          doctest::test_suite("cli")) {
  const TmpDir dir;
  const std::string& d = dir.path;
  const ShellOut r = shell(kKex + " run copy/sse --sizes 4KiB,256KiB --repetitions 2 --no-sentinel --counters "
                       "cycles,perf::PERF_COUNT_SW_TASK_CLOCK -o " + d + "/c.json");
  REQUIRE_MESSAGE(r.status == 0, r.text);
  std::ifstream in(d + "/c.json");
  const auto doc = nlohmann::json::parse(in);
  const auto& cs = doc["context"]["counters"];
  REQUIRE(cs.size() == 2);
  CHECK(cs[0]["name"] == "cycles");
  CHECK(cs[0]["hardware"] == true);
  CHECK(cs[1]["ok"] == true);  // a software counter counts on any machine
  const bool pmu = cs[0]["ok"].get<bool>();
  // Without a PMU: one note, not one per repetition.
  CHECK(count_of(r.text, "no PMU") == (pmu ? 0 : 1));
  size_t checked = 0;
  for (const auto& e : doc["benchmarks"]) {
    CAPTURE(e["name"]);
    const double ns = e["real_time"].get<double>();
    const auto& per_op = e["stats"]["counters_per_op"];
    // TASK_CLOCK counts nanoseconds on the CPU in a window that encloses each timed
    // sample (and the two calls that start and stop it), so per operation it is at most
    // the mean wall time of a sample per call, plus those calls; and it is at least
    // about the fastest sample's time, which is the least CPU time the kernel needs.
    // (real_time is a median and the counter a mean, so they are not compared.)
    const double hz = doc["context"]["machine"]["tsc_hz"].get<double>();
    double most_mean_ns = 0, least_ns = 1e300;
    for (const auto& rep : e["reps"]) {
      const double k = rep["calls_per_sample"].get<double>();
      double sum = 0;
      for (const auto& t : rep["samples_ticks"]) {
        sum += t.get<double>();
        least_ns = std::min(least_ns, t.get<double>() / k / hz * 1e9);
      }
      most_mean_ns = std::max(most_mean_ns, sum / double(rep["samples_ticks"].size()) / k / hz * 1e9);
    }
    const double task_ns = per_op["perf::PERF_COUNT_SW_TASK_CLOCK"].get<double>();
    CHECK(task_ns > 0.7 * least_ns);
    CHECK(task_ns < 1.25 * most_mean_ns);
    CHECK(least_ns <= ns);
    CHECK(e["stats"]["counters_per_byte"]["perf::PERF_COUNT_SW_TASK_CLOCK"].get<double>() ==
          doctest::Approx(task_ns / e["size"].get<double>()));
    CHECK(per_op.contains("cycles") == pmu);
    for (const auto& rep : e["reps"]) CHECK(rep["counters"]["perf::PERF_COUNT_SW_TASK_CLOCK"]["running"] == 1.0);
    ++checked;
  }
  CHECK(checked == 6);  // copy/sse, memcpy, rep_movsb at two sizes
  const ShellOut v = shell("python3 -c \"import json,jsonschema,sys; jsonschema.validate(json.load(open(sys.argv[1])), "
                       "json.load(open(sys.argv[2])), cls=jsonschema.Draft202012Validator); print('valid')\" " + d +
                       "/c.json " + src_dir + "/configs/schema/results.schema.json");
  CHECK_MESSAGE(v.text.rfind("valid", 0) == 0, v.text);
}

TEST_CASE("--counters: an unknown or empty name fails before any work, naming the option" * doctest::test_suite("cli")) {
  ShellOut r = shell(kKex + " run copy/sse --sizes 4KiB --counters no_such_event_anywhere --list");
  CHECK(r.status == 2);
  CHECK(r.text.find("--counters: unknown counter \"no_such_event_anywhere\"") != std::string::npos);
  CHECK(r.text.find("copy/sse") == std::string::npos);  // nothing listed: it failed first
  r = shell(kKex + " run copy/sse --sizes 4KiB --counters cycles,,instructions --list");
  CHECK(r.status == 2);
  CHECK(r.text.find("--counters: 'cycles,,instructions': an empty name") != std::string::npos);
}
