// The results context's records (src/model/context_json.cpp): written by their field
// tables, read back equal, files from before a field still read, bad values named.
#include <doctest/doctest.h>

#include <string>

#include "src/core/error.hpp"
#include "src/model/result_json.hpp"
#include "tests/support/golden.hpp"

using namespace kex;

namespace {

/// The golden run with every record of a finished sweep's context filled in.
RunDoc full_run() {
  RunDoc d = golden::run();
  RunContext& c = d.context;
  c.sentinel_readings.push_back({{18.5, 52.25, 0.5, 8, false}, 8, false});
  c.sentinel_readings.push_back({{24.0, 70.0, 1.0, 16, true}, 8, true});
  c.buffers = BufferRecord{0, {{4194304, 4194304, true, 2097152, {0}}, {0, 8388608, false, -1, {}}}};
  c.incomplete_points.push_back({"copy/sse/unroll:64/scratch:4/t/fwd/4096", "the measuring worker was killed by SIGKILL",
                                 9, 2, 3});
  c.totals = RunTotals{std::vector<double>{0.5, 0.25, 0.125}, 12, 11, 3.5};
  return d;
}

nlohmann::json context_of(const RunDoc& d) { return nlohmann::json(to_json(d))["context"]; }

RunContext read_context(const nlohmann::json& ctx) {
  nlohmann::json doc = nlohmann::json(to_json(golden::run()));
  doc["context"] = ctx;
  return docs_from_json(doc, "f.json").at(0).context;
}

}  // namespace

TEST_CASE("context: readings, buffers, incomplete points and totals are written where a run writes them and read back equal" *
          doctest::test_suite("model")) {
  const RunDoc d = full_run();
  const nlohmann::ordered_json j = to_json(d)["context"];
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  auto at = [&](const std::string& k) { return std::find(keys.begin(), keys.end(), k) - keys.begin(); };
  // The order of a kex run's context: readings, incomplete points, protocol, buffers, totals.
  CHECK(at("shard") < at("sentinel_readings"));
  CHECK(at("sentinel_readings") < at("incomplete_points"));
  CHECK(at("incomplete_points") < at("protocol"));
  CHECK(at("protocol") < at("buffers"));
  CHECK(at("buffers") < at("load_avg_end"));
  CHECK(at("load_avg_end") < at("points_planned"));
  CHECK(at("points_written") < at("elapsed_s"));
  CHECK(j["sentinel_readings"][1].dump() ==
        R"({"l1_ticks_per_kib":24.0,"mem_ticks_per_kib":70.0,"at_s":1.0,"after_task":16,"disturbed":true,)"
        R"("window":8,"requeued":true})");
  CHECK(j["incomplete_points"][0].dump() ==
        R"({"point":"copy/sse/unroll:64/scratch:4/t/fwd/4096","message":"the measuring worker was killed by SIGKILL",)"
        R"("signal":9,"repetitions":2,"repetitions_asked":3})");
  CHECK(j["buffers"].dump() ==
        R"({"worker_cpu_numa_node":0,"plans":[{"bytes":4194304,"planned_bytes":4194304,"huge_pages_advised":true,)"
        R"("huge_page_bytes":2097152,"numa_nodes":[0]},{"bytes":0,"planned_bytes":8388608,)"
        R"("huge_pages_advised":false,"huge_page_bytes":-1,"numa_nodes":[]}]})");
  const RunContext back = read_context(context_of(d));
  CHECK(back.sentinel_readings == d.context.sentinel_readings);
  CHECK(back.buffers == d.context.buffers);
  CHECK(back.incomplete_points == d.context.incomplete_points);
  CHECK(back.totals == d.context.totals);
  CHECK(to_json(RunDoc{back, d.results}) == to_json(d));
}

TEST_CASE("context: a file from before load_avg_end, or from a run that did not finish, still reads" *
          doctest::test_suite("model")) {
  nlohmann::json ctx = context_of(full_run());
  ctx.erase("load_avg_end");
  RunContext c = read_context(ctx);
  REQUIRE(c.totals.has_value());
  CHECK_FALSE(c.totals->load_avg_end.has_value());
  CHECK(c.totals->points_planned == 12);
  CHECK(c.totals->elapsed_s == 3.5);
  CHECK_FALSE(nlohmann::json(to_json(RunDoc{c, {}}))["context"].contains("load_avg_end"));
  for (const char* k : {"points_planned", "points_written", "elapsed_s", "incomplete_points", "sentinel_readings",
                        "buffers"})
    ctx.erase(k);
  c = read_context(ctx);
  CHECK_FALSE(c.totals.has_value());
  CHECK_FALSE(c.buffers.has_value());
  CHECK(c.incomplete_points.empty());
  CHECK(c.sentinel_readings.empty());
}

TEST_CASE("context: a malformed record names its path, the value and what is allowed" * doctest::test_suite("model")) {
  auto error = [](const char* key, const nlohmann::json& v) {
    nlohmann::json ctx = context_of(full_run());
    ctx[nlohmann::json::json_pointer(key)] = v;
    try {
      read_context(ctx);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error("/incomplete_points/0/repetitions", "two") ==
        "f.json: context/incomplete_points/0/repetitions: \"two\": expected an integer in 0..18446744073709551615");
  CHECK(error("/incomplete_points", 3) == "f.json: context/incomplete_points: 3: expected a list of 0 to 16777216 entries");
  CHECK(error("/elapsed_s", -1) == "f.json: context/elapsed_s: -1: expected a number >= 0");
  CHECK(error("/load_avg_end", {1, 2, 3, 4}) ==
        "f.json: context/load_avg_end: [1,2,3,4]: expected a list of 0 to 3 entries");
  CHECK(error("/buffers/plans/1/huge_page_bytes", -2) ==
        "f.json: context/buffers/plans/1/huge_page_bytes: -2: expected an integer in -1..9223372036854775807");
  CHECK(error("/sentinel_readings/0/disturbed", "no") ==
        "f.json: context/sentinel_readings/0/disturbed: \"no\": expected true or false");
}
